"""What a memory write would do, before it does it: drafts in, a plan of file changes out.

A plan is pure data: the CLI previews it (`diff`, `to_json`) and `MemoryService.apply` carries
it out under the operation lock, refusing any change whose `before` revision no longer holds.
Stdlib only (vendored).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .records import Source, Triggers

__all__ = ["Candidate", "Draft", "MemoryChange", "MemoryPlan"]

ACTIONS = ("create", "update", "delete", "skip")


@dataclass(frozen=True)
class Draft:
    """A record to add; the service gives it an id, timestamps, a scope folder and a status."""

    kind: str
    title: str
    body: str
    tags: tuple[str, ...] = ()
    triggers: Triggers = field(default_factory=Triggers)
    scope: str = "project"  # "shared" must be asked for explicitly
    source: Source = field(default_factory=lambda: Source(kind="user"))
    name: str | None = None  # artifacts: the stable name; a new save supersedes the active one
    supersedes: str | None = None


@dataclass(frozen=True)
class Candidate:
    """One record an import would add: its draft and the source text it came from."""

    draft: Draft
    origin: str  # the source file path (and '#section' where a file holds several)
    origin_revision: str  # sha256 of the source text the draft came from


@dataclass(frozen=True)
class MemoryChange:
    """One file change of a plan."""

    action: str  # "create" | "update" | "delete" | "skip"
    record_id: str
    scope: str
    project: str | None
    path: Path  # the record file
    before: str | None  # the revision expected on disk (None: must not exist)
    content: bytes | None  # the new bytes (None for delete and skip)
    summary: str  # one line: what and why


@dataclass(frozen=True)
class MemoryPlan:
    """The changes one memory operation would make, and what it noticed on the way."""

    changes: tuple[MemoryChange, ...]
    notes: tuple[str, ...] = ()  # duplicates found, conflicts, skipped files
    # MEMORY.md of each touched scope as the plan would leave it (shown; apply recomputes)
    derived: tuple[MemoryChange, ...] = ()
    export_to: Path | None = None  # an export plan: the folder its files go into

    def empty(self) -> bool:
        """Nothing would be written."""
        return all(change.action == "skip" for change in self.changes)

    def to_json(self) -> dict[str, Any]:
        """The plan as the CLI's and the MCP server's JSON (no file contents)."""
        return {
            "changes": [
                {
                    "action": c.action,
                    "record_id": c.record_id,
                    "scope": c.scope,
                    "path": str(c.path),
                    "before": c.before,
                    "summary": c.summary,
                }
                for c in self.changes
            ],
            "notes": list(self.notes),
        }

    def diff(self) -> str:
        """A unified diff of every record file the plan writes or deletes, and MEMORY.md."""
        return "".join(_change_diff(change) for change in (*self.changes, *self.derived))


def _change_diff(change: MemoryChange) -> str:
    """The unified diff of one change ('' for a skip)."""
    if change.action == "skip":
        return ""
    old = _old_text(change)
    new = change.content.decode("utf-8", "replace") if change.content is not None else ""
    where = str(change.path).lstrip("/")
    import difflib  # imported on use: a preview needs it, a read does not

    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if change.action == "create" else f"a/{where}",
        tofile="/dev/null" if change.action == "delete" else f"b/{where}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _old_text(change: MemoryChange) -> str:
    """The file's current text, for the diff ('' when it is new or unreadable)."""
    if change.action == "create":
        return ""
    try:
        return change.path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""
