"""Cursor: agent-transcript JSONL and the cursor-agent `store.db` SQLite chat store.

Agent transcripts (IDE and CLI) live at
`~/.cursor/projects/<workspace>/agent-transcripts/<id>/<id>.jsonl` (older builds: a flat
`<id>.jsonl`), with subagents under `<id>/subagents/*.jsonl`. Lines are role messages
`{"role", "message": {"content": [...]}}` plus events such as `{"type": "turn_ended"}`; they
carry neither ids nor timestamps, so ids derive from byte offsets and every record has the
file's time (`ts_source` "file"). Plain-text `.txt` transcripts of older builds are not read.

cursor-agent chats live at `~/.cursor/chats/<workspace hash>/<chat id>/store.db`: a `meta`
table whose value is hex-encoded JSON (`agentId`, `name`, `createdAt`,
`latestRootBlobId`, ...) and a content-addressed `blobs(id, data)` table. Blobs are either
JSON messages (`{"role", "content"}`) or protobuf tree nodes whose field-1 entries are the
32-byte ids of their children and whose millisecond-epoch varints are the node's clock. The
reader walks the tree from the latest root (falling back to every JSON blob in table order
when there is no walkable root), opens the database read-only, and gives each message the
blob's id as its record id (with `#<n>` when the same blob occurs again).

Cursor generates no session title in transcripts, so a transcript is named after its first
prompt; a store's own `name` is used when it is not a default placeholder.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .clean import load_json
from .lines import iter_file_records, jsonl_records, load_checked
from .records import Record, Session, is_host_id, stable_id, type_of, usage_of
from .timestamps import file_ts, iso_utc, later, take_ts
from .titles import classify_blocks, prompt_title

HOST = "cursor"
DEFAULT_NAMES = frozenset({"", "new agent", "new chat", "untitled"})
_USER_QUERY = re.compile(r"<user_query>(.*?)</user_query>", re.S)
_CLOCK_MIN, _CLOCK_MAX = 1_500_000_000_000, 4_000_000_000_000


def _home(env: Mapping[str, str] | None) -> Path:
    env = os.environ if env is None else env
    return Path(env.get("HOME") or Path.home()) / ".cursor"


def roots(env: Mapping[str, str] | None = None) -> list[Path]:
    home = _home(env)
    return [home / "projects", home / "chats"]


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    projects, chats = roots(env)
    found: list[Path] = []
    if projects.is_dir():
        for transcripts in sorted(projects.glob("*/agent-transcripts")):
            found.extend(sorted(transcripts.glob("*.jsonl")))
            found.extend(sorted(transcripts.glob("*/*.jsonl")))
            found.extend(sorted(transcripts.glob("*/subagents/*.jsonl")))
    if chats.is_dir():
        found.extend(sorted(chats.glob("*/*/store.db")))
    return found


def is_store(path: Path | str) -> bool:
    return Path(path).suffix == ".db"


def session_id_for(path: Path | str) -> str:
    """A transcript's file stem; a store's `agentId`, else the name of its chat folder."""
    path = Path(path)
    if not is_store(path):
        return path.stem
    try:
        meta, _ = store_messages(path, meta_only=True)
    except sqlite3.Error:
        meta = {}
    agent = meta.get("agentId")
    return agent if is_host_id(agent) else path.parent.name


def subagents(path: Path | str, flat: bool = False) -> list[Path]:
    """The subagent transcripts beside a session's transcript (`<id>/subagents/*.jsonl`);
    `flat` is accepted for the capture interface (Cursor has no older layout)."""
    path = Path(path)
    if is_store(path) or path.parent.name == "subagents":
        return []
    folder = path.parent / "subagents"
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def subagent_of(path: Path | str) -> tuple[str | None, str | None]:
    """(agent id, parent session id) of a subagent transcript, (None, None) otherwise."""
    path = Path(path)
    if path.parent.name != "subagents":
        return None, None
    return session_id_for(path), path.parent.parent.name


def initial_context(path: Path | str) -> dict[str, Any]:
    return {"file_ts": file_ts(path)}


def user_text(text: str | None) -> str | None:
    """What the user typed: inside `<user_query>` when Cursor wrapped it."""
    if not text:
        return text
    found = _USER_QUERY.search(text)
    return found[1].strip() if found else text


def _usage(message: dict[str, Any]) -> dict[str, int] | None:
    raw = message.get("usage") or message.get("tokenCount")
    if not isinstance(raw, dict):
        return None

    def pick(*names: str) -> Any:
        for name in names:
            if name in raw:
                return raw[name]
        return None

    return usage_of(
        input_tokens=pick("inputTokens", "input_tokens", "promptTokens"),
        output_tokens=pick("outputTokens", "output_tokens", "completionTokens"),
        cache_read_input_tokens=pick("cacheReadTokens", "cache_read_input_tokens"),
        cache_creation_input_tokens=pick("cacheWriteTokens", "cache_creation_input_tokens"),
    )


def _message_fields(obj: dict[str, Any]) -> tuple[str, str | None, str | None, Any]:
    """(kind, role, text, model) of a role message (transcript line or store blob)."""
    role = obj.get("role") if isinstance(obj.get("role"), str) else None
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else obj.get("content")
    kind, text = classify_blocks(content)
    if role == "user" and kind == "message":
        text = user_text(text)
    if role == "tool":
        kind = "tool_result"
    model = obj.get("model")
    if not isinstance(model, str):
        options = obj.get("providerOptions")
        cursor = options.get("cursor") if isinstance(options, dict) else None
        model = cursor.get("modelName") if isinstance(cursor, dict) else None
    return kind, role, text, model if isinstance(model, str) else None


def parse_lines(session_id: str, data: bytes, start: int, context: dict[str, Any]) -> list[Record]:
    return jsonl_records(HOST, session_id, data, start, context, _record)


def _record(
    session_id: str, value: dict[str, Any], offset: int, end: int, context: dict[str, Any]
) -> Record:
    ts, ts_source = take_ts(value.get("timestamp"), context)
    role = text = model = sub = None
    usage = None
    if "role" in value:
        kind, role, text, model = _message_fields(value)
        message = value.get("message")
        usage = _usage(message) if isinstance(message, dict) else None
    else:
        kind_of = type_of(value)
        kind = "event" if kind_of == "turn_ended" else (kind_of or "unknown")
        sub = kind_of if kind == "event" else None
    return Record(
        id=stable_id(HOST, session_id, str(offset)),
        session=session_id,
        host=HOST,
        ts=ts,
        ts_source=ts_source,
        kind=kind if isinstance(kind, str) else "unknown",
        role=role,
        text=text,
        usage=usage,
        raw=value,
        end=end,
        id_source="derived",
        subtype=sub,
        model=model,
    )


def read_session(path: Path | str, metadata_only: bool = False) -> tuple[Session, list[Record]]:
    path = Path(path)
    if is_store(path):
        return read_store(path, metadata_only)
    session_id = session_id_for(path)
    session = Session(id=session_id, host=HOST, source=str(path))
    if path.parent.name == "subagents":
        session.parent = path.parent.parent.name
        session.agent_id = session_id
    context = initial_context(path)
    records: list[Record] = []
    for record in iter_file_records(path, session_id, parse_lines, context):
        if not metadata_only:
            records.append(record)
        _observe(session, record)
    # no line carries a time: the file's own time is the session's
    session.started = session.started or context["file_ts"]
    session.updated = session.updated or context["file_ts"]
    return session, records


def _observe(session: Session, record: Record) -> None:
    if record.ts_source == "host":
        session.started = session.started or record.ts
        session.updated = later(session.updated, record.ts)
    if session.model is None and record.model:
        session.model = record.model
    if session.title is None and record.role == "user" and record.kind == "message":
        title = prompt_title(record.text)
        if title:
            session.title, session.title_source = title, "prompt"


# --- store.db ----------------------------------------------------------------------------


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while pos < len(data):
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            break
    raise ValueError("bad varint")


def node_fields(data: bytes) -> tuple[list[str], int | None]:
    """(child blob ids, clock in ms) of a protobuf tree node; ([], None) when it is not one."""
    children: list[str] = []
    clock: int | None = None
    pos = 0
    try:
        while pos < len(data):
            key, pos = _varint(data, pos)
            field_no, wire = key >> 3, key & 7
            if wire == 0:
                value, pos = _varint(data, pos)
                if _CLOCK_MIN <= value <= _CLOCK_MAX:
                    clock = value
            elif wire == 2:
                size, pos = _varint(data, pos)
                if pos + size > len(data):
                    raise ValueError("truncated")
                if field_no == 1 and size == 32:
                    children.append(data[pos : pos + size].hex())
                pos += size
            elif wire == 1:
                pos += 8
            elif wire == 5:
                pos += 4
            else:
                raise ValueError("unsupported wire type")
    except ValueError:
        return children, clock
    return children, clock


def _store_meta(conn: sqlite3.Connection) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for (value,) in conn.execute("SELECT value FROM meta"):
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if not isinstance(value, str):
            continue
        try:
            decoded = load_json(bytes.fromhex(value))[0]
        except (ValueError, RecursionError):
            try:
                decoded = load_json(value)[0]
            except (ValueError, RecursionError):
                continue
        if isinstance(decoded, dict):
            merged.update(decoded)
    return merged


def _leaf(data: bytes) -> tuple[dict[str, Any], bool] | None:
    """(a message blob's message, whether its text was repaired), None for a tree node."""
    if data[:1] != b"{":
        return None
    value, repaired = load_checked(data)
    return (value, repaired) if isinstance(value, dict) and "role" in value else None


def store_messages(
    path: Path | str, meta_only: bool = False
) -> tuple[dict[str, Any], list[tuple[str, dict, int | None, bool]]]:
    """(store meta, [(blob id, message, clock ms, repaired)]) of a store.db, in conversation
    order (`repaired`: the blob's text had to be cleaned, see `clean`).

    The database is opened read-only (a missing file is an error, never created).
    """
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    try:
        meta = _store_meta(conn)
        if meta_only:
            return meta, []
        blobs: dict[str, bytes] = {}
        order: list[str] = []
        for blob_id, data in conn.execute("SELECT id, data FROM blobs ORDER BY rowid"):
            if isinstance(data, str):
                data = data.encode("utf-8")
            if isinstance(blob_id, bytes):
                blob_id = blob_id.hex()
            if isinstance(blob_id, str) and isinstance(data, bytes):
                blobs[blob_id] = data
                order.append(blob_id)
    finally:
        conn.close()
    out: list[tuple[str, dict, int | None, bool]] = []
    root = meta.get("latestRootBlobId")
    if isinstance(root, str) and root in blobs:
        stack: list[tuple[str, int | None, int]] = [(root, None, 0)]
        on_path: set[str] = set()
        while stack:
            blob_id, clock, depth = stack.pop()
            data = blobs.get(blob_id)
            if data is None or depth > 10_000:
                continue
            leaf = _leaf(data)
            if leaf is not None:
                out.append((blob_id, leaf[0], clock, leaf[1]))
                continue
            if blob_id in on_path:
                continue  # a cycle: each node is expanded once
            on_path.add(blob_id)
            children, own = node_fields(data)
            clock = own if own is not None else clock
            stack.extend((child, clock, depth + 1) for child in reversed(children))
    if not out:
        out = [
            (blob_id, leaf[0], None, leaf[1])
            for blob_id in order
            if (leaf := _leaf(blobs[blob_id]))
        ]
    return meta, out


def read_store(path: Path | str, metadata_only: bool = False) -> tuple[Session, list[Record]]:
    path = Path(path)
    meta, messages = store_messages(path)
    agent = meta.get("agentId")
    session_id = agent if is_host_id(agent) else path.parent.name
    session = Session(id=session_id, host=HOST, source=str(path))
    extra = _meta_json(path.parent / "meta.json")
    created = iso_utc(meta.get("createdAt")) or iso_utc(extra.get("createdAtMs"))
    fallback = iso_utc(extra.get("updatedAtMs")) or created or file_ts(path)
    session.started = created
    session.cwd = extra.get("cwd") if isinstance(extra.get("cwd"), str) else None
    if isinstance(meta.get("lastUsedModel"), str):
        session.model = meta["lastUsedModel"]
    for key in ("agentId", "mode"):
        if isinstance(meta.get(key), str):
            session.meta[key] = meta[key]
    name = meta.get("name")
    if isinstance(name, str) and name.strip().lower() not in DEFAULT_NAMES:
        session.title, session.title_source = name.strip(), "host"
    context: dict[str, Any] = {"file_ts": created or fallback}
    records: list[Record] = []
    seen: dict[str, int] = {}
    for blob_id, message, clock, repaired in messages:
        count = seen.get(blob_id, 0)
        seen[blob_id] = count + 1
        ts, ts_source = take_ts(clock, context)
        kind, role, text, model = _message_fields(message)
        record = Record(
            id=blob_id if count == 0 else f"{blob_id}#{count}",
            session=session_id,
            host=HOST,
            ts=ts,
            ts_source=ts_source,
            kind=kind,
            role=role,
            text=text,
            usage=_usage(message),
            raw=message,
            end=None,
            subtype="system" if role == "system" else None,
            model=model,
            repaired=repaired,
        )
        if not metadata_only:
            records.append(record)
        _observe(session, record)
    session.updated = session.updated or fallback
    session.started = session.started or session.updated
    return session, records


def _meta_json(path: Path) -> dict[str, Any]:
    try:
        value = load_json(path.read_bytes())[0]
    except (OSError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}
