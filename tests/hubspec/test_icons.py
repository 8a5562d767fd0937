"""SVG icons: shipped as they are to the hosts that show an icon; an unsafe or malformed one
refused at the hub's `plugin.icon`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.hubspec import HubError, load
from memhub.hubspec.icons import ICON_MAX_BYTES, icon_problem, kind_of

HOSTS = "[claude, codex, cursor, gemini, opencode, agent-plugins, copilot]"
PLAIN = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'viewBox="0 0 512 512"><defs><linearGradient id="g"><stop offset="0"/></linearGradient>'
    '<rect id="r" width="512" height="512"/></defs><use xlink:href="#r" fill="url(#g)" '
    "style=\"opacity:0.9;stroke:url('#g')\"/></svg>\n"
)


def hub_with(tmp_path: Path, name: str, content: bytes) -> Path:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / name).write_bytes(content)
    (hub / "hub.yaml").write_text(
        "version: 1\n"
        f"plugin: {{name: icon-probe, version: 0.1.0, description: Icon probe, icon: {name}}}\n"
        "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        f"hosts: {HOSTS}\n"
    )
    return hub


def test_a_plain_svg_ships_to_every_host_that_shows_an_icon(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path, "logo.svg", PLAIN.encode())))
    icons = [a for a in result.artifacts if a.path.endswith("/assets/icon.svg")]
    assert icons and all(a.content == PLAIN.encode() for a in icons)
    manifests = {
        a.path.split("/")[-2]: json.loads(a.content)
        for a in result.artifacts
        if a.path.endswith("plugin.json") and "/plugins/" in f"/{a.path}"
    }
    assert manifests[".claude-plugin"]["icon"] == "./assets/icon.svg"
    assert manifests[".cursor-plugin"]["logo"] == "./assets/icon.svg"
    assert manifests[".codex-plugin"]["interface"]["composerIcon"] == "./assets/icon.svg"
    assert not any(
        a.path.startswith(("gemini/", "opencode/", "copilot/", "agent-plugins/"))
        and b"assets/icon" in a.content
        for a in result.artifacts
        if a.path.endswith(".json")
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<script>alert(1)</script>", "a script"),
        ('<rect onload="x()" width="1" height="1"/>', "event handler (onload)"),
        ("<foreignObject><p>x</p></foreignObject>", "foreignObject"),
        ("<style>rect{fill:red}</style>", "<style> element"),
        ('<animate attributeName="x" to="1"/>', "animation"),
        ('<image href="https://e.example.com/a.png"/>', "refers outside"),
        ('<rect fill="url(https://e.example.com/a#g)"/>', "refers outside"),
        ("<rect", "not well-formed"),
    ],
)
def test_an_unsafe_or_broken_svg_is_refused(body: str, expected: str) -> None:
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1">{body}</svg>'
    problem = icon_problem("logo.svg", svg.encode())
    assert problem is not None and expected in problem, problem


def test_an_xml_bomb_is_refused_before_parsing() -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">'
        + "".join(
            f'<!ENTITY {c} "{("&" + p + ";") * 10}">'
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        )
        + ']><svg xmlns="http://www.w3.org/2000/svg"><text>&i;</text></svg>'
    )
    assert "DTD" in (icon_problem("logo.svg", bomb.encode()) or "")


def test_names_and_contents_must_agree_and_size_is_bounded() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
    assert kind_of(PLAIN.encode()) == "svg" and kind_of(png) == "png"
    assert "SVG image under a .png name" in (icon_problem("logo.png", PLAIN.encode()) or "")
    assert "PNG image under a .svg name" in (icon_problem("logo.svg", png) or "")
    assert "not an <svg> document" in (
        icon_problem("logo.svg", b"<?xml version='1.0'?><html><svg/></html>") or ""
    )
    huge = PLAIN.encode() + b" " * ICON_MAX_BYTES
    assert "at most" in (icon_problem("logo.svg", huge) or "")
    assert "not a PNG, JPEG or SVG" in (icon_problem("logo.gif", b"GIF89a") or "")


def test_the_hub_names_the_icon_it_refuses(tmp_path: Path) -> None:
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>'
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, "logo.svg", svg))
    (problem,) = [str(p) for p in caught.value.problems]
    assert "hub.yaml:2:" in problem and "plugin.icon" in problem and "a script" in problem
    assert "plain SVG" in problem  # the fix


def test_the_plain_doctype_svg_editors_write_is_taken() -> None:
    """`<!DOCTYPE svg PUBLIC "..." "...">` declares nothing (no internal subset): an icon
    exported by an SVG editor is shipped; one with an internal subset is still refused."""
    doctype = (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!DOCTYPE svg PUBLIC '
        '"-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
    )
    svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><circle r="1"/></svg>'
    assert icon_problem("icon.svg", (doctype + svg).encode()) is None
    subset = doctype.replace('svg11.dtd">', 'svg11.dtd" [<!ATTLIST svg x CDATA "y">]>')
    assert "DTD" in (icon_problem("icon.svg", (subset + svg).encode()) or "")
    twice = doctype + doctype.split("\n", 1)[1]
    assert "DTD" in (icon_problem("icon.svg", (twice + svg).encode()) or "")
