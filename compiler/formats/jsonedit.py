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
- JSONC: comments (``//``, ``/* */``) and trailing commas are read as whitespace and kept
  where they are (jsonc.py): every scan runs on a blanked view of the text at the same
  offsets, and every edit is a splice of the real text. A comment inside a value that is
  replaced or removed goes with that value; one between members stays.
- Text that is not a JSON object document, and a path through a value that is not an object
  (or, for the item functions, a last member that is not an array), raise ``JsonEditError``
  naming line and column, from every function including ``remove_key`` and ``remove_item``.
"""

# The parts: jsonscan (the tokenizer), jsonstyle (style and splices), jsonbatch (set_keys'
# splices); this module is the API.

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from memhub.compiler.formats import jsonc
from memhub.compiler.formats.jsonbatch import Batch, disjoint, nested_set, splice
from memhub.compiler.formats.jsonscan import (
    BOM,
    Container,
    JsonEditError,
    dotted,
    key_path,
    nest,
    open_container,
    root_of,
    same,
    skip,
    walk,
)
from memhub.compiler.formats.jsonstyle import (
    Splice,
    Style,
    apply,
    blank_as_empty,
    cut_member,
    detect,
    insert,
    prune_empty,
    replace_value,
    split_bom,
    tidy,
)

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


def parse(text: str) -> Any:
    """The document's object (json.loads, key order kept; blank is {}; JSONC comments and
    trailing commas are whitespace); errors name line:col."""
    body = jsonc.blank(text.removeprefix(BOM))
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except json.JSONDecodeError as err:
        raise JsonEditError(f"line {err.lineno} col {err.colno}: {err.msg}") from None
    except ValueError:  # an integer too long to convert: the tokenizer names line:col
        root_of(body)
        raise
    if not isinstance(data, dict):
        root_of(body)  # raises "the document is not a JSON object" at its first character
    return data


def detect_style(text: str) -> Style:
    """The indentation, newline and separators new text in this document should use."""
    body = jsonc.blank(blank_as_empty(text.removeprefix(BOM)))
    return detect(body, root_of(body))


def get_key(text: str, path: Sequence[str]) -> Any:
    """The value at path; KeyError when a key on it is absent."""
    keys = key_path(path)
    body = jsonc.blank(blank_as_empty(text.removeprefix(BOM)))
    parent, _, index = walk(body, root_of(body), keys)
    if index is None:
        raise KeyError(dotted(keys))
    member = parent.members[index]
    return json.loads(body[member.value_start : member.value_end])


def set_key(text: str, path: Sequence[str], value: Any) -> str:
    """Text with the member at path equal to value: its value span replaced, or a member added."""
    keys = key_path(path)
    bom, body = split_bom(text)
    body = blank_as_empty(body)
    view = jsonc.blank(body)
    root = root_of(view)
    parent, depth, index = walk(view, root, keys)
    style = detect(view, root)
    if index is None:
        change = insert(view, parent, keys[depth], nest(keys[depth + 1 :], value), style)
    else:
        change = replace_value(view, parent, parent.members[index], value, style)
    return bom + apply(body, _tidy(change, view, body))


def set_keys(text: str, items: Sequence[tuple[Sequence[str], Any]]) -> str:
    """`set_key` for many members at once: one scan of the document, every splice made
    together, so a thousand servers cost a thousand times one, not a million.

    New members of one object are written in one piece, as set_key one after the other
    would write them. Paths that overlap (one inside another) are set one by one, and so is
    any batch whose result would not parse to exactly the data the edits give."""
    keyed = [(key_path(path), value) for path, value in items]
    if len(keyed) < 2 or not disjoint([keys for keys, _ in keyed]) or _mixed_newlines(text):
        for keys, value in keyed:
            text = set_key(text, keys, value)
        return text
    bom, body = split_bom(text)
    body = blank_as_empty(body)
    view = jsonc.blank(body)
    out = splice(body, [_tidy(change, view, body) for change in Batch(view).plan(keyed)])
    if out is not None:
        expected = parse(body)
        for keys, value in keyed:
            nested_set(expected, keys, value)
        if same(parse(out), expected):
            return bom + out
    for keys, value in keyed:  # overlapping splices, or a result that is not exact
        text = set_key(text, keys, value)
    return text


def _cut(body: str, view: str, container: Container, index: int) -> Splice:
    """cut_member, except that the only member of a container holding comments goes alone
    (with its comma), so the comments stay inside the container."""
    start, end, new = cut_member(container, index)
    if len(container.members) > 1 or body[start:end] == view[start:end]:
        return start, end, new
    member = container.members[0]
    end = member.value_end
    after = skip(view, end)
    if body[after : after + 1] == ",":
        end = after + 1  # a trailing comma, blanked in the view
    line = body.rfind("\n", 0, member.start)
    if not body[line + 1 : member.start].strip(" \t"):
        start = line if body[line - 1 : line] != "\r" else line - 1
        return start, end, ""
    return member.start, end, ""


def _tidy(change: Splice, view: str, body: str) -> Splice:
    """change as made on a JSONC view, tidied where the view differs from the text."""
    return change if view == body else tidy(change)


def _mixed_newlines(text: str) -> bool:
    """Both CRLF and bare LF line ends: the newline new text gets can change with each edit
    (replacing the value that held the only CRLF), so only one-by-one edits reproduce it."""
    return "\r\n" in text and "\n" in text.replace("\r\n", "")


def remove_key(text: str, path: Sequence[str], *, prune: bool = True) -> str:
    """Text without the member at path; prune=True also drops parents left empty (not the root)."""
    keys = key_path(path)
    bom, body = split_bom(text)
    if not body.strip():
        return text
    view = jsonc.blank(body)
    parent, _, index = walk(view, root_of(view), keys)
    if index is None:
        return text
    while index is not None:
        change = _cut(body, view, parent, index)
        body, view = apply(body, change), apply(view, change)
        parent, _, index = walk(view, root_of(view), keys)
    if prune:
        body, view = prune_empty(body, view, keys[:-1])
    return bom + body


def append_item(text: str, path: Sequence[str], value: Any) -> str:
    """Text with value appended to the array at path, creating the array and parents if missing."""
    keys = key_path(path)
    bom, body = split_bom(text)
    body = blank_as_empty(body)
    view = jsonc.blank(body)
    root = root_of(view)
    parent, depth, index = walk(view, root, keys)
    style = detect(view, root)
    if index is None:
        new = nest(keys[depth + 1 :], [value])
        change = insert(view, parent, keys[depth], new, style)
    else:
        array = open_container(view, parent.members[index], "[", keys)
        change = insert(view, array, None, value, style)
    return bom + apply(body, _tidy(change, view, body))


def remove_item(text: str, path: Sequence[str], value: Any) -> str:
    """Text without the first element equal to value in the array at path (unchanged if none)."""
    keys = key_path(path)
    bom, body = split_bom(text)
    if not body.strip():
        return text
    view = jsonc.blank(body)
    parent, _, index = walk(view, root_of(view), keys)
    if index is None:
        return text
    array = open_container(view, parent.members[index], "[", keys)
    for position, element in enumerate(array.members):
        if same(json.loads(view[element.value_start : element.value_end]), value):
            return bom + apply(body, _cut(body, view, array, position))
    return text
