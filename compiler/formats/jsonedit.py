"""Edit JSON text in place: change one member or array item, keep every other byte as it was.

memhub merges its entries into JSON files that users and hosts also write (``~/.claude.json``,
``settings.json``, ``mcp.json``). Re-serialising such a file would reorder keys and reflow
whitespace, so every edit here is a splice: a small tokenizer records the text span of each
member, value and array element, and only the span being changed is rewritten. New text
follows the file's own style: its indentation unit (2 or 4 spaces, tab, or one-line), its
newline (LF or CRLF) and its separators, with ``ensure_ascii=False``.

Rules worth knowing:

- A path is a sequence of object keys from the root; the root must be an object. An empty or
  whitespace-only text is the empty object, and edits to it give ``json.dumps(indent=2)``
  output with a final newline. A leading BOM is kept.
- Duplicate keys: lookups and replacements use the last occurrence (the one ``json.loads``
  keeps); ``remove_key`` removes every occurrence, so the key is really gone.
- ``remove_key(set_key(t, p, v), p) == t`` byte for byte when the deepest object on p that
  already existed in ``t`` was non-empty (the parents ``set_key`` created are pruned again).
  When that object was ``{}``, pruning would take it too: remove its new member with
  ``prune=False`` to get ``t`` back.
- Removing the only member or item leaves ``{}`` or ``[]``; an empty container written with
  inner whitespace (``[ ]``) therefore does not come back byte for byte after an add and remove.
- Text that is not a JSON object document, and a path through a value that is not an object
  (or, for the item functions, a last member that is not an array), raise ``JsonEditError``
  naming line and column, from every function including ``remove_key`` and ``remove_item``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # typeshed declares scanstring only on `_json`, the C half
    from _json import scanstring
else:  # the C scanner, or its pure-Python fallback where `_json` is missing
    from json.decoder import scanstring

__all__ = [
    "JsonEditError",
    "Style",
    "append_item",
    "detect_style",
    "get_key",
    "parse",
    "remove_item",
    "remove_key",
    "set_key",
    "set_keys",
]

_BOM = "\ufeff"
_WS = re.compile(r"[ \t\r\n]*")
_LINE_INDENT = re.compile(r"[ \t]*")
_NEXT_INDENT = re.compile(r"\n([ \t]*)")
_DECODER = json.JSONDecoder()


class JsonEditError(ValueError):
    """The text is not a JSON object document, or a path crosses a non-object."""


@dataclass(frozen=True)
class Style:
    """How a document writes new text: indent unit (None: one-line), newline, separators."""

    indent: str | None = "  "
    newline: str = "\n"
    key_sep: str = ": "
    item_sep: str = " "


_DEFAULT = Style()


@dataclass(frozen=True, slots=True)
class _Member:
    """One object member or array element; for elements key is "" and key_end == start."""

    key: str
    start: int
    key_end: int
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True)
class _Container:
    """An object or array: bracket offsets, where its holder starts, and its members."""

    kind: str
    start: int
    end: int
    owner: int
    members: tuple[_Member, ...]


# --- public API -----------------------------------------------------------------------------


def parse(text: str) -> Any:
    """The document's object (json.loads, key order kept; blank is {}); errors name line:col."""
    body = text.removeprefix(_BOM)
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except json.JSONDecodeError as err:
        raise JsonEditError(f"line {err.lineno} col {err.colno}: {err.msg}") from None
    except ValueError:  # an integer too long to convert: the tokenizer names line:col
        _root(body)
        raise
    if not isinstance(data, dict):
        _root(body)  # raises "the document is not a JSON object" at its first character
    return data


def detect_style(text: str) -> Style:
    """The indentation, newline and separators new text in this document should use."""
    body = _blank_as_empty(text.removeprefix(_BOM))
    return _detect(body, _root(body))


def get_key(text: str, path: Sequence[str]) -> Any:
    """The value at path; KeyError when a key on it is absent."""
    keys = _keys(path)
    body = _blank_as_empty(text.removeprefix(_BOM))
    parent, _, index = _walk(body, _root(body), keys)
    if index is None:
        raise KeyError(_dotted(keys))
    member = parent.members[index]
    return json.loads(body[member.value_start : member.value_end])


def set_key(text: str, path: Sequence[str], value: Any) -> str:
    """Text with the member at path equal to value: its value span replaced, or a member added."""
    keys = _keys(path)
    bom, body = _split_bom(text)
    body = _blank_as_empty(body)
    root = _root(body)
    parent, depth, index = _walk(body, root, keys)
    style = _detect(body, root)
    if index is None:
        out = _insert(body, parent, keys[depth], _nest(keys[depth + 1 :], value), style)
    else:
        out = _replace(body, parent, parent.members[index], value, style)
    return bom + out


def set_keys(text: str, items: Sequence[tuple[Sequence[str], Any]]) -> str:
    """`set_key` for many members at once: one scan of the document, every splice made
    together, so a thousand servers cost a thousand times one, not a million.

    New members of one object are written in one piece, as set_key one after the other
    would write them. Paths that overlap (one inside another) are set one by one, and so is
    any batch whose result would not parse to exactly the data the edits give."""
    keyed = [(_keys(path), value) for path, value in items]
    if len(keyed) < 2 or not _disjoint([keys for keys, _ in keyed]):
        for keys, value in keyed:
            text = set_key(text, keys, value)
        return text
    bom, body = _split_bom(text)
    body = _blank_as_empty(body)
    out = _splice(body, _Batch(body).plan(keyed))
    if out is not None:
        expected = parse(body)
        for keys, value in keyed:
            _nested_set(expected, keys, value)
        if _same(parse(out), expected):
            return bom + out
    for keys, value in keyed:  # overlapping splices, or a result that is not exact
        text = set_key(text, keys, value)
    return text


def _disjoint(paths: list[tuple[str, ...]]) -> bool:
    """No path twice, and none inside another."""
    seen = set(paths)
    return len(seen) == len(paths) and not any(
        keys[:n] in seen for keys in paths for n in range(1, len(keys))
    )


def _nested_set(data: dict[str, Any], keys: Sequence[str], value: Any) -> None:
    """data with keys set to value, creating (or replacing non-object) parents."""
    for key in keys[:-1]:
        if not isinstance(data.get(key), dict):
            data[key] = {}
        data = data[key]
    data[keys[-1]] = value


class _Batch:
    """The splices of many set_key edits on one document, each container scanned once."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.root = _root(body)
        self.style = _detect(body, self.root)
        self.scanned: dict[int, _Container] = {self.root.start: self.root}
        self.splices: list[tuple[int, int, str]] = []
        self.new: dict[int, tuple[_Container, dict[str, Any]]] = {}  # members to add, by object

    def _walk(self, keys: Sequence[str]) -> tuple[_Container, int, int | None]:
        """_walk, with each object on the way scanned once for the whole batch."""
        parent = self.root
        for depth, key in enumerate(keys[:-1]):
            index = _find(parent, key)
            if index is None:
                return parent, depth, None
            member = parent.members[index]
            found = self.scanned.get(member.value_start)
            if found is None:
                found = _open(self.body, member, "{", keys[: depth + 1])
                self.scanned[member.value_start] = found
            parent = found
        return parent, len(keys) - 1, _find(parent, keys[-1])

    def plan(self, keyed: list[tuple[tuple[str, ...], Any]]) -> list[tuple[int, int, str]]:
        """Every splice: replaced values, then each object's new members in one piece."""
        for keys, value in keyed:
            parent, depth, index = self._walk(keys)
            if index is not None:
                member = parent.members[index]
                style = _local(self.body, parent, self.style)
                multiline = _starts_line(self.body, member.start)
                new = _dump(value, style, _line_indent(self.body, member.start), multiline)
                self.splices.append((member.value_start, member.value_end, new))
                continue
            _, adding = self.new.setdefault(parent.start, (parent, {}))
            head, rest = keys[depth], keys[depth + 1 :]
            if head in adding and rest:  # a parent an earlier edit of this batch adds
                _nested_set(adding[head], rest, value)
            else:
                adding[head] = _nest(rest, value)
        for container, adding in self.new.values():
            self.splices.append(self._members(container, adding))
        return self.splices

    def _members(self, container: _Container, adding: dict[str, Any]) -> tuple[int, int, str]:
        """The splice adding members to one object, as set_key adds them one after another."""
        text, style = self.body, _local(self.body, container, self.style)
        items = list(adding.items())
        if container.members:
            if len(container.members) > 1:
                gap = _comma_gap(text, container.members[-2], container.members[-1])
            else:
                lead = text[container.start + 1 : container.members[0].start]
                gap = lead if "\n" in lead else style.item_sep
            at = container.members[-1].value_end
            return at, at, self._pieces(items, gap, style)
        if style.indent is None or not _starts_line(text, container.owner):
            first = _entry(items[0][0], items[0][1], style, "", False)
            inner = first + self._pieces(items[1:], style.item_sep, style)
        else:
            outer = _line_indent(text, container.start)
            deeper = outer + style.indent
            first = _entry(items[0][0], items[0][1], style, deeper, True)
            rest = self._pieces(items[1:], style.newline + deeper, style)
            inner = style.newline + deeper + first + rest + style.newline + outer
        return container.start + 1, container.end - 1, inner

    @staticmethod
    def _pieces(items: list[tuple[str, Any]], gap: str, style: Style) -> str:
        multiline = style.indent is not None and "\n" in gap
        indent = gap[gap.rfind("\n") + 1 :]
        return "".join("," + gap + _entry(k, v, style, indent, multiline) for k, v in items)


def _splice(text: str, splices: list[tuple[int, int, str]]) -> str | None:
    """text with each (start, end, new) span replaced; None when two spans overlap."""
    out: list[str] = []
    pos = 0
    for start, end, new in sorted(splices, key=lambda s: (s[0], s[1])):
        if start < pos:
            return None
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def remove_key(text: str, path: Sequence[str], *, prune: bool = True) -> str:
    """Text without the member at path; prune=True also drops parents left empty (not the root)."""
    keys = _keys(path)
    bom, body = _split_bom(text)
    if not body.strip():
        return text
    parent, _, index = _walk(body, _root(body), keys)
    if index is None:
        return text
    while index is not None:
        body = _cut(body, parent, index)
        parent, _, index = _walk(body, _root(body), keys)
    if prune:
        body = _prune(body, keys[:-1])
    return bom + body


def append_item(text: str, path: Sequence[str], value: Any) -> str:
    """Text with value appended to the array at path, creating the array and parents if missing."""
    keys = _keys(path)
    bom, body = _split_bom(text)
    body = _blank_as_empty(body)
    root = _root(body)
    parent, depth, index = _walk(body, root, keys)
    style = _detect(body, root)
    if index is None:
        return bom + _insert(body, parent, keys[depth], _nest(keys[depth + 1 :], [value]), style)
    array = _open(body, parent.members[index], "[", keys)
    return bom + _insert(body, array, None, value, style)


def remove_item(text: str, path: Sequence[str], value: Any) -> str:
    """Text without the first element equal to value in the array at path (unchanged if none)."""
    keys = _keys(path)
    bom, body = _split_bom(text)
    if not body.strip():
        return text
    parent, _, index = _walk(body, _root(body), keys)
    if index is None:
        return text
    array = _open(body, parent.members[index], "[", keys)
    for position, element in enumerate(array.members):
        if _same(json.loads(body[element.value_start : element.value_end]), value):
            return bom + _cut(body, array, position)
    return text


# --- tokenizer ------------------------------------------------------------------------------


def _error(text: str, pos: int, message: str) -> JsonEditError:
    """A JsonEditError naming the line and column of offset pos."""
    line = text.count("\n", 0, pos) + 1
    column = pos - text.rfind("\n", 0, pos)
    return JsonEditError(f"line {line} col {column}: {message}")


def _skip(text: str, pos: int) -> int:
    """The offset of the first non-whitespace character at or after pos."""
    match = _WS.match(text, pos)
    assert match is not None
    return match.end()


def _value_end(text: str, pos: int) -> int:
    """The offset just past the JSON value starting at pos."""
    try:
        return _DECODER.raw_decode(text, pos)[1]
    except json.JSONDecodeError as err:
        raise _error(text, err.pos, err.msg) from None
    except ValueError as err:  # an integer longer than sys.get_int_max_str_digits()
        raise _error(text, pos, str(err)) from None


def _key_at(text: str, pos: int) -> tuple[str, int]:
    """The object key starting at pos and the offset after its closing quote."""
    if text[pos : pos + 1] != '"':
        raise _error(text, pos, "Expecting property name enclosed in double quotes")
    try:
        return scanstring(text, pos + 1, True)
    except json.JSONDecodeError as err:
        raise _error(text, err.pos, err.msg) from None


def _scan(text: str, start: int, owner: int) -> _Container:
    """The object or array opening at start, with the span of each member or element."""
    kind = text[start]
    close = "}" if kind == "{" else "]"
    pos = _skip(text, start + 1)
    if text[pos : pos + 1] == close:
        return _Container(kind, start, pos + 1, owner, ())
    members: list[_Member] = []
    while True:
        item_start = key_end = pos
        key = ""
        if kind == "{":
            key, key_end = _key_at(text, pos)
            pos = _skip(text, key_end)
            if text[pos : pos + 1] != ":":
                raise _error(text, pos, "Expecting ':' delimiter")
            pos = _skip(text, pos + 1)
        value_end = _value_end(text, pos)
        members.append(_Member(key, item_start, key_end, pos, value_end))
        pos = _skip(text, value_end)
        if text[pos : pos + 1] == close:
            return _Container(kind, start, pos + 1, owner, tuple(members))
        if text[pos : pos + 1] != ",":
            raise _error(text, pos, "Expecting ',' delimiter")
        pos = _skip(text, pos + 1)


def _root(body: str) -> _Container:
    """The root object of a document (BOM already removed); anything else is an error."""
    pos = _skip(body, 0)
    if body[pos : pos + 1] != "{":
        _value_end(body, pos)
        raise _error(body, pos, "the document is not a JSON object")
    root = _scan(body, pos, pos)
    end = _skip(body, root.end)
    if end != len(body):
        raise _error(body, end, "Extra data")
    return root


# --- navigation -----------------------------------------------------------------------------


def _keys(path: Sequence[str]) -> tuple[str, ...]:
    """path as a non-empty tuple of string keys."""
    keys = tuple(path)
    if isinstance(path, str) or not keys or not all(isinstance(key, str) for key in keys):
        raise JsonEditError(f"a path is a non-empty sequence of object keys, not {path!r}")
    return keys


def _dotted(keys: Sequence[str]) -> str:
    """keys as a dotted path for messages."""
    return ".".join(keys)


def _find(container: _Container, key: str) -> int | None:
    """The index of the last member named key (the one json.loads keeps), or None."""
    for index in range(len(container.members) - 1, -1, -1):
        if container.members[index].key == key:
            return index
    return None


def _open(text: str, member: _Member, kind: str, keys: Sequence[str]) -> _Container:
    """The object ({) or array ([) that is member's value; an error naming line:col otherwise."""
    if text[member.value_start] != kind:
        noun = "an object" if kind == "{" else "an array"
        raise _error(text, member.value_start, f"{_dotted(keys)} is not {noun}")
    return _scan(text, member.value_start, member.start)


def _walk(text: str, root: _Container, keys: Sequence[str]) -> tuple[_Container, int, int | None]:
    """The deepest existing object on keys, the depth of its key, and that key's member index."""
    parent = root
    for depth, key in enumerate(keys[:-1]):
        index = _find(parent, key)
        if index is None:
            return parent, depth, None
        parent = _open(text, parent.members[index], "{", keys[: depth + 1])
    return parent, len(keys) - 1, _find(parent, keys[-1])


def _nest(keys: Sequence[str], value: Any) -> Any:
    """value wrapped in one object per key: _nest(["a", "b"], 1) == {"a": {"b": 1}}."""
    for key in reversed(keys):
        value = {key: value}
    return value


def _same(left: Any, right: Any) -> bool:
    """JSON equality: == on data, except that true and false never equal 1 and 0."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(_same, left, right))
    return bool(left == right)


# --- style ----------------------------------------------------------------------------------


def _split_bom(text: str) -> tuple[str, str]:
    """(BOM or "", the rest of text)."""
    return (_BOM, text[1:]) if text.startswith(_BOM) else ("", text)


def _blank_as_empty(body: str) -> str:
    """body, or "{}\\n" when body is empty or whitespace only."""
    return body if body.strip() else "{}\n"


def _line_indent(text: str, pos: int) -> str:
    """The leading spaces and tabs of the line holding offset pos."""
    match = _LINE_INDENT.match(text, text.rfind("\n", 0, pos) + 1)
    assert match is not None
    return match.group()


def _starts_line(text: str, pos: int) -> bool:
    """Whether only spaces and tabs precede offset pos on its line."""
    return not text[text.rfind("\n", 0, pos) + 1 : pos].strip(" \t")


def _indent_unit(body: str) -> str | None:
    """The first step by which a line is indented deeper than the line before it, if any."""
    previous = _line_indent(body, 0)
    for match in _NEXT_INDENT.finditer(body):
        if body[match.end() : match.end() + 1] in ("\r", "\n", ""):
            continue  # a blank line says nothing about indentation
        current = match.group(1)
        if len(current) > len(previous) and current.startswith(previous):
            return current[len(previous) :]
        previous = current
    return None


def _comma_gap(text: str, before: _Member, after: _Member) -> str:
    """The whitespace between the comma after before and the start of after."""
    between = text[before.value_end : after.start]
    return between[between.index(",") + 1 :]


def _detect(body: str, root: _Container) -> Style:
    """The Style of a document from its root object and line structure."""
    members = root.members
    indent = _indent_unit(body)
    if indent is None and not members:
        indent = _DEFAULT.indent
    key_sep = _DEFAULT.key_sep
    if members and "\n" not in body[members[0].key_end : members[0].value_start]:
        key_sep = body[members[0].key_end : members[0].value_start]
    item_sep = " " if key_sep.endswith(" ") else ""
    if len(members) > 1 and "\n" not in _comma_gap(body, members[0], members[1]):
        item_sep = _comma_gap(body, members[0], members[1])
    newline = "\r\n" if "\r\n" in body else "\n"
    return Style(indent, newline, key_sep, item_sep)


def _local(text: str, container: _Container, style: Style) -> Style:
    """style with the key and item separators that container already uses."""
    members = container.members
    key_sep, item_sep = style.key_sep, style.item_sep
    if container.kind == "{" and members:
        own = text[members[-1].key_end : members[-1].value_start]
        key_sep = key_sep if "\n" in own else own
    if len(members) > 1:
        own = _comma_gap(text, members[-2], members[-1])
        item_sep = item_sep if "\n" in own else own
    return replace(style, key_sep=key_sep, item_sep=item_sep)


# --- splicing -------------------------------------------------------------------------------


def _dump(value: Any, style: Style, indent: str, multiline: bool) -> str:
    """value as JSON text in style; continuation lines start with indent when multiline."""
    try:
        if multiline and style.indent is not None:
            text = json.dumps(
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


def _entry(key: str | None, value: Any, style: Style, indent: str, multiline: bool) -> str:
    """The text of a new member (key given) or array element (key None)."""
    text = _dump(value, style, indent, multiline)
    return text if key is None else json.dumps(key, ensure_ascii=False) + style.key_sep + text


def _insert(text: str, container: _Container, key: str | None, value: Any, style: Style) -> str:
    """text with a new last member (or element, key None) in container, in its style."""
    style = _local(text, container, style)
    members = container.members
    if not members:
        return _fill(text, container, key, value, style)
    if len(members) > 1:
        gap = _comma_gap(text, members[-2], members[-1])
    else:
        lead = text[container.start + 1 : members[0].start]
        gap = lead if "\n" in lead else style.item_sep
    multiline = style.indent is not None and "\n" in gap
    piece = "," + gap + _entry(key, value, style, gap[gap.rfind("\n") + 1 :], multiline)
    at = members[-1].value_end
    return text[:at] + piece + text[at:]


def _fill(text: str, container: _Container, key: str | None, value: Any, style: Style) -> str:
    """text with the empty container holding just one new member or element."""
    if style.indent is None or not _starts_line(text, container.owner):
        inner = _entry(key, value, style, "", False)
    else:
        outer = _line_indent(text, container.start)
        deeper = outer + style.indent
        entry = _entry(key, value, style, deeper, True)
        inner = style.newline + deeper + entry + style.newline + outer
    return text[: container.start + 1] + inner + text[container.end - 1 :]


def _replace(text: str, parent: _Container, member: _Member, value: Any, style: Style) -> str:
    """text with member's value span rewritten as value."""
    style = _local(text, parent, style)
    multiline = _starts_line(text, member.start)
    new = _dump(value, style, _line_indent(text, member.start), multiline)
    return text[: member.value_start] + new + text[member.value_end :]


def _cut(text: str, container: _Container, index: int) -> str:
    """text without member index of container, its comma and the whitespace that went with it."""
    members = container.members
    if len(members) == 1:
        return text[: container.start + 1] + text[container.end - 1 :]
    if index == len(members) - 1:
        start, end = members[index - 1].value_end, members[index].value_end
    else:
        start, end = members[index].start, members[index + 1].start
    return text[:start] + text[end:]


def _prune(body: str, keys: Sequence[str]) -> str:
    """body without the empty objects on keys, deepest first, up to the first non-empty one."""
    while keys:
        parent, _, index = _walk(body, _root(body), keys)
        if index is None:
            break
        member = parent.members[index]
        if body[member.value_start] != "{" or _scan(body, member.value_start, 0).members:
            break
        body = _cut(body, parent, index)
        keys = keys[:-1]
    return body
