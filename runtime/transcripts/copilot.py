"""GitHub Copilot CLI sessions: `<home>/session-state/<session id>/events.jsonl`.

`<home>` is `$COPILOT_HOME`, else `~/.copilot`. The file is an append-only event log, one
JSON object a line (`type`, `data`, `id`, `timestamp`, `parentId`; seen with copilot
1.0.102): `session.start` (its `context.cwd`, `copilotVersion`, `selectedModel`),
`user.message` (`content`; `transformedContent` is what the model got),
`assistant.message` (`content`, `toolRequests`, `model`), `tool.execution_start` /
`tool.execution_complete` (`result.content` or `error.message`), `session.usage_record`
(one per model call), `system.message` (the system prompt), `hook.start` / `hook.end`,
`assistant.turn_start` / `turn_end`, `session.shutdown`. The session id is the folder's
name; every line's `id` is the record id. A session is named after its first prompt.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .lines import iter_file_records, jsonl_records
from .records import Record, Session, host_dir, is_host_id, stable_id, type_of, usage_of
from .timestamps import file_ts, later, take_ts
from .titles import prompt_title

HOST = "copilot"
FILE = "events.jsonl"
# types that are not conversation content, kept as events (their type as the subtype)
EVENT_TYPES = frozenset(
    {"hook.start", "hook.end", "assistant.turn_start", "assistant.turn_end",
     "tool.execution_start", "session.shutdown", "session.info", "session.error",
     "session.model_change", "abort"}
)  # fmt: skip
META_TYPES = frozenset({"session.start", "session.resume", "system.message"})


def roots(env: Mapping[str, str] | None = None) -> list[Path]:
    env = os.environ if env is None else env
    home = host_dir(env, "COPILOT_HOME", Path(env.get("HOME") or Path.home()) / ".copilot")
    return [] if home is None else [home / "session-state"]


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    found: list[Path] = []
    for root in roots(env):
        if root.is_dir():
            found.extend(sorted(root.glob(f"*/{FILE}")))
    return found


def session_id_for(path: Path | str) -> str:
    """The session's folder name (Copilot's `sessionId`)."""
    return Path(path).parent.name


def initial_context(path: Path | str) -> dict[str, Any]:
    return {"file_ts": file_ts(path)}


def parse_lines(session_id: str, data: bytes, start: int, context: dict[str, Any]) -> list[Record]:
    return jsonl_records(HOST, session_id, data, start, context, _record)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _usage(data: dict[str, Any]) -> dict[str, int] | None:
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return None
    return usage_of(
        input_tokens=usage.get("inputTokens"),
        output_tokens=usage.get("outputTokens"),
        cache_read_input_tokens=usage.get("cacheReadTokens"),
        cache_creation_input_tokens=usage.get("cacheWriteTokens"),
    )


def _tool_result(data: dict[str, Any]) -> str | None:
    result = data.get("result")
    if isinstance(result, dict) and _str(result.get("content")):
        return str(result["content"])
    error = data.get("error")
    return _str(error.get("message")) if isinstance(error, dict) else _str(error)


def _classify(kind_of: Any, data: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(kind, role, text) of one event."""
    if kind_of == "user.message":
        return "message", "user", _str(data.get("content"))
    if kind_of == "assistant.message":
        text = _str(data.get("content"))
        kind = "tool_call" if data.get("toolRequests") and not text else "message"
        return kind, "assistant", text
    if kind_of == "assistant.reasoning":
        return "reasoning", "assistant", _str(data.get("content"))
    if kind_of == "tool.execution_complete":
        return "tool_result", "tool", _tool_result(data)
    if kind_of == "session.usage_record":
        return "usage", None, None
    if kind_of in META_TYPES:
        return "meta", "system" if kind_of == "system.message" else None, None
    if kind_of == "session.compaction_complete":
        return "compaction", "system", None
    if kind_of in EVENT_TYPES:
        return "event", None, None
    return (kind_of if isinstance(kind_of, str) and kind_of else "unknown"), None, None


def _record(
    session_id: str, obj: dict[str, Any], offset: int, end: int, context: dict[str, Any]
) -> Record:
    given = obj.get("id")
    uid = given if is_host_id(given) else None
    ts, ts_source = take_ts(obj.get("timestamp"), context)
    kind_of = type_of(obj)
    data = _object(obj.get("data"))
    kind, role, text = _classify(kind_of, data)
    model = _str(data.get("model"))
    if kind == "usage":
        model = _str(_object(data.get("usage")).get("model"))
    parent = obj.get("parentId")
    return Record(
        id=uid if uid is not None else stable_id(HOST, session_id, str(offset)),
        session=session_id,
        host=HOST,
        ts=ts,
        ts_source=ts_source,
        kind=kind,
        role=role,
        text=text,
        usage=_usage(data) if kind == "usage" else None,
        raw=obj,
        end=end,
        id_source="host" if uid is not None else "derived",
        parent=parent if isinstance(parent, str) else None,
        subtype=kind_of if isinstance(kind_of, str) and kind != kind_of else None,
        model=model,
        message_id=_str(data.get("messageId")),
    )


def read_session(path: Path | str, metadata_only: bool = False) -> tuple[Session, list[Record]]:
    path = Path(path)
    session_id = session_id_for(path)
    session = Session(id=session_id, host=HOST, source=str(path))
    records: list[Record] = []
    first_prompt: str | None = None
    for record in iter_file_records(path, session_id, parse_lines, initial_context(path)):
        if not metadata_only:
            records.append(record)
        if record.ts_source == "host":
            session.started = session.started or record.ts
            session.updated = later(session.updated, record.ts)
        raw = _object(record.raw)
        if raw.get("type") == "session.start":
            _start(session, _object(raw.get("data")))
        if session.model is None and record.model and record.role == "assistant":
            session.model = record.model
        if first_prompt is None and record.kind == "message" and record.role == "user":
            first_prompt = prompt_title(record.text)
    if first_prompt:
        session.title, session.title_source = first_prompt, "prompt"
    return session, records


def _start(session: Session, data: dict[str, Any]) -> None:
    """What `session.start` says of the session: its folder, branch, versions, model."""
    where = _object(data.get("context"))
    session.cwd = session.cwd or _str(where.get("cwd"))
    if _str(where.get("branch")):
        session.meta.setdefault("git_branch", where["branch"])
    if _str(data.get("copilotVersion")):
        session.meta.setdefault("version", data["copilotVersion"])
    session.model = session.model or _str(data.get("selectedModel"))
