"""Format-preserving edits of whole TOML tables (Codex config.toml)."""

# How it works. The data comes from tomllib (strict TOML 1.0) or, for what only tomlkit reads,
# from tomlkit, which also names line and column of errors. The edits are made on the text itself,
# statement by statement, so everything outside the edited table keeps its exact bytes: editing
# through tomlkit's document model moves the comment above the next table into the new one,
# drops the blank line before the next header, writes LF into CRLF files and so cannot be undone
# byte for byte. Every result is parsed again and compared with the data it must have (and must
# still be TOML 1.0 when the input was); a mismatch raises instead of returning a wrong file.
#
# Rules:
# - A table is whatever defines it: its `[a.b]` header and body, its sub-table headers (wherever
#   they are in the file), dotted keys (`a.b.k = 1`) or an inline table (`b = {...}`).
# - set_table on an existing table edits it key by key: equal values keep their text, changed
#   values are rewritten in place (key text and end-of-line comment kept), missing keys are
#   deleted, new keys are added after the table's last key. Comment lines are never deleted
#   except those inside a deleted sub-table or a rewritten multi-line value.
# - A new table is appended as `[a.b]`: after the last table under its deepest existing
#   ancestor, else at the end of the document. A blank line separates it from what is above;
#   the file's newline (LF or CRLF) and missing final newline are kept.
#   If that ancestor is written with dotted keys, the new table is too (`a.b.k = v`); inside an
#   inline table, the enclosing inline value is rewritten.
# - Rendering of values: a dict is written inline (`env = { A = "b" }`) unless it holds a dict or
#   an array of tables, then it is a sub-table `[a.b.k]` (its header left out when it has no key
#   of its own); a non-empty list of dicts is an array of tables `[[a.b.k]]`; strings are basic
#   strings with escapes.
# - Comment lines directly above a header belong to that table: set_table keeps them, and
#   remove_table keeps them too (they are the user's); blank lines and comments after a table's
#   last key stay in place. Removing a table also removes one blank line right above its header
#   (or, at the top of the file, the one below it).
# - An implicit parent (a super-table with no header of its own) disappears with its last child;
#   remove_table(prune=False) keeps it as an explicit empty `[parent]`. An explicit header the
#   user wrote is never removed by removing a child.

# The parts: tomlscan (text -> statements), tomldoc (statements indexed by table, line edits),
# tomlvalues (the error, checking, rendering and comparing values); this module is the API.

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memhub.compiler.formats.tomldoc import Doc, Edits, scanned
from memhub.compiler.formats.tomlvalues import (
    Path,
    TomlEditError,
    check_table,
    dotted,
    load,
    lookup,
    not_a,
    prune_empty,
    same,
    table_path,
)

__all__ = [
    "TomlEditError",
    "edit_tables",
    "get_table",
    "lookup_table",
    "parse",
    "remove_table",
    "set_table",
]


def parse(text: str) -> dict[str, Any]:
    """The data of a TOML text as plain Python values; TomlEditError names line and column."""
    return load(text)[0]


def get_table(text: str, path: Sequence[str]) -> dict[str, Any] | None:
    """The table at `path` as plain data, or None when it is absent."""
    return lookup_table(parse(text), path, text)


def lookup_table(
    data: dict[str, Any], path: Sequence[str], text: str = ""
) -> dict[str, Any] | None:
    """The table at `path` of `text` already parsed (`data`), or None when it is absent."""
    key = table_path(path)
    found, value = lookup(data, key, text)
    if not found:
        return None
    if not isinstance(value, dict):
        raise not_a(text, key, "a table")
    return value


def set_table(text: str, path: Sequence[str], value: dict[str, Any]) -> str:
    """Make the table at `path` equal `value`, editing only that table's text."""
    return edit_tables(text, [(path, value)])


def remove_table(text: str, path: Sequence[str], *, prune: bool = True) -> str:
    """Remove the table at `path` (and only it); `text` unchanged when it is absent."""
    key = table_path(path)
    out = edit_tables(text, [(key, None)])
    if not prune and out != text and len(key) > 1 and not lookup(parse(out), key[:-1], out)[0]:
        out = set_table(out, key[:-1], {})
    return out


Change = tuple[Sequence[str], dict[str, Any] | None]  # a table's path, its value or None


def edit_tables(text: str, changes: Sequence[Change]) -> str:
    """Set (a dict) or remove (None) several tables at once: one scan of the text, every
    edit spliced in together, one parse to verify the result. Each edit costs the size of
    its table, not of the file, so a thousand servers cost a thousand times one.

    Edits that touch each other (one path inside another, a table in an inline value) are
    made one after the other instead; either way the result is what making them one by one
    with set_table and remove_table gives, in data and (but for where a table lands next to
    one removed in the same call) in bytes.
    """
    keyed = [(table_path(path), value) for path, value in changes]
    for _, value in keyed:
        if value is not None:
            check_table(value)
    doc = scanned(text)
    if len(keyed) > 1 and not _independent(doc, [key for key, _ in keyed]):
        for key, value in keyed:
            text = edit_tables(text, [(key, value)])
        return text
    edits = Edits(doc)
    expected = _Expected(doc.data)
    removed: list[Path] = []
    for key, value in keyed:
        found, current = lookup(doc.data, key, text)
        if found and not isinstance(current, dict):
            raise not_a(text, key, "a table")
        if value is None:
            if found:
                _remove_into(doc, key, edits)
                expected.remove(key)
                removed.append(key)
        else:
            _set_into(doc, key, value, current if found else None, edits)
            expected.set(key, value)
    out = doc.finish(edits)
    if out != text or removed:
        what = dotted(keyed[0][0]) if len(keyed) == 1 else f"{len(keyed)} tables"
        _verify(doc, out, expected.data, removed, what)
    return text if out == text else out


def _independent(doc: Doc, keys: list[Path]) -> bool:
    """Whether edits of these tables can be spliced into one text together: no path is, or
    is inside, another, and none lives in an inline value (whose text is rewritten whole)."""
    seen = set(keys)
    if len(seen) != len(keys):
        return False
    for key in keys:
        if any(key[:n] in seen for n in range(1, len(key))) or doc.container(key) is not None:
            return False
    return True


def _set_into(doc: Doc, key: Path, value: dict[str, Any], current: Any, edits: Edits) -> None:
    """The edits that make the table at `key` equal `value` (`current`: None when absent)."""
    container = doc.container(key)
    if container is not None:
        doc.rewrite_inline(container, key, lambda slot: slot.__setitem__(key[-1], value), edits)
    elif current is not None:
        doc.merge(key, value, current, edits)
    else:
        doc.insert_new(key, value, edits)


def _remove_into(doc: Doc, key: Path, edits: Edits) -> None:
    """The edits that remove the (present) table at `key`."""
    container = doc.container(key)
    if container is not None and doc.full(container) == key:
        edits.delete(*doc.stmts[container].span)
    elif container is not None:
        doc.rewrite_inline(container, key, lambda slot: slot.pop(key[-1]), edits)
    else:
        fr = doc.fragments(key)
        for group in doc.groups(key, fr).values():
            doc.delete(group, edits)
        if fr.own is not None:
            edits.delete(*doc.section_span(fr.own))


class _Expected:
    """The data an edited text must parse to: the original's, copied only along the
    edited paths (copying the whole of a large file per edit would cost its size)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = dict(data)
        self._copied = {id(self.data)}

    def slot(self, key: Path) -> dict[str, Any]:
        cur = self.data
        for k in key[:-1]:
            nxt = cur.get(k)
            if not isinstance(nxt, dict):
                nxt = {}
            elif id(nxt) not in self._copied:
                nxt = dict(nxt)
            self._copied.add(id(nxt))
            cur[k] = nxt
            cur = nxt
        return cur

    def set(self, key: Path, value: dict[str, Any]) -> None:
        self.slot(key)[key[-1]] = value

    def remove(self, key: Path) -> None:
        del self.slot(key)[key[-1]]


def _verify(
    before: Doc, out: str, expected: dict[str, Any], removed: list[Path], what: str
) -> None:
    """Refuse a result whose data is not exactly what the edits should give (a removed
    table's emptied parents may go with it, as an implicit parent does)."""
    try:
        after = scanned(out)  # cached: the next edit of this text starts from here
        if before.text.strip():
            # text spliced into a person's file must scan for the next edit too; a new
            # file is all serializer output (its scanning is pinned by the property tests)
            after.stmts  # noqa: B018 (scanned here, for its error)
    except TomlEditError as exc:
        raise TomlEditError(f"editing {what} would break the file ({exc})") from exc
    if before.strict and not after.strict:
        raise TomlEditError(f"editing {what} would make the file invalid TOML 1.0")
    actual = after.data
    for path in removed:
        actual, expected = prune_empty(actual, path), prune_empty(expected, path)
    if not same(actual, expected):
        raise TomlEditError(f"editing {what} safely is not possible in this file")
