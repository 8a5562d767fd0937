"""Who wrote what a tool answers, and the text a model reads fenced when no person accepted it.

Every record, hit, version or directive a tool answers carries `written_by` (the record's
source kind: `user`, `import`, `agent`, `tool-output`; `session` for a captured session;
`unknown` when it cannot be read) and `reviewed` (unreviewed.reviewed: a person wrote,
adopted or accepted it), placed right after the item's id. The structured content keeps
every field as written, so programs (memhub's remote clients, an agent editing a record it
read) get the words unchanged; the text content is the same JSON with an unreviewed item's
title and snippet fenced on one line (unreviewed.inline) and its content, rationale or diff
quoted under its label (unreviewed.block), as the hooks fence them. Hosts choose which one
their model reads: Claude Code 2.1 and Codex 0.171 hand it the structured content, where
the marks precede the words (tests/e2e/test_fenced_results_hosts.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..memory import unreviewed
from ..memory.records import Record

UNKNOWN = "unknown"
INLINE = ("title", "snippet")
BLOCK = ("content", "rationale", "diff")
# a MEMORY.md line: `- <kind>: <title> (<id>)`
_LISTED = re.compile(r"^- ([a-z]+): (.*) \(([A-Za-z0-9._-]+)\)$")


def marks(written_by: str | None, kind: str, status: str | None) -> dict[str, Any]:
    """`written_by` and `reviewed` of one item (an unreadable source is unreviewed)."""
    by = written_by or UNKNOWN
    return {"written_by": by, "reviewed": unreviewed.reviewed(by, kind, status or "")}


def of_record(record: Record) -> dict[str, Any]:
    return marks(record.source.kind, record.kind, record.status)


def fenced(data: Any) -> Any:
    """`data` as a model reads it: every dict marked `reviewed: false` with its text fenced
    (a copy: the structured content stays as written)."""
    if isinstance(data, list):
        return [fenced(v) for v in data]
    if not isinstance(data, dict):
        return data
    out = {k: fenced(v) for k, v in data.items()}
    if out.get("reviewed") is False:
        by = _label_source(out.get("written_by"))
        for key in INLINE:
            if isinstance(out.get(key), str):
                out[key] = unreviewed.inline(out[key], by)
        for key in BLOCK:
            if isinstance(out.get(key), str) and out[key]:
                out[key] = unreviewed.block(out[key], by)
    return out


def _label_source(written_by: Any) -> str:
    """The unreviewed.py source whose label fits `written_by` (unknown: its own label)."""
    return written_by if written_by in unreviewed.LABELS else ""


def fenced_listing(text: str, known: Callable[[list[str]], Mapping[str, tuple[str, ...]]]) -> str:
    """A MEMORY.md listing with each unreviewed record's title fenced; `known` gives
    id -> (kind, title, status, source kind) (a record it does not know stays fenced)."""
    lines = text.split("\n")
    found = [(n, m) for n, line in enumerate(lines) if (m := _LISTED.match(line))]
    seen = known([m.group(3) for _, m in found]) if found else {}
    for n, m in found:
        kind, title, rid = m.groups()
        _, _, status, source = seen.get(rid, (kind, title, "", ""))
        lines[n] = f"- {kind}: {unreviewed.shown(title, source, kind, status)} ({rid})"
    return "\n".join(lines)
