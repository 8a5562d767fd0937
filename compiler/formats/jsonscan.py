"""jsonedit's tokenizer: the text span of each member, value and element of a JSON
object document, and walking a key path through it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memhub.compiler.digest import canonical_text

if TYPE_CHECKING:  # typeshed declares scanstring only on `_json`, the C half
    from _json import scanstring
else:  # the C scanner, or its pure-Python fallback where `_json` is missing
    from json.decoder import scanstring

BOM = "\ufeff"
WS = re.compile(r"[ \t\r\n]*")
DECODER = json.JSONDecoder()


class JsonEditError(ValueError):
    """The text is not a JSON object document, or a path crosses a non-object."""


@dataclass(frozen=True, slots=True)
class Member:
    """One object member or array element; for elements key is "" and key_end == start."""

    key: str
    start: int
    key_end: int
    value_start: int
    value_end: int


@dataclass(frozen=True, slots=True)
class Container:
    """An object or array: bracket offsets, where its holder starts, and its members."""

    kind: str
    start: int
    end: int
    owner: int
    members: tuple[Member, ...]


def error_at(text: str, pos: int, message: str) -> JsonEditError:
    """A JsonEditError naming the line and column of offset pos."""
    line = text.count("\n", 0, pos) + 1
    column = pos - text.rfind("\n", 0, pos)
    return JsonEditError(f"line {line} col {column}: {message}")


def skip(text: str, pos: int) -> int:
    """The offset of the first non-whitespace character at or after pos."""
    match = WS.match(text, pos)
    assert match is not None
    return match.end()


def value_end_at(text: str, pos: int) -> int:
    """The offset just past the JSON value starting at pos."""
    try:
        return DECODER.raw_decode(text, pos)[1]
    except json.JSONDecodeError as err:
        raise error_at(text, err.pos, err.msg) from None
    except ValueError as err:  # an integer longer than sys.get_int_max_str_digits()
        raise error_at(text, pos, str(err)) from None


def key_at(text: str, pos: int) -> tuple[str, int]:
    """The object key starting at pos and the offset after its closing quote."""
    if text[pos : pos + 1] != '"':
        raise error_at(text, pos, "Expecting property name enclosed in double quotes")
    try:
        return scanstring(text, pos + 1, True)
    except json.JSONDecodeError as err:
        raise error_at(text, err.pos, err.msg) from None


def scan(text: str, start: int, owner: int) -> Container:
    """The object or array opening at start, with the span of each member or element."""
    kind = text[start]
    close = "}" if kind == "{" else "]"
    pos = skip(text, start + 1)
    if text[pos : pos + 1] == close:
        return Container(kind, start, pos + 1, owner, ())
    members: list[Member] = []
    while True:
        item_start = key_end = pos
        key = ""
        if kind == "{":
            key, key_end = key_at(text, pos)
            pos = skip(text, key_end)
            if text[pos : pos + 1] != ":":
                raise error_at(text, pos, "Expecting ':' delimiter")
            pos = skip(text, pos + 1)
        value_end = value_end_at(text, pos)
        members.append(Member(key, item_start, key_end, pos, value_end))
        pos = skip(text, value_end)
        if text[pos : pos + 1] == close:
            return Container(kind, start, pos + 1, owner, tuple(members))
        if text[pos : pos + 1] != ",":
            raise error_at(text, pos, "Expecting ',' delimiter")
        pos = skip(text, pos + 1)


def root_of(body: str) -> Container:
    """The root object of a document (BOM already removed); anything else is an error."""
    pos = skip(body, 0)
    if body[pos : pos + 1] != "{":
        value_end_at(body, pos)
        raise error_at(body, pos, "the document is not a JSON object")
    root = scan(body, pos, pos)
    end = skip(body, root.end)
    if end != len(body):
        raise error_at(body, end, "Extra data")
    return root


# --- navigation -----------------------------------------------------------------------------


def key_path(path: Sequence[str]) -> tuple[str, ...]:
    """path as a non-empty tuple of string keys."""
    keys = tuple(path)
    if isinstance(path, str) or not keys or not all(isinstance(key, str) for key in keys):
        raise JsonEditError(f"a path is a non-empty sequence of object keys, not {path!r}")
    return keys


def dotted(keys: Sequence[str]) -> str:
    """keys as a dotted path for messages."""
    return ".".join(keys)


def find(container: Container, key: str) -> int | None:
    """The index of the last member named key (the one json.loads keeps), or None."""
    for index in range(len(container.members) - 1, -1, -1):
        if container.members[index].key == key:
            return index
    return None


def open_container(text: str, member: Member, kind: str, keys: Sequence[str]) -> Container:
    """The object ({) or array ([) that is member's value; an error naming line:col otherwise."""
    if text[member.value_start] != kind:
        noun = "an object" if kind == "{" else "an array"
        raise error_at(text, member.value_start, f"{dotted(keys)} is not {noun}")
    return scan(text, member.value_start, member.start)


def walk(text: str, root: Container, keys: Sequence[str]) -> tuple[Container, int, int | None]:
    """The deepest existing object on keys, the depth of its key, and that key's member index."""
    parent = root
    for depth, key in enumerate(keys[:-1]):
        index = find(parent, key)
        if index is None:
            return parent, depth, None
        parent = open_container(text, parent.members[index], "{", keys[: depth + 1])
    return parent, len(keys) - 1, find(parent, keys[-1])


def nest(keys: Sequence[str], value: Any) -> Any:
    """value wrapped in one object per key: nest(["a", "b"], 1) == {"a": {"b": 1}}."""
    for key in reversed(keys):
        value = {key: value}
    return value


def same(left: Any, right: Any) -> bool:
    """JSON equality: == on data, except that true and false never equal 1 and 0."""
    if isinstance(left, dict | list):
        canonical = canonical_text(left)
        if canonical is not None and canonical == canonical_text(right):
            return True  # one C-encoded comparison answers for a whole matching document
    return _same(left, right)


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(_same, left, right))
    return bool(left == right)
