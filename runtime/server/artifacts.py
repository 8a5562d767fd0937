"""The artifact tools of memhub's MCP server: get_artifact, get_artifact_lineage,
diff_artifact_versions and list_tags (read tools, served with or without `--write`).

An artifact is a versioned record: each save_artifact of the same name makes a new record
that supersedes the last one, so the supersession chain (`supersedes` back to the first
version, `superseded_by` on to the latest) is its lineage. Every version is read through
ReadTools.entry, so an id outside the server's workspace, or one that is no valid record id
(`../x`), reads exactly like an id nobody made.
"""

from __future__ import annotations

import difflib
from typing import Any

from ..memory.errors import NotFound
from ..memory.service import Entry, MemoryService
from . import shapes
from .shapes import ToolFailure
from .tools import ReadTools

ARTIFACT = "artifact"
MAX_VERSIONS = 1000  # a lineage longer than this is cut (a hand-edited loop cannot spin)
MAX_DIFF_LINES = 50_000  # per version: past this no line diff is computed
MAX_DIFF_CHARS = 1_000_000  # a longer diff is cut, and says so
MAX_TAGS = 1000
FIELDS = ("title", "tags", "artifact_type", "status", "rationale")  # compared by a diff


class ArtifactTools:
    """get_artifact, get_artifact_lineage, diff_artifact_versions and list_tags."""

    def __init__(self, service: MemoryService, reads: ReadTools) -> None:
        self.service = service
        self.reads = reads

    # --- versions ---------------------------------------------------------------------------

    def artifact(self, artifact_id: str) -> Entry:
        """The artifact version `artifact_id` names (NotFound outside the workspace)."""
        entry = self.reads.entry(artifact_id)
        if entry.record.kind != ARTIFACT:
            raise ToolFailure(
                f"record {entry.record.id} is a {entry.record.kind}, not an artifact",
                "get_memory reads it; search_memory with memory_type 'artifact' finds artifacts",
                kind="not-an-artifact",
            )
        return entry

    def _version(self, record_id: str | None, seen: set[str]) -> Entry | None:
        """The linked version `record_id`, or None where the chain ends (no link, a version
        gone or out of reach, not an artifact, or one seen already)."""
        if not record_id or record_id in seen or len(seen) >= MAX_VERSIONS:
            return None
        try:
            entry = self.reads.entry(record_id)
        except NotFound:
            return None
        if entry.record.kind != ARTIFACT:
            return None
        seen.add(record_id)
        return entry

    def lineage(self, entry: Entry) -> list[Entry]:
        """Every version of `entry`'s artifact, the first one first."""
        seen = {entry.record.id}
        older: list[Entry] = []
        current: Entry | None = entry
        while current is not None:
            current = self._version(current.record.supersedes, seen)
            if current is not None:
                older.append(current)
        newer: list[Entry] = []
        current = entry
        while current is not None:
            current = self._version(current.record.superseded_by, seen)
            if current is not None:
                newer.append(current)
        return [*reversed(older), entry, *newer]

    def _named(self, name: str) -> Entry:
        """The latest version of the artifact saved under `name`."""
        stable = " ".join(str(name).split())
        for entry in self.service.list(kinds=(ARTIFACT,)):
            if entry.record.name == stable:
                return entry
        raise ToolFailure(
            f"no artifact is named {stable[:80]!r}",
            "search_memory with memory_type 'artifact' finds artifacts by their words",
            kind="not-found",
        )

    def pick(self, versions: list[Entry], wanted: int | str) -> Entry:
        """The version `wanted` names: its number (1 is the first) or its id."""
        text = str(wanted).strip()
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= len(versions):
                raise ToolFailure(
                    f"version {number} does not exist",
                    f"this artifact has {len(versions)} versions",
                )
            return versions[number - 1]
        for entry in versions:
            if entry.record.id == text:
                return entry
        self.artifact(text)  # NotFound (or not an artifact) for an id outside the workspace
        raise ToolFailure(
            f"record {text} is not a version of this artifact",
            "get_artifact_lineage lists its versions",
        )

    # --- tools ------------------------------------------------------------------------------

    def get_artifact(
        self,
        artifact_id: str | None = None,
        name: str | None = None,
        agent_brain_id: str | None = None,
        org_id: str | None = None,
    ) -> dict[str, Any]:
        """One version of an artifact with its content: the version `artifact_id` names (any
        version), or the latest version of the artifact called `name`. The answer places it
        in its lineage: version number, version_count, latest_id, is_latest."""
        self.reads.check_brain(agent_brain_id, org_id)
        if artifact_id:
            entry = self.artifact(artifact_id)
        elif name:
            entry = self._named(name)
        else:
            raise ToolFailure("neither artifact_id nor name was given", "give one of them")
        return shapes.artifact_json(entry, self.lineage(entry))

    def get_artifact_lineage(
        self,
        artifact_id: str,
        agent_brain_id: str | None = None,
        org_id: str | None = None,
    ) -> dict[str, Any]:
        """Every version of the artifact `artifact_id` belongs to (any of its versions), the
        first one first, each with its rationale; get_artifact reads a version's content."""
        self.reads.check_brain(agent_brain_id, org_id)
        versions = self.lineage(self.artifact(artifact_id))
        items = [
            shapes.version_json(v, n, versions[n - 2].record.id if n > 1 else None)
            for n, v in enumerate(versions, start=1)
        ]
        return {
            "artifact_id": artifact_id,
            "name": versions[-1].record.name,
            "versions": items,
            "count": len(items),
            "root_id": items[0]["id"],
            "latest_id": items[-1]["id"],
        }

    def diff_artifact_versions(
        self,
        artifact_id: str,
        from_version: int | str | None = None,
        to_version: int | str | None = None,
        agent_brain_id: str | None = None,
        org_id: str | None = None,
    ) -> dict[str, Any]:
        """A unified diff of two versions' content, and the fields that changed (title, tags,
        artifact_type, status, rationale). Versions are numbers (1 is the first) or version
        ids of the artifact `artifact_id` belongs to; by default `to_version` is the latest
        and `from_version` the one before it."""
        self.reads.check_brain(agent_brain_id, org_id)
        versions = self.lineage(self.artifact(artifact_id))
        to = self.pick(versions, to_version) if to_version not in (None, "") else versions[-1]
        at = versions.index(to)
        if from_version not in (None, ""):
            old: Entry | None = self.pick(versions, from_version)
        else:
            old = versions[at - 1] if at else None  # the first version: a diff from nothing
        return _diff(versions, old, to)

    def list_tags(
        self,
        scope: str | None = None,
        agent_brain_id: str | None = None,
        org_id: str | None = None,
    ) -> dict[str, Any]:
        """The tags of this memory's records (active and proposed) with how many records
        carry each, most used first: the tags search_memory's `tag` filter accepts."""
        self.reads.check_brain(agent_brain_id, org_id)
        counted = self.service.tags(scope=self.reads.scope(scope))
        tags = [{"tag": tag, "count": n} for tag, n in counted[:MAX_TAGS]]
        return {"tags": tags, "count": len(tags), "truncated": len(counted) > MAX_TAGS}


def _diff(versions: list[Entry], old: Entry | None, new: Entry) -> dict[str, Any]:
    """The diff answer between `old` (None: nothing) and `new`."""
    number = {v.record.id: n for n, v in enumerate(versions, start=1)}
    before = shapes.version_json(old, number[old.record.id], None) if old is not None else {}
    after = shapes.version_json(new, number[new.record.id], None)
    a = old.record.body.splitlines(keepends=True) if old is not None else []
    b = new.record.body.splitlines(keepends=True)
    truncated = max(len(a), len(b)) > MAX_DIFF_LINES
    lines: list[str] = []
    if not truncated:
        label = new.record.name or new.record.title
        older, newer = (
            f"{label} v{side['version']} ({side['id']})" if side else "/dev/null"
            for side in (before, after)
        )
        diffed = difflib.unified_diff(a, b, fromfile=older, tofile=newer)
        lines = [line if line.endswith("\n") else line + "\n" for line in diffed]
    body = lines[2:]  # after the two file header lines
    text = "".join(lines)
    if len(text) > MAX_DIFF_CHARS:
        text, truncated = text[:MAX_DIFF_CHARS], True
    changed = {
        key: {"from": before.get(key), "to": after[key]}
        for key in FIELDS
        if before.get(key) != after[key]
    }
    return {
        "artifact_id": new.record.id,
        "name": new.record.name,
        # the diff is as reviewed as its least reviewed side
        "written_by": after["written_by"],
        "reviewed": after["reviewed"] and before.get("reviewed", True),
        "from": _side(before),
        "to": _side(after),
        "diff": text,
        "changed_fields": changed,
        "identical": old is not None and old.record.body == new.record.body and not changed,
        "added_lines": sum(1 for line in body if line.startswith("+")),
        "removed_lines": sum(1 for line in body if line.startswith("-")),
        "truncated": truncated,
    }


def _side(version: dict[str, Any]) -> dict[str, Any] | None:
    """One end of a diff: which version it is."""
    if not version:
        return None
    return {
        key: version[key]
        for key in ("id", "version", "title", "updated", "revision", "written_by", "reviewed")
    }
