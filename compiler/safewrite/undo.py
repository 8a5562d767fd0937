"""`memhub undo`: revert the newest committed run that was not undone, as one new run.

Undo is a stack: each undo reverts the newest run not yet undone (an undo run itself is
never undone by the next one), back through the runs the journal keeps.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.compiler.digest import ABSENT
from memhub.compiler.safewrite import fsops, store
from memhub.compiler.safewrite import journal as jr
from memhub.compiler.safewrite.errors import UndoConflictError, load_kept
from memhub.compiler.safewrite.journal import Journal
from memhub.compiler.safewrite.lock import canonical_home, operation_lock
from memhub.compiler.safewrite.recovery import recover
from memhub.compiler.safewrite.transaction import Transaction

# (run, path, bytes before the run, bytes now) -> bytes to write, or None when it cannot
Resolver = Callable[[Journal, Path, "bytes | None", "bytes | None"], "bytes | None"]


def last_undoable(home: Path) -> Journal | None:
    """The newest committed run that is not an undo and was not undone."""
    undone: set[str] = set()
    for path in reversed(jr.journal_paths(home)):
        journal = Journal.load(path)
        if journal.state != "committed":
            continue
        if journal.command == "undo":
            undone.add(str(journal.meta.get("undoes")))
        elif journal.run_id not in undone and any(not e.get("skipped") for e in journal.entries):
            return journal
    return None


@dataclass
class UndoPlan:
    """What undoing `run` puts back: each path's first entry, and what the run left there."""

    run: Journal
    first: dict[str, dict[str, Any]] = field(default_factory=dict)
    last_after: dict[str, str] = field(default_factory=dict)
    made: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, run: Journal) -> UndoPlan:
        """The plan for undoing `run` (its skipped intents never happened)."""
        plan = cls(run)
        for entry in run.entries:
            if entry.get("skipped"):
                continue
            plan.first.setdefault(entry["path"], entry)
            plan.last_after[entry["path"]] = entry["after"]
            plan.made += entry.get("made_dirs") or []
        return plan

    def changed(self) -> list[tuple[Path, str, str]]:
        """(path, what the run left, what is there now) for every path changed since."""
        return [
            (Path(p), want, found)
            for p, want in self.last_after.items()
            if (found := fsops.fingerprint(Path(p))) != want
        ]


def _merge_changed(
    home: Path,
    plan: UndoPlan,
    changed: list[tuple[Path, str, str]],
    resolve: Resolver,
) -> dict[str, tuple[bytes, str]]:
    """Let `resolve` revert changed files another way; removes each one it settles from
    `changed`; returns path -> (bytes to write, fingerprint found)."""
    kept = store.run_store(home, plan.run.run_id)
    merged: dict[str, tuple[bytes, str]] = {}
    for changed_path, want, found in list(changed):
        entry = plan.first[str(changed_path)]
        if entry["kind"] != "file" and entry["before"] != ABSENT:
            continue
        pre = (
            None
            if entry["before"] == ABSENT
            else load_kept(functools.partial(store.load_file, kept, entry["pre"], entry["before"]))
        )
        now = fsops.read_file(changed_path)[0] if not os.path.isdir(changed_path) else None
        result = resolve(plan.run, changed_path, pre, now)
        if result is not None:
            merged[str(changed_path)] = (result, found)
            changed.remove((changed_path, want, found))
    return merged


def _revert(tx: Transaction, plan: UndoPlan, kept: Path, merged: dict[str, Any]) -> None:
    """Put every path `plan` names back to its state before the run, newest first."""
    for path, entry in reversed(plan.first.items()):
        if entry["kind"] == "dir":
            if entry["before"] == ABSENT:
                tx._remove_dir(Path(path))
            else:
                tx._make_dir(Path(path), entry["mode"])
            continue
        if path in merged:
            data, found = merged[path]
            tx.write(Path(path), data, expect=found)
            continue
        state = {
            "kind": entry["kind"],
            "sha": entry["before"],
            "stored": entry["pre"],
            "mode": entry["mode"],
            "modes": entry.get("modes") or {},
        }
        tx._put_state(Path(path), state, kept, expect=plan.last_after[path])
    for folder in reversed(plan.made):
        tx._remove_dir(Path(folder))


def undo_last(home: Path, resolve: Resolver | None = None) -> list[Path]:
    """Revert the last committed run as one unit; refuse, writing nothing, if a file changed.

    `resolve` may revert a changed file another way (memhub's owned entries only, keeping
    what a host wrote since); a file it returns None for still makes undo refuse.
    """
    home = canonical_home(home)
    with operation_lock(home):
        recover(home)
        run = last_undoable(home)
        if run is None:
            return []
        plan = UndoPlan.of(run)
        changed = plan.changed()
        merged = (
            _merge_changed(home, plan, changed, resolve) if changed and resolve is not None else {}
        )
        if changed:
            raise UndoConflictError(run.run_id, changed)
        within = run.meta.get("within")
        with Transaction(
            home,
            command="undo",
            meta={"undoes": run.run_id},
            within=Path(within) if within else None,
        ) as tx:
            _revert(tx, plan, store.run_store(home, run.run_id), merged)
        return [Path(p) for p in plan.first]
