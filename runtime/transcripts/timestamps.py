"""ISO-8601 UTC timestamps of records: parsing the hosts' forms, inheriting, the file's."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

EPOCH = "1970-01-01T00:00:00.000Z"
_CANONICAL_TS = re.compile(
    r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z"
)


def format_ts(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def iso_utc(value: Any) -> str | None:
    """`value` (ISO-8601 string, epoch seconds or milliseconds) as ISO-8601 UTC, else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return format_ts(datetime.fromtimestamp(seconds, UTC))
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value:
        return None
    if _CANONICAL_TS.fullmatch(value):
        return value  # already YYYY-MM-DDTHH:MM:SS.mmmZ (most hosts write exactly this)
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        # more than 6 fractional digits (e.g. nanoseconds) is not ISO for Python
        match = re.match(r"^(.*T\d\d:\d\d:\d\d)\.(\d+)(.*)$", text)
        if not match:
            return None
        try:
            moment = datetime.fromisoformat(f"{match[1]}.{match[2][:6]}{match[3]}")
        except ValueError:
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_ts(moment)


def file_ts(path: Path | str) -> str:
    """A source's modification time, the timestamp of last resort."""
    try:
        return format_ts(datetime.fromtimestamp(os.stat(path).st_mtime, UTC))
    except OSError:
        return EPOCH


def take_ts(value: Any, context: dict[str, Any]) -> tuple[str, str]:
    """The record's timestamp and its source, updating `context["ts"]`."""
    ts = iso_utc(value)
    if ts is not None:
        context["ts"] = ts
        return ts, "host"
    previous = context.get("ts")
    if previous:
        return previous, "previous"
    return context.get("file_ts") or EPOCH, "file"


def later(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)
