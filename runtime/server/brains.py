"""The brain tools of memhub's MCP server: search_brains, list_teammates, share_agent_brain
(read tools), refresh_brain_overview and create_agent_brain (write tools, `--write` only).

A brain here is a project: the git checkout the server was started in, bound in the project
registry (projects.json), or the shared memory when it has none. create_agent_brain resolves
that checkout to its project and registers it only when no project holds its repository
(`memhub project connect`'s rule: worktrees share one), so calling it twice never makes a
second one. The server's workspace stays what it was at start: a project registered by this
call is served from the host's next start of the server. Sharing and teammates need a team
server; share_agent_brain and list_teammates say so, and how to configure one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..memory import layout
from ..memory import projects as P
from ..memory.errors import ReadOnly
from ..memory.gitcheckout import checkout_of
from ..memory.service import MemoryService
from . import shapes
from .shapes import ToolFailure
from .tools import ReadTools

MAX_NAME = 200  # a project's display name, as `memhub project connect --name` takes it
MAX_TOP_K = 20
MATCHES_SHOWN = 3
CREATED = (P.CREATED, P.CREATED_NAMESAKE)


class BrainTools:
    """search_brains, list_teammates, share_agent_brain, refresh_brain_overview and
    create_agent_brain over one service."""

    def __init__(self, service: MemoryService, reads: ReadTools) -> None:
        self.service = service
        self.workspace = service.workspace
        self.reads = reads

    # --- read tools -------------------------------------------------------------------------

    def search_brains(
        self, query: str, top_k: int = 5, org_id: str | None = None
    ) -> dict[str, Any]:
        """The brains whose memory or name matches `query`: this server has one (its
        project, or the shared memory), listed when the query finds records in it or names
        it, with the titles of its best matches."""
        self.reads.check_brain(None, org_id)
        me = shapes.brain(self.workspace)
        limit = max(1, min(int(top_k), MAX_TOP_K))
        hits = self.service.search(query, limit=limit) if query.strip() else []
        words = {w for w in query.casefold().split() if len(w) >= 3}
        named = any(w in str(me["name"]).casefold() for w in words)
        if not hits and not named:
            return {"agent_brains": [], "count": 0, "query": query}
        top = [
            {"id": h.id, "title": h.title, "kind": h.kind, **self.reads.marks(h)}
            for h in hits[:MATCHES_SHOWN]
        ]
        found = {**me, "matched_name": named, "matches": len(hits), "top": top}
        return {"agent_brains": [found], "count": 1, "query": query}

    def list_teammates(self, org_id: str | None = None) -> dict[str, Any]:
        """The teammates a brain can be shared with: none here (a local memory server has
        no team); `team_server` says how to configure one."""
        self.reads.check_brain(None, org_id)
        return {"teammates": [], "count": 0, "team_server": shapes.team_server()}

    def share_agent_brain(
        self,
        agent_brain_id: str,
        user_id: str | None = None,
        role: str | None = None,
        org_id: str | None = None,
    ) -> dict[str, Any]:
        """Share a brain with a teammate: this needs a team server, so it shares nothing
        here and the error says how to configure one."""
        del user_id, role  # nobody to share with on a local server
        self.reads.check_brain(agent_brain_id, org_id)
        raise ToolFailure(
            shapes.TEAM_SERVER_MESSAGE + "; nothing was shared",
            shapes.TEAM_SERVER_FIX,
            kind="needs-team-server",
        )

    # --- write tools ------------------------------------------------------------------------

    def refresh_brain_overview(self, agent_brain_id: str | None = None) -> dict[str, Any]:
        """Derive the overview again from every record file as it is now (edits made outside
        memhub included) and rewrite MEMORY.md of this memory's scopes; answers what
        get_brain_overview then answers."""
        self.reads.check_brain(agent_brain_id)
        self.service.refresh_index(full=True)
        written = self.service.rewrite_memory_md()
        root = self.workspace.root
        changed = [os.path.relpath(path, root) for path in written["changed"]]
        overview = self.reads.get_brain_overview()
        return {**overview, "refreshed": True, "changed": changed, "notes": written["notes"]}

    def create_agent_brain(
        self,
        name: str | None = None,
        description: str | None = None,
        workspace_id: str | None = None,
        org_id: str | None = None,
    ) -> dict[str, Any]:
        """The brain of the checkout this server runs in: its project when one holds the
        repository (any worktree), else a new project registered for it, named `name`
        (default: the folder's name). Never a second project for one repository; an
        existing project keeps its name. `description` is accepted for MemHub
        compatibility (a local project has none)."""
        del description
        self.reads.check_brain(None, org_id)
        if workspace_id not in (None, "", shapes.LOCAL_ORG["org_id"]):
            raise ToolFailure("workspace not found", "omit workspace_id", kind="not-found")
        if not self.workspace.writable:
            raise ReadOnly("creating a brain")
        folder = self.reads.folder
        checkout = checkout_of(folder) if folder is not None else None
        if checkout is None:
            raise ToolFailure(
                "this server does not run in a git checkout: a brain here is the project of"
                " a git repository",
                "start the session in the repository (`git init` makes one), or keep this"
                " work in the shared memory (save_memory with scope 'shared')",
                kind="no-checkout",
            )
        label = _name(name) or os.path.basename(checkout.toplevel) or checkout.toplevel
        made = _connect(self.workspace.home, checkout, label)
        project = made.registry.projects[made.project_id]
        serving = project.id == self.workspace.project_id and "project" in self.workspace.scopes
        answer = {
            "agent_brain_id": project.id,
            "id": project.id,
            "name": project.name,
            "created": made.action in CREATED,
            "action": made.action,
            "serving": serving,
        }
        if not serving:
            answer["note"] = (
                "this memory server started before the project was connected and still"
                " serves the shared memory: the project's memory is served from the next"
                " session (or once the host restarts this server)"
            )
        elif name and name.strip() != project.name:
            answer["note"] = f"this repository's brain is the project {project.name!r}"
        return answer


def _name(name: str | None) -> str | None:
    """A usable display name, or None for none given."""
    if name is None or not name.strip():
        return None
    if len(name) > MAX_NAME or not name.isprintable():
        raise ToolFailure(
            f"name {name[:60]!r} is not a usable name",
            f"give one line of 1-{MAX_NAME} printable characters",
        )
    return name.strip()


def _connect(home: Path, checkout: Any, label: str) -> P.Connected:
    """Resolve `checkout` to its project or register it, under memhub's operation lock (as
    `memhub project connect` does); a disconnected project stays a person's to reconnect."""
    from memhub.hubspec.errors import MemhubError

    try:
        return _connect_locked(home, checkout, label)
    except MemhubError as exc:  # the lock held too long by another memhub command
        raise ToolFailure(str(exc), "try again once it has finished", kind="busy") from None
    except OSError as exc:  # a read-only or full MEMHUB_HOME
        where = exc.filename or layout.projects_file(layout.memory_root(home))
        raise ToolFailure(
            f"{where}: cannot write the project registry ({exc.strerror or exc})",
            "make MEMHUB_HOME writable (or free space), then call create_agent_brain again",
            kind="environment",
        ) from None


def _connect_locked(home: Path, checkout: Any, label: str) -> P.Connected:
    from memhub.compiler.safewrite.lock import operation_lock

    path = layout.projects_file(layout.memory_root(home))
    with operation_lock(home):
        try:
            before = P.load_registry(path)
        except P.RegistryError as exc:
            raise ToolFailure(str(exc), "fix or remove projects.json") from None
        owner = P.project_for_common_dir(before, checkout.common_dir)
        if owner is not None and owner.state == P.DISCONNECTED:
            raise ToolFailure(
                f"this repository's project {owner.id} ({owner.name}) is disconnected",
                f"ask the user to reconnect it: `memhub project connect {checkout.toplevel}`",
                kind="disconnected",
            )
        made = P.connect(before, checkout, label)
        if made.registry != before:
            P.from_json(P.to_json(made.registry), str(path))  # one that reads back
            P.save_registry(path, made.registry)
    return made
