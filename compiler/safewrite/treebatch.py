"""Folder writes batched within a Transaction: journaled together, synced once, swapped in.

Writing a skill folder alone costs about five fsyncs (its files, its folders, the journal,
the originals index, the folder it lands in); 5,000 skills over four hosts made 75,000.
A Transaction queues consecutive folder writes here and carries them out together, keeping
each guarantee of a single write in the same order:

1. the pre-images and first-touch originals of every folder are stored (not yet synced);
2. every intent is appended to the journal in one record set and fsynced, so a crash from
   here on is rolled back by `recover`;
3. every replacement is built beside its target (not yet synced);
4. one sync makes steps 1 and 3 durable (syncfs per file system, or one fsync pass);
5. each target is re-checked (compare-and-swap) and swapped in; the folders holding them
   are fsynced, each once; then the old folders are removed.

Anything else the Transaction does flushes the queue first, so changes keep their order.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.compiler.digest import ABSENT, digest_hex, tree_digest
from memhub.compiler.safewrite import fsops
from memhub.compiler.safewrite.durable import SyncSet, Tree, build_tree, fsync_dir, sibling
from memhub.compiler.safewrite.errors import stale, write_error
from memhub.compiler.safewrite.journal import Journal, intent
from memhub.compiler.safewrite.store import Originals, store_tree


@dataclass
class PendingTree:
    """One queued folder write (`files` None: remove the folder)."""

    target: Path
    files: Tree | None
    current: Tree | None
    cur_mode: int | None
    before: str
    root_mode: int
    dir_mode: int
    missing: list[Path]
    op: str
    token: str
    entry: dict[str, Any] = field(default_factory=dict)

    def make_entry(self, seq: int) -> dict[str, Any]:
        """The journal intent of this write."""
        self.entry = intent(
            seq,
            self.target,
            "tree",
            self.op,
            self.token,
            self.before,
            tree_digest(self.files) if self.files is not None else ABSENT,
            pre=digest_hex(self.before) if self.current is not None else None,
            mode=self.cur_mode,
            made_dirs=[str(d) for d in self.missing],
            modes={rel: m for rel, (_, m) in (self.current or {}).items()},
        )
        return self.entry


class TreeBatch:
    """The queue of folder writes a Transaction has not carried out yet.

    Paths are compared as strings: a batch of thousands of skills checks each new target
    against every queued one, and Path parents cost more than the writes they guard."""

    def __init__(self) -> None:
        self.pending: list[PendingTree] = []
        self._targets: set[str] = set()
        self._inside: set[str] = set()  # every folder holding a queued target
        self._claimed: set[Path] = set()  # missing folders a queued write creates
        self._parents: dict[Path, tuple[int, list[Path]]] = {}  # see `parent`

    def __bool__(self) -> bool:
        return bool(self.pending)

    def overlaps(self, target: Path) -> bool:
        """Whether `target` is, holds, or lies inside a queued target."""
        name = os.fspath(target)
        if name in self._targets or name in self._inside:
            return True
        parent = os.path.dirname(name)
        while parent != name:
            if parent in self._targets:
                return True
            name, parent = parent, os.path.dirname(parent)
        return False

    def parent(self, folder: Path) -> tuple[int, list[Path]]:
        """(the mode of folders made in `folder`, the folders missing for it, outermost
        first), looked up once per batch: skills share their host's skills folder."""
        known = self._parents.get(folder)
        if known is None:
            dir_mode = 0o700 if fsops.private_folder(folder) else 0o755
            known = self._parents[folder] = (dir_mode, fsops.missing_dirs(folder))
        return known

    def unclaimed(self, missing: list[Path]) -> list[Path]:
        """The folders of `missing` no queued write creates already."""
        return [d for d in missing if d not in self._claimed]

    def add(self, item: PendingTree) -> None:
        """Queue a folder write."""
        self.pending.append(item)
        name = os.fspath(item.target)
        self._targets.add(name)
        parent = os.path.dirname(name)
        while parent not in self._inside:  # its own parents are in already
            self._inside.add(parent)
            if parent == os.path.dirname(parent):
                break
            parent = os.path.dirname(parent)
        self._claimed.update(item.missing)

    def take(self) -> list[PendingTree]:
        """Every queued write, oldest first; the queue is empty after."""
        items = self.pending
        self.pending = []
        self._targets, self._inside, self._claimed = set(), set(), set()
        self._parents = {}
        return items


def carry_out(
    items: list[PendingTree], journal: Journal, originals: Originals, pre_images: Path
) -> None:
    """Write every queued folder as described in the module docstring."""
    sync = SyncSet()
    target = items[0].target
    try:
        _keep_all(items, journal.run_id, originals, pre_images, sync)
        first = len(journal.entries)
        journal.record_all([item.make_entry(first + n) for n, item in enumerate(items)])
        for item in items:
            target = item.target
            fsops.make_dirs(item.missing, item.dir_mode, item.token)
            if item.files is not None:
                build_tree(
                    sibling(target, item.token, "new"),
                    item.files,
                    file_mode=None,
                    root_mode=item.root_mode,
                    dir_mode=item.dir_mode,
                    sync=sync,
                )
        sync.flush()
        _swap_all(items, journal)
    except OSError as err:
        raise write_error(target, err) from err


def _keep_all(
    items: list[PendingTree], run_id: str, originals: Originals, pre_images: Path, sync: SyncSet
) -> None:
    """Store every queued folder's current state: its pre-image, and its first original."""
    records = []
    for item in items:
        for folder in item.missing:
            records.append(originals.prepare(str(folder), run_id, newdir=True))
        records.append(
            originals.prepare(
                str(item.target), run_id, tree=item.current, mode=item.cur_mode, sync=sync
            )
        )
        if item.current is not None:
            store_tree(pre_images, digest_hex(item.before), item.current, sync)
    originals.add([r for r in records if r is not None], sync)


def _swap_all(items: list[PendingTree], journal: Journal) -> None:
    """Re-check and swap in (or rename away) each folder; fsync each parent once."""
    olds: list[Path] = []
    parents: dict[Path, None] = {}
    for item in items:
        target, token = item.target, item.token
        if item.before == ABSENT and item.files is not None and not os.path.lexists(target):
            os.rename(sibling(target, token, "new"), target)  # still absent: nothing to swap
            parents[target.parent] = None
            continue
        found = fsops.fingerprint(target)
        if found != item.before:
            fsops.remove(sibling(target, token, "new"))
            journal.record({**item.entry, "skipped": True})
            raise stale(target, item.before, found)
        if item.files is None:
            aside = sibling(target, token, "old")
            os.rename(target, aside)
            olds.append(aside)
        else:
            old = fsops.swap_in(
                sibling(target, token, "new"), target, sibling(target, token, "old")
            )
            if old is not None:
                olds.append(old)
        parents[target.parent] = None
    for parent in parents:
        fsync_dir(parent)
    for old in olds:
        shutil.rmtree(old)
