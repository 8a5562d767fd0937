"""Planning a skill folder: written whole, taken over with --adopt, given back on removal.

A folder is read only when its stat signature (`treecache`) says it may have changed since
it last held exactly the wanted files; a link is the person's and is never written through.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from memhub.compiler.digest import ABSENT, tree_digest
from memhub.compiler.install.changes import (
    Claim,
    Drift,
    TargetChange,
    pre_of,
    restored_owner,
    tree_files,
    tree_value,
)
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.kinds import tree_value_digest
from memhub.compiler.install.state import Owned
from memhub.compiler.install.treecache import TreeCache
from memhub.compiler.plan import ChangeKind
from memhub.compiler.safewrite.fsops import fingerprint, read_folder

Merged = tuple[TargetChange, list[str], dict[str, Owned]]
Files = tuple[tuple[str, bytes, int], ...]


def plan_tree(
    target: str, desired: list[Entry], mine: dict[str, Owned], claim: Claim, trees: TreeCache
) -> Merged:
    path = Path(target)
    if not os.path.lexists(path):  # nothing there yet (a first apply): one lstat, no reads
        return _absent_tree(target, desired, mine, claim)
    if os.path.islink(path):
        return _linked_tree(target, desired)
    known = trees.lookup(target)
    # A folder as it was when it last held exactly the wanted files need not be read again.
    trusted = known is not None and bool(desired) and known[0] == desired[0].digest
    current: dict[str, tuple[bytes, int]] | None = None
    value_now: str | None = desired[0].digest if trusted else None
    if known is not None and trusted:
        actual, before_files = known[1], desired[0].files
        exists = True
    else:
        current = read_folder(path)
        actual = tree_digest(current) if current is not None else fingerprint(path)
        before_files = tuple(
            (rel, data, mode) for rel, (data, mode) in sorted((current or {}).items())
        )
        if current is not None:
            value_now = tree_value_digest(current)
            trees.record(target, value_now, actual)
        exists = path.exists()
    if not desired:
        return _tree_removal(target, mine, exists, actual, before_files)
    (entry,) = desired
    if exists and claim.blocked(target, entry):
        message = f"{target}: the folder exists and memhub does not own it (apply with --adopt)"
        return TargetChange(target, "unchanged", "tree", actual), [message], {}
    same = trusted or (current is not None and _same_files(current, entry.files))
    change = TargetChange(
        target,
        "unchanged" if same else ("update" if exists else "create"),
        "tree",
        actual,
        files=entry.files,
        entries=(entry.key,),
        before_files=before_files,
        drift=_drift(entry, mine.get(entry.key), value_now, same),
    )
    taken = {"files": tree_value(before_files)} if exists else None
    return change, [], {entry.key: claim.own(target, entry, taken)}


def _absent_tree(target: str, desired: list[Entry], mine: dict[str, Owned], claim: Claim) -> Merged:
    """A folder that is not there: created, or (for one memhub owned) already gone."""
    if not desired:
        return _tree_removal(target, mine, False, ABSENT, ())
    (entry,) = desired
    change = TargetChange(target, "create", "tree", ABSENT, files=entry.files, entries=(entry.key,))
    return change, [], {entry.key: claim.own(target, entry, None)}


def _drift(
    entry: Entry, owned: Owned | None, value_now: str | None, same: bool
) -> tuple[Drift, ...]:
    """A folder memhub wrote that holds neither what it wrote nor what it will write."""
    if same or owned is None or value_now is None or value_now == owned.digest:
        return ()
    return (Drift(entry.key, entry.digest, owned.digest, value_now),)


def _linked_tree(target: str, desired: list[Entry]) -> Merged:
    """A skill folder that is a link is the person's (a dotfiles checkout, say): memhub
    neither writes through it into what it points to nor replaces it, even with --adopt,
    and an uninstall leaves it (and what it points to) alone."""
    change = TargetChange(target, "unchanged", "tree", fingerprint(Path(target)))
    if not desired:
        return change, [], {}
    message = (
        f"{target}: is a link to {os.readlink(target)}; memhub neither writes through a "
        "link nor replaces one (not even with --adopt). Fix: remove the link (what it "
        "points to stays) and apply again, or rename the skill in the hub"
    )
    return change, [message], {}


def _tree_removal(
    target: str, mine: dict[str, Owned], exists: bool, actual: str, before_files: Files
) -> Merged:
    """Removing an owned folder: it goes, or, if memhub adopted it, its pre-image returns."""
    pre = next((p for p in map(pre_of, mine.values()) if p is not None), None)
    if pre is None:
        kind: ChangeKind = "delete" if exists else "unchanged"
        change = TargetChange(target, kind, "tree", actual, entries=tuple(mine))
        return replace(change, before_files=before_files), [], {}
    files = tree_files(pre["value"]["files"])
    same = exists and {r: (d, m) for r, d, m in before_files} == {r: (d, m) for r, d, m in files}
    change = TargetChange(
        target,
        "unchanged" if same else ("update" if exists else "create"),
        "tree",
        actual,
        files=files,
        entries=tuple(mine),
        before_files=before_files,
    )
    return change, [], restored_owner(next(iter(mine)), pre)


def _same_files(current: dict[str, tuple[bytes, int]], files: Files) -> bool:
    if len(current) != len(files):
        return False
    for rel, data, mode in files:
        found = current.get(rel)
        if found is None or found[0] != data or bool(found[1] & 0o100) != bool(mode & 0o100):
            return False
    return True
