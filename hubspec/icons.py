"""The plugin icon: which images a hub takes, and why it refuses one.

Every host that shows an icon takes PNG, JPEG and SVG: Claude Code (`icon`; `claude plugin
validate` and its directory checks accept an SVG), Codex (`interface.composerIcon`/`logo`:
OpenAI's own plugins ship SVG) and Cursor (`logo`: Cursor's own plugins ship SVG); the other
hosts show none. So an SVG is shipped as it is, never rasterized. What Claude Code's directory
check calls an unusable SVG is refused here, with the reason: a script, an event handler, a
`foreignObject`, animation, a `<style>` element, or a reference outside the file. A DTD is
refused before parsing (an icon needs none; entities are how XML bombs expand), except the
plain `<!DOCTYPE svg PUBLIC "..." "...">` line SVG editors write, which declares nothing.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

PNG = b"\x89PNG\r\n\x1a\n"
# the DOCTYPE SVG editors write, naming the public DTD without an internal subset: no entity
# can be declared in it, and the parser fetches nothing (a `[...]` subset is refused)
_PLAIN_DOCTYPE = re.compile(
    rb'<!DOCTYPE\s+svg(\s+PUBLIC\s+"[^"<>\[\]]*"\s+"[^"<>\[\]]*"|\s+SYSTEM\s+"[^"<>\[\]]*")?\s*>',
    re.IGNORECASE,
)
JPEG = b"\xff\xd8\xff"
ICON_MAX_BYTES = 2 * 1024 * 1024  # Claude Code's directory: "under 2 MB"
SVG_NS = "{http://www.w3.org/2000/svg}"
_REFUSED_ELEMENTS = {
    "script": "a script",
    "foreignObject": "a foreignObject",
    "style": "a <style> element",
    "animate": "animation",
    "animateMotion": "animation",
    "animateTransform": "animation",
    "set": "animation",
    "iframe": "an iframe",
}
# a value whose every url(...) names an element of this file: `url(#g)`, `url('#g')`
_LOCAL_URLS = re.compile(r"[^()]*(?:url\(\s*['\"]?#[^)]*\)[^()]*)+")
_HREF = re.compile(r"^(?:\{http://www\.w3\.org/1999/xlink\})?href$")
FIX = "use a square PNG, JPEG or plain SVG (shapes and gradients only) under 2 MB"


def kind_of(content: bytes) -> str | None:
    """`png`, `jpeg` or `svg` by content (not by name), else None."""
    if content.startswith(PNG):
        return "png"
    if content.startswith(JPEG):
        return "jpeg"
    head = content[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith((b"<?xml", b"<svg", b"<!--")) and b"<svg" in content[:65536].lower():
        return "svg"
    return None


def icon_problem(name: str, content: bytes) -> str | None:
    """Why `content` (the file `name`) is not an icon every host takes, else None."""
    if len(content) > ICON_MAX_BYTES:
        return f"{name!r} is {len(content):,} bytes (at most {ICON_MAX_BYTES:,})"
    kind = kind_of(content)
    if kind is None:
        return f"{name!r} is not a PNG, JPEG or SVG image"
    suffix = name.rsplit(".", 1)[-1].lower()
    if (kind == "svg") != (suffix == "svg"):
        return f"{name!r} holds a {kind.upper()} image under a .{suffix} name"
    return svg_problem(name, content) if kind == "svg" else None


def svg_problem(name: str, content: bytes) -> str | None:
    """Why the SVG `content` is refused (unparsable or unsafe), else None."""
    lower = content.lower()
    doctypes = lower.count(b"<!doctype")
    if b"<!entity" in lower or doctypes > 1 or (doctypes and not _PLAIN_DOCTYPE.search(content)):
        return f"{name!r} declares a DTD or entities (an icon needs none)"
    try:
        root = ET.fromstring(content)
    except ET.ParseError as exc:
        return f"{name!r} is not well-formed SVG ({exc})"
    if root.tag not in (f"{SVG_NS}svg", "svg"):
        return f"{name!r} is XML but not an <svg> document"
    for element in root.iter():
        local = element.tag.rsplit("}", 1)[-1] if isinstance(element.tag, str) else ""
        if local in _REFUSED_ELEMENTS:
            return f"{name!r} holds {_REFUSED_ELEMENTS[local]}"
        for attribute, value in element.attrib.items():
            bare = attribute.rsplit("}", 1)[-1]
            if bare.lower().startswith("on"):
                return f"{name!r} holds an event handler ({bare})"
            if _HREF.match(attribute) and not value.startswith("#"):
                return f"{name!r} refers outside the file ({value[:80]!r})"
            if "url(" in value and not _LOCAL_URLS.fullmatch(value):
                return f"{name!r} refers outside the file ({value[:80]!r})"
    return None
