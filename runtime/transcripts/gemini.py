"""Gemini CLI chat recordings: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`.

The JSONL recording is an append-only log: a header line (`sessionId`, `projectHash`,
`startTime`, `lastUpdated`, `kind`), then message objects (`id`, `timestamp`, `type`
user|gemini|info|error|warning, `content`, `thoughts`, `toolCalls`, `tokens`, `model`) and
operations: `{"$set": {...}}` patches the session's metadata (a `summary` there is the
title Gemini generated), `{"$rewindTo": id}` removes that message and every later one (an
unknown id removes all). Gemini rewrites a message in full under the same id whenever its
tool calls or tokens change: the last record per id wins. Subagent recordings live at
`chats/<parent session id>/<id>.jsonl`. The legacy recording is one JSON object (`.json`)
with a `messages` list.

`parse_lines` yields every line as a record (messages under their own id, operations as kinds
"set" and "rewind" with derived ids, the header as kind "meta"); `fold` applies the operations
and is what `read_session` returns. A `$set` carrying `messages` adds or replaces those
messages but removes none (compression rewrites the context the model sees, not the
conversation that happened).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .clean import REPLACEMENT, clean_value, decode_text, load_json
from .lines import INVALID, iter_file_records, jsonl_records, load_line
from .records import Record, Session, host_dir, is_host_id, stable_id, type_of, usage_of
from .timestamps import file_ts, iso_utc, later, take_ts
from .titles import block_text, prompt_title

HOST = "gemini"
ROLES = {"user": "user", "gemini": "assistant", "model": "assistant"}
NOTICES = frozenset({"info", "error", "warning"})


def roots(env: Mapping[str, str] | None = None) -> list[Path]:
    env = os.environ if env is None else env
    # Gemini CLI's own home: GEMINI_CLI_HOME replaces the home folder (paths.ts `homedir()`)
    home = host_dir(env, "GEMINI_CLI_HOME", Path(env.get("HOME") or Path.home()))
    return [] if home is None else [home / ".gemini" / "tmp"]


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    found: list[Path] = []
    for root in roots(env):
        if not root.is_dir():
            continue
        for chats in sorted(root.glob("*/chats")):
            for pattern in ("session-*.jsonl", "session-*.json", "*/*.jsonl"):
                found.extend(sorted(chats.glob(pattern)))
    return found


def _header(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            line = handle.readline(1 << 20)
    except OSError:
        return {}
    value = load_line(line) if line.strip() else INVALID
    return value if isinstance(value, dict) and "sessionId" in value else {}


def session_id_for(path: Path | str) -> str:
    path = Path(path)
    if path.suffix == ".jsonl":
        sid = _header(path).get("sessionId")
        if is_host_id(sid):
            return sid
    else:
        try:
            value = load_json(path.read_bytes())[0]
        except (OSError, ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and is_host_id(value.get("sessionId")):
            return value["sessionId"]
    return path.stem


def initial_context(path: Path | str) -> dict[str, Any]:
    return {"file_ts": file_ts(path)}


def _usage(tokens: Any) -> dict[str, int] | None:
    if not isinstance(tokens, dict):
        return None
    cached = tokens.get("cached")
    fresh = tokens.get("input")
    if isinstance(fresh, int) and isinstance(cached, int):
        fresh = max(0, fresh - cached)  # Gemini's input count includes the cached part
    return usage_of(
        input_tokens=fresh,
        output_tokens=tokens.get("output"),
        cache_read_input_tokens=cached,
        reasoning_tokens=tokens.get("thoughts"),
        tool_tokens=tokens.get("tool"),
        total_tokens=tokens.get("total"),
    )


def message_record(
    session_id: str,
    message: dict[str, Any],
    context: dict[str, Any],
    end: int | None,
    fallback_id: str,
) -> Record:
    ts, ts_source = take_ts(message.get("timestamp"), context)
    kind_of = type_of(message)
    role = ROLES.get(kind_of) if isinstance(kind_of, str) else None
    text = block_text(message.get("content")) or None
    if role:
        kind = "tool_call" if message.get("toolCalls") and not text else "message"
    elif isinstance(kind_of, str) and kind_of in NOTICES:
        kind, role = "event", "system"
    else:
        kind = kind_of if isinstance(kind_of, str) and kind_of else "unknown"
    host_id = is_host_id(message.get("id"))
    model = message.get("model")
    return Record(
        id=message["id"] if host_id else fallback_id,
        session=session_id,
        host=HOST,
        ts=ts,
        ts_source=ts_source,
        kind=kind,
        role=role,
        text=text,
        usage=_usage(message.get("tokens")),
        raw=message,
        end=end,
        id_source="host" if host_id else "derived",
        subtype=kind_of if kind == "event" else None,
        model=model if isinstance(model, str) else None,
    )


def parse_lines(session_id: str, data: bytes, start: int, context: dict[str, Any]) -> list[Record]:
    return jsonl_records(HOST, session_id, data, start, context, _record)


def _record(
    session_id: str, value: dict[str, Any], offset: int, end: int, context: dict[str, Any]
) -> Record:
    derived = stable_id(HOST, session_id, str(offset))
    if "$rewindTo" in value or "$set" in value:
        kind = "rewind" if "$rewindTo" in value else "set"
        ts, ts_source = take_ts(None, context)
    elif "id" in value or "type" in value:
        return message_record(session_id, value, context, end, derived)
    else:  # the header line (or a header-like object)
        kind = "meta"
        ts, ts_source = take_ts(value.get("startTime"), context)
    return Record(
        id=derived,
        session=session_id,
        host=HOST,
        ts=ts,
        ts_source=ts_source,
        kind=kind,
        raw=value,
        end=end,
        id_source="derived",
    )


def fold(records: Iterable[Record], metadata: dict[str, Any] | None = None) -> list[Record]:
    """Apply a recording's operations: the last record per id wins, `$rewindTo` truncates.

    Header and `$set` fields are merged into `metadata` (when given); operations and the
    header are not records of the result.
    """
    live: dict[str, Record] = {}
    for record in records:
        raw = record.raw if isinstance(record.raw, dict) else {}
        if record.kind == "rewind":
            target = raw.get("$rewindTo")
            ids = list(live)
            cut = ids.index(target) if isinstance(target, str) and target in live else 0
            for gone in ids[cut:]:
                del live[gone]
        elif record.kind == "set":
            patch = raw.get("$set")
            if isinstance(patch, dict):
                if metadata is not None:
                    metadata.update({k: v for k, v in patch.items() if k != "messages"})
                messages = patch.get("messages")
                if isinstance(messages, list):
                    context = {"file_ts": record.ts}
                    for index, message in enumerate(messages):
                        if isinstance(message, dict):
                            fallback = stable_id(HOST, record.session, record.id, str(index))
                            new = message_record(
                                record.session, message, context, record.end, fallback
                            )
                            new.repaired = record.repaired
                            live[new.id] = new
        elif record.kind == "meta":
            if metadata is not None:
                metadata.update(raw)
        else:
            live[record.id] = record  # an existing id keeps its place, takes the new content
    return list(live.values())


def read_session(path: Path | str, metadata_only: bool = False) -> tuple[Session, list[Record]]:
    path = Path(path)
    session_id = session_id_for(path)
    metadata: dict[str, Any] = {}
    context = initial_context(path)
    if path.suffix == ".jsonl":
        records = fold(iter_file_records(path, session_id, parse_lines, context), metadata)
    else:
        records = _legacy(path, session_id, context, metadata)
    session = Session(id=session_id, host=HOST, source=str(path))
    if path.parent.name != "chats" and path.parent.parent.name == "chats":
        session.parent = path.parent.name
    session.started = iso_utc(metadata.get("startTime"))
    session.updated = iso_utc(metadata.get("lastUpdated"))
    for key in ("projectHash", "kind"):
        if isinstance(metadata.get(key), str):
            session.meta[key] = metadata[key]
    directories = metadata.get("directories")
    if isinstance(directories, list) and directories and isinstance(directories[0], str):
        session.cwd = directories[0]
    summary = metadata.get("summary")
    first_prompt = None
    for record in records:
        if record.ts_source == "host":
            session.started = session.started or record.ts
            session.updated = later(session.updated, record.ts)
        if session.model is None and record.model:
            session.model = record.model
        if first_prompt is None and record.role == "user" and record.kind == "message":
            first_prompt = prompt_title(record.text)
    if isinstance(summary, str) and summary.strip():
        session.title, session.title_source = summary.strip(), "host"
    elif first_prompt:
        session.title, session.title_source = first_prompt, "prompt"
    return session, [] if metadata_only else records


def _legacy(
    path: Path, session_id: str, context: dict[str, Any], metadata: dict[str, Any]
) -> list[Record]:
    """A legacy single-object recording (not a byte stream: `end` is None). A file that is
    not UTF-8 is read with its bad bytes replaced: the messages they touch are `repaired`."""
    text, replaced = decode_text(path.read_bytes())
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{path}: not a Gemini chat recording (expected an object)")
    metadata.update(clean_value({k: v for k, v in value.items() if k != "messages"})[0])
    context["file_ts"] = iso_utc(value.get("startTime")) or context["file_ts"]
    messages = value.get("messages")
    records: list[Record] = []
    if isinstance(messages, list):
        for index, message in enumerate(messages):
            message, repaired = clean_value(message)
            if replaced and not repaired:  # a replaced byte lies in this message?
                repaired = REPLACEMENT in json.dumps(message, ensure_ascii=False)
            if isinstance(message, dict):
                fallback = stable_id(HOST, session_id, "message", str(index))
                records.append(message_record(session_id, message, context, None, fallback))
                records[-1].repaired = repaired
            else:
                ts, ts_source = take_ts(None, context)
                records.append(
                    Record(
                        id=stable_id(HOST, session_id, "message", str(index)),
                        session=session_id,
                        host=HOST,
                        ts=ts,
                        ts_source=ts_source,
                        kind="invalid",
                        raw=message,
                        id_source="derived",
                        repaired=repaired,
                    )
                )
    return fold(records)
