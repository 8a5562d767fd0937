"""jsonedit's style and splices: how a document writes new text (indent, newline,
separators), and the text of a member added, replaced or cut in that style."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from memhub.compiler.formats import jsondump
from memhub.compiler.formats.jsonscan import (
    BOM,
    Container,
    JsonEditError,
    Member,
    root_of,
    scan,
    walk,
)

LINE_INDENT = re.compile(r"[ \t]*")
NEXT_INDENT = re.compile(r"\n([ \t]*)")
_SPACES_TO_EOL = re.compile(r"[ \t]+(?=\r?\n)")


@dataclass(frozen=True)
class Style:
    """How a document writes new text: indent unit (None: one-line), newline, separators."""

    indent: str | None = "  "
    newline: str = "\n"
    key_sep: str = ": "
    item_sep: str = " "


DEFAULT = Style()

Splice = tuple[int, int, str]  # (start, end, new text): text[start:end] becomes new text


def apply(text: str, change: Splice) -> str:
    """text with one splice made."""
    start, end, new = change
    return text[:start] + new + text[end:]


def tidy(change: Splice) -> Splice:
    """change without spaces before its line breaks: in a JSONC view a new member's gap is
    copied from one that held a comment, blanked to spaces (a JSON string holds no break)."""
    start, end, new = change
    return start, end, _SPACES_TO_EOL.sub("", new)


def split_bom(text: str) -> tuple[str, str]:
    """(BOM or "", the rest of text)."""
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def blank_as_empty(body: str) -> str:
    """body, or "{}\\n" when body is empty or whitespace only."""
    return body if body.strip() else "{}\n"


def line_indent(text: str, pos: int) -> str:
    """The leading spaces and tabs of the line holding offset pos."""
    match = LINE_INDENT.match(text, text.rfind("\n", 0, pos) + 1)
    assert match is not None
    return match.group()


def starts_line(text: str, pos: int) -> bool:
    """Whether only spaces and tabs precede offset pos on its line."""
    return not text[text.rfind("\n", 0, pos) + 1 : pos].strip(" \t")


def indent_unit(body: str) -> str | None:
    """The first step by which a line is indented deeper than the line before it, if any."""
    previous = line_indent(body, 0)
    for match in NEXT_INDENT.finditer(body):
        if body[match.end() : match.end() + 1] in ("\r", "\n", ""):
            continue  # a blank line says nothing about indentation
        current = match.group(1)
        if len(current) > len(previous) and current.startswith(previous):
            return current[len(previous) :]
        previous = current
    return None


def comma_gap(text: str, before: Member, after: Member) -> str:
    """The whitespace between the comma after before and the start of after."""
    between = text[before.value_end : after.start]
    return between[between.index(",") + 1 :]


def detect(body: str, root: Container) -> Style:
    """The Style of a document from its root object and line structure."""
    members = root.members
    indent = indent_unit(body)
    if indent is None and not members:
        indent = DEFAULT.indent
    key_sep = DEFAULT.key_sep
    if members and "\n" not in body[members[0].key_end : members[0].value_start]:
        key_sep = body[members[0].key_end : members[0].value_start]
    item_sep = " " if key_sep.endswith(" ") else ""
    if len(members) > 1 and "\n" not in comma_gap(body, members[0], members[1]):
        item_sep = comma_gap(body, members[0], members[1])
    newline = "\r\n" if "\r\n" in body else "\n"
    return Style(indent, newline, key_sep, item_sep)


def local_style(text: str, container: Container, style: Style) -> Style:
    """style with the key and item separators that container already uses."""
    members = container.members
    key_sep, item_sep = style.key_sep, style.item_sep
    if container.kind == "{" and members:
        own = text[members[-1].key_end : members[-1].value_start]
        key_sep = key_sep if "\n" in own else own
    if len(members) > 1:
        own = comma_gap(text, members[-2], members[-1])
        item_sep = item_sep if "\n" in own else own
    return replace(style, key_sep=key_sep, item_sep=item_sep)


# --- splicing -------------------------------------------------------------------------------


def dump(value: Any, style: Style, indent: str, multiline: bool) -> str:
    """value as JSON text in style; continuation lines start with indent when multiline."""
    try:
        if multiline and style.indent is not None:
            text = jsondump.dumps(
                value,
                ensure_ascii=False,
                allow_nan=False,
                indent=style.indent,
                separators=(",", style.key_sep),
            )
            return text.replace("\n", style.newline + indent)
        separators = ("," + style.item_sep, style.key_sep)
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=separators)
    except (TypeError, ValueError) as err:
        raise JsonEditError(f"the value cannot be written as JSON: {err}") from None


def entry_text(key: str | None, value: Any, style: Style, indent: str, multiline: bool) -> str:
    """The text of a new member (key given) or array element (key None)."""
    text = dump(value, style, indent, multiline)
    return text if key is None else json.dumps(key, ensure_ascii=False) + style.key_sep + text


def insert(text: str, container: Container, key: str | None, value: Any, style: Style) -> Splice:
    """The splice adding a new last member (or element, key None) to container, in its style."""
    style = local_style(text, container, style)
    members = container.members
    if not members:
        return fill(text, container, key, value, style)
    if len(members) > 1:
        gap = comma_gap(text, members[-2], members[-1])
    else:
        lead = text[container.start + 1 : members[0].start]
        gap = lead if "\n" in lead else style.item_sep
    multiline = style.indent is not None and "\n" in gap
    piece = "," + gap + entry_text(key, value, style, gap[gap.rfind("\n") + 1 :], multiline)
    at = members[-1].value_end
    return at, at, piece


def fill(text: str, container: Container, key: str | None, value: Any, style: Style) -> Splice:
    """The splice making the empty container hold just one new member or element."""
    if style.indent is None or not starts_line(text, container.owner):
        inner = entry_text(key, value, style, "", False)
    else:
        outer = line_indent(text, container.start)
        deeper = outer + style.indent
        entry = entry_text(key, value, style, deeper, True)
        inner = style.newline + deeper + entry + style.newline + outer
    return container.start + 1, container.end - 1, inner


def replace_value(text: str, parent: Container, member: Member, value: Any, style: Style) -> Splice:
    """The splice rewriting member's value span as value."""
    style = local_style(text, parent, style)
    multiline = starts_line(text, member.start)
    new = dump(value, style, line_indent(text, member.start), multiline)
    return member.value_start, member.value_end, new


def cut_member(container: Container, index: int) -> Splice:
    """The splice removing member index of container, its comma and the whitespace (and, in
    JSONC, the comments) that went with it."""
    members = container.members
    if len(members) == 1:
        return container.start + 1, container.end - 1, ""
    if index == len(members) - 1:
        start, end = members[index - 1].value_end, members[index].value_end
    else:
        start, end = members[index].start, members[index + 1].start
    return start, end, ""


def prune_empty(body: str, view: str, keys: Sequence[str]) -> tuple[str, str]:
    """body (and its JSONC view) without the empty objects on keys, deepest first, up to the
    first non-empty one."""
    while keys:
        parent, _, index = walk(view, root_of(view), keys)
        if index is None:
            break
        member = parent.members[index]
        if view[member.value_start] != "{" or scan(view, member.value_start, 0).members:
            break
        change = cut_member(parent, index)
        body, view = apply(body, change), apply(view, change)
        keys = keys[:-1]
    return body, view
