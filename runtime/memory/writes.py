"""Carrying out a memory plan: under the operation lock, as one journaled safewrite run.

Under `operation_lock(home)` every target is read again; if any no longer holds the revision
the plan expected (another writer, an editor), nothing is written and StaleRevision names the
record. Otherwise one `Transaction(home, "memory")` writes the record files (0600, folders
0700) and the MEMORY.md of each touched scope: originals are kept and the run is journaled,
so a crash is rolled back by the next memhub command and `memhub undo` reverts the run. The
index is refreshed after the commit (it is derived).

Not vendored (compiler/hosts/common.py NOT_VENDORED): it uses memhub.compiler.safewrite,
imported inside the functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import layout
from .errors import MemoryServiceError, ReadOnly, StaleRevision
from .frontmatter import RecordError
from .planderived import memory_md_after
from .plans import MemoryChange, MemoryPlan
from .recordfile import read_bytes
from .records import Record, parse_record, revision
from .scan import Scanner
from .workspace import Workspace

__all__ = ["apply_plan", "rewrite_memory_md"]

FILE_MODE = 0o600
# A test sets this to a callable run after the first record file is written (crash tests).
AFTER_FIRST_WRITE: Any = None


def _current(path: Path) -> bytes | None:
    try:
        return read_bytes(path)
    except RecordError as error:
        raise MemoryServiceError(error.message, error.fix) from None


def _check_target(ws: Workspace, plan: MemoryPlan, change: MemoryChange) -> None:
    """A change writes only where its record belongs, in a scope the caller was granted."""
    if plan.export_to is not None:
        if change.path.parent != plan.export_to or change.path.name != f"{change.record_id}.md":
            raise MemoryServiceError(f"{change.path} is not in {plan.export_to}", "plan again")
        return
    if not ws.grants(change.scope, change.project):
        raise MemoryServiceError("the plan writes outside this memory's scopes", "plan again")
    try:
        want = layout.record_path(ws.root, change.scope, change.project, change.record_id)
    except (layout.UnsafeName, layout.UnknownScope):
        want = None
    if want != change.path:
        raise MemoryServiceError(f"{change.path} is not where the record lives", "plan again")


def _staged(plan: MemoryPlan) -> list[tuple[MemoryChange, Record | None]]:
    """The plan's changes with the records they write (parsed back from their bytes)."""
    out: list[tuple[MemoryChange, Record | None]] = []
    for change in plan.changes:
        record = None
        if change.content is not None and plan.export_to is None:
            try:
                record = parse_record(change.content, str(change.path))
            except RecordError as error:
                raise MemoryServiceError(error.message, error.fix) from None
        out.append((change, record))
    return out


def _memory_md(
    ws: Workspace, scanner: Scanner, staged: list[tuple[MemoryChange, Record | None]]
) -> tuple[list[tuple[Path, bytes | None, bytes]], list[str]]:
    """MEMORY.md of every touched scope (current, new), from the files as they are now."""
    pairs: list[tuple[str, str | None]] = []
    for change, _ in staged:
        if change.action != "skip" and (change.scope, change.project) not in pairs:
            pairs.append((change.scope, change.project))
    scanner.refresh(pairs)  # under the lock: what other writers added counts too
    out, notes = [], []
    for pair in pairs:
        try:
            path, current, new = memory_md_after(ws.root, scanner.index.db, pair, staged)
        except (MemoryServiceError, RecordError) as error:
            notes.append(f"MEMORY.md left as it is: {error}")
            continue
        if new != current:
            out.append((path, current, new))
    return out, notes


def apply_plan(ws: Workspace, plan: MemoryPlan, scanner: Scanner) -> dict[str, Any]:
    """Write `plan`; {"run": id | None, "changed": [paths], "notes": [...]}."""
    from memhub.hubspec.errors import MemhubError

    try:
        return _apply(ws, plan, scanner)
    except MemhubError as error:  # a lock timeout, a link, a failed write: one service error
        raise MemoryServiceError(str(error), "", exit_code=error.exit_code) from error


def _apply(ws: Workspace, plan: MemoryPlan, scanner: Scanner) -> dict[str, Any]:
    from memhub.compiler.digest import file_digest
    from memhub.compiler.safewrite.durable import make_private_dir
    from memhub.compiler.safewrite.errors import StaleTargetError
    from memhub.compiler.safewrite.lock import operation_lock
    from memhub.compiler.safewrite.transaction import Transaction

    if not ws.writable:
        raise ReadOnly("writing")
    todo = [c for c in plan.changes if c.action != "skip"]
    if not todo:
        return {"run": None, "changed": [], "notes": list(plan.notes)}
    for change in todo:
        _check_target(ws, plan, change)
    staged = _staged(plan)
    with operation_lock(ws.home):
        found = {}
        for change in todo:
            data = _current(change.path)
            now = None if data is None else revision(data)
            if now != change.before:
                raise StaleRevision(change.record_id, change.before, now)
            found[change.path] = data
        derived, notes = ([], []) if plan.export_to else _memory_md(ws, scanner, staged)
        for change in todo:
            if plan.export_to is None:
                make_private_dir(change.path.parent)
        meta = {"memory": [c.record_id for c in todo], "project": ws.project_id}
        within = plan.export_to or layout.memory_root(ws.home)
        try:
            with Transaction(ws.home, "memory", meta=meta, within=within) as tx:
                for n, change in enumerate(todo):
                    expect = file_digest(found[change.path])
                    if change.action == "delete":
                        tx.delete(change.path, expect=expect)
                    else:
                        assert change.content is not None
                        # an export into a repository gets the folder's usual mode
                        mode = None if plan.export_to is not None else FILE_MODE
                        tx.write(change.path, change.content, expect=expect, mode=mode)
                    if n == 0 and AFTER_FIRST_WRITE is not None:
                        AFTER_FIRST_WRITE()
                for path, current, new in derived:
                    tx.write(path, new, expect=file_digest(current), mode=FILE_MODE)
                run, changed = tx.run_id, list(tx.changed)
        except StaleTargetError as error:
            rid = next((c.record_id for c in todo if c.path == error.path), "MEMORY.md")
            raise StaleRevision(rid, None, "changed while being written") from None
    return {"run": run, "changed": [str(p) for p in changed], "notes": [*plan.notes, *notes]}


def rewrite_memory_md(ws: Workspace, scanner: Scanner) -> dict[str, Any]:
    """MEMORY.md of every scope `ws` grants, derived again from the records as they are now
    (under the lock, one journaled run; a file with broken markers is left alone, noted):
    {"run": id | None, "changed": [paths], "notes": [...]}."""
    from memhub.hubspec.errors import MemhubError

    try:
        return _rewrite(ws, scanner)
    except MemhubError as error:  # a lock timeout, a failed write: one service error
        raise MemoryServiceError(str(error), "", exit_code=error.exit_code) from error


def _rewrite(ws: Workspace, scanner: Scanner) -> dict[str, Any]:
    from memhub.compiler.digest import file_digest
    from memhub.compiler.safewrite.durable import make_private_dir
    from memhub.compiler.safewrite.lock import operation_lock
    from memhub.compiler.safewrite.transaction import Transaction

    if not ws.writable:
        raise ReadOnly("rewriting MEMORY.md")
    with operation_lock(ws.home):
        scanner.refresh(ws.allowed())
        derived: list[tuple[Path, bytes | None, bytes]] = []
        notes: list[str] = []
        for pair in ws.allowed():
            try:
                path, current, new = memory_md_after(ws.root, scanner.index.db, pair, [])
            except (MemoryServiceError, RecordError) as error:
                notes.append(f"MEMORY.md left as it is: {error}")
                continue
            if new != current:
                derived.append((path, current, new))
        if not derived:
            return {"run": None, "changed": [], "notes": notes}
        meta = {"memory": ["MEMORY.md"], "project": ws.project_id}
        with Transaction(ws.home, "memory", meta=meta, within=layout.memory_root(ws.home)) as tx:
            for path, current, new in derived:
                make_private_dir(path.parent)
                tx.write(path, new, expect=file_digest(current), mode=FILE_MODE)
            run, changed = tx.run_id, list(tx.changed)
    return {"run": run, "changed": [str(p) for p in changed], "notes": notes}
