"""Import and export plans: records bound to their sources, copies into a repository folder.

An imported record's source is `Source(kind="import", imported="<origin>#<sha256>")`: the
origin (a file, `path#section` where a file holds several) and the revision of the text it
came from. Re-importing the same origin at the same revision is skipped; the same origin with
a changed revision is an ImportConflict (the user decides; memhub never overwrites); a
candidate saying what an active record says is noted and skipped unless forced.
Stdlib only.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ImportConflict, MemoryServiceError
from .plans import Candidate, MemoryChange, MemoryPlan
from .recordfile import read_bytes
from .records import DIRECTIVES, Record, Source, content_hash, revision

if TYPE_CHECKING:
    from .planner import Planner, Staged

__all__ = ["binding", "plan_export", "plan_import"]


def binding(origin: str, origin_revision: str) -> str:
    """The `import:` reference of a source: `<origin>#<revision>`."""
    return f"{origin}#{origin_revision}"


def _imported(planner: Planner, pair: tuple[str, str | None]) -> dict[str, tuple[str, str]]:
    """origin -> (revision, record id) of every record of `pair` imported before."""
    out: dict[str, tuple[str, str]] = {}
    for rid, ref in planner.db.execute(
        "SELECT d.id, json_extract(f.fields, '$.source.imported') FROM scan_files f"
        " JOIN docs d ON d.path = f.path WHERE d.source = 'record' AND d.scope = ?"
        " AND d.project = ? AND json_extract(f.fields, '$.source.imported') IS NOT NULL"
        " ORDER BY d.updated",
        (pair[0], pair[1] or ""),
    ):
        origin, _, rev = str(ref).rpartition("#")
        out[origin] = (rev, str(rid))
    return out


def plan_import(
    planner: Planner, candidates: Sequence[Candidate], *, force: bool = False
) -> tuple[list[Staged], list[str]]:
    """The staged changes and notes of an import; ImportConflict for changed sources."""
    staged: list[Staged] = []
    notes: list[str] = []
    conflicts: list[tuple[str, str]] = []
    seen: dict[tuple[tuple[str, str | None], str], str] = {}  # content in this batch
    known: dict[tuple[str, str | None], dict[str, tuple[str, str]]] = {}
    for candidate in candidates:
        draft = candidate.draft
        pair = planner.target_of(draft.scope)
        bound = known.setdefault(pair, _imported(planner, pair))
        earlier = bound.get(candidate.origin)
        if earlier is not None:
            if earlier[0] == candidate.origin_revision:
                notes.append(f"{candidate.origin}: imported already as {earlier[1]}, skipped")
            else:
                conflicts.append((candidate.origin, earlier[1]))
            continue
        # A directive an agent wrote stays proposed whatever path brought it in.
        status = "proposed" if draft.kind in DIRECTIVES and draft.source.kind in (
            "agent", "tool-output"
        ) else None  # fmt: skip
        source = Source(
            kind="import", imported=binding(candidate.origin, candidate.origin_revision)
        )
        record = planner.new_record(replace(draft, source=source), pair, status)
        dup = planner.duplicate_of(record, pair)
        twin = seen.get((pair, content_hash(record)))
        if (dup is not None or twin is not None) and not force:
            other = dup[0] if dup is not None else twin
            notes.append(f"{candidate.origin}: says what {other} says, skipped (--force adds it)")
            continue
        seen[(pair, content_hash(record))] = record.id
        staged.append(planner.create_change(record, f"import {candidate.origin}"))
    if conflicts:
        raise ImportConflict(conflicts)
    return staged, notes


def _inside(dest: Path, name: str) -> Path:
    """`dest/name`, refused when it is a link or resolves outside `dest`."""
    target = dest / name
    if os.path.islink(target):
        raise MemoryServiceError(
            f"{target} is a link: an export never writes through one", "remove the link"
        )
    if os.path.dirname(os.path.realpath(target)) != str(dest):
        raise MemoryServiceError(f"{target} leaves {dest}", "export into a plain folder")
    return target


def plan_export(planner: Planner, record_ids: Sequence[str], dest: Path) -> MemoryPlan:
    """Copy each record's file, as it is now, to `dest/<id>.md`."""
    real = Path(os.path.realpath(dest))
    memory = Path(os.path.realpath(planner.ws.root))
    if real == memory or memory in real.parents:
        raise MemoryServiceError(
            f"{dest} is inside memhub's memory folder", "export into a repository folder"
        )
    if real.exists() and not real.is_dir():
        raise MemoryServiceError(f"{dest} is not a folder", "name a folder to export into")
    changes: list[MemoryChange] = []
    for record_id in dict.fromkeys(record_ids):
        record, path, _rev = planner.current(record_id)
        data = read_bytes(path) or b""
        _refuse_credentials(record, data)
        target = _inside(real, f"{record.id}.md")
        existing = read_bytes(target) if target.exists() else None
        before = None if existing is None else revision(existing)
        action = "skip" if existing == data else "update" if existing is not None else "create"
        changes.append(
            MemoryChange(
                action,
                record.id,
                record.scope,
                record.project,
                target,
                before,
                None if action == "skip" else data,
                f"export {record.kind} {_short(record)}",
            )
        )
    return MemoryPlan(tuple(changes), export_to=real)


def _refuse_credentials(record: Record, data: bytes) -> None:
    """A record holding a literal credential is not exported: a repository is the one place a
    record leaves the machine, and a key pasted into a note would be published with it. The
    message names the record and the kind of credential, never its value."""
    from ..credentials import find

    found = find(data.decode("utf-8", "replace"))
    if found:
        raise MemoryServiceError(
            f"record {record.id} holds a credential ({found[0].kind}): it is not exported",
            f"remove it from the record (`memhub memory edit {record.id}`), then export again",
        )


def _short(record: Record) -> str:
    return repr(record.title[:60])
