"""Memory records: one Markdown file each, validated YAML front matter, canonical bytes.

`parse_record` reads a file and never repairs it: any problem is a RecordError naming the
file line. `render_record` writes the canonical text (fixed key order, every string quoted),
and `parse_record(render_record(r)) == r` for every valid record. A `Record` validates itself
on construction, so an invalid one cannot be rendered.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import frontmatter as fm
from . import layout
from .frontmatter import RecordError, Shape, Value
from .kinds import DIRECTIVES, KINDS, SOURCE_KINDS, STATUSES

if TYPE_CHECKING:
    from datetime import datetime

__all__ = ["Record", "RecordError", "Source", "Triggers", "parse_record", "render_record"]

FORMAT = 1  # the value of the `memhub:` marker key
SCOPES = layout.SCOPES
KEYS = (
    *("memhub", "id", "title", "kind", "scope", "project", "created", "updated", "tags"),
    *("source", "status", "supersedes", "superseded_by", "name", "triggers"),
)
REQUIRED = ("memhub", "id", "title", "kind", "scope", "created", "updated", "source", "status")
SOURCE_KEYS = ("kind", "session", "record", "file", "import")
TRIGGER_KEYS = ("paths", "commands", "identifiers", "errors")
MAX_TITLE = 1000
MAX_TEXT = 4096  # a tag, a name, a trigger, a source reference
# What memhub writes as one record's body (add, edit, save_memory, update_memory,
# save_artifact): 256 KiB of UTF-8. A note, a decision or a long spec fits many times over; a
# bigger text is a document, and every search hit, get_memory and session brief would carry
# it (Claude Code cuts an MCP tool result at 25,000 tokens, about 100 KB). Keep it in the
# repository and save its path. Files written by hand are read up to recordfile's limit.
MAX_BODY_BYTES = 256 * 1024
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@dataclass(frozen=True, kw_only=True)
class Source:
    """Where a record came from: its kind, and optionally a session (+ its record), a file or
    an import."""

    kind: str
    session: str | None = None
    record: str | None = None
    file: str | None = None
    imported: str | None = None  # written as `import:`


@dataclass(frozen=True, kw_only=True)
class Triggers:
    """What makes a directive (lesson, procedure) fire."""

    paths: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def empty(self) -> bool:
        """No trigger at all."""
        return not (self.paths or self.commands or self.identifiers or self.errors)


@dataclass(frozen=True, kw_only=True)
class Record:
    """One memory record; its fields are validated on construction (RecordError otherwise)."""

    id: str
    title: str
    kind: str
    scope: str
    project: str | None = None
    created: str
    updated: str
    tags: tuple[str, ...] = ()
    source: Source
    status: str = "active"
    supersedes: str | None = None
    superseded_by: str | None = None
    name: str | None = None
    triggers: Triggers = field(default_factory=Triggers)
    body: str = ""

    def __post_init__(self) -> None:
        _check(self)


class _Bad(RecordError):
    """A field problem, blaming `key`; the parser re-raises it at the key's line."""

    def __init__(self, key: str, message: str, fix: str) -> None:
        super().__init__("<record>", None, f"{key}: {message}", fix)
        self.key, self.message = key, message


def _text(key: str, value: object, limit: int = MAX_TEXT, *, line: bool = False) -> None:
    """A non-blank string of bounded length (and, if `line`, without line breaks)."""
    if not isinstance(value, str):
        raise _Bad(key, f"{key} must be a string", f"quote the value of {key}")
    if not value.strip():
        raise _Bad(key, f"{key} is empty", f"give {key} a value")
    if len(value) > limit:
        raise _Bad(key, f"{key} is longer than {limit} characters", f"shorten {key}")
    if line and len(value.splitlines()) > 1:
        raise _Bad(key, f"{key} spans several lines", f"write {key} on one line")
    _utf8(key, value)


def _utf8(key: str, value: str) -> None:
    """Text a UTF-8 file can hold: no lone surrogate (from undecodable bytes or a JSON
    `\\ud800` escape), which would fail only when the record is written."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _Bad(
            key, f"{key} holds text that is not valid Unicode", f"write {key} in UTF-8"
        ) from None


def _choice(key: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise _Bad(key, f"{key} {value!r} is not one of {', '.join(allowed)}", "use one of them")


def _name(key: str, value: object) -> None:
    try:
        layout.check_name(value, "project id" if key == "project" else "record id")
    except layout.UnsafeName as exc:
        raise _Bad(key, str(exc), f"use a valid {key}") from None


def _texts(key: str, values: object) -> None:
    """A tuple of distinct non-blank strings."""
    if not isinstance(values, tuple):
        raise _Bad(key, f"{key} must be a list", f"write {key} as a list")
    for value in values:
        _text(key, value)
    if len(set(values)) != len(values):
        raise _Bad(key, f"{key} lists a value twice", "remove the repeated value")


def _check(r: Record) -> None:
    """Every field rule; raises _Bad naming the key to blame."""
    _name("id", r.id)
    _text("title", r.title, MAX_TITLE)
    _choice("kind", r.kind, KINDS)
    _choice("scope", r.scope, SCOPES)
    if r.scope == "project":
        if r.project is None:
            raise _Bad("scope", "a project record has no project id", "add 'project: <id>'")
        _name("project", r.project)
    elif r.project is not None:
        raise _Bad("project", "a shared record has a project id", "remove 'project:'")
    for key, stamp in (("created", r.created), ("updated", r.updated)):
        _timestamp(key, stamp)
    if r.updated < r.created:
        raise _Bad("updated", "updated is earlier than created", "correct the timestamps")
    _texts("tags", r.tags)
    _check_source(r.source)
    _choice("status", r.status, STATUSES)
    _check_links(r)
    if (r.name is not None) != (r.kind == "artifact"):
        message = "an artifact needs a name" if r.name is None else "only artifacts have a name"
        raise _Bad("kind" if r.name is None else "name", message, "add or remove 'name:'")
    if r.name is not None:
        _text("name", r.name, line=True)
    _check_triggers(r)
    if not isinstance(r.body, str):
        raise _Bad("body", "body must be a string", "write the body as text")
    _utf8("body", r.body)


def _timestamp(key: str, stamp: object) -> None:
    if not isinstance(stamp, str) or not _TIMESTAMP.fullmatch(stamp):
        raise _Bad(key, f"{key} {stamp!r} is not a UTC time", "write YYYY-MM-DDTHH:MM:SSZ")
    from datetime import datetime  # imported on use: a read of the index needs none of it

    try:
        datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        raise _Bad(key, f"{key} {stamp!r} is not a real time", "correct the date") from None


def _check_source(source: object) -> None:
    if not isinstance(source, Source):
        raise _Bad("source", "source must be a Source", "give the record a source")
    _choice("source", source.kind, SOURCE_KINDS)
    refs = [ref for ref in (source.session, source.file, source.imported) if ref is not None]
    if len(refs) > 1:
        raise _Bad("source", "source names more than one of session, file, import", "keep one")
    if source.record is not None and source.session is None:
        raise _Bad("source", "source names a record but no session", "add 'session:'")
    for ref in (source.session, source.record, source.file, source.imported):
        if ref is not None:
            _text("source", ref, line=True)


def _check_links(r: Record) -> None:
    """supersedes / superseded_by: valid ids, not the record itself, superseded_by iff status."""
    for key, other in (("supersedes", r.supersedes), ("superseded_by", r.superseded_by)):
        if other is not None:
            _name(key, other)
            if other == r.id:
                raise _Bad(key, f"the record names itself in {key}", f"correct {key}")
    if (r.superseded_by is not None) != (r.status == "superseded"):
        raise _Bad(
            "status",
            "status 'superseded' and superseded_by go together",
            "set both or neither",
        )


def _check_triggers(r: Record) -> None:
    if not isinstance(r.triggers, Triggers):
        raise _Bad("triggers", "triggers must be Triggers", "give the record Triggers")
    if r.kind not in DIRECTIVES and not r.triggers.empty():
        raise _Bad("triggers", f"a {r.kind} has no triggers", "only lessons and procedures do")
    for key in TRIGGER_KEYS:
        _texts("triggers", getattr(r.triggers, key))


def parse_record(data: bytes, file: str) -> Record:
    """The record a file holds; RecordError (file, line, what, fix) for any problem."""
    part = fm.split(fm.decode(data, file), file)
    keys = fm.load(part, file)
    for key, value in keys.items():
        if key not in KEYS:
            raise RecordError(file, value.line, f"unknown key {key!r}", "remove it or fix its name")
    for key in REQUIRED:
        if key not in keys:
            raise RecordError(file, 1, f"missing key {key!r}", f"add '{key}:' to the front matter")
    marker = keys["memhub"]
    if type(marker.data) is not int or marker.data != FORMAT:
        raise RecordError(file, marker.line, f"memhub: {marker.data!r} is not a known format",
                          f"write 'memhub: {FORMAT}'")  # fmt: skip
    fields: dict[str, Any] = {"body": part.body}
    try:
        for key in KEYS[1:]:
            if key in keys:
                fields[key] = _field(key, keys[key])
        return Record(**fields)
    except _Bad as bad:
        line = keys[bad.key].line if bad.key in keys else 1
        raise RecordError(file, line, bad.message, bad.fix) from None
    except Shape as bad:
        raise RecordError(file, bad.line, bad.message, bad.fix) from None


def _field(key: str, value: Value) -> Any:
    """One front matter value -> the Record field's type; the Record checks its content."""
    if key == "tags":
        return fm.strings(key, value)
    if key == "source":
        parts = fm.mapping(key, value, SOURCE_KEYS)
        if "kind" not in parts:
            raise Shape(value.line, "source has no kind", "add 'kind:' under source")
        refs = {("imported" if k == "import" else k): fm.string(k, v) for k, v in parts.items()}
        return Source(**refs)
    if key == "triggers":
        parts = fm.mapping(key, value, TRIGGER_KEYS)
        return Triggers(**{k: fm.strings(f"triggers.{k}", v) for k, v in parts.items()})
    if key in ("project", "supersedes", "superseded_by", "name") and value.data is None:
        return None
    return fm.string(key, value)


def is_record_text(data: bytes) -> bool:
    """Whether a Markdown file claims to be a memhub record (`memhub:`, or `id:` and `kind:`
    in its front matter). A file that does not is the user's: readable, never rewritten."""
    return fm.claims_record(data[: fm.MAX_FRONT_MATTER].decode("utf-8", "replace"))


def source_fields(source: Source) -> dict[str, str]:
    """A source as its front matter writes it: `kind`, then the references it has."""
    refs = (
        ("session", source.session),
        ("record", source.record),
        ("file", source.file),
        ("import", source.imported),
    )
    return {"kind": source.kind, **{key: ref for key, ref in refs if ref is not None}}


def trigger_fields(triggers: Triggers) -> dict[str, list[str]]:
    """Every trigger list by its front matter key (empty ones too)."""
    return {key: list(getattr(triggers, key)) for key in TRIGGER_KEYS}


def render_record(record: Record) -> bytes:
    """The canonical bytes of a record: fixed key order, every string quoted, body verbatim."""
    q = fm.quote
    lines = ["---", f"memhub: {FORMAT}", f"id: {q(record.id)}", f"title: {q(record.title)}"]
    lines += [f"kind: {record.kind}", f"scope: {record.scope}"]
    if record.project is not None:
        lines.append(f"project: {q(record.project)}")
    lines += [f"created: {q(record.created)}", f"updated: {q(record.updated)}"]
    lines.append(f"tags: {_flow(record.tags)}")
    lines += ["source:", f"  kind: {record.source.kind}"]
    lines += [f"  {key}: {q(ref)}" for key, ref in list(source_fields(record.source).items())[1:]]
    lines.append(f"status: {record.status}")
    for key, other in (
        ("supersedes", record.supersedes),
        ("superseded_by", record.superseded_by),
        ("name", record.name),
    ):
        if other is not None:
            lines.append(f"{key}: {q(other)}")
    if not record.triggers.empty():
        lines.append("triggers:")
        for key in TRIGGER_KEYS:
            values = getattr(record.triggers, key)
            if values:
                lines.append(f"  {key}: {_flow(values)}")
    lines.append("---")
    return ("\n".join(lines) + "\n" + record.body).encode("utf-8")


def _flow(values: tuple[str, ...]) -> str:
    return "[" + ", ".join(fm.quote(value) for value in values) + "]"


def revision(data: bytes) -> str:
    """The revision of a stored record: the sha256 of its bytes."""
    return hashlib.sha256(data).hexdigest()


def _normal(text: str) -> str:
    """Text as duplicate detection compares it: NFKC, case-folded, whitespace collapsed."""
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def content_hash(record: Record) -> str:
    """The sha256 of the normalised title and body: equal for records that say the same."""
    return hashlib.sha256(f"{_normal(record.title)}\n{_normal(record.body)}".encode()).hexdigest()


def now_timestamp(now: datetime | None = None) -> str:
    """A record timestamp: UTC, to the second, `YYYY-MM-DDTHH:MM:SSZ`."""
    from datetime import UTC, datetime

    return (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_record_id(now: datetime | None = None) -> str:
    """A new record id, sortable by creation time: `r-<yyyymmddhhmmss>-<8 hex>`."""
    import secrets
    from datetime import UTC, datetime

    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%d%H%M%S")
    return f"r-{stamp}-{secrets.token_hex(4)}"


def proposed_status(kind: str, source_kind: str) -> str:
    """A directive written by an agent or taken from tool output starts `proposed` (a person
    accepts it); everything else starts `active`."""
    if kind in DIRECTIVES and source_kind in ("agent", "tool-output"):
        return "proposed"
    return "active"
