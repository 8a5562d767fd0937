"""Applying an install plan: under the operation lock, re-planned, refused when stale or
when it would overwrite a hand edit (without --force), written in one transaction.

Each document is re-merged right before it is replaced (compare-and-swap): when the bytes
are still those the plan read, the plan's merge is the result (no second pass).
"""

from __future__ import annotations

import base64
import gc
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memhub.compiler.digest import file_digest
from memhub.compiler.formats.document import MISSING
from memhub.compiler.install.changes import (
    Claim,
    InstallConflict,
    InstallPlan,
    TargetChange,
)
from memhub.compiler.install.entries import EntryKey
from memhub.compiler.install.merge import plan_document
from memhub.compiler.install.planner import project_of
from memhub.compiler.install.state import STATE_FILE
from memhub.compiler.safewrite.errors import StaleTargetError
from memhub.compiler.safewrite.lock import operation_lock
from memhub.compiler.safewrite.transaction import Transaction
from memhub.hubspec.errors import MemhubError


class DriftConflict(MemhubError):
    """Apply would overwrite an owned entry that was edited by hand since memhub wrote it."""

    exit_code = 2


def plan_record(plan: InstallPlan) -> dict[str, Any]:
    """The saved plan: fingerprints and the hub revision, never file contents or secrets."""
    return {
        "memhub_plan": 1,
        "hub": plan.hub,
        "revision": plan.revision,
        "scope": plan.scope.kind,
        "project": str(plan.scope.project) if plan.scope.project else None,
        "hosts": list(plan.hosts),
        "targets": [c.to_json() for c in plan.changes],
    }


def check_fresh(saved: dict[str, Any], fresh: InstallPlan) -> None:
    """Refuse (exit 3) when the hub or any target changed since `saved` was made."""
    if saved.get("revision") != fresh.revision:
        raise StaleTargetError(
            f"{fresh.hub}: the hub changed since the plan was made. Fix: run `memhub plan` again"
        )
    actual = {t["path"]: t["actual"] for t in saved.get("targets", [])}
    for change in fresh.changes:
        if actual.get(change.path, "absent") != change.actual:
            raise StaleTargetError(
                f"{change.path}: changed since the plan was made. Fix: run `memhub plan` again"
            )


def drift_messages(plan: InstallPlan) -> list[str]:
    """One line per owned entry edited by hand that applying would overwrite: where, and
    the last-written and actual digests (shortened)."""
    return [
        f"{change.path}: {EntryKey.parse(d.key).name} was edited since memhub wrote it "
        f"(last written {d.last_written[:19]}, now {(d.actual or 'absent')[:19]})"
        for change in plan.drifted
        for d in change.drift
    ]


def refuse_drift(plan: InstallPlan) -> None:
    """DriftConflict naming every owned entry apply would overwrite after a hand edit."""
    lines = drift_messages(plan)
    if not lines:
        return
    raise DriftConflict(
        "apply would overwrite hand edits:\n  "
        + "\n  ".join(lines)
        + "\nFix: move the edit into the hub and apply again, or apply with --force to "
        "overwrite it (`memhub undo` brings the edit back)"
    )


def apply_install(
    home: Path,
    make_plan: Callable[[], InstallPlan],
    *,
    saved: dict[str, Any] | None = None,
    force: bool = False,
) -> InstallPlan:
    """Plan and write under one operation lock; each document is re-merged right before it
    is replaced (compare-and-swap), and a saved plan must still match (else exit 3)."""
    home.mkdir(parents=True, exist_ok=True)
    with operation_lock(home), _no_collection_pauses():
        fresh = make_plan()
        if fresh.conflicts:
            raise InstallConflict("conflicts:\n  " + "\n  ".join(fresh.conflicts))
        if saved is not None:
            check_fresh(saved, fresh)
        if not force:
            refuse_drift(fresh)
        quiet = fresh.state.same_entries(fresh.state_after) and not fresh.state.migrated
        if not fresh.pending and quiet:
            return fresh  # nothing to write: no journal, no run to undo
        _write(home, fresh)
    return fresh


@contextmanager
def _no_collection_pauses() -> Iterator[None]:
    """No cyclic garbage collection while planning and writing: thousands of skills make
    millions of short-lived objects (no cycles), and each collection walks all of them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _write(home: Path, fresh: InstallPlan) -> None:
    with Transaction(home, command="apply", within=project_of(fresh.scope)) as tx:
        for change in fresh.pending:
            target = Path(change.path)
            if change.format == "tree":
                if change.kind == "delete":
                    tx.delete_tree(target)
                else:
                    tx.write_tree(target, {rel: (data, mode) for rel, data, mode in change.files})
            elif change.kind == "delete":
                tx.delete(target, expect=change.actual)
            else:
                tx.write_merged(target, _remerge(fresh, change.path))
        for folder in prune_order(fresh.pending):
            tx.remove_empty_dir(Path(folder))
        tx.write(home / STATE_FILE, fresh.state_after.to_bytes(), mode=0o600)


def prune_order(changes: Iterable[TargetChange]) -> list[str]:
    """The folders to remove if empty, deepest first, each once."""
    folders = {folder for change in changes for folder in change.prune}
    return sorted(folders, key=lambda f: (-len(Path(f).parts), f))


def _untouched(current: bytes | None, base: dict[str, Any]) -> bool:
    """Whether a file still holds exactly what memhub last wrote to it."""
    return file_digest(current) == base.get("last")


def _remerge(plan: InstallPlan, target: str) -> Callable[[bytes | None], bytes]:
    """The CAS merge for one document: the same entry edits, on whatever bytes are there now
    (or the target's base, while it still holds exactly what memhub last wrote)."""
    desired, mine, restore = plan.inputs[target]

    def merge(current: bytes | None) -> bytes:
        if restore is not None and restore.get("pre") is not None and _untouched(current, restore):
            return base64.b64decode(restore["pre"])
        planned = plan.merged.get(target)
        if planned is not None and planned[0] == current:
            return planned[1] or b""  # the bytes the plan merged into: its result stands
        before: Any = MISSING if current is None else current
        made = plan.state.made_in(target)  # a copy: state_after already holds the outcome
        claim = Claim(plan.state, plan.owner, plan.scope.id, plan.adopt)
        change, conflicts, _ = plan_document(target, desired, mine, claim, before, made)
        if conflicts:
            raise InstallConflict("conflicts:\n  " + "\n  ".join(conflicts))
        return change.after or b""

    return merge


def load_saved_plan(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise MemhubError(
            f"{path}: not a memhub plan ({exc}). Fix: create one with `memhub plan --out`"
        ) from None
    if data.get("memhub_plan") != 1:
        raise MemhubError(f"{path}: not a memhub plan. Fix: create one with `memhub plan --out`")
    return data
