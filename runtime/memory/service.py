"""The memory service: the one place that validates, scopes, searches, plans and writes memory.

The CLI, the MCP server and (later) the web UI are thin layers over `MemoryService`. Reads go
through the derived index (stdlib only, no YAML on an unchanged memory); writes are planned
first (`plan_*` -> MemoryPlan) and carried out by `apply` under the operation lock.
Importing this module needs the standard library only.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import catalog, indexfile, layout, retrieval, scanwindow, sessions
from .errors import NotFound, Unwritable
from .found import Found, Results, results_of
from .healing import file_identity, healed
from .index import MemoryIndex
from .records import DIRECTIVES, Record, Triggers
from .scan import Scanner, ScanState, all_pairs
from .workspace import Workspace

if TYPE_CHECKING:
    from .directives import Directive
    from .planner import Planner
    from .plans import Candidate, Draft, MemoryPlan
    from .watcher import Watcher

__all__ = ["Entry", "Found", "MemoryService", "Results"]


@dataclass(frozen=True)
class Entry:
    """A record as stored: the parsed record, its file and its revision."""

    record: Record
    path: Path
    revision: str


INDEX_FILE = layout.INDEX_FILE
TRUST_ENV = scanwindow.TRUST_ENV
DEFAULT_TRUST = scanwindow.DEFAULT_TRUST
trust_window = scanwindow.trust_window


def index_path(home: Path) -> Path:
    """The search index of a memhub home: `$MEMHUB_HOME/memory/index.sqlite`."""
    return layout.index_file(layout.memory_root(home))


class MemoryService:
    """The memory of one workspace: reads scoped to its grants, writes planned then applied.

    `recheck` (seconds; 0, the default: every read checks every file's stat): for a
    long-running caller (the MCP server), reads then trust a records folder whose own stat is
    unchanged and a background thread (watcher.py) re-checks every file each `recheck`
    seconds, so an edit made in place shows within that time and no query waits for a walk.

    Several threads may share one service (the server's reader threads): each opens its own
    index connection on first use and closes it with `release`; what a full check saw is
    shared (scan.ScanState), so a folder one thread checked is trusted by all.
    """

    def __init__(
        self, workspace: Workspace, *, recheck: float = 0.0, window: float | None = None
    ) -> None:
        self.workspace = workspace
        self.recheck = recheck
        self.window = trust_window() if window is None else window
        self._local = threading.local()  # this thread's scanner and its index file's identity
        self._states: dict[tuple[int, int], ScanState] = {}  # by index file identity
        self._lock = threading.Lock()
        self.notes: tuple[str, ...] = ()  # the problem files of the last refresh
        self.fallback: str | None = None  # why the last refresh wrote to an index in memory
        self._watcher: Watcher | None = None

    def close(self) -> None:
        """Close the index (and stop the background re-check)."""
        with self._lock:
            watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()
        self.release()

    def release(self) -> None:
        """Close the calling thread's index connection (each thread closes its own)."""
        scanner = getattr(self._local, "scanner", None)
        if scanner is not None:
            self._local.scanner = None
            scanner.index.close()

    def __enter__(self) -> MemoryService:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- the index --

    def _scan(self, fallback: str | None = None) -> Scanner:
        """This thread's scanner over the index file, reopened when the file was deleted or
        replaced; `fallback` (why the file cannot be written): over an index in memory instead."""
        path = index_path(self.workspace.home)
        identity = file_identity(path)
        local = self._local
        scanner: Scanner | None = getattr(local, "scanner", None)
        if scanner is None or identity != getattr(local, "identity", None) or fallback:
            self.release()
            index = MemoryIndex(path, fallback=fallback)
            local.identity = file_identity(path)  # None: no file (an index in memory, say)
            with self._lock:
                if fallback or local.identity is None:
                    state = ScanState()  # an index in memory is this thread's alone
                else:
                    if index.created:  # a new file may reuse a deleted one's inode
                        self._states.pop(local.identity, None)
                    state = self._states.setdefault(local.identity, ScanState())
            scanner = local.scanner = Scanner(self.workspace.root, index, state=state)
        if self.recheck > 0 and self._watcher is None:
            from .watcher import Watcher  # a long-running server's only

            with self._lock:
                if self._watcher is None:
                    self._watcher = Watcher(
                        self.workspace.root, path, self.workspace.allowed(), self.recheck
                    )
        return scanner

    @property
    def db(self) -> Any:
        """This thread's connection to the index, fresh as the last refresh left it."""
        return self._scan().index.db

    @healed
    def refresh_index(self, *, full: bool = False) -> int:
        """Re-index record files changed behind the index's back; documents changed.

        `full`: check every file's stat now even when `recheck` trusts unchanged folders."""
        trust = float("inf") if self.recheck > 0 and not full else 0.0  # the watcher re-checks
        window = 0.0 if full or self.recheck > 0 else self.window
        result = self._scan().refresh(self.workspace.allowed(), trust=trust, window=window)
        self.fallback = indexfile.fallback_reason(self.db)  # an index in memory: why
        notes = [str(problem) for problem in result.problems]
        self.notes = (*notes, self.fallback) if self.fallback else tuple(notes)
        return result.changes

    def _checked(self, paths: Sequence[str]) -> bool:
        """After a read that trusted unchanged folders: True when every file it returns is
        as indexed (a file written just now is compared by its bytes, not its stat);
        otherwise the index is brought up to date in full, and False (read again) only when
        that changed something: a read never loops on rescans that find nothing new."""
        if self.window <= 0 or self.recheck > 0 or not self._scan().stale(paths):
            return True
        return self.refresh_index(full=True) == 0

    def rebuild_index(self) -> int:
        """Recreate the index from the files alone; the records it holds in these scopes."""
        self.release()
        indexfile.discard(index_path(self.workspace.home))  # whatever it held: made anew
        scanner = self._scan()
        scanner.rebuild(all_pairs(self.workspace.root))
        self.refresh_index()
        counts = catalog.count_by_kind(scanner.index.db, self.workspace.allowed())
        return sum(n for kinds in counts.values() for n in kinds.values())

    def _pairs(self, scope: str | None) -> list[tuple[str, str | None]]:
        """The caller's grants, narrowed to `scope` (a scope not granted: none)."""
        allowed = self.workspace.allowed()
        return allowed if scope is None else [pair for pair in allowed if pair[0] == scope]

    # -- reads --

    @healed
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
        self.refresh_index()
        statuses = ["active"] + ["proposed"] * include_proposed
        statuses += ["superseded"] * include_superseded
        while True:
            found = catalog.select(
                self.db, self._pairs(scope), kinds=kinds, tags=tags, statuses=statuses, limit=limit
            )
            if self._checked([stored.path for stored in found]):
                return [_entry(stored) for stored in found]

    @healed
    def get(self, record_id: str) -> Entry:
        """One record by id; NotFound when absent or outside the caller's scopes."""
        if not isinstance(record_id, str) or not _safe(record_id):
            raise NotFound(str(record_id))
        self.refresh_index()
        while True:
            found = catalog.select(
                self.db,
                self.workspace.allowed(),
                record_id=record_id,
                statuses=("active", "proposed", "superseded"),
                limit=1,
            )
            if self._checked([stored.path for stored in found]):
                break
        if not found:
            raise NotFound(record_id)
        return _entry(found[0])

    @healed
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
    ) -> Results:
        """Full-text hits in the caller's scopes, strict then relaxed (retrieval.py), with what
        the planner made of the query; kinds=("session",) searches sessions."""
        if sessions.SESSION_KIND in kinds:
            sources = ("session",)
            kinds = [kind for kind in kinds if kind != sessions.SESSION_KIND]
        if "session" not in sources and self.recheck <= 0:
            answer = scanwindow.search_within(
                self._scan().index,
                self.workspace.root,
                self._pairs(scope),
                self.window,
                query,
                kinds=kinds,
                tags=tags,
                include_superseded=include_superseded,
                sources=sources,
                limit=limit,
            )
            if answer is not None:
                return results_of(answer)
        self.refresh_index()
        if "session" in sources:
            sessions.refresh_sessions(self.workspace.home, self._scan().index)
        while True:
            answer = retrieval.search(
                self._scan().index,
                query,
                self._pairs(scope),
                kinds=kinds,
                tags=tags,
                include_superseded=include_superseded,
                sources=sources,
                limit=limit,
            )
            hits = answer.hits
            if self._checked([h.doc.path for h in hits if h.doc.source == "record"]):
                return results_of(answer)

    def counts(self) -> dict[str, dict[str, int]]:
        """{status: {kind: n}} of the records the caller can see, as the index holds them now
        (no refresh: the caller has just refreshed)."""
        return catalog.count_by_kind(self.db, self.workspace.allowed())

    def overview(self) -> dict[str, Any]:
        """{"project": {id, name} | None, "counts": {kind: n}, "proposed": n, "memory_md": str}."""
        from . import memorymd

        self.refresh_index()
        ws = self.workspace
        counts = catalog.count_by_kind(self.db, ws.allowed())
        listed = [
            line for line in catalog.lines(self.db, ws.allowed()) if line.status != "superseded"
        ]
        project = {"id": ws.project_id, "name": ws.project_name} if ws.project_id else None
        return {
            "project": project,
            "counts": dict(sorted(counts.get("active", {}).items())),
            "proposed": sum(counts.get("proposed", {}).values()),
            "memory_md": memorymd.overview_text(listed),
        }

    def recall(
        self,
        *,
        tool: str,
        args: Mapping[str, Any],
        output: str | None = None,
        already_fired: Sequence[str] = (),
        repo: str | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """Active directives whose triggers match a tool call (at most 2, none already fired),
        past the hook's precision gate (the account's, the project's and `repo`'s names never
        fire): [{id, type, content, triggers, as_of, seen, match}]."""
        from . import directives, directives_read
        from .directives_project import account

        self.refresh_index()
        names = [n for n in (self.workspace.project_name, repo) if n]
        call = directives.call_of(args, output)
        stop = directives.blocked(account(), " ".join(names))
        allowed = self.workspace.allowed()
        while True:
            # the hook's read: only directives one of whose trigger keys is in the call are
            # decoded (directives_read's derived cache), not every active one
            found = directives_read.candidates(index_path(self.workspace.home), allowed, call)
            hits = directives.select(found, call, stop, tuple(already_fired))
            stored = [self._stored(hit.directive) for hit in hits]
            if self._checked([s.path for s in stored if s is not None]):
                break
        return [
            _directive(s.record, hit.trigger)
            for hit, s in zip(hits, stored, strict=True)
            if s is not None
        ]

    def _stored(self, directive: Directive) -> catalog.Stored | None:
        """The indexed record a directive was read from (its scope's grant, its id)."""
        pairs = [pair for pair in self.workspace.allowed() if pair[0] == directive.scope]
        found = catalog.select(
            self.db, pairs, record_id=directive.id, kinds=DIRECTIVES, statuses=("active",),
            limit=1,
        )  # fmt: skip
        return found[0] if found else None

    # -- plans --

    def _planner(self) -> Planner:
        from .planner import Planner

        self.refresh_index(full=self.recheck <= 0)  # a one-shot write sees every file as it is
        return Planner(self.workspace, self._scan().index)

    def plan_add(self, draft: Draft, *, force: bool = False) -> MemoryPlan:
        """Add a record; DuplicateRecord when an active one says the same, unless `force`."""
        return self._planner().add(draft, force=force)

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
        return self._planner().edit(
            record_id, revision=revision, title=title, body=body, tags=tags, triggers=triggers
        )

    def plan_remove(self, record_id: str, *, revision: str | None) -> MemoryPlan:
        """Delete a record's file; StaleRevision, NotFound."""
        return self._planner().remove(record_id, revision=revision)

    def plan_accept(self, record_id: str, *, revision: str | None = None) -> MemoryPlan:
        """Make a proposed directive active."""
        return self._planner().accept(record_id, revision=revision)

    def plan_import(self, candidates: Sequence[Candidate], *, force: bool = False) -> MemoryPlan:
        """Add imported records with source bindings; ImportConflict for changed sources."""
        return self._planner().import_(candidates, force=force)

    def plan_export(self, record_ids: Sequence[str], dest: Path) -> MemoryPlan:
        """Copy the files of the selected records into the folder `dest` (in a repository)."""
        return self._planner().export(record_ids, dest)

    # -- writes --

    def apply(self, plan: MemoryPlan) -> dict[str, Any]:
        """Carry out `plan` under the operation lock: {"run": id, "changed": [paths]}."""
        from .writes import apply_plan

        try:
            result = apply_plan(self.workspace, plan, self._scan())
        except OSError as error:  # the disk refused (read-only, full): a clear error, exit 2
            if not indexfile.unwritable(error):
                raise
            raise Unwritable.from_os(error, self.workspace.home) from error
        self.refresh_index()
        return result

    def tags(self, *, scope: str | None = None) -> builtins.list[tuple[str, int]]:
        """(tag, active or proposed records carrying it) in the caller's scopes (or one)."""
        self.refresh_index()
        return catalog.count_tags(self.db, self._pairs(scope))

    def rewrite_memory_md(self) -> dict[str, Any]:
        """Derive MEMORY.md of the caller's scopes again from every record file (a write)."""
        from .writes import rewrite_memory_md

        result = rewrite_memory_md(self.workspace, self._scan())
        self.refresh_index()
        return result


def _safe(record_id: str) -> bool:
    try:
        layout.check_name(record_id)
    except layout.UnsafeName:
        return False
    return True


def _entry(stored: catalog.Stored) -> Entry:
    return Entry(stored.record, Path(stored.path), stored.revision)


def _directive(record: Record, trigger: str) -> dict[str, Any]:
    t = record.triggers
    return {
        "id": record.id,
        "type": record.kind,
        "content": f"{record.title}\n\n{record.body}".strip(),
        "triggers": [*t.paths, *t.commands, *t.identifiers, *t.errors],
        "as_of": record.updated,
        "seen": 1,
        "match": trigger,
    }
