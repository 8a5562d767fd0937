"""Mutation planning: what an add, edit, remove, accept or import would write, checked first.

Every plan is computed from the files as they are (the index refreshed just before, each
target re-read from disk), checks the caller's revision, and records the revision each change
expects, so `apply` can refuse anything that changed in between. Duplicate detection:

- the same `records.content_hash` (normalised title and body) as an active record of the
  target scope, or
- near-identical: the same normalised title (case, accents, punctuation and spacing aside)
  and body word sets with a Jaccard similarity of at least NEAR (0.9), found through the index.

Plans are pure data; nothing here writes. Stdlib at import (rendering a record is stdlib;
reading one parses YAML).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import catalog, layout
from .errors import (
    BodyTooLarge,
    DuplicateRecord,
    MemoryServiceError,
    NoProject,
    NotFound,
    ReadOnly,
    StaleRevision,
)
from .frontmatter import RecordError
from .index import MemoryIndex
from .planderived import derived_changes
from .plans import Candidate, Draft, MemoryChange, MemoryPlan
from .recordfile import MAX_RECORD_BYTES, read_record_file
from .records import (
    DIRECTIVES,
    MAX_BODY_BYTES,
    Record,
    Triggers,
    content_hash,
    new_record_id,
    now_timestamp,
    proposed_status,
    render_record,
    revision,
)
from .workspace import Workspace

__all__ = ["NEAR", "Planner", "check_body", "near_identical"]

NEAR = 0.9
_WORD = re.compile(r"\w+")
Pair = tuple[str, str | None]
Staged = tuple[MemoryChange, Record | None]


def _words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def near_identical(title_a: str, body_a: str, title_b: str, body_b: str) -> bool:
    """The same normalised title, and body word sets with Jaccard similarity >= NEAR."""
    if _words(title_a) != _words(title_b):
        return False
    a, b = set(_words(body_a)), set(_words(body_b))
    if not a and not b:
        return True
    return len(a & b) / len(a | b) >= NEAR


def check_body(body: object) -> None:
    """Refuse a body over MAX_BODY_BYTES of UTF-8 (BodyTooLarge: its size, the limit, a fix)."""
    if isinstance(body, str) and len(body) > MAX_BODY_BYTES // 4:  # under it whatever it holds
        size = len(body.encode("utf-8", "surrogatepass"))
        if size > MAX_BODY_BYTES:
            raise BodyTooLarge(size, MAX_BODY_BYTES)


def _invalid(error: RecordError) -> MemoryServiceError:
    return MemoryServiceError(error.message, error.fix)


class Planner:
    """Plans for one workspace over its (just refreshed) index."""

    def __init__(self, workspace: Workspace, index: MemoryIndex) -> None:
        self.ws = workspace
        self.index = index
        self.db = index.db

    # -- where --

    def _writable(self, what: str) -> None:
        if not self.ws.writable:
            raise ReadOnly(what)

    def target_of(self, scope: str) -> Pair:
        """The (scope, project) a new record of `scope` goes to, if the caller may write it."""
        if scope == "project":
            if self.ws.project_id is None:
                raise NoProject(self.ws.message)
            pair: Pair = ("project", self.ws.project_id)
        elif scope == "shared":
            pair = ("shared", None)
        else:
            raise MemoryServiceError(f"scope {scope!r} is unknown", "use 'project' or 'shared'")
        if pair not in self.ws.allowed():
            raise MemoryServiceError(
                f"this memory was opened without the {scope} scope", f"open it with {scope}"
            )
        return pair

    def _path(self, pair: Pair, record_id: str) -> Path:
        return layout.record_path(self.ws.root, pair[0], pair[1], record_id)

    def current(self, record_id: str) -> tuple[Record, Path, str]:
        """A record as it is on disk now (record, file, revision); NotFound outside the grants."""
        try:
            layout.check_name(record_id)
        except layout.UnsafeName:
            raise NotFound(str(record_id)) from None
        found = catalog.select(
            self.db,
            self.ws.allowed(),
            record_id=record_id,
            statuses=("active", "proposed", "superseded"),
            limit=1,
        )
        if not found:
            raise NotFound(record_id)
        stored = found[0].record
        path = Path(found[0].path)
        try:
            data, record = read_record_file(path, stored.scope, stored.project)
        except FileNotFoundError:
            raise NotFound(record_id) from None
        except RecordError as error:
            raise _invalid(error) from None
        return record, path, revision(data)

    @staticmethod
    def _check(record_id: str, expected: str | None, current: str) -> None:
        if expected is not None and expected != current:
            raise StaleRevision(record_id, expected, current)

    # -- duplicates --

    def duplicate_of(self, record: Record, pair: Pair) -> tuple[str, str] | None:
        """An active record of `pair` saying what `record` says: (its id, how), or None."""
        row = self.db.execute(
            "SELECT d.id FROM scan_files f JOIN docs d ON d.path = f.path"
            " WHERE f.content = ? AND d.source = 'record' AND d.status = 'active'"
            " AND d.scope = ? AND d.project = ? AND d.id != ? LIMIT 1",
            (content_hash(record), pair[0], pair[1] or "", record.id),
        ).fetchone()
        if row is not None:
            return str(row[0]), "the same title and body"
        for hit in self.index.search(record.title, [pair], include_proposed=False, limit=50):
            doc = hit.doc
            if doc.id != record.id and near_identical(
                record.title, record.body, doc.title, doc.body
            ):
                return doc.id, "a near-identical title and body"
        return None

    # -- changes --

    @staticmethod
    def _bytes(record: Record) -> bytes:
        """The record's file, refused when it would be too large to read back."""
        data = render_record(record)
        if len(data) > MAX_RECORD_BYTES:
            raise MemoryServiceError(
                f"the record would be {len(data)} bytes, over {MAX_RECORD_BYTES}",
                "shorten the body, or split it into several records",
            )
        return data

    def create_change(self, record: Record, summary: str) -> Staged:
        path = self._path((record.scope, record.project), record.id)
        change = MemoryChange(
            "create", record.id, record.scope, record.project, path, None,
            self._bytes(record), summary,
        )  # fmt: skip
        return change, record

    def _update(self, record: Record, path: Path, before: str, summary: str) -> Staged:
        change = MemoryChange(
            "update", record.id, record.scope, record.project, path, before,
            self._bytes(record), summary,
        )  # fmt: skip
        return change, record

    def _finish(self, staged: Sequence[Staged], notes: Sequence[str] = ()) -> MemoryPlan:
        derived, more = derived_changes(self.ws, self.db, staged)
        return MemoryPlan(tuple(c for c, _ in staged), (*notes, *more), derived)

    def _supersede(self, old_id: str, new_id: str, pair: Pair, now: str) -> Staged:
        """The older record marked superseded by the newer one."""
        old, path, rev = self.current(old_id)
        if (old.scope, old.project) != pair:
            raise MemoryServiceError(
                f"record {old_id} is in another scope than the new record",
                "supersede a record of the same scope",
            )
        if old.status == "superseded":
            raise MemoryServiceError(
                f"record {old_id} is superseded already (by {old.superseded_by})",
                f"supersede {old.superseded_by} instead",
            )
        marked = replace(
            old, status="superseded", superseded_by=new_id, updated=max(now, old.updated)
        )
        return self._update(marked, path, rev, f"superseded by {new_id}")

    def _named_artifact(self, name: str, pair: Pair) -> str | None:
        """The active artifact of `pair` saved under `name`, or None."""
        row = self.db.execute(
            "SELECT d.id FROM scan_files f JOIN docs d ON d.path = f.path"
            " WHERE d.source = 'record' AND d.kind = 'artifact' AND d.status = 'active'"
            " AND d.scope = ? AND d.project = ? AND json_extract(f.fields, '$.name') = ?"
            " ORDER BY d.updated DESC LIMIT 1",
            (pair[0], pair[1] or "", name),
        ).fetchone()
        return str(row[0]) if row else None

    def new_record(self, draft: Draft, pair: Pair, status: str | None = None) -> Record:
        """The record a draft becomes: a new id, now, its scope, its starting status."""
        now = now_timestamp()
        body = draft.body if not draft.body or draft.body.endswith("\n") else draft.body + "\n"
        try:
            return Record(
                id=new_record_id(), title=draft.title, kind=draft.kind, scope=pair[0],
                project=pair[1], created=now, updated=now, tags=tuple(draft.tags),
                source=draft.source, status=status or proposed_status(draft.kind, draft.source.kind),
                supersedes=draft.supersedes, name=draft.name, triggers=draft.triggers, body=body,
            )  # fmt: skip
        except RecordError as error:
            raise _invalid(error) from None

    def add(self, draft: Draft, *, force: bool = False) -> MemoryPlan:
        """Plan a new record (superseding the one it names, or its artifact name's last)."""
        self._writable("adding a record")
        check_body(draft.body)
        pair = self.target_of(draft.scope)
        if draft.kind == "artifact" and draft.name and draft.supersedes is None:
            last = self._named_artifact(draft.name, pair)
            if last is not None:
                draft = replace(draft, supersedes=last)
        record = self.new_record(draft, pair)
        notes: list[str] = []
        dup = self.duplicate_of(record, pair)
        if dup is not None and dup[0] != draft.supersedes:
            if not force:
                raise DuplicateRecord(*dup)
            notes.append(f"duplicate of {dup[0]} ({dup[1]}), added anyway (--force)")
        summary = f"new {record.kind} ({record.status})"
        if draft.supersedes is not None:
            summary += f", supersedes {draft.supersedes}"
        staged = [self.create_change(record, summary)]
        if draft.supersedes is not None:
            _check_agent_supersedes(draft, self.current(draft.supersedes)[0])
            staged.append(self._supersede(draft.supersedes, record.id, pair, record.created))
        return self._finish(staged, notes)

    def edit(
        self,
        record_id: str,
        *,
        revision: str | None,
        title: str | None = None,
        body: str | None = None,
        tags: Sequence[str] | None = None,
        triggers: Triggers | None = None,
    ) -> MemoryPlan:
        """Plan a change of a record's title, body, tags or triggers."""
        self._writable("editing a record")
        if body is not None:
            check_body(body)
        record, path, current = self.current(record_id)
        self._check(record_id, revision, current)
        changes: dict[str, Any] = {}
        if title is not None:
            changes["title"] = title
        if body is not None:
            changes["body"] = body if not body or body.endswith("\n") else body + "\n"
        if tags is not None:
            changes["tags"] = tuple(tags)
        if triggers is not None:
            changes["triggers"] = triggers
        if all(getattr(record, key) == value for key, value in changes.items()):
            skip = MemoryChange(
                "skip", record.id, record.scope, record.project, path, current, None, "unchanged"
            )
            return MemoryPlan((skip,))
        try:
            edited = replace(record, **changes, updated=max(now_timestamp(), record.updated))
        except RecordError as error:
            raise _invalid(error) from None
        return self._finish([self._update(edited, path, current, f"edit {', '.join(changes)}")])

    def remove(self, record_id: str, *, revision: str | None) -> MemoryPlan:
        """Plan deleting a record's file (the record it superseded becomes active again)."""
        self._writable("removing a record")
        record, path, current = self.current(record_id)
        self._check(record_id, revision, current)
        gone = MemoryChange(
            "delete", record.id, record.scope, record.project, path, current, None,
            f"remove {record.kind} {record.title[:60]!r}",
        )  # fmt: skip
        staged: list[Staged] = [(gone, None)]
        if record.supersedes is not None:
            try:
                older, older_path, older_rev = self.current(record.supersedes)
            except (NotFound, MemoryServiceError):
                older = None
            if older is not None and older.superseded_by == record.id:
                back = replace(older, status="active", superseded_by=None)
                staged.append(self._update(back, older_path, older_rev, "active again"))
        return self._finish(staged)

    def accept(self, record_id: str, *, revision: str | None = None) -> MemoryPlan:
        """Plan making a proposed directive active."""
        self._writable("accepting a record")
        record, path, current = self.current(record_id)
        self._check(record_id, revision, current)
        if record.status != "proposed":
            raise MemoryServiceError(
                f"record {record_id} is {record.status}, not proposed", "nothing to accept"
            )
        accepted = replace(record, status="active", updated=max(now_timestamp(), record.updated))
        return self._finish([self._update(accepted, path, current, "accepted")])

    def import_(self, candidates: Sequence[Candidate], *, force: bool = False) -> MemoryPlan:
        """Plan records for imported sources, bound to them (see `importing`)."""
        from .importing import plan_import

        self._writable("importing")
        staged, notes = plan_import(self, candidates, force=force)
        return self._finish(staged, notes)

    def export(self, record_ids: Sequence[str], dest: Path) -> MemoryPlan:
        """Plan copying records' files into the folder `dest`."""
        from .importing import plan_export

        return plan_export(self, record_ids, dest)


def _check_agent_supersedes(draft: Draft, old: Record) -> None:
    """An agent (or tool output) may not supersede an accepted lesson or procedure: that
    would switch off a rule a person accepted, and put the agent's text in its place."""
    if draft.source.kind in ("agent", "tool-output") and old.kind in DIRECTIVES:
        if old.status != "active":
            return  # a proposed one is nobody's rule yet; a superseded one is refused above
        raise MemoryServiceError(
            f"record {old.id} is an accepted {old.kind}: an agent cannot supersede it",
            f"save a new {old.kind} (it lands proposed) or ask a person to edit {old.id}",
        )
