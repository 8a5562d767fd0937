"""The read tools of memhub's MCP server, as plain methods over one MemoryService.

Each method is one tool: its name, parameters and docstring are what `tools/list` shows, it
returns the tool's structured result, and it raises ToolFailure or MemoryServiceError for a
tool error (app.py turns both into an `isError` result). The workspace is fixed when the
server starts: an `agent_brain_id`, `org_id` or `scope` argument can only name what it already
serves (or narrow it), never widen it, and an id outside it reads exactly like one that does
not exist.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..backends.base import BackendError
from ..memory import brief_read, frontmatter, layout
from ..memory.errors import MemoryServiceError, NotFound
from ..memory.records import KINDS, revision
from ..memory.service import Entry, Found, MemoryService
from . import provenance, shapes
from .shapes import ToolFailure

SESSION_TYPES = ("session", "sessions", "episode", "conversation")
ALL_TYPES = ("all", "any", "memory")
DIRECTIVE_TYPE = "directive"
MAX_TOP_K = 100
MAX_LIST = 500
_STATUS = re.compile(r"^status:[ \t]*\"?([a-z]+)", re.MULTILINE)
# the source kind as render_record writes it (any other spelling: unknown, so unreviewed)
_SOURCE = re.compile(r"^source:[ \t]*\n[ \t]+kind:[ \t]*\"?([a-z-]+)", re.MULTILINE)


class ReadTools:
    """search_memory, get_memory, list_memory, recall_directives, get_brain_overview,
    list_agent_brains and list_orgs over one service (and the capture store the write tool
    import_conversation files into)."""

    def __init__(
        self, service: MemoryService, *, store: Callable[[], Any], folder: Path | None = None
    ) -> None:
        self.service = service
        self.workspace = service.workspace
        self._store = store  # makes the capture store (LocalStore) on first use
        self._capture: Any = None
        self.folder = folder  # the folder the server was started for: where captures are filed

    # --- boundaries -------------------------------------------------------------------------

    def check_brain(self, agent_brain_id: str | None, org_id: str | None = None) -> None:
        """Refuse a brain or org this server does not serve (the same text whatever it names)."""
        if org_id not in (None, "", shapes.LOCAL_ORG["org_id"]):
            raise ToolFailure("org not found", "this server has one org: 'local'", kind="not-found")
        if agent_brain_id not in (None, "", shapes.brain_id(self.workspace)):
            raise ToolFailure(
                "agent brain not found",
                f"this server serves one brain: {shapes.brain_id(self.workspace)!r}"
                " (list_agent_brains)",
                kind="not-found",
            )

    def scope(self, scope: str | None) -> str | None:
        """A scope to narrow to, which must be one the server serves."""
        if scope in (None, ""):
            return None
        if scope not in self.workspace.scopes:
            served = ", ".join(self.workspace.scopes) or "none"
            raise ToolFailure(
                f"scope {str(scope)[:40]!r} is not served here", f"this server serves: {served}"
            )
        return scope

    @staticmethod
    def record_id(value: str) -> str:
        """A well-formed record id; anything else (`../x`, a path) is simply not found."""
        try:
            return layout.check_name(value)
        except layout.UnsafeName:
            raise NotFound(value) from None

    # --- tools ------------------------------------------------------------------------------

    def search_memory(
        self,
        query: str,
        memory_type: str | None = None,
        top_k: int = 10,
        agent_brain_id: str | None = None,
        org_id: str | None = None,
        scope: str | None = None,
        tag: str | None = None,
    ) -> dict[str, Any]:
        """Search this project's memory (and the shared memory it reads): ask in words or in
        a whole sentence ("When did we move the queue off Redis?").

        Hits holding every word of the query come first (match "strict"); then hits holding
        some of its content words (match "relaxed"; question and other common words are left
        out), ranked by how many and how rare. Each item names its `matched_terms`; the
        answer lists `unmatched_terms` (words no record holds) and `ignored_terms`.
        memory_type narrows it: a record kind (fact, preference, decision, lesson, procedure,
        artifact), 'directive' (lessons and procedures), 'session' (captured conversations
        only) or 'all' (records and sessions). Each item names its source."""
        self.check_brain(agent_brain_id, org_id)
        kinds, sources = _types(memory_type)
        started = time.perf_counter()
        hits = self.service.search(
            query,
            scope=self.scope(scope),
            kinds=kinds,
            tags=(tag,) if tag else (),
            sources=sources,
            limit=max(1, min(int(top_k), MAX_TOP_K)),
        )
        items = [
            {**self._item(hit), "match": hit.match, "matched_terms": list(hit.matched_terms)}
            for hit in hits
        ]
        took = round((time.perf_counter() - started) * 1000, 3)
        return {
            "items": items,
            "count": len(items),
            "took_ms": took,
            "unmatched_terms": list(hits.unmatched),
            "ignored_terms": list(hits.ignored),
        }

    def _item(self, hit: Found) -> dict[str, Any]:
        """One search item: a record hit's whole body and status, read from its file (no
        YAML, no index query: a search stays in ms at 100k records); the snippet when the
        file is gone or unreadable meanwhile."""
        item = shapes.hit_json(hit, hit.snippet)
        # a session's title and text: a host or an agent wrote them; a record: read below
        item.update(provenance.marks("session" if hit.source == "session" else None, "", ""))
        if hit.source != "record":
            return item
        project = self.workspace.project_id if hit.scope == "project" else None
        try:
            path = layout.record_path(self.workspace.root, hit.scope, project, hit.id)
            text = frontmatter.decode(path.read_bytes(), str(path))
            part = frontmatter.split(text, str(path))
        except (OSError, ValueError):  # gone meanwhile, or no longer a record
            return item
        status = _STATUS.search(part.front)
        source = _SOURCE.search(part.front)
        item["content"] = part.body
        item["status"] = status.group(1) if status else None  # "proposed": not accepted yet
        item.update(provenance.marks(source.group(1) if source else None, hit.kind, item["status"]))
        return item

    def marks(self, hit: Found) -> dict[str, Any]:
        """A hit's `written_by` and `reviewed` (provenance.py), read as search_memory reads them."""
        item = self._item(hit)
        return {key: item[key] for key in ("written_by", "reviewed")}

    def entry(self, record_id: str) -> Entry:
        """One record as it is on disk now: the service trusts an unchanged folder for a
        moment (RECHECK_S), so a file rewritten in place is caught here by its revision."""
        entry = self.service.get(self.record_id(record_id))
        try:
            current: str | None = revision(entry.path.read_bytes())
        except OSError:
            current = None
        if current != entry.revision:
            self.service.refresh_index(full=True)  # an in-place edit the watcher missed
            entry = self.service.get(record_id)
        return entry

    def get_memory(self, id: str) -> dict[str, Any]:
        """One record by id, with its body and the revision update_memory and delete_memory
        need."""
        entry = self.entry(id)
        return {
            "record": shapes.record_json(entry),
            "id": entry.record.id,
            "revision": entry.revision,
        }

    def list_memory(
        self,
        kind: str | None = None,
        tag: str | None = None,
        limit: int = 50,
        scope: str | None = None,
        include_superseded: bool = False,
    ) -> dict[str, Any]:
        """The records of this memory, newest first (no bodies: get_memory reads one)."""
        if kind not in (None, "") and kind not in KINDS:
            raise ToolFailure(
                f"kind {str(kind)[:40]!r} is unknown", f"use one of {', '.join(KINDS)}"
            )
        entries = self.service.list(
            scope=self.scope(scope),
            kinds=(kind,) if kind else (),
            tags=(tag,) if tag else (),
            include_superseded=include_superseded,
            limit=max(1, min(int(limit), MAX_LIST)),
        )
        items = [shapes.record_summary(entry) for entry in entries]
        return {"items": items, "count": len(items)}

    def recall_directives(
        self,
        tool: str,
        args: dict[str, Any],
        output: str | None = None,
        repo: str | None = None,
        already_fired: list[str] | None = None,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        """The accepted lessons and procedures whose triggers match a tool call (at most 2).

        The project is the one this server was started for; `repo` only joins the precision
        gate (its name never fires), `session_id` is accepted for MemHub compatibility."""
        del session_id  # the workspace decides the project, not the caller
        items = self.service.recall(
            tool=tool, args=args, output=output, already_fired=tuple(already_fired or ()),
            repo=repo,
        )  # fmt: skip
        return {"items": [{"id": i["id"], **self._vouched(i), **i} for i in items]}

    def _vouched(self, directive: dict[str, Any]) -> dict[str, Any]:
        """A recalled directive's provenance, from its record (at most 2 a call)."""
        try:
            return provenance.of_record(self.service.get(directive["id"]).record)
        except MemoryServiceError:  # gone meanwhile: nothing vouches for it
            return provenance.marks(None, str(directive.get("type")), None)

    def get_brain_overview(self, agent_brain_id: str | None = None) -> dict[str, Any]:
        """An overview of this memory: what it holds, and its MEMORY.md index."""
        self.check_brain(agent_brain_id)
        data = self.service.overview()
        me = shapes.brain(self.workspace)
        counts = data.get("counts") or {}
        listed = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "no records"
        head = f"{me['name']}: {listed}; {data.get('proposed', 0)} proposed awaiting review"
        # an agent's title in the listing is fenced: the overview is text a model reads
        listing = provenance.fenced_listing(str(data.get("memory_md") or ""), self._listed)
        text = head + "\n\n" + listing
        return {
            "overview": text.strip(),
            **me,
            "counts": counts,
            "proposed": data.get("proposed", 0),
        }

    def _listed(self, ids: list[str]) -> dict[str, tuple[str, ...]]:
        """id -> (kind, title, status, source kind) of the records `ids`, from the index the
        hooks read provenance from (this thread's connection: the service's own)."""
        out: dict[str, tuple[str, ...]] = {}
        allowed = self.workspace.allowed()
        try:
            for at in range(0, len(ids), 500):  # under SQLite's bound on variables
                out.update(brief_read.listed(self.service.db, allowed, ids[at : at + 500]))
        except (sqlite3.Error, MemoryServiceError):  # an index the read healed around
            return {}  # every title fenced: nothing vouches for any
        return out

    def list_agent_brains(self, org_id: str | None = None) -> dict[str, Any]:
        """The brains this server serves: the project it was started for (or shared memory)."""
        self.check_brain(None, org_id)
        return {"agent_brains": [shapes.brain(self.workspace)], "scope": {"org_name": "local"}}

    def list_orgs(self) -> dict[str, Any]:
        """The orgs this server serves: one local org."""
        return {"orgs": [dict(shapes.LOCAL_ORG)]}

    def capture(self, header: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
        """Store a conversation's records in the local capture store (memhub's capture backend
        contract): its ack. The write tool import_conversation decides the header."""
        if self._capture is None:
            self._capture = self._store()
        try:
            ack: dict[str, Any] = self._capture.import_conversation(header, messages)
        except BackendError as exc:
            raise ToolFailure(str(exc), "send the records again", kind="capture") from None
        return ack

    def close(self) -> None:
        """Close the capture store and the service's index (on the worker thread)."""
        if self._capture is not None:
            self._capture.close()
            self._capture = None
        self.service.close()


def _types(memory_type: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(kinds, sources) for a search's memory_type."""
    value = (memory_type or "").strip().lower()
    if not value:
        return (), ("record",)
    if value in ALL_TYPES:
        return (), ("record", "session")
    if value in SESSION_TYPES:
        return ("session",), ("session",)
    if value in (DIRECTIVE_TYPE, "directives"):
        return ("lesson", "procedure"), ("record",)
    if value in KINDS:
        return (value,), ("record",)
    accepted = ", ".join((*KINDS, DIRECTIVE_TYPE, "session", "all"))
    raise ToolFailure(f"memory_type {value[:40]!r} is unknown", f"use one of {accepted}")
