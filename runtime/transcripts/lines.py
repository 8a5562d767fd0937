"""A transcript's lines as records: complete lines, JSON per line, invalid lines kept.

Every line is decoded by `clean.load_json`: bytes that are not UTF-8 and lone surrogates
become U+FFFD and the line's record is marked `repaired`; no line is dropped for its bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .clean import decode_text, load_json
from .records import BLOCK, Record, stable_id
from .timestamps import take_ts


def complete_lines(data: bytes, start: int) -> Iterator[tuple[int, int, bytes]]:
    """(offset, end, line) for every complete, non-blank line of `data` (offsets absolute)."""
    pos = 0
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        if nl < 0:
            return
        line = data[pos:nl]
        if line.strip():
            yield start + pos, start + nl + 1, line
        pos = nl + 1


def load_line(line: bytes) -> Any:
    """The line's JSON value (cleaned: see `clean`), or `INVALID` when it is not JSON."""
    return load_checked(line)[0]


def load_checked(line: bytes) -> tuple[Any, bool]:
    """(the line's cleaned JSON value or `INVALID`, whether its text had to be repaired).

    A value nesting deeper than MAX_DEPTH is INVALID too (kept as its text): the decoder
    takes about 990 levels from a shallow stack, and the same value encoded again from a
    deeper one (capture, a store) would raise, every time, for a record never sent."""
    try:
        return load_json(line, MAX_DEPTH)
    except (ValueError, RecursionError):
        return INVALID, decode_text(line)[1]


MAX_DEPTH = 400  # real transcripts nest a few dozen levels


INVALID = object()


def jsonl_records(
    host: str,
    session_id: str,
    data: bytes,
    start: int,
    context: dict[str, Any],
    to_record: Callable[[str, dict[str, Any], int, int, dict[str, Any]], Record],
) -> list[Record]:
    """The `parse_lines` every JSONL reader shares: each complete line of `data` as a record.

    An object line goes through the host's `to_record(session_id, obj, offset, end,
    context)`; a line that is not JSON, or JSON but not an object, is carried as kind
    "invalid" (with the parsed value as `raw` when it parsed).
    """
    out: list[Record] = []
    for offset, end, line in complete_lines(data, start):
        value, repaired = load_checked(line)
        if value is INVALID or not isinstance(value, dict):
            record = invalid_record(host, session_id, offset, end, line, context)
            if value is not INVALID:
                record.raw = value
        else:
            record = _readable(host, session_id, value, (offset, end, line), context, to_record)
        record.repaired = repaired
        out.append(record)
    return out


def _readable(
    host: str,
    session_id: str,
    value: dict[str, Any],
    where: tuple[int, int, bytes],
    context: dict[str, Any],
    to_record: Callable[[str, dict[str, Any], int, int, dict[str, Any]], Record],
) -> Record:
    """The host's record of an object line; an object of a shape the reader did not expect
    (a list where it reads a string...) is carried as kind "invalid" with subtype
    "unreadable", never raised: one odd line must not stop every flush of its session."""
    offset, end, line = where
    try:
        return to_record(session_id, value, offset, end, context)
    except Exception:
        record = invalid_record(host, session_id, offset, end, line, context)
        record.raw, record.subtype = value, UNREADABLE
        return record


UNREADABLE = "unreadable"


def invalid_record(
    host: str, session_id: str, offset: int, end: int, line: bytes, context: dict[str, Any]
) -> Record:
    ts, ts_source = take_ts(None, context)
    return Record(
        id=stable_id(host, session_id, str(offset)),
        session=session_id,
        host=host,
        ts=ts,
        ts_source=ts_source,
        kind="invalid",
        raw=line.decode("utf-8", "replace"),
        end=end,
        id_source="derived",
    )


ParseLines = Callable[[str, bytes, int, dict[str, Any]], list[Record]]


def iter_file_records(
    path: Path | str, session_id: str, parse: ParseLines, context: dict[str, Any]
) -> Iterator[Record]:
    """Every record of a JSONL file through `parse`, read in bounded blocks.

    An unterminated last line is parsed only when it is valid JSON (else it is taken to be
    half-written and left out, as `parse_lines` leaves it out).
    """
    with open(path, "rb") as handle:
        offset = 0
        pending = b""
        while True:
            block = handle.read(BLOCK)
            if not block:
                break
            data = pending + block
            cut = data.rfind(b"\n") + 1
            if cut:
                yield from parse(session_id, data[:cut], offset, context)
                offset += cut
                pending = data[cut:]
            else:
                pending = data
        if pending.strip() and load_line(pending) is not INVALID:
            for record in parse(session_id, pending + b"\n", offset, context):
                record.end = offset + len(pending)  # just past the line: the end of the file
                yield record
