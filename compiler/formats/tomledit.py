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

from __future__ import annotations

import copy
import functools
import math
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError, TOMLKitError

__all__ = [
    "TomlEditError",
    "edit_tables",
    "get_table",
    "lookup_table",
    "parse",
    "remove_table",
    "set_table",
]

Path = tuple[str, ...]


class TomlEditError(ValueError):
    """Text that is not TOML, a path through a non-table, or a value TOML cannot hold."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None) -> None:
        where = f"line {line}, column {col}: " if line is not None else ""
        super().__init__(where + message)
        self.line = line
        self.col = col


# --------------------------------------------------------------------------------------------
# public API


def parse(text: str) -> dict[str, Any]:
    """The data of a TOML text as plain Python values; TomlEditError names line and column."""
    return _load(text)[0]


def _load(text: str) -> tuple[dict[str, Any], bool]:
    """(data, whether the text is strict TOML 1.0)."""
    try:
        return tomllib.loads(text), True  # strict, and 15x faster than tomlkit
    except tomllib.TOMLDecodeError:
        pass  # tomlkit names line and column, and reads what it accepts beyond TOML 1.0
    try:
        return tomlkit.parse(text).unwrap(), False
    except ParseError as exc:
        reason = str(exc).rsplit(f" at line {exc.line} col {exc.col}", 1)[0]
        raise TomlEditError(f"not valid TOML: {reason}", exc.line, exc.col + 1) from exc
    except (TOMLKitError, ValueError) as exc:
        raise TomlEditError(f"not valid TOML: {exc}") from exc


def get_table(text: str, path: Sequence[str]) -> dict[str, Any] | None:
    """The table at `path` as plain data, or None when it is absent."""
    return lookup_table(parse(text), path, text)


def lookup_table(
    data: dict[str, Any], path: Sequence[str], text: str = ""
) -> dict[str, Any] | None:
    """The table at `path` of `text` already parsed (`data`), or None when it is absent."""
    key = _path(path)
    found, value = _lookup(data, key, text)
    if not found:
        return None
    if not isinstance(value, dict):
        raise _not_a(text, key, "a table")
    return value


def set_table(text: str, path: Sequence[str], value: dict[str, Any]) -> str:
    """Make the table at `path` equal `value`, editing only that table's text."""
    return edit_tables(text, [(path, value)])


def remove_table(text: str, path: Sequence[str], *, prune: bool = True) -> str:
    """Remove the table at `path` (and only it); `text` unchanged when it is absent."""
    key = _path(path)
    out = edit_tables(text, [(key, None)])
    if not prune and out != text and len(key) > 1 and not _lookup(parse(out), key[:-1], out)[0]:
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
    keyed = [(_path(path), value) for path, value in changes]
    for _, value in keyed:
        if value is not None:
            _check_table(value)
    doc = _doc(text)
    if len(keyed) > 1 and not _independent(doc, [key for key, _ in keyed]):
        for key, value in keyed:
            text = edit_tables(text, [(key, value)])
        return text
    edits = _Edits(doc)
    expected = _Expected(doc.data)
    removed: list[Path] = []
    for key, value in keyed:
        found, current = _lookup(doc.data, key, text)
        if found and not isinstance(current, dict):
            raise _not_a(text, key, "a table")
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
        what = _dotted(keyed[0][0]) if len(keyed) == 1 else f"{len(keyed)} tables"
        _verify(doc, out, expected.data, removed, what)
    return text if out == text else out


def _independent(doc: _Doc, keys: list[Path]) -> bool:
    """Whether edits of these tables can be spliced into one text together: no path is, or
    is inside, another, and none lives in an inline value (whose text is rewritten whole)."""
    seen = set(keys)
    if len(seen) != len(keys):
        return False
    for key in keys:
        if any(key[:n] in seen for n in range(1, len(key))) or doc.container(key) is not None:
            return False
    return True


def _set_into(doc: _Doc, key: Path, value: dict[str, Any], current: Any, edits: _Edits) -> None:
    """The edits that make the table at `key` equal `value` (`current`: None when absent)."""
    container = doc.container(key)
    if container is not None:
        doc.rewrite_inline(container, key, lambda slot: slot.__setitem__(key[-1], value), edits)
    elif current is not None:
        doc.merge(key, value, current, edits)
    else:
        doc.insert_new(key, value, edits)


def _remove_into(doc: _Doc, key: Path, edits: _Edits) -> None:
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

    def _slot(self, key: Path) -> dict[str, Any]:
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
        self._slot(key)[key[-1]] = value

    def remove(self, key: Path) -> None:
        del self._slot(key)[key[-1]]


# --------------------------------------------------------------------------------------------
# scanning: TOML text -> statements, each covering whole lines


@dataclass(frozen=True, slots=True)
class _Stmt:
    """One statement of the text: blank, comment, kv, table or aot, covering whole lines."""

    kind: str
    start: int
    end: int
    key: Path = ()
    vstart: int = 0
    vend: int = 0

    @property
    def span(self) -> tuple[int, int]:
        """Offsets of the statement's lines, newline included."""
        return self.start, self.end


class _ScanError(Exception):
    """The scanner found text it does not understand at an offset."""

    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos


_BARE = re.compile(r"[A-Za-z0-9_-]+")
_WS = re.compile(r"[ \t]*")
_WS_NL = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
_EOL = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\r?\n|\Z)")
_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
_BLANK_LINE = re.compile(r"[ \t]*\r?\n")
_BLANK_OR_COMMENT = re.compile(r"[ \t]*(#[^\n]*)?(?:\r?\n|\Z)")
_SCALAR = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?"
    r"|[^\s#,\]\}]+"
)
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "e": "\x1b", '"': '"'}
_ESCAPES["\\"] = "\\"


def _match_end(pattern: re.Pattern[str], text: str, i: int) -> int:
    """Where the run of `pattern` at `i` ends (_WS and _WS_NL also match the empty string)."""
    found = pattern.match(text, i)
    return found.end() if found else i


class _Scanner:
    """Split TOML text into statements; assumes text that already parsed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)

    def ch(self, i: int) -> str:
        """The character at `i`, or "" past the end."""
        return self.text[i] if i < self.n else ""

    def ws(self, i: int) -> int:
        """Skip spaces and tabs."""
        return _match_end(_WS, self.text, i)

    def ws_nl(self, i: int) -> int:
        """Skip whitespace, newlines and comments (inside arrays and inline tables)."""
        return _match_end(_WS_NL, self.text, i)

    def eol(self, i: int) -> int:
        """Skip trailing whitespace and comment; the offset after the line's newline."""
        m = _EOL.match(self.text, i)
        if not m:
            raise _ScanError(self.ws(i), "expected the end of the line")
        return m.end()

    def basic_end(self, i: int) -> int:
        """The offset after the basic string starting at `i`."""
        m = _BASIC.match(self.text, i)
        if not m:
            raise _ScanError(i, "unterminated string")
        return m.end()

    def literal_end(self, i: int) -> int:
        """The offset after the literal string starting at `i`."""
        m = _LITERAL.match(self.text, i)
        if not m:
            raise _ScanError(i, "unterminated string")
        return m.end()

    def multiline_end(self, i: int, quote: str) -> int:
        """The offset after the multi-line string starting at `i`."""
        delim = quote * 3
        j = i + 3
        while j < self.n:
            if quote == '"' and self.text[j] == "\\":
                j += 2
            elif self.text.startswith(delim, j):
                k = j
                while self.ch(k) == quote:
                    k += 1
                return k
            else:
                j += 1
        raise _ScanError(i, "unterminated multi-line string")

    def key(self, i: int) -> tuple[Path, int]:
        """Parse a (dotted) key at `i`; its parts and the offset after it."""
        parts: list[str] = []
        while True:
            i = self.ws(i)
            c = self.ch(i)
            if c == '"':
                j = self.basic_end(i)
                parts.append(_unescape(self.text[i + 1 : j - 1]))
            elif c == "'":
                j = self.literal_end(i)
                parts.append(self.text[i + 1 : j - 1])
            else:
                m = _BARE.match(self.text, i)
                if not m:
                    raise _ScanError(i, "expected a key")
                j = m.end()
                parts.append(m.group())
            i = self.ws(j)
            if self.ch(i) != ".":
                return tuple(parts), i
            i += 1

    def value(self, i: int) -> int:
        """The offset after the value starting at `i`."""
        t, c = self.text, self.ch(i)
        if t.startswith('"""', i):
            return self.multiline_end(i, '"')
        if t.startswith("'''", i):
            return self.multiline_end(i, "'")
        if c == '"':
            return self.basic_end(i)
        if c == "'":
            return self.literal_end(i)
        if c in ("[", "{"):
            close = "]" if c == "[" else "}"
            i += 1
            while True:
                i = self.ws_nl(i)
                if self.ch(i) == close:
                    return i + 1
                if c == "{":
                    _, i = self.key(i)
                    if self.ch(i) != "=":
                        raise _ScanError(i, "expected '='")
                    i = self.ws(i + 1)
                i = self.ws_nl(self.value(i))
                if self.ch(i) == ",":
                    i += 1
                elif self.ch(i) != close:
                    raise _ScanError(i, f"expected ',' or '{close}'")
        m = _SCALAR.match(t, i)
        if not m:
            raise _ScanError(i, "expected a value")
        return m.end()

    def statements(self) -> list[_Stmt]:
        """All statements of the text, in order."""
        out: list[_Stmt] = []
        i = 1 if self.text.startswith("\ufeff") else 0
        while i < self.n:
            m = _BLANK_OR_COMMENT.match(self.text, i)
            if m:
                out.append(_Stmt("comment" if m.group(1) else "blank", i, m.end()))
                i = m.end()
                continue
            j = self.ws(i)
            c = self.ch(j)
            if c == "[":
                aot = self.text.startswith("[[", j)
                key, k = self.key(j + 1 + aot)
                close = "]]" if aot else "]"
                if not self.text.startswith(close, k):
                    raise _ScanError(k, f"expected '{close}'")
                out.append(_Stmt("aot" if aot else "table", i, self.eol(k + len(close)), key))
            else:
                key, k = self.key(j)
                if self.ch(k) != "=":
                    raise _ScanError(k, "expected '='")
                vstart = self.ws(k + 1)
                vend = self.value(vstart)
                out.append(_Stmt("kv", i, self.eol(vend), key, vstart, vend))
            i = out[-1].end
        return out


def _unescape(raw: str) -> str:
    """Decode the escapes of a basic string's body."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = raw[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "uUx":
            width = {"u": 4, "U": 8, "x": 2}[e]
            out.append(chr(int(raw[i + 2 : i + 2 + width], 16)))
            i += 2 + width
        else:
            raise ValueError(f"unknown escape \\{e}")
    return "".join(out)


# --------------------------------------------------------------------------------------------
# the document: statements, sections and the fragments that define a table


@dataclass
class _Fragments:
    """Statements that define one table."""

    own: int | None = None  # its `[path]` header
    desc: list[int] = field(default_factory=list)  # headers below it, `[path.x]`/`[[path.x]]`
    kvs: list[int] = field(default_factory=list)  # key/values inside it, body or dotted


@dataclass
class _Index:
    """Per table path: its own header, the headers and key/values below it, the last header
    at or below it, and the first key/value statement of each full key path."""

    own: dict[Path, int] = field(default_factory=dict)
    desc: dict[Path, list[int]] = field(default_factory=dict)
    kvs: dict[Path, list[int]] = field(default_factory=dict)
    family_last: dict[Path, int] = field(default_factory=dict)
    first_kv: dict[Path, int] = field(default_factory=dict)

    @classmethod
    def of(cls, doc: _Doc) -> _Index:
        index = cls()
        for i, s in enumerate(doc.stmts):
            if s.kind in ("table", "aot"):
                if s.kind == "table":
                    index.own[s.key] = i
                for n in range(1, len(s.key)):
                    index.desc.setdefault(s.key[:n], []).append(i)
                for n in range(1, len(s.key) + 1):
                    index.family_last[s.key[:n]] = i
            elif s.kind == "kv":
                full = doc.full(i)
                index.first_kv.setdefault(full, i)
                for n in range(max(len(doc.owner[i]), 1), len(full)):
                    index.kvs.setdefault(full[:n], []).append(i)
        return index


class _Doc:
    """Parsed text: data, statements, headers and the table each statement belongs to."""

    def __init__(self, text: str) -> None:
        self.original = text
        self.nl = "\r\n" if "\r\n" in text[: text.find("\n") + 1] else "\n"
        # A text without a final newline is edited with one, then loses it again: every
        # statement then ends with a newline, and undo restores the missing one exactly.
        self.missing_nl = bool(text) and not text.endswith("\n")
        text = text + self.nl if self.missing_nl else text
        self.text = text
        self.data, self.strict = _load(text)
        try:
            self.stmts = _Scanner(text).statements()
        except (_ScanError, ValueError, IndexError) as exc:
            pos = exc.pos if isinstance(exc, _ScanError) else 0
            line, col = _line_col(text, pos)
            raise TomlEditError(f"cannot edit this TOML safely: {exc}", line, col) from exc
        self.headers = [i for i, s in enumerate(self.stmts) if s.kind in ("table", "aot")]
        self.owner: list[Path] = []
        self.next_header: dict[int, int] = {}
        current: Path = ()
        for s in self.stmts:
            if s.kind in ("table", "aot"):
                current = s.key
            self.owner.append(current)
        for a, b in zip(self.headers, [*self.headers[1:], len(self.stmts)], strict=False):
            self.next_header[a] = b

    def finish(self, edits: _Edits) -> str:
        """The edited text, without a final newline when the original had none."""
        out = edits.apply()
        if self.missing_nl and out.endswith(self.nl):
            out = out[: -len(self.nl)]
        return out

    def full(self, i: int) -> Path:
        """The full key path of key/value statement `i`."""
        return self.owner[i] + self.stmts[i].key

    def attached(self, h: int) -> int:
        """First statement of the comment lines directly above statement `h`."""
        while h > 0 and self.stmts[h - 1].kind == "comment":
            h -= 1
        return h

    def content_end(self, h: int) -> int:
        """Offset after section `h`'s last non-blank line (-1: root), not the next's comments."""
        first = 0 if h < 0 else h
        stop = self.headers[0] if h < 0 and self.headers else len(self.stmts)
        if h >= 0:
            stop = self.next_header[h]
        stop = self.attached(stop) if stop < len(self.stmts) else stop
        last = None
        for i in range(first, stop):
            if self.stmts[i].kind != "blank":
                last = i
        if last is None:
            return 0 if h < 0 else self.stmts[h].end
        return self.stmts[last].end

    def doc_end(self) -> int:
        """Where a table appended to the end of the document goes."""
        return self.content_end(self.headers[-1] if self.headers else -1)

    def family_end(self, path: Path) -> int:
        """Where a table goes after the last header at or below `path`."""
        return self.content_end(self.index.family_last[path])

    def section_span(self, h: int) -> tuple[int, int]:
        """What removing header `h` removes: one blank line above, it, its body to the last key."""
        start = self.stmts[h].start
        if h > 0 and self.stmts[h - 1].kind == "blank":
            start = self.stmts[h - 1].start
        last = h
        for i in range(h + 1, self.next_header[h]):
            if self.stmts[i].kind == "kv":
                last = i
        return start, self.stmts[last].end

    def container(self, path: Path) -> int | None:
        """The key/value statement whose inline value holds `path` (or is it), if any."""
        first = self.index.first_kv
        found = [first[path[:n]] for n in range(1, len(path) + 1) if path[:n] in first]
        return min(found) if found else None

    def fragments(self, path: Path) -> _Fragments:
        """The statements that define the table at `path` (not inside an inline value)."""
        index = self.index
        return _Fragments(
            index.own.get(path), list(index.desc.get(path, ())), list(index.kvs.get(path, ()))
        )

    @functools.cached_property
    def index(self) -> _Index:
        """Statements by the table paths they define: one pass, so that each lookup of an
        edit costs the depth of its path, not the length of the file."""
        return _Index.of(self)

    def groups(self, path: Path, fr: _Fragments) -> dict[str, list[tuple[str, int]]]:
        """The fragments of `path` grouped by the child key they define."""
        out: dict[str, list[tuple[str, int]]] = {}
        n = len(path)
        for i in fr.kvs:
            out.setdefault(self.full(i)[n], []).append(("kv", i))
        for h in fr.desc:
            out.setdefault(self.stmts[h].key[n], []).append(("sec", h))
        return out

    def delete(self, group: list[tuple[str, int]], edits: _Edits) -> None:
        """Delete the statements and sections of one child."""
        for kind, i in group:
            edits.delete(*(self.stmts[i].span if kind == "kv" else self.section_span(i)))

    def last_kv(self, h: int) -> int:
        """The last key/value statement of section `h`, or the header itself."""
        last = h
        for i in range(h + 1, self.next_header[h]):
            if self.stmts[i].kind == "kv":
                last = i
        return last

    def merge(self, path: Path, new: dict[str, Any], cur: dict[str, Any], edits: _Edits) -> None:
        """Edit the existing table at `path` from `cur` to `new`, key by key."""
        fr = self.fragments(path)
        groups = self.groups(path, fr)
        readd: set[str] = set()
        for k, old in cur.items():
            group = groups.get(k, [])
            if k not in new:
                self.delete(group, edits)
                continue
            value = new[k]
            if _same(old, value):
                continue
            exact = len(group) == 1 and group[0][0] == "kv"
            exact = exact and self.full(group[0][1]) == (*path, k)
            if exact:
                stmt = self.stmts[group[0][1]]
                edits.replace(stmt.vstart, stmt.vend, _render(value))
            elif isinstance(value, dict) and isinstance(old, dict):
                self.merge((*path, k), value, old, edits)
            else:
                self.delete(group, edits)
                readd.add(k)
        added = {k: v for k, v in new.items() if k not in cur or k in readd}
        if added:
            self.add(path, fr, added, edits)
        elif not new and fr.own is None and fr.kvs:  # keep the emptied table: `a.b = {}`
            last = max(fr.kvs)
            edits.insert(self.stmts[last].end, [_kv_line(path[len(self.owner[last]) :], {})])
        elif not new and fr.own is None:  # likewise for a super-table: `[a.b]`
            first = self.attached(min(fr.desc))
            edits.insert(self.stmts[first].start, [*_table_lines(path, {}), ""])

    def add(self, path: Path, fr: _Fragments, items: dict[str, Any], edits: _Edits) -> None:
        """Add new keys to the existing table at `path`, in the style it is written in."""
        if fr.own is None and fr.kvs:
            last = max(fr.kvs)
            prefix = path[len(self.owner[last]) :]
            lines = [_kv_line((*prefix, k), v) for k, v in items.items()]
            edits.insert(self.stmts[last].end, lines)
            return
        plain = {k: v for k, v in items.items() if not _is_section(v)}
        sections = {k: v for k, v in items.items() if _is_section(v)}
        if plain and fr.own is not None:
            anchor = self.last_kv(fr.own)
            edits.insert(self.stmts[anchor].end, [_kv_line((k,), v) for k, v in plain.items()])
        elif plain:
            first = self.attached(min(fr.desc))
            lines = _table_lines(path, plain)
            edits.insert(self.stmts[first].start, [*lines, ""])
        if sections:
            lines = []
            for k, v in sections.items():
                lines += _sub_lines((*path, k), v)
            edits.insert(self.family_end(path), lines)

    def insert_new(self, path: Path, value: dict[str, Any], edits: _Edits) -> None:
        """Write the absent table at `path` where it belongs."""
        for depth in range(len(path) - 1, 0, -1):
            ancestor = path[:depth]
            if not _lookup(self.data, ancestor, self.text)[0]:
                continue
            fr = self.fragments(ancestor)
            if fr.own is not None or fr.desc:
                lines = ["", *_table_lines(path, value)]
                edits.insert(self.family_end(ancestor), lines)
                return
            if fr.kvs:
                last = max(fr.kvs)
                prefix = path[len(self.owner[last]) :]
                lines = [_kv_line((*prefix, k), v) for k, v in value.items()]
                edits.insert(self.stmts[last].end, lines or [_kv_line(prefix, {})])
                return
        offset = self.doc_end()
        lines = _table_lines(path, value)
        above = offset > 0 or offset in edits.inserted  # a table this call put first
        edits.insert(offset, ["", *lines] if above else lines)

    def rewrite_inline(self, i: int, path: Path, change: Any, edits: _Edits) -> None:
        """Rewrite the inline value of statement `i` after `change` edits the slot of `path`."""
        full = self.full(i)
        found, old = _lookup(self.data, full, self.text)
        assert found
        holder = {full[-1]: copy.deepcopy(old)}
        change(_slot(holder, path[len(full) - 1 :]))
        new = holder[full[-1]]
        if not _same(old, new):
            stmt = self.stmts[i]
            edits.replace(stmt.vstart, stmt.vend, _render(new))


@functools.lru_cache(maxsize=16)
def _doc(text: str) -> _Doc:
    """The scanned document of a text; shared and read-only (an apply edits one file often)."""
    return _Doc(text)


class _Edits:
    """Deletions, replacements and insertions of whole lines on one text, applied together."""

    def __init__(self, doc: _Doc) -> None:
        self.text = doc.text
        self.nl = doc.nl
        self.deletions: list[tuple[int, int]] = []
        self.insertions: list[tuple[int, str]] = []
        self.inserted: set[int] = set()  # the offsets of the insertions

    def delete(self, start: int, end: int) -> None:
        """Delete a span (whole lines)."""
        self.deletions.append((start, end))

    def replace(self, start: int, end: int, new: str) -> None:
        """Replace a span within one statement."""
        self.deletions.append((start, end))
        self.insertions.append((start, new))

    def insert(self, offset: int, lines: list[str]) -> None:
        """Insert whole lines at a line boundary, in the file's newline style."""
        self.insertions.append((offset, "".join(line + self.nl for line in lines)))
        self.inserted.add(offset)

    def apply(self) -> str:
        """The edited text."""
        text = self.text
        merged: list[list[int]] = []
        for start, end in sorted(self.deletions):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        if merged and merged[0][0] == 0 and all(o > merged[0][1] for o, _ in self.insertions):
            # what was first in the file is gone: so is the blank line that followed it
            blank = _BLANK_LINE.match(text, merged[0][1])
            if blank and text[blank.end() :].strip():
                merged[0][1] = blank.end()
                if len(merged) > 1 and merged[1][0] <= blank.end():
                    merged[0][1] = max(merged.pop(1)[1], blank.end())
        inserts = sorted(enumerate(self.insertions), key=lambda x: (x[1][0], x[0]))
        out: list[str] = []
        pos = k = 0
        for start, end in [*merged, [len(text), len(text)]]:
            while k < len(inserts) and inserts[k][1][0] <= start:
                offset = max(inserts[k][1][0], pos)
                out.append(text[pos:offset])
                pos = offset
                out.append(inserts[k][1][1])
                k += 1
            out.append(text[pos:start] if start > pos else "")
            pos = max(pos, end)
        return "".join(out)


# --------------------------------------------------------------------------------------------
# values: checking, rendering, comparing


def _path(path: Sequence[str]) -> Path:
    """Check and normalise a table path."""
    if isinstance(path, str) or not path or not all(isinstance(p, str) for p in path):
        raise TomlEditError(f"a table path is a non-empty sequence of keys, not {path!r}")
    return tuple(path)


def _check_table(value: Any) -> None:
    """Refuse values TOML cannot hold."""
    if not isinstance(value, dict):
        raise TomlEditError(f"a table value must be a dict, not {type(value).__name__}")
    _check(value, "")


def _check(value: Any, where: str) -> None:
    """Refuse a value TOML cannot hold, naming where it is."""
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TomlEditError(f"{where or 'table'}: key {k!r} is not a string")
            _check_text(k, where)
            _check(v, f"{where}.{k}" if where else k)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check(v, f"{where}[{i}]")
    elif isinstance(value, str):
        _check_text(value, where)
    elif isinstance(value, bool | float | date):
        offset = value.utcoffset() if isinstance(value, datetime) else None
        if offset is not None and offset.seconds % 60:
            raise TomlEditError(f"{where}: TOML offsets are whole minutes")
    elif isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise TomlEditError(f"{where}: {value} does not fit in a 64-bit TOML integer")
    elif isinstance(value, time):
        if value.tzinfo is not None:
            raise TomlEditError(f"{where}: TOML times have no time zone")
    else:
        raise TomlEditError(f"{where}: TOML cannot hold {type(value).__name__} values")


def _check_text(s: str, where: str) -> None:
    """Refuse strings that are not encodable as UTF-8 (lone surrogates)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise TomlEditError(f"{where or 'key'}: string is not valid Unicode") from exc


def _str(s: str) -> str:
    """A TOML basic string."""
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[c])
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _key(k: str) -> str:
    """A TOML key part: bare when possible."""
    return k if _BARE.fullmatch(k) else _str(k)


def _dotted(path: Sequence[str]) -> str:
    """A dotted TOML key."""
    return ".".join(_key(p) for p in path)


def _render(value: Any) -> str:
    """An inline TOML value."""
    if isinstance(value, str):
        return _str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)} = {_render(v)}" for k, v in value.items()) + " }"
    return "[" + ", ".join(_render(v) for v in value) + "]"


def _kv_line(key: Sequence[str], value: Any) -> str:
    """A `key = value` line."""
    return f"{_dotted(key)} = {_render(value)}"


def _is_aot_value(value: Any, *, allow_empty: bool = False) -> bool:
    """A list of dicts (an array of tables)."""
    if not isinstance(value, list | tuple) or (not value and not allow_empty):
        return False
    return all(isinstance(v, dict) for v in value)


def _is_section(value: Any) -> bool:
    """Written as a sub-table or an array of tables rather than inline."""
    if _is_aot_value(value):
        return True
    return isinstance(value, dict) and any(
        isinstance(v, dict) or _is_aot_value(v) for v in value.values()
    )


def _table_lines(path: Path, value: dict[str, Any], *, aot: bool = False) -> list[str]:
    """Lines of a standard table (or array item) with its sub-tables."""
    lines = [f"[[{_dotted(path)}]]" if aot else f"[{_dotted(path)}]"]
    subs: list[str] = []
    for k, v in value.items():
        if _is_section(v):
            subs += _sub_lines((*path, k), v)
        else:
            lines.append(_kv_line((k,), v))
    return lines + subs


def _sub_lines(path: Path, value: Any) -> list[str]:
    """Lines of a sub-table or array of tables, each preceded by a blank line."""
    if isinstance(value, dict):
        if all(_is_section(v) for v in value.values()):
            out: list[str] = []
            for k, v in value.items():
                out += _sub_lines((*path, k), v)
            return out
        return ["", *_table_lines(path, value)]
    out = []
    for item in value:
        out += ["", *_table_lines(path, item, aot=True)]
    return out


def _kind(value: Any) -> str:
    """The TOML type of a plain value."""
    for kind in (bool, int, float, str, datetime, date, time, dict, list):
        if isinstance(value, kind):
            return kind.__name__
    return type(value).__name__


def _same(a: Any, b: Any) -> bool:
    """Equal as TOML data: same types (1 is not 1.0 or true), nan equals nan."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, datetime):
        return a == b and (a.tzinfo is None) == (b.tzinfo is None)
    return a == b


# --------------------------------------------------------------------------------------------
# data helpers


def _under(key: Path, path: Path, *, strict: bool = True) -> bool:
    """`key` is below `path` (or equal to it when not strict)."""
    n = len(path)
    return key[:n] == path and (len(key) > n or not strict)


def _lookup(data: dict[str, Any], path: Path, text: str) -> tuple[bool, Any]:
    """(found, value) at `path`; TomlEditError when the path crosses a non-table."""
    cur: Any = data
    for i, k in enumerate(path):
        if not isinstance(cur, dict):
            raise _not_a(text, path[:i], "a table")
        if k not in cur:
            return False, None
        cur = cur[k]
    return True, cur


def _slot(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The dict holding `path`'s last key, created on the way."""
    cur = data
    for k in path[:-1]:
        cur = cur.setdefault(k, {})
    return cur


def _copy_path(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """A copy of `data` that shares everything but the tables holding `path`."""
    top = dict(data)
    cur = top
    for k in path[:-1]:
        nxt = cur.get(k)
        if not isinstance(nxt, dict):
            break
        copied = dict(nxt)
        cur[k] = copied
        cur = copied
    return top


def _prune(data: Any, path: Path) -> Any:
    """`data` without empty tables or arrays at `path` and its ancestors (for comparisons)."""
    data = _copy_path(data, (*path, ""))
    for depth in range(len(path), 0, -1):
        found, value = _lookup(data, path[:depth], "")
        if found and value in ({}, []):
            del _slot(data, path[:depth])[path[depth - 1]]
    return data


def _verify(
    before: _Doc, out: str, expected: dict[str, Any], removed: list[Path], what: str
) -> None:
    """Refuse a result whose data is not exactly what the edits should give (a removed
    table's emptied parents may go with it, as an implicit parent does)."""
    try:
        after = _doc(out)  # cached: the next edit of this text starts from here
    except TomlEditError as exc:
        raise TomlEditError(f"editing {what} would break the file ({exc})") from exc
    if before.strict and not after.strict:
        raise TomlEditError(f"editing {what} would make the file invalid TOML 1.0")
    actual = after.data
    for path in removed:
        actual, expected = _prune(actual, path), _prune(expected, path)
    if not _same(actual, expected):
        raise TomlEditError(f"editing {what} safely is not possible in this file")


def _not_a(text: str, path: Path, what: str) -> TomlEditError:
    """The error for a path that names (or crosses) something other than `what`."""
    line = col = None
    if text:
        try:
            doc_stmts = _Scanner(text).statements()
        except (_ScanError, ValueError, IndexError):
            doc_stmts = []
        owner: Path = ()
        for s in doc_stmts:
            if s.kind in ("table", "aot"):
                owner = s.key
            full = s.key if s.kind in ("table", "aot") else owner + s.key
            if s.kind != "blank" and s.kind != "comment" and full == path:
                line, col = _line_col(text, s.start)
                break
    return TomlEditError(f"{_dotted(path)} is not {what}", line, col)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of an offset."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1
