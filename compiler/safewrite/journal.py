"""Run journals: one write-ahead record of what a run meant to change, and how it ended.

A journal is appended to, never rewritten: a torn last line is a record whose change never
started, and readers skip it. Undo steps back through the newest `MAX_RUNS_KEPT` runs; older
journals and the pre-images only they name are pruned after each commit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.compiler.safewrite.durable import (
    append_records,
    discard,
    fsync_dir,
    make_private_dir,
    read_records,
    remove_tree,
)
from memhub.compiler.safewrite.store import journal_dir, legacy_run_store, now_iso, objects_dir

UNFINISHED = ("open", "rolling_back")
"""Journal states `recover` rolls back: no end record, or a rollback that did not finish."""
JOURNAL_SUFFIX = ".jsonl"

# Undo steps back through at most this many runs: older journals and the pre-images only
# they name are pruned after each commit, so recovery/ stops growing with every apply.
MAX_RUNS_KEPT = 10


@dataclass
class Journal:
    """One run's write-ahead journal: what it meant to change, and how it ended."""

    path: Path
    run_id: str
    command: str
    meta: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    state: str = "open"
    conflicts: list[str] = field(default_factory=list)
    pid: int = 0
    started: str = ""

    @classmethod
    def begin(cls, home: Path, run_id: str, command: str, meta: Mapping[str, Any]) -> Journal:
        """A new journal, not yet on disk (it is created with its first entry)."""
        return cls(
            path=journal_dir(home) / f"{run_id}{JOURNAL_SUFFIX}",
            run_id=run_id,
            command=command,
            meta=dict(meta),
            pid=os.getpid(),
            started=now_iso(),
        )

    @property
    def on_disk(self) -> bool:
        """Whether any record was written (a run with no change leaves no journal)."""
        return self.path.exists()

    def record(self, entry: dict[str, Any]) -> None:
        """Make `entry` durable before its change; an entry with a known `seq` is updated."""
        records: list[Mapping[str, Any]] = []
        if not self.on_disk:
            make_private_dir(self.path.parent)
            records.append(
                {
                    "run": self.run_id,
                    "command": self.command,
                    "meta": self.meta,
                    "pid": self.pid,
                    "started": self.started,
                    "version": 1,
                }
            )
        records.append({"intent": entry})
        append_records(self.path, records)
        self._apply(entry)

    def finish(self, state: str, conflicts: list[str] | None = None) -> None:
        """Record how the run ended (`committed` or `rolled_back`), if it changed anything."""
        self.state = state
        self.conflicts = list(conflicts or [])
        if self.on_disk:
            record = {"state": state, "at": now_iso(), "conflicts": self.conflicts}
            append_records(self.path, [record])

    def _apply(self, entry: dict[str, Any]) -> None:
        """Add `entry`, or replace the one with its `seq`."""
        seq = entry["seq"]
        if seq < len(self.entries):
            self.entries[seq] = entry
        else:
            self.entries.append(entry)

    @classmethod
    def load(cls, path: Path) -> Journal:
        """Read a journal back; records after a torn line still count."""
        journal = cls(path=path, run_id=path.name.removesuffix(JOURNAL_SUFFIX), command="")
        for record in read_records(path):
            if "run" in record:
                journal.command = str(record.get("command", ""))
                journal.meta = dict(record.get("meta") or {})
                journal.pid = int(record.get("pid") or 0)
                journal.started = str(record.get("started", ""))
            elif "intent" in record:
                journal._apply(dict(record["intent"]))
            elif "state" in record:
                journal.state = str(record["state"])
                journal.conflicts = list(record.get("conflicts") or [])
        return journal


def journal_paths(home: Path) -> list[Path]:
    """Every run journal, oldest first."""
    folder = journal_dir(home)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.endswith(JOURNAL_SUFFIX))


def is_open(path: Path) -> bool:
    """Whether a journal's run still needs rolling back (read from its tail only)."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(size - 4096, 0))
        tail = handle.read()
    lines = [line for line in tail.splitlines() if line.strip()]
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "state" in record:
            return record["state"] in UNFINISHED
        return True
    return True


def run_ids(home: Path) -> list[str]:
    """Run ids of every journal, oldest first."""
    return [p.name.removesuffix(JOURNAL_SUFFIX) for p in journal_paths(home)]


def prune_runs(home: Path, keep: int = MAX_RUNS_KEPT) -> None:
    """Forget runs older than the newest `keep` applies/uninstalls (undo runs in between do
    not count, so undoing does not shorten how far undo reaches), then drop pre-images no
    kept run names. A run that is still open is kept whatever its age (recover needs its
    pre-images). Call it under the operation lock, after a commit.
    """
    counted = 0
    prunable: list[Path] = []
    for path in reversed(journal_paths(home)):
        if counted >= keep:
            prunable.append(path)
        elif Journal.load(path).command != "undo":
            counted += 1
    for path in prunable:
        if is_open(path):
            continue
        legacy = legacy_run_store(home, path.name.removesuffix(JOURNAL_SUFFIX))
        if legacy.is_dir():
            remove_tree(legacy)
        discard(path)
    _drop_unnamed_objects(home)


def _drop_unnamed_objects(home: Path) -> None:
    """Remove every pre-image in the shared store that no kept journal names."""
    folder = objects_dir(home)
    if not folder.is_dir():
        return
    wanted = {
        entry["pre"]
        for path in journal_paths(home)
        for entry in Journal.load(path).entries
        if isinstance(entry.get("pre"), str)
    }
    removed = False
    for item in folder.iterdir():
        if item.name in wanted or item.name.startswith("."):  # dot-names: sweep_temps' temps
            continue
        if item.is_dir() and not item.is_symlink():
            remove_tree(item)
        else:
            discard(item)
        removed = True
    if removed:
        fsync_dir(folder)
