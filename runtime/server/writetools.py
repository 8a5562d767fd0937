"""The write tools of memhub's MCP server (served only with `--write`).

An agent's call is its own confirmation: each tool plans the change and applies it at once
through MemoryService.apply (the operation lock, revision checks, originals kept). What an
agent saves carries source kind `agent`, so a lesson or procedure it saves lands `proposed`
and steers nothing until a person accepts it. Updates and deletes name the revision they
read: a record changed since is refused (StaleRevision), never overwritten.

import_conversation is a write too: it files a conversation in the capture store under the
server's own project, whatever working folder its messages name, and under an id of that
project's own (`mcp:<project>:<conversation id>`), so no call can reach, rename or refile
another project's session or one the hooks captured.
"""

from __future__ import annotations

from typing import Any

from ..capture.settings import HOSTS as CAPTURE_HOSTS
from ..memory.errors import DuplicateRecord, NoProject
from ..memory.plans import Draft, MemoryPlan
from ..memory.records import DIRECTIVES, KINDS, Record, Source, Triggers
from ..memory.service import Entry, MemoryService
from .provenance import of_record
from .shapes import ToolFailure
from .tools import ReadTools

TRIGGER_KEYS = ("paths", "commands", "identifiers", "errors")
ARTIFACT = "artifact"
MAX_CONVERSATION_ID = 200
MAX_SESSION_TITLE = 1000
CAPTURED = "mcp"  # the capture store's `source` of a conversation this server was sent


class WriteTools:
    """save_memory, update_memory, delete_memory, save_artifact and import_conversation over
    one service."""

    def __init__(self, service: MemoryService, reads: ReadTools) -> None:
        self.service = service
        self.workspace = service.workspace
        self.reads = reads

    def _scope(self, scope: str | None) -> str:
        """The scope a new record goes to: the project unless 'shared' is asked for."""
        chosen = self.reads.scope(scope)
        if chosen is not None:
            return chosen
        if self.workspace.project_id is None:
            raise NoProject(self.workspace.message)
        if "project" not in self.workspace.scopes:
            raise ToolFailure(
                "this server serves the shared memory only", "pass scope 'shared' to save there"
            )
        return "project"

    def _apply(self, plan: MemoryPlan) -> str:
        """Apply `plan`; the id of the record it wrote."""
        self.service.apply(plan)
        written = [c for c in plan.changes if c.action != "skip"]
        return (written or plan.changes)[0].record_id

    def _saved(self, record_id: str, **extra: Any) -> dict[str, Any]:
        entry = self.reads.entry(record_id)
        record = entry.record
        return {
            "id": record.id,
            **of_record(record),
            "revision": entry.revision,
            "status": record.status,
            "scope": record.scope,
            "kind": record.kind,
            "title": record.title,
            **extra,
        }

    def _active_artifact(self, name: str) -> Entry | None:
        """The active version of the artifact called `name`, if any."""
        for entry in self.service.list(kinds=(ARTIFACT,), include_proposed=False):
            if entry.record.name == name:
                return entry
        return None

    def save_memory(
        self,
        kind: str,
        title: str,
        content: str,
        tags: list[str] | None = None,
        triggers: dict[str, list[str]] | None = None,
        scope: str | None = None,
    ) -> dict[str, Any]:
        """Save one fact, preference, decision, lesson or procedure in this project's memory
        (scope 'shared' only when asked for and served). Lessons and procedures you save
        land 'proposed' until a person accepts them; triggers (paths, commands,
        identifiers, errors) say when one applies."""
        if kind not in KINDS or kind == ARTIFACT:
            listed = ", ".join(k for k in KINDS if k != ARTIFACT)
            raise ToolFailure(
                f"kind {str(kind)[:40]!r} cannot be saved here",
                f"use one of {listed} (save_artifact saves an artifact)",
            )
        draft = _draft(
            kind=kind,
            title=title,
            body=content,
            tags=tuple(tags or ()),
            triggers=_triggers(triggers),
            scope=self._scope(scope),
        )
        return self._saved(self._apply(self.service.plan_add(draft)))

    def update_memory(
        self,
        id: str,
        revision: str,
        title: str | None = None,
        content: str | None = None,
        tags: list[str] | None = None,
    ) -> dict[str, Any]:
        """Change a record's title, content or tags. `revision` is the one get_memory
        returned: if the record changed since, nothing is written and the error names the
        current revision. An accepted lesson or procedure is a person's to change."""
        record = self.reads.entry(id).record
        _persons_own(record, "change", f"memhub memory edit {record.id}")
        record_id = record.id
        plan = self.service.plan_edit(
            record_id,
            revision=revision,
            title=title,
            body=content,
            tags=tuple(tags) if tags is not None else None,
        )
        return self._saved(self._apply(plan), previous_revision=revision)

    def delete_memory(self, id: str, revision: str) -> dict[str, Any]:
        """Delete a record (its original is kept for `memhub undo`). `revision` is the one
        get_memory returned: a record changed since is not deleted. An accepted lesson or
        procedure is a person's to delete."""
        record = self.reads.entry(id).record  # NotFound for an id this server does not serve
        _persons_own(record, "delete", f"memhub memory rm {record.id}")
        record_id = record.id
        self.service.apply(self.service.plan_remove(record_id, revision=revision))
        return {"id": record_id, "deleted": True, "revision": revision}

    def save_artifact(
        self,
        name: str,
        content: str,
        artifact_type: str | None = None,
        parent_id: str | None = None,
        rationale: str | None = None,
        tags: list[str] | None = None,
        agent_brain_id: str | None = None,
        org_id: str | None = None,
    ) -> dict[str, Any]:
        """Save a named document (a spec, a runbook, a design). Saving the same name again
        makes a new version that supersedes the last one, which is kept."""
        self.reads.check_brain(agent_brain_id, org_id)
        supersedes = self.reads.record_id(parent_id) if parent_id else None
        if supersedes is not None:  # NotFound for an id this server does not serve
            parent = self.reads.entry(supersedes).record
            if parent.kind != ARTIFACT:  # superseding a lesson would switch an accepted rule off
                raise ToolFailure(
                    f"parent_id {parent.id} is a {parent.kind}, not an artifact",
                    "give the id of the artifact's previous version, or none",
                )
        body = content if not rationale else f"{content.rstrip()}\n\n## Rationale\n\n{rationale}\n"
        labels = tuple(tags or ()) + ((f"type:{artifact_type}",) if artifact_type else ())
        stable = _artifact_name(name)
        current = self._active_artifact(stable)
        if current is not None and current.record.body.strip() == body.strip():
            # saved before, word for word: that version stands (a retried call adds nothing)
            return self._saved(current.record.id, artifact_id=current.record.id, unchanged=True)
        draft = _draft(
            kind=ARTIFACT,
            title=name,
            body=body,
            tags=labels,
            triggers=Triggers(),
            scope=self._scope(None),
            name=stable,
            supersedes=supersedes,
        )
        try:
            plan = self.service.plan_add(draft)
        except DuplicateRecord as same:
            return self._saved(same.existing_id, artifact_id=same.existing_id, unchanged=True)
        record_id = self._apply(plan)
        return self._saved(record_id, artifact_id=record_id, name=name, unchanged=False)

    def import_conversation(
        self,
        messages: list[dict[str, Any]],
        conversation_id: str,
        source_platform: str | None = None,
        flush: str | None = None,
        title: str | None = None,
        namespace: str | None = None,
        agent_brain_id: str | None = None,
        org_id: str | None = None,
    ) -> dict[str, Any]:
        """Store a captured conversation's records in the local capture store (memhub's
        capture backend contract), filed under this server's project whatever folder the
        records name; the ack's `ack_through` names the last record stored."""
        del namespace  # the server's project decides where it is filed, never the caller
        self.reads.check_brain(agent_brain_id, org_id)
        if source_platform not in (None, *CAPTURE_HOSTS):
            raise ToolFailure(
                f"source_platform {str(source_platform)[:40]!r} is unknown",
                f"use one of {', '.join(CAPTURE_HOSTS)}",
            )
        given = _text_arg("conversation_id", conversation_id, MAX_CONVERSATION_ID, line=True)
        title = _text_arg("title", title, MAX_SESSION_TITLE) if title else None
        ws = self.workspace
        if ws.project_id is None or "project" not in ws.scopes or self.reads.folder is None:
            raise ToolFailure(
                "this server files conversations under no project",
                "serve a connected project's folder with the project scope",
                kind="no-project",
            )
        header = {
            "conversation_id": f"{CAPTURED}:{ws.project_id}:{given}",
            "host": source_platform,
            "title": title,
            "flush": flush,
            "cwd": str(self.reads.folder),  # the server's folder: it resolves to its project
            "source": CAPTURED,
        }
        ack = self.reads.capture(header, messages)
        # the ack names the conversation as the caller did (capture clients check it)
        return {
            **ack,
            "conversation_id": given,
            "stored_as": header["conversation_id"],
            "messages_received": len(messages),
            "pending": 0,
        }


def _persons_own(record: Record, verb: str, command: str) -> None:
    """Refuse an agent's change or delete of an accepted lesson or procedure: it steers later
    sessions, so an agent's text must not replace it, nor its call remove it, without a person
    (it proposes a new one instead, which waits for a person to accept it)."""
    if record.kind in DIRECTIVES and record.status == "active":
        raise ToolFailure(
            f"record {record.id} is an accepted {record.kind}: an agent cannot {verb} it",
            "save_memory the corrected one (it waits for a person to accept it), or ask"
            f" the user to run `{command}`",
            kind="needs-review",
        )


def _draft(**fields: Any) -> Draft:
    """A draft of the agent's (validated when planned: a RecordError is a tool error)."""
    fields["tags"] = tuple(dict.fromkeys(fields["tags"]))  # a tag given twice counts once
    return Draft(source=Source(kind="agent"), **fields)


def _triggers(value: dict[str, list[str]] | None) -> Triggers:
    if not value:
        return Triggers()
    unknown = sorted(set(value) - set(TRIGGER_KEYS))
    if unknown:
        raise ToolFailure(
            f"trigger key {unknown[0][:40]!r} is unknown", f"use {', '.join(TRIGGER_KEYS)}"
        )
    return Triggers(**{key: tuple(value.get(key) or ()) for key in TRIGGER_KEYS})


def _artifact_name(name: str) -> str:
    """The stable name an artifact is versioned by: its name as given, trimmed."""
    return " ".join(name.split())


def _text_arg(name: str, value: Any, limit: int, *, line: bool = False) -> str:
    """A non-empty string argument of at most `limit` characters that a UTF-8 store can hold
    (and, if `line`, no control character): anything else is refused, never stored."""
    if not isinstance(value, str) or not value.strip():
        raise ToolFailure(f"{name} is empty", f"give {name} as text")
    if len(value) > limit:
        raise ToolFailure(f"{name} is longer than {limit} characters", f"shorten {name}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolFailure(f"{name} is not valid Unicode", f"send {name} as UTF-8") from None
    if line and any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):
        raise ToolFailure(
            f"{name} holds a control character", f"send {name} without control characters"
        )
    return value
