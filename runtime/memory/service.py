"""The memory service: the one place that validates, scopes, searches, plans and writes memory.

The CLI, the MCP server and (later) the web UI are thin layers over `MemoryService`. Reads go
through the derived index (stdlib only, no YAML on an unchanged memory); writes are planned
first (`plan_*` -> MemoryPlan) and carried out by `apply` under the operation lock.
Importing this module needs the standard library only.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import NotFound
from .plans import Candidate, Draft, MemoryPlan
from .records import Record, Triggers
from .workspace import Workspace

__all__ = ["Entry", "Found", "MemoryService"]


@dataclass(frozen=True)
class Entry:
    """A record as stored: the parsed record, its file and its revision."""

    record: Record
    path: Path
    revision: str


@dataclass(frozen=True)
class Found:
    """One search hit, naming its source (a record or a captured session)."""

    source: str  # "record" | "session"
    id: str
    title: str
    kind: str
    scope: str
    snippet: str
    score: float
    revision: str | None
    updated: str
    tags: tuple[str, ...]
    host: str | None = None  # for sessions


class MemoryService:
    """The memory of one workspace: reads scoped to its grants, writes planned then applied."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    # -- reads --

    def list(
        self,
        *,
        scope: str | None = None,
        kinds: Sequence[str] = (),
        tags: Sequence[str] = (),
        include_superseded: bool = False,
        include_proposed: bool = True,
        limit: int | None = None,
    ) -> builtins.list[Entry]:
        """The records in the caller's scopes (or one of them), newest first."""
        raise NotImplementedError

    def get(self, record_id: str) -> Entry:
        """One record by id; NotFound when absent or outside the caller's scopes."""
        raise NotFound(record_id)

    def search(
        self,
        query: str,
        *,
        scope: str | None = None,
        kinds: Sequence[str] = (),
        tags: Sequence[str] = (),
        sources: Sequence[str] = ("record",),
        limit: int = 20,
        include_superseded: bool = False,
    ) -> builtins.list[Found]:
        """Full-text hits (bm25) in the caller's scopes; kinds=("session",) searches sessions."""
        raise NotImplementedError

    def overview(self) -> dict[str, Any]:
        """{"project": {id, name} | None, "counts": {kind: n}, "proposed": n, "memory_md": str}."""
        raise NotImplementedError

    def recall(
        self,
        *,
        tool: str,
        args: Mapping[str, Any],
        output: str | None = None,
        already_fired: Sequence[str] = (),
    ) -> builtins.list[dict[str, Any]]:
        """Active directives whose triggers match a tool call (at most 2, none already fired):
        [{id, type, content, triggers, as_of, seen}]."""
        raise NotImplementedError

    # -- plans --

    def plan_add(self, draft: Draft, *, force: bool = False) -> MemoryPlan:
        """Add a record; DuplicateRecord when an active one says the same, unless `force`."""
        raise NotImplementedError

    def plan_edit(
        self,
        record_id: str,
        *,
        revision: str | None,
        title: str | None = None,
        body: str | None = None,
        tags: Sequence[str] | None = None,
        triggers: Triggers | None = None,
    ) -> MemoryPlan:
        """Change a record's title, body, tags or triggers; StaleRevision, NotFound."""
        raise NotImplementedError

    def plan_remove(self, record_id: str, *, revision: str | None) -> MemoryPlan:
        """Delete a record's file; StaleRevision, NotFound."""
        raise NotImplementedError

    def plan_accept(self, record_id: str, *, revision: str | None = None) -> MemoryPlan:
        """Make a proposed directive active."""
        raise NotImplementedError

    def plan_import(self, candidates: Sequence[Candidate], *, force: bool = False) -> MemoryPlan:
        """Add imported records with source bindings; ImportConflict for changed sources."""
        raise NotImplementedError

    def plan_export(self, record_ids: Sequence[str], dest: Path) -> MemoryPlan:
        """Copy the files of the selected records into the folder `dest` (in a repository)."""
        raise NotImplementedError

    # -- writes and the index --

    def apply(self, plan: MemoryPlan) -> dict[str, Any]:
        """Carry out `plan` under the operation lock: {"run": id, "changed": [paths]}."""
        raise NotImplementedError

    def refresh_index(self) -> int:
        """Re-index record files changed behind the index's back; how many documents changed."""
        raise NotImplementedError

    def rebuild_index(self) -> int:
        """Recreate the index from the files alone; how many documents it holds."""
        raise NotImplementedError
