"""MEMORY.md: a compact derived index of a scope's records, inside a region memhub owns.

The region runs from a `<!-- memhub:memory:begin -->` line to a `<!-- memhub:memory:end -->`
line; everything outside it is the user's and survives byte for byte. A file whose markers
are broken (one without the other, out of order, twice) is refused with its file and line,
never repaired. Stdlib only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

from .errors import MemoryServiceError
from .records import KINDS

__all__ = ["BEGIN", "END", "Line", "Listed", "MemoryMdError", "overview_text", "region", "update"]

BEGIN = "<!-- memhub:memory:begin -->"
END = "<!-- memhub:memory:end -->"
NOTICE = "<!-- Derived by memhub from the records beside this file; edits inside are replaced. -->"
HEADER = "# Memory\n\n"
MAX_TITLE = 160  # one line each: the index stays compact


class Listed(Protocol):
    """What a line of the index needs of a record (a Record or a `Line`)."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def scope(self) -> str: ...


class Line(NamedTuple):
    """A record as the index lists it, read from the search index without parsing it."""

    id: str
    kind: str
    title: str
    status: str
    scope: str


class MemoryMdError(MemoryServiceError):
    """A MEMORY.md whose owned region cannot be found unambiguously."""

    def __init__(self, file: str, line: int, problem: str) -> None:
        self.file, self.line = file, line
        super().__init__(
            f"{file}:{line}: {problem}",
            f"restore one '{BEGIN}' line before one '{END}' line, or remove both",
        )


def _title(record: Listed) -> str:
    """The title on one line, cut short, unable to forge a marker."""
    text = " ".join(record.title.split())
    if len(text) > MAX_TITLE:
        text = text[: MAX_TITLE - 1] + "…"
    return text.replace("<!--", "<!​--").replace("-->", "--​>")


def _line(record: Listed) -> str:
    return f"- {record.kind}: {_title(record)} ({record.id})"


def _order(records: Iterable[Listed]) -> list[Listed]:
    """By kind, then by id: in the order they were saved (`r-<time>-<hex>`). Never by title:
    an agent's title (a leading `!`, say) must not move its line to the top."""
    rank = {kind: n for n, kind in enumerate(KINDS)}
    return sorted(records, key=lambda r: (rank.get(r.kind, len(KINDS)), r.id))


def region(records: Sequence[Listed]) -> str:
    """The owned region for a scope's records: active ones, then proposed ones."""
    active = _order(r for r in records if r.status == "active")
    proposed = _order(r for r in records if r.status == "proposed")
    lines = [BEGIN, NOTICE, ""]
    lines += [_line(r) for r in active] or ["(no records yet)"]
    if proposed:
        lines += ["", "## Proposed (waiting for `memhub memory accept ID`)", ""]
        lines += [_line(r) for r in proposed]
    lines.append(END)
    return "\n".join(lines) + "\n"


def overview_text(records: Sequence[Listed]) -> str:
    """The derived index of the caller's scopes: one section per scope."""
    parts = []
    for scope in ("project", "shared"):
        mine = [r for r in records if r.scope == scope]
        if mine:
            inner = region(mine).splitlines()[3:-1]  # without the markers and the notice
            parts.append(f"## {scope}\n\n" + "\n".join(inner))
    return "\n\n".join(parts) + ("\n" if parts else "")


def _markers(data: bytes, file: str) -> tuple[int, int] | None:
    """The byte spans' start of the begin line and end of the end line, None when absent."""
    begin = end = None
    offset = 0
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        text = line.strip()
        if text == BEGIN.encode():
            if begin is not None:
                raise MemoryMdError(file, number, "a second begin marker")
            if end is not None:
                raise MemoryMdError(file, number, "the begin marker follows the end marker")
            begin = offset
        elif text == END.encode():
            if begin is None:
                raise MemoryMdError(file, number, "an end marker without a begin marker")
            if end is not None:
                raise MemoryMdError(file, number, "a second end marker")
            end = offset + len(line)
        offset += len(line)
    if begin is not None and end is None:
        number = data[:begin].count(b"\n") + 1
        raise MemoryMdError(file, number, "a begin marker without an end marker")
    return None if begin is None or end is None else (begin, end)


def update(current: bytes | None, owned: str, file: str) -> bytes:
    """`current` (None: no file yet) with its owned region replaced by `owned`; the rest
    byte for byte. MemoryMdError when the markers are broken."""
    new = owned.encode("utf-8")
    if current is None:
        return HEADER.encode() + new
    span = _markers(current, file)
    if span is None:  # no region yet: appended after the user's text, a blank line between
        gap = b"\n\n"
        if not current or current.endswith(b"\n\n"):
            gap = b""
        elif current.endswith(b"\n"):
            gap = b"\n"
        return current + gap + new
    begin, end = span
    return current[:begin] + new + current[end:]
