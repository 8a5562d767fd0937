"""Codex rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<thread id>.jsonl`.

`$CODEX_HOME` defaults to `~/.codex`; archived rollouts (`archived_sessions/`) are read too.
Each line is an envelope `{"timestamp", "type", "payload"}` and becomes one record:
`session_meta` / `turn_context` (kind "meta"), `response_item` (messages, reasoning, tool
calls and outputs, compaction), `event_msg` (events; `token_count` carries usage,
`thread_name_updated` a title), `compacted` (kind "compaction"); any other type is carried
under its own name. Codex gives its lines no ids: each record's id is derived from the
line's byte offset.

`Session.thread_source` is the rollout header's `thread_source` (a string; a structured
value is reduced to its variant name), so capture can skip Codex's own threads. The title is
Codex's `thread_name` (the newest of the rollout's `thread_name_updated` events and
`$CODEX_HOME/session_index.jsonl`), else the first prompt.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .lines import INVALID, iter_file_records, jsonl_records, load_line
from .records import Record, Session, host_dir, stable_id, type_of, usage_of
from .timestamps import file_ts, iso_utc, later, take_ts
from .titles import block_text, prompt_title

HOST = "codex"
_ROLLOUT = re.compile(
    r"rollout-.*?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.I
)
CALLS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "image_generation_call",
        "tool_call",
    }
)
OUTPUTS = frozenset(
    {"function_call_output", "custom_tool_call_output", "tool_search_output", "tool_result"}
)
COMPACTIONS = frozenset({"compaction", "context_compaction", "compaction_summary"})
# leading blocks Codex puts into user turns that are not what the user typed
_INJECTED = re.compile(
    r"^\s*(<(environment_context|user_instructions|recommended_plugins|permissions instructions)"
    r">.*?</\2>\s*|# AGENTS\.md instructions.*?</INSTRUCTIONS>\s*)",
    re.S,
)
_IDE_REQUEST = "## My request for Codex:"


def roots(env: Mapping[str, str] | None = None) -> list[Path]:
    env = os.environ if env is None else env
    home = host_dir(env, "CODEX_HOME", Path(env.get("HOME") or Path.home()) / ".codex")
    return [] if home is None else [home / "sessions", home / "archived_sessions"]


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    configured = env.get("CODEX_HOME")
    return Path(configured) if configured else Path(env.get("HOME") or Path.home()) / ".codex"


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    found: list[Path] = []
    for root in roots(env):
        if root.is_dir():
            found.extend(sorted(root.rglob("rollout-*.jsonl")))
    return found


def _first_meta(path: Path) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as handle:
            line = handle.readline(1 << 20)
    except OSError:
        return None
    value = load_line(line) if line.strip() else INVALID
    if isinstance(value, dict) and value.get("type") == "session_meta":
        payload = value.get("payload")
        return payload if isinstance(payload, dict) else None
    return None


def session_id_for(path: Path | str) -> str:
    path = Path(path)
    match = _ROLLOUT.search(path.stem)
    if match:
        return match[1].lower()
    meta = _first_meta(path) or {}
    for key in ("id", "session_id"):
        if isinstance(meta.get(key), str) and meta[key] and " " not in meta[key]:
            return meta[key]
    return path.stem


def initial_context(path: Path | str) -> dict[str, Any]:
    return {"file_ts": file_ts(path)}


def thread_source_of(value: Any) -> str | None:
    """A `thread_source` / `source` value as a string: a structured variant by its name."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, dict) and value:
        return str(next(iter(value)))
    return None


def clean_prompt(text: str | None) -> str | None:
    """What the user typed, without the context blocks Codex injects in front of it."""
    if not text:
        return None
    previous = None
    while previous != text:
        previous = text
        text = _INJECTED.sub("", text, count=1)
    if "# Context from my IDE setup:" in text:
        _, found, request = text.partition(_IDE_REQUEST)
        text = request if found else ""
    text = text.strip()
    if not text or text.startswith("# AGENTS.md instructions") or text.startswith("<"):
        return None
    return text


def _usage(payload: dict[str, Any], context: dict[str, Any]) -> dict[str, int] | None:
    """Per-turn usage of a `token_count` (or legacy `turn.completed`) event."""
    info = payload.get("info")
    last = None
    if isinstance(info, dict):
        total = info.get("total_token_usage")
        last = info.get("last_token_usage")
        if not isinstance(last, dict) and isinstance(total, dict):
            previous = context.get("usage_total") or {}
            last = {
                key: value - previous.get(key, 0)
                for key, value in total.items()
                if isinstance(value, int) and not isinstance(value, bool)
            }
            if any(value < 0 for value in last.values()):
                last = None  # a regression is not a turn
        if isinstance(total, dict):
            context["usage_total"] = {
                key: value
                for key, value in total.items()
                if isinstance(value, int) and not isinstance(value, bool)
            }
    elif isinstance(payload.get("usage"), dict):
        last = payload["usage"]
    if not isinstance(last, dict):
        return None

    def count(key: str) -> int:
        value = last.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    cached, written = count("cached_input_tokens"), count("cache_write_input_tokens")
    return usage_of(
        input_tokens=max(0, count("input_tokens") - cached - written),
        output_tokens=last.get("output_tokens"),
        cache_read_input_tokens=last.get("cached_input_tokens"),
        cache_creation_input_tokens=last.get("cache_write_input_tokens"),
        reasoning_tokens=last.get("reasoning_output_tokens"),
        total_tokens=last.get("total_tokens"),
    )


def parse_lines(session_id: str, data: bytes, start: int, context: dict[str, Any]) -> list[Record]:
    return jsonl_records(HOST, session_id, data, start, context, _record)


def _response_item(sub: str | None, payload: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """(kind, role, text) of a `response_item` line."""
    if sub == "message" or (sub is None and "role" in payload):
        role = payload.get("role") if isinstance(payload.get("role"), str) else None
        return (
            "message",
            "system" if role == "developer" else role,
            block_text(payload.get("content")) or None,
        )
    if sub == "reasoning":
        text = block_text(payload.get("summary"), ("summary_text", "text")) or None
        return "reasoning", "assistant", text
    if sub in CALLS:
        return "tool_call", "assistant", None
    if sub in OUTPUTS:
        output = payload.get("output")
        return "tool_result", "tool", output if isinstance(output, str) else None
    if sub in COMPACTIONS:
        return "compaction", None, None
    if sub == "ghost_snapshot":
        return "event", None, None
    return sub or "response_item", None, None


def _event_msg(
    sub: str | None, payload: dict[str, Any], context: dict[str, Any]
) -> tuple[str, str | None, str | None, dict[str, int] | None]:
    """(kind, role, text, usage) of an `event_msg` line."""
    if sub in ("token_count", "turn.completed"):
        return "usage", None, None, _usage(payload, context)
    if sub == "thread_name_updated":
        name = payload.get("thread_name")
        return "title", None, name if isinstance(name, str) else None, None
    if sub == "context_compacted":
        return "compaction", None, None, None
    if sub in ("user_message", "agent_message", "agent_reasoning"):
        message = payload.get("message", payload.get("text"))
        role = "user" if sub == "user_message" else "assistant"
        return "event", role, message if isinstance(message, str) else None, None
    return "event", None, None, None


def _record(
    session_id: str, obj: dict[str, Any], offset: int, end: int, context: dict[str, Any]
) -> Record:
    ts, ts_source = take_ts(obj.get("timestamp", obj.get("created_at")), context)
    kind_of = type_of(obj)
    payload = obj.get("payload")
    payload = payload if isinstance(payload, dict) else {}
    sub = payload.get("type") if isinstance(payload.get("type"), str) else None
    role = text = model = None
    usage = None
    if kind_of == "session_meta":
        kind, sub = "meta", "session_meta"
        if "meta" not in context:
            context["meta"] = {
                "id": payload.get("id") or payload.get("session_id"),
                "thread_source": thread_source_of(payload.get("thread_source")),
            }
    elif kind_of == "turn_context":
        kind, sub = "meta", "turn_context"
        model = payload.get("model") if isinstance(payload.get("model"), str) else None
        if model:
            context["model"] = model
    elif kind_of == "response_item":
        kind, role, text = _response_item(sub, payload)
        if kind in ("message", "reasoning", "tool_call"):
            model = context.get("model")
    elif kind_of == "event_msg":
        kind, role, text, usage = _event_msg(sub, payload, context)
    elif kind_of == "compacted":
        kind = "compaction"
        message = payload.get("message")
        text = message if isinstance(message, str) and message else None
    else:
        kind = kind_of if isinstance(kind_of, str) and kind_of else "unknown"
        if isinstance(obj.get("role"), str):
            role = obj["role"]
            text = block_text(obj.get("content", obj.get("message"))) or None
    return Record(
        id=stable_id(HOST, session_id, str(offset)),
        session=session_id,
        host=HOST,
        ts=ts,
        ts_source=ts_source,
        kind=kind,
        role=role,
        text=text,
        usage=usage,
        raw=obj,
        end=end,
        id_source="derived",
        subtype=sub,
        model=model,
    )


_INDEX_CACHE: dict[str, tuple[tuple[int, int], dict[str, tuple[str, str | None]]]] = {}


def session_index(home: Path) -> dict[str, tuple[str, str | None]]:
    """`session_index.jsonl` as {thread id: (thread_name, updated_at)}: the newest entry wins.

    The index is append-only: the entry with the latest `updated_at` wins, a later line
    breaking ties (and winning when neither has a time). Parsed once per file version.
    """
    path = home / "session_index.jsonl"
    try:
        stat = path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        cached = _INDEX_CACHE.get(str(path))
        if cached and cached[0] == key:
            return cached[1]
        lines = path.read_bytes().splitlines()
    except OSError:
        return {}
    names: dict[str, tuple[str, str | None]] = {}
    for line in lines:
        value = load_line(line) if line.strip() else INVALID
        if not isinstance(value, dict):
            continue
        thread, name = value.get("id"), value.get("thread_name")
        if isinstance(thread, str) and isinstance(name, str) and name:
            when = iso_utc(value.get("updated_at"))
            previous = names.get(thread)
            if previous is None or (when or "") >= (previous[1] or ""):
                names[thread] = (name, when)
    _INDEX_CACHE[str(path)] = (key, names)
    return names


def home_of(path: Path) -> Path | None:
    """The Codex home a rollout lives in: the parent of its `sessions` folder."""
    for parent in path.parents:
        if parent.name in ("sessions", "archived_sessions"):
            return parent.parent
    return None


def read_session(
    path: Path | str, metadata_only: bool = False, home: Path | None = None
) -> tuple[Session, list[Record]]:
    path = Path(path)
    session_id = session_id_for(path)
    session = Session(id=session_id, host=HOST, source=str(path))
    context = initial_context(path)
    records: list[Record] = []
    rollout_title: tuple[str | None, str | None] = (None, None)
    first_prompt: str | None = None
    seen_meta = False
    for record in iter_file_records(path, session_id, parse_lines, context):
        if not metadata_only:
            records.append(record)
        if record.ts_source == "host":
            session.started = session.started or record.ts
            session.updated = later(session.updated, record.ts)
        raw = record.raw if isinstance(record.raw, dict) else {}
        payload = raw.get("payload")
        if not isinstance(payload, dict):
            payload = {}
        if record.subtype == "session_meta" and not seen_meta:
            seen_meta = True
            _apply_meta(session, payload, record)
        elif record.subtype == "turn_context":
            session.model = session.model or record.model
            if session.cwd is None and isinstance(payload.get("cwd"), str):
                session.cwd = payload["cwd"]
        elif record.kind == "title" and record.text:
            rollout_title = (record.text, record.ts)
        if first_prompt is None and record.role == "user" and record.kind in ("message", "event"):
            first_prompt = prompt_title(clean_prompt(record.text))
    home = home or home_of(path) or codex_home()
    index_title = session_index(home).get(session_id, (None, None))
    if index_title[0] and (
        rollout_title[0] is None or (index_title[1] or "") >= (rollout_title[1] or "")
    ):
        session.title, session.title_source = index_title[0], "host"
    elif rollout_title[0]:
        session.title, session.title_source = rollout_title[0], "host"
    elif first_prompt:
        session.title, session.title_source = first_prompt, "prompt"
    return session, records


def _apply_meta(session: Session, payload: dict[str, Any], record: Record) -> None:
    if isinstance(payload.get("cwd"), str):
        session.cwd = payload["cwd"]
    session.thread_source = thread_source_of(payload.get("thread_source"))
    started = iso_utc(payload.get("timestamp"))
    if started:
        session.started = min(session.started or started, started)
    parent = payload.get("parent_thread_id") or payload.get("forked_from_id")
    if isinstance(parent, str) and " " not in parent:
        session.parent = parent
    nickname = payload.get("agent_nickname")
    if isinstance(nickname, str):
        session.agent_id = nickname
    for key in ("originator", "cli_version", "model_provider", "forked_from_id"):
        if isinstance(payload.get(key), str):
            session.meta[key] = payload[key]
    source = thread_source_of(payload.get("source"))
    if source:
        session.meta["source"] = source
    git = payload.get("git")
    if isinstance(git, dict):
        session.meta["git"] = {k: v for k, v in git.items() if isinstance(v, str)}
