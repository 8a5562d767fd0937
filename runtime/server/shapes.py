"""The JSON the MCP tools answer with: records, search hits, brains, errors (pure functions).

Shapes follow the MemHub server's tools (`items`, `agent_brains`, `orgs`, `overview`) so its
skills and memhub's remote backend read memhub's own server unchanged; memhub's own fields
(revision, scope, status) ride along under their own names.
"""

from __future__ import annotations

from typing import Any

from ..memory.errors import DuplicateRecord, MemoryServiceError, NotFound, StaleRevision
from ..memory.records import Record, RecordError, source_fields, trigger_fields
from ..memory.service import Entry, Found
from ..memory.workspace import Workspace
from .provenance import marks, of_record

LOCAL_ORG = {"org_id": "local", "name": "local", "is_default": True}
SHARED_BRAIN = "shared"  # the brain id of a workspace with no project (shared memory only)


class ToolFailure(Exception):
    """A tool call refused: `message` (what), `fix` (what to do), `kind` (a short slug)."""

    def __init__(self, message: str, fix: str = "", *, kind: str = "invalid") -> None:
        super().__init__(f"{message}: {fix}" if fix else message)
        self.message, self.fix, self.kind = message, fix, kind


def brain_id(workspace: Workspace) -> str:
    """The one brain this server serves: its project, or the shared memory."""
    return workspace.project_id or SHARED_BRAIN


def brain(workspace: Workspace) -> dict[str, Any]:
    name = workspace.project_name if workspace.project_id else "shared memory"
    return {"agent_brain_id": brain_id(workspace), "id": brain_id(workspace), "name": name}


def triggers_json(record: Record) -> dict[str, list[str]]:
    return trigger_fields(record.triggers)


def record_summary(entry: Entry) -> dict[str, Any]:
    """A record without its body: what `list_memory` answers per record."""
    r = entry.record
    return {
        "id": r.id,
        # before the text: hosts hand the model this JSON itself (provenance.py)
        **of_record(r),
        "title": r.title,
        "kind": r.kind,
        "scope": r.scope,
        "status": r.status,
        "tags": list(r.tags),
        "name": r.name,
        "created": r.created,
        "updated": r.updated,
        "revision": entry.revision,
    }


def record_json(entry: Entry) -> dict[str, Any]:
    """A whole record: its summary, body, source, triggers and supersession links."""
    r = entry.record
    return {
        **record_summary(entry),
        "content": r.body,
        "source": source_fields(r.source),
        "triggers": triggers_json(r),
        "supersedes": r.supersedes,
        "superseded_by": r.superseded_by,
    }


def hit_json(found: Found, content: str) -> dict[str, Any]:
    """One `search_memory` item (MemHub's `content` first, then memhub's own fields)."""
    return {
        "id": found.id,
        **marks(None, found.kind, None),  # tools.py reads the record's own, in this place
        "content": content,
        "title": found.title,
        "kind": found.kind,
        "memory_type": found.kind,
        "source": found.source,
        "score": found.score,
        "scope": found.scope,
        "snippet": found.snippet,
        "tags": list(found.tags),
        "updated": found.updated,
        "revision": found.revision,
        **({"host": found.host} if found.host else {}),
    }


def error_json(exc: BaseException) -> dict[str, Any]:
    """The structured part of a tool error: {"error": {kind, message, fix, ...}}."""
    if isinstance(exc, ToolFailure):
        detail: dict[str, Any] = {"kind": exc.kind, "message": exc.message, "fix": exc.fix}
    elif isinstance(exc, MemoryServiceError):
        kind = "invalid" if type(exc) is MemoryServiceError else _slug(type(exc).__name__)
        detail = {"kind": kind, "message": exc.message, "fix": exc.fix}
        if isinstance(exc, StaleRevision):
            detail.update(
                record_id=exc.record_id,
                expected_revision=exc.expected,
                current_revision=exc.current,
            )
            detail["fix"] = "get_memory it again and redo the change with its current revision"
        elif isinstance(exc, NotFound):
            detail["fix"] = "list_memory and search_memory show the records you can see"
        elif isinstance(exc, DuplicateRecord):
            detail.update(record_id=exc.existing_id)
            detail["fix"] = "update_memory that record instead (get_memory shows it)"
    elif isinstance(exc, RecordError):
        detail = {"kind": "invalid", "message": exc.message, "fix": exc.fix}
    else:
        detail = {"kind": "invalid", "message": str(exc), "fix": ""}
    return {"error": detail}


def error_text(payload: dict[str, Any]) -> str:
    detail = payload["error"]
    return f"{detail['message']}: {detail['fix']}" if detail.get("fix") else detail["message"]


def _slug(name: str) -> str:
    out = "".join(f"-{c.lower()}" if c.isupper() else c for c in name)
    return out.lstrip("-")


# --- artifacts (artifacts.py) and brains (brains.py) ----------------------------------------

RATIONALE = "\n\n## Rationale\n\n"  # what save_artifact puts before a version's rationale
TYPE_TAG = "type:"  # save_artifact's tag for the artifact_type


def artifact_type(record: Record) -> str | None:
    """The artifact_type save_artifact recorded as a `type:` tag, if any."""
    return next((t[len(TYPE_TAG) :] for t in record.tags if t.startswith(TYPE_TAG)), None)


def rationale(record: Record) -> str | None:
    """The rationale save_artifact appended to a version's body, if any."""
    _, found, text = record.body.rpartition(RATIONALE)
    return (text.strip() or None) if found else None


def version_json(entry: Entry, number: int, parent: str | None) -> dict[str, Any]:
    """One version of an artifact, without its body (`get_artifact_lineage` lists these)."""
    r = entry.record
    return {
        "id": r.id,
        "artifact_id": r.id,
        **of_record(r),
        "version": number,
        "name": r.name,
        "title": r.title,
        "artifact_type": artifact_type(r),
        "status": r.status,
        "tags": list(r.tags),
        "created": r.created,
        "updated": r.updated,
        "parent_id": parent,
        "superseded_by": r.superseded_by,
        "rationale": rationale(r),
        "revision": entry.revision,
    }


def artifact_json(entry: Entry, versions: list[Entry]) -> dict[str, Any]:
    """One artifact version with its body, placed in its lineage (`get_artifact`)."""
    ids = [v.record.id for v in versions]
    at = ids.index(entry.record.id)
    return {
        **version_json(entry, at + 1, ids[at - 1] if at else None),
        "content": entry.record.body,
        "scope": entry.record.scope,
        "version_count": len(ids),
        "latest_id": ids[-1],
        "is_latest": at == len(ids) - 1,
        "source": source_fields(entry.record.source),
    }


TEAM_SERVER_MESSAGE = (
    "sharing needs a team server: this memory server serves the local memory of one"
    " machine, where there are no teammates and nothing can be shared"
)
TEAM_SERVER_FIX = (
    "keep the work in this project's memory (save_artifact, save_memory). To share, the team"
    " runs a MemHub-compatible server: add it to the hub under `mcp: servers:` (url,"
    " transport: http) and point capture (MEMHUB_BACKEND=remote, MEMHUB_REMOTE_URL, memhub"
    " login) and recall (`memory: recall: remote:`) at it; its own share_agent_brain and"
    " list_teammates then do this. Retrying here, or creating another brain, will not help"
)


def team_server() -> dict[str, Any]:
    """What a team-only tool says: none is configured here, and how to configure one."""
    return {"configured": False, "message": TEAM_SERVER_MESSAGE, "fix": TEAM_SERVER_FIX}
