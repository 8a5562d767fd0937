"""Rollback: put back what a run changed, newest first, while memhub's bytes are still there.

`recover` rolls back every run a crash left open; every Transaction, undo and restore runs
it first. A target someone changed since memhub wrote it is left alone and reported.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from memhub.compiler.digest import ABSENT
from memhub.compiler.safewrite import fsops, store
from memhub.compiler.safewrite import journal as jr
from memhub.compiler.safewrite.durable import fsync_dir, sibling
from memhub.compiler.safewrite.errors import WriteError, warn
from memhub.compiler.safewrite.journal import Journal
from memhub.compiler.safewrite.lock import canonical_home, operation_lock
from memhub.hubspec.errors import MemhubError

ACTIVE: dict[str, str] = {}
"""home -> run id of the Transaction open in this process (recover skips it)."""

_LEFTOVER_TAGS = ("tmp", "new", "old", "mkd", "rbtmp", "rbnew", "rbold")


def rollback(home: Path, journal: Journal) -> list[str]:
    """Put back every change the journal records, newest first; returns paths left alone."""
    conflicts: list[str] = []
    failures: list[BaseException] = []
    kept = store.run_store(home, journal.run_id)
    for entry in reversed(journal.entries):
        try:
            _rollback_entry(kept, entry, conflicts)
        except (OSError, ValueError, MemhubError) as err:
            failures.append(err)
    if failures:
        raise WriteError(
            f"rolling back run {journal.run_id} failed: {failures[0]}. "
            "Fix: free the folder and run `memhub undo` (it finishes the rollback first)"
        ) from failures[0]
    if conflicts:
        warn("run %s: left alone, changed by someone else: %s", journal.run_id, conflicts)
    return conflicts


def _rollback_entry(kept: Path, entry: dict[str, Any], conflicts: list[str]) -> None:
    """Undo one journaled change if the target still holds what memhub wrote."""
    target = Path(entry["path"])
    token = entry["token"]
    if not entry.get("skipped"):
        found = fsops.fingerprint(target)
        # A folder swap without renameat2 is two renames: between them the target is gone
        # and the old folder sits aside (ours, or a crashed rollback's).
        halfway = (
            entry["kind"] == "tree"
            and found == ABSENT
            and any(sibling(target, token, t).exists() for t in ("old", "rbold"))
        )
        if found == entry["after"] or halfway:
            _put_back(kept, entry)
        elif found != entry["before"]:
            conflicts.append(str(target))
    for tag in _LEFTOVER_TAGS:
        fsops.remove(sibling(target, token, tag))
    fsops.remove(sibling(target, token + "rb", "mkd"))
    for folder in reversed(entry.get("made_dirs") or []):
        fsops.remove(sibling(Path(folder), token, "mkd"))
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _put_back(kept: Path, entry: dict[str, Any]) -> None:
    """Return a target to the before-state its journal entry kept."""
    target = Path(entry["path"])
    token, before = entry["token"], entry["before"]
    if entry["kind"] == "dir":
        if before == ABSENT:
            os.rmdir(target)
        elif not target.is_dir():
            fsops.mkdir(target, entry["mode"], entry["token"] + "rb")
        fsync_dir(target.parent)
    elif entry["kind"] == "tree":
        if before == ABSENT:
            if os.path.lexists(target):
                fsops.drop_tree(target, token, "rb")
            return
        files = store.load_tree(kept, entry["pre"], entry["modes"], before)
        fsops.put_tree(target, files, entry["mode"], token, "rb")
    elif before == ABSENT:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
        fsync_dir(target.parent)
    else:
        data = store.load_file(kept, entry["pre"], before)
        fsops.put_file(target, data, entry["mode"], sibling(target, token, "rbtmp"))


def recover(home: Path) -> list[str]:
    """Roll back every run a crash left open; returns their run ids."""
    home = canonical_home(home)
    done = []
    with operation_lock(home):
        for path in jr.journal_paths(home):
            if not jr.is_open(path):
                continue
            journal = Journal.load(path)
            if journal.state not in jr.UNFINISHED or ACTIVE.get(str(home)) == journal.run_id:
                continue
            conflicts = rollback(home, journal)
            journal.finish("rolled_back", conflicts)
            done.append(journal.run_id)
        store.sweep_temps(home, done)
    return done
