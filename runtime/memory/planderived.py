"""What a plan does to the derived MEMORY.md of each scope it touches. Stdlib only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import catalog, layout, memorymd
from .frontmatter import RecordError
from .plans import MemoryChange
from .recordfile import read_bytes
from .records import Record, revision
from .workspace import Workspace

__all__ = ["derived_changes", "memory_md_after"]

Pair = tuple[str, str | None]


def memory_md_after(
    root: Path, db: Any, pair: Pair, staged: Sequence[tuple[MemoryChange, Record | None]]
) -> tuple[Path, bytes | None, bytes]:
    """MEMORY.md of `pair`: its path, current bytes and bytes once `staged` is written.

    MemoryMdError when its markers are broken (the file is then left alone)."""
    records: dict[str, memorymd.Listed] = {line.id: line for line in catalog.lines(db, [pair])}
    for change, record in staged:
        if (change.scope, change.project) != pair or change.action == "skip":
            continue
        if change.action == "delete" or record is None:
            records.pop(change.record_id, None)
        else:
            records[record.id] = record
    path = layout.memory_index_md(root, pair[0], pair[1])
    current = read_bytes(path)
    return (
        path,
        current,
        memorymd.update(current, memorymd.region(list(records.values())), str(path)),
    )


def derived_changes(
    ws: Workspace, db: Any, staged: Sequence[tuple[MemoryChange, Record | None]]
) -> tuple[tuple[MemoryChange, ...], list[str]]:
    """The MEMORY.md changes of every scope `staged` touches, and notes on any refused."""
    pairs: list[Pair] = []
    for change, _ in staged:
        pair = (change.scope, change.project)
        if change.action != "skip" and pair not in pairs:
            pairs.append(pair)
    out: list[MemoryChange] = []
    notes: list[str] = []
    for pair in pairs:
        try:
            path, current, new = memory_md_after(ws.root, db, pair, staged)
        except (memorymd.MemoryMdError, RecordError) as error:
            notes.append(f"MEMORY.md left as it is: {error}")
            continue
        if new != current:
            before = None if current is None else revision(current)
            action = "create" if current is None else "update"
            out.append(MemoryChange(action, "", pair[0], pair[1], path, before, new, "MEMORY.md"))
    return tuple(out), notes
