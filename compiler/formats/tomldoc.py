"""tomledit's document: a scanned text with its data, the statements that define each
table (indexed by path, so a lookup costs the path's depth), and the line edits of one
pass, applied together."""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any

from memhub.compiler.formats.tomlscan import BLANK_LINE, ScanError, Scanner, Stmt
from memhub.compiler.formats.tomlvalues import (
    Path,
    TomlEditError,
    is_section,
    kv_line,
    line_col,
    load,
    lookup,
    render,
    same,
    slot,
    sub_lines,
    table_lines,
)


@dataclass
class Fragments:
    """Statements that define one table."""

    own: int | None = None  # its `[path]` header
    desc: list[int] = field(default_factory=list)  # headers below it, `[path.x]`/`[[path.x]]`
    kvs: list[int] = field(default_factory=list)  # key/values inside it, body or dotted


@dataclass
class Index:
    """Per table path: its own header, the headers and key/values below it, the last header
    at or below it, and the first key/value statement of each full key path."""

    own: dict[Path, int] = field(default_factory=dict)
    desc: dict[Path, list[int]] = field(default_factory=dict)
    kvs: dict[Path, list[int]] = field(default_factory=dict)
    family_last: dict[Path, int] = field(default_factory=dict)
    first_kv: dict[Path, int] = field(default_factory=dict)

    @classmethod
    def of(cls, doc: Doc) -> Index:
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


class Doc:
    """Parsed text: data, statements, headers and the table each statement belongs to."""

    def __init__(self, text: str) -> None:
        self.original = text
        self.nl = "\r\n" if "\r\n" in text[: text.find("\n") + 1] else "\n"
        # A text without a final newline is edited with one, then loses it again: every
        # statement then ends with a newline, and undo restores the missing one exactly.
        self.missing_nl = bool(text) and not text.endswith("\n")
        text = text + self.nl if self.missing_nl else text
        self.text = text
        self.data, self.strict = load(text)

    # The statements are scanned on first use: a verified result that nothing edits again
    # (a new config of 200 servers, say) needs its data, not its statements.

    @functools.cached_property
    def stmts(self) -> list[Stmt]:
        """The text's statements, in order (tomlscan)."""
        try:
            return Scanner(self.text).statements()
        except (ScanError, ValueError, IndexError) as exc:
            pos = exc.pos if isinstance(exc, ScanError) else 0
            line, col = line_col(self.text, pos)
            raise TomlEditError(f"cannot edit this TOML safely: {exc}", line, col) from exc

    @functools.cached_property
    def headers(self) -> list[int]:
        """The indexes of the table and array-of-tables headers among the statements."""
        return [i for i, s in enumerate(self.stmts) if s.kind in ("table", "aot")]

    @functools.cached_property
    def owner(self) -> list[Path]:
        """The table each statement belongs to."""
        owner: list[Path] = []
        current: Path = ()
        for s in self.stmts:
            if s.kind in ("table", "aot"):
                current = s.key
            owner.append(current)
        return owner

    @functools.cached_property
    def next_header(self) -> dict[int, int]:
        """Each header's index -> the index of the next header (or the end)."""
        headers = self.headers
        return dict(zip(headers, [*headers[1:], len(self.stmts)], strict=False))

    def finish(self, edits: Edits) -> str:
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

    def fragments(self, path: Path) -> Fragments:
        """The statements that define the table at `path` (not inside an inline value)."""
        index = self.index
        return Fragments(
            index.own.get(path), list(index.desc.get(path, ())), list(index.kvs.get(path, ()))
        )

    @functools.cached_property
    def index(self) -> Index:
        """Statements by the table paths they define: one pass, so that each lookup of an
        edit costs the depth of its path, not the length of the file."""
        return Index.of(self)

    def groups(self, path: Path, fr: Fragments) -> dict[str, list[tuple[str, int]]]:
        """The fragments of `path` grouped by the child key they define."""
        out: dict[str, list[tuple[str, int]]] = {}
        n = len(path)
        for i in fr.kvs:
            out.setdefault(self.full(i)[n], []).append(("kv", i))
        for h in fr.desc:
            out.setdefault(self.stmts[h].key[n], []).append(("sec", h))
        return out

    def delete(self, group: list[tuple[str, int]], edits: Edits) -> None:
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

    def merge(self, path: Path, new: dict[str, Any], cur: dict[str, Any], edits: Edits) -> None:
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
            if same(old, value):
                continue
            exact = len(group) == 1 and group[0][0] == "kv"
            exact = exact and self.full(group[0][1]) == (*path, k)
            if exact:
                stmt = self.stmts[group[0][1]]
                edits.replace(stmt.vstart, stmt.vend, render(value))
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
            edits.insert(self.stmts[last].end, [kv_line(path[len(self.owner[last]) :], {})])
        elif not new and fr.own is None:  # likewise for a super-table: `[a.b]`
            first = self.attached(min(fr.desc))
            edits.insert(self.stmts[first].start, [*table_lines(path, {}), ""])

    def add(self, path: Path, fr: Fragments, items: dict[str, Any], edits: Edits) -> None:
        """Add new keys to the existing table at `path`, in the style it is written in."""
        if fr.own is None and fr.kvs:
            last = max(fr.kvs)
            prefix = path[len(self.owner[last]) :]
            lines = [kv_line((*prefix, k), v) for k, v in items.items()]
            edits.insert(self.stmts[last].end, lines)
            return
        plain = {k: v for k, v in items.items() if not is_section(v)}
        sections = {k: v for k, v in items.items() if is_section(v)}
        if plain and fr.own is not None:
            anchor = self.last_kv(fr.own)
            edits.insert(self.stmts[anchor].end, [kv_line((k,), v) for k, v in plain.items()])
        elif plain:
            first = self.attached(min(fr.desc))
            lines = table_lines(path, plain)
            edits.insert(self.stmts[first].start, [*lines, ""])
        if sections:
            lines = []
            for k, v in sections.items():
                lines += sub_lines((*path, k), v)
            edits.insert(self.family_end(path), lines)

    def insert_new(self, path: Path, value: dict[str, Any], edits: Edits) -> None:
        """Write the absent table at `path` where it belongs."""
        for depth in range(len(path) - 1, 0, -1):
            ancestor = path[:depth]
            if not lookup(self.data, ancestor, self.text)[0]:
                continue
            fr = self.fragments(ancestor)
            if fr.own is not None or fr.desc:
                lines = ["", *table_lines(path, value)]
                edits.insert(self.family_end(ancestor), lines)
                return
            if fr.kvs:
                last = max(fr.kvs)
                prefix = path[len(self.owner[last]) :]
                lines = [kv_line((*prefix, k), v) for k, v in value.items()]
                edits.insert(self.stmts[last].end, lines or [kv_line(prefix, {})])
                return
        offset = self.doc_end()
        lines = table_lines(path, value)
        above = offset > 0 or offset in edits.inserted  # a table this call put first
        edits.insert(offset, ["", *lines] if above else lines)

    def rewrite_inline(self, i: int, path: Path, change: Any, edits: Edits) -> None:
        """Rewrite the inline value of statement `i` after `change` edits the slot of `path`."""
        full = self.full(i)
        found, old = lookup(self.data, full, self.text)
        assert found
        holder = {full[-1]: copy.deepcopy(old)}
        change(slot(holder, path[len(full) - 1 :]))
        new = holder[full[-1]]
        if not same(old, new):
            stmt = self.stmts[i]
            edits.replace(stmt.vstart, stmt.vend, render(new))


@functools.lru_cache(maxsize=16)
def scanned(text: str) -> Doc:
    """The scanned document of a text; shared and read-only (an apply edits one file often)."""
    return Doc(text)


class Edits:
    """Deletions, replacements and insertions of whole lines on one text, applied together."""

    def __init__(self, doc: Doc) -> None:
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
            blank = BLANK_LINE.match(text, merged[0][1])
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
