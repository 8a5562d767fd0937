"""`memhub history`: the runs the journal keeps, newest first, and which one `undo` takes next.

`undo` is a stack: it reverts the newest committed run that is not an undo and was not
undone, so each `undo` steps one run further back; the journal keeps the newest
`journal.MAX_RUNS_KEPT` applies and uninstalls (undo runs do not count).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memhub.compiler.safewrite import journal as jr
from memhub.compiler.safewrite.journal import Journal
from memhub.compiler.safewrite.lock import canonical_home
from memhub.compiler.safewrite.undo import last_undoable


@dataclass(frozen=True)
class RunRecord:
    """One journaled run as `history` shows it."""

    run_id: str
    command: str
    started: str
    state: str  # committed, rolled_back, open or rolling_back
    paths: int  # how many paths it changed
    project: str | None  # the project it wrote inside; None at user scope
    undoes: str | None  # for an undo: the run it reverted
    undone_by: str | None  # the undo that reverted this run, if any
    next_undo: bool  # whether `memhub undo` reverts this run next

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run_id,
            "command": self.command,
            "started": self.started,
            "state": self.state,
            "paths": self.paths,
            "project": self.project,
            "undoes": self.undoes,
            "undone_by": self.undone_by,
            "next_undo": self.next_undo,
        }


def history(home: Path) -> list[RunRecord]:
    """Every run the journal keeps, newest first (reads only; a crashed run shows `open`)."""
    journals = [Journal.load(p) for p in jr.journal_paths(canonical_home(home))]
    undone_by = {
        str(j.meta.get("undoes")): j.run_id
        for j in journals
        if j.command == "undo" and j.state == "committed"
    }
    upcoming = last_undoable(canonical_home(home))  # the one rule for what undo takes next
    records: list[RunRecord] = []
    for run in reversed(journals):
        changed = {e["path"] for e in run.entries if not e.get("skipped")}
        undoes = run.meta.get("undoes")
        within = run.meta.get("within")
        records.append(
            RunRecord(
                run_id=run.run_id,
                command=run.command,
                started=run.started,
                state=run.state,
                paths=len(changed),
                project=str(within) if within else None,
                undoes=str(undoes) if undoes else None,
                undone_by=undone_by.get(run.run_id),
                next_undo=upcoming is not None and upcoming.run_id == run.run_id,
            )
        )
    return records
