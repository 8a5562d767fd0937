"""Claude Code transcripts: `<config>/projects/<project>/<session>.jsonl` and its subagents.

`<config>` is `$CLAUDE_CONFIG_DIR`, else `~/.claude`. Subagent transcripts come in two
layouts: the old flat `agent-<id>.jsonl` next to the session files, and the current
`<session>/subagents/[workflows/<run>/]agent-<id>.jsonl` (with an `agent-<id>.meta.json`).
Each subagent file is a session of its own (id `agent-<id>`) whose `parent` is the session
that spawned it.

One record per line; the host's `uuid` is the record id where the line has one. Titles: the
user's rename (`custom-title`) outranks the generated one (`ai-title`), which outranks an
older-version `summary` line; a session with none is named after its first prompt.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .clean import load_json
from .lines import iter_file_records, jsonl_records, load_line
from .records import Record, Session, host_dir, is_host_id, stable_id, type_of, usage_of, usage_once
from .timestamps import file_ts, later, take_ts
from .titles import choose_title, classify_blocks, fold_title, prompt_title

HOST = "claude"
# types the reader knows that are not conversation content
EVENT_TYPES = frozenset(
    {
        "attachment",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "permission-mode",
        "mode",
        "last-prompt",
        "agent-name",
        "agent-setting",
        "pr-link",
        "bridge-session",
        "worktree-state",
    }
)
TITLE_TYPES = {"custom-title": "customTitle", "ai-title": "aiTitle"}


def roots(env: Mapping[str, str] | None = None) -> list[Path]:
    env = os.environ if env is None else env
    base = host_dir(env, "CLAUDE_CONFIG_DIR", Path(env.get("HOME") or Path.home()) / ".claude")
    return [] if base is None else [base / "projects"]


def discover(env: Mapping[str, str] | None = None) -> list[Path]:
    found: list[Path] = []
    for root in roots(env):
        if not root.is_dir():
            continue
        for project in sorted(root.iterdir()):
            if not project.is_dir():
                continue
            found.extend(sorted(project.glob("*.jsonl")))
            found.extend(sorted(project.glob("*/subagents/**/agent-*.jsonl")))
    return found


def subagents(path: Path | str, flat: bool = False) -> list[Path]:
    """The subagent transcripts a session's transcript `path` spawned: its
    `<session>/subagents/[workflows/<run>/]agent-*.jsonl`, and with `flat` also the old
    layout's `agent-*.jsonl` beside it that name the session (costlier: each file's first
    line is read). A subagent transcript spawns none itself."""
    path = Path(path)
    if path.name.startswith("agent-"):
        return []
    folder = path.parent / path.stem / "subagents"
    found = sorted(folder.rglob("agent-*.jsonl")) if folder.is_dir() else []
    if flat:
        for candidate in sorted(path.parent.glob("agent-*.jsonl")):
            if _first_session_id(candidate) == path.stem:
                found.append(candidate)
    return found


def _first_session_id(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            line = handle.readline(1 << 20)
    except OSError:
        return None
    value = load_line(line) if line.strip() else None
    session = value.get("sessionId") if isinstance(value, dict) else None
    return session if isinstance(session, str) else None


def subagent_of(path: Path | str) -> tuple[str | None, str | None]:
    """(agent id, parent session id) of a subagent transcript, (None, None) otherwise."""
    path = Path(path)
    agent_id, parent = _subagent(path)
    if agent_id and parent is None:
        parent = _first_session_id(path)
    return agent_id, parent


def _subagent(path: Path) -> tuple[str | None, str | None]:
    """(agent id, parent session id from the layout) when `path` is a subagent transcript."""
    if not path.name.startswith("agent-"):
        return None, None
    agent_id = path.stem[len("agent-") :]
    parts = path.parts
    if "subagents" in parts:
        index = len(parts) - 1 - parts[::-1].index("subagents")
        return agent_id, parts[index - 1] if index >= 1 else None
    return agent_id, None


def session_id_for(path: Path | str) -> str:
    return Path(path).stem


def initial_context(path: Path | str) -> dict[str, Any]:
    return {"file_ts": file_ts(path)}


def parse_lines(session_id: str, data: bytes, start: int, context: dict[str, Any]) -> list[Record]:
    return jsonl_records(HOST, session_id, data, start, context, _record)


def _record(
    session_id: str, obj: dict[str, Any], offset: int, end: int, context: dict[str, Any]
) -> Record:
    given = obj.get("uuid")
    uid = given if is_host_id(given) else None
    host_id = uid is not None
    ts, ts_source = take_ts(obj.get("timestamp"), context)
    kind_of = type_of(obj)
    message = obj.get("message")
    role = text = model = subtype = message_id = None
    usage = None
    if isinstance(message, dict) and kind_of in (None, "user", "assistant"):
        role = message.get("role") if isinstance(message.get("role"), str) else kind_of
        kind, text = classify_blocks(message.get("content"))
        model = message.get("model") if isinstance(message.get("model"), str) else None
        message_id = message.get("id") if is_host_id(message.get("id")) else None
        raw_usage = message.get("usage")
        if isinstance(raw_usage, dict):
            usage = usage_of(
                input_tokens=raw_usage.get("input_tokens"),
                output_tokens=raw_usage.get("output_tokens"),
                cache_read_input_tokens=raw_usage.get("cache_read_input_tokens"),
                cache_creation_input_tokens=raw_usage.get("cache_creation_input_tokens"),
            )
            usage = usage_once(message_id, usage, context)
        if obj.get("isCompactSummary"):
            kind, subtype = "summary", "compact_summary"
    elif kind_of == "system":
        role = "system"
        subtype = obj.get("subtype") if isinstance(obj.get("subtype"), str) else None
        kind = "compaction" if subtype == "compact_boundary" else "event"
        content = obj.get("content")
        text = content if isinstance(content, str) else None
    elif kind_of == "summary":
        kind = "summary"
        text = obj.get("summary") if isinstance(obj.get("summary"), str) else None
    elif kind_of in TITLE_TYPES:
        kind, subtype = "title", kind_of
        value = obj.get(TITLE_TYPES[kind_of])
        text = value if isinstance(value, str) else None
    elif kind_of in EVENT_TYPES:
        kind, subtype = "event", kind_of
    else:
        kind = kind_of if isinstance(kind_of, str) and kind_of else "unknown"
    parent = obj.get("parentUuid")
    agent = obj.get("agentId")
    return Record(
        id=uid if uid is not None else stable_id(HOST, session_id, str(offset)),
        session=session_id,
        host=HOST,
        ts=ts,
        ts_source=ts_source,
        kind=kind,
        role=role,
        text=text,
        usage=usage,
        sidechain=bool(obj.get("isSidechain")),
        agent_id=agent if isinstance(agent, str) else None,
        raw=obj,
        end=end,
        id_source="host" if host_id else "derived",
        parent=parent if isinstance(parent, str) else None,
        subtype=subtype,
        model=model,
        message_id=message_id,
    )


def is_prompt(record: Record, subagent: bool) -> bool:
    """A typed prompt: a user message, not meta, not a side chain (unless in a subagent file)."""
    raw = record.raw if isinstance(record.raw, dict) else {}
    return (
        record.kind == "message"
        and record.role == "user"
        and bool(record.text)
        and not raw.get("isMeta")
        and (subagent or not record.sidechain)
    )


def read_session(path: Path | str, metadata_only: bool = False) -> tuple[Session, list[Record]]:
    path = Path(path)
    session_id = session_id_for(path)
    agent_id, parent = _subagent(path)
    session = Session(id=session_id, host=HOST, source=str(path), agent_id=agent_id, parent=parent)
    meta_file = path.with_name(path.stem + ".meta.json")
    if agent_id and meta_file.is_file():
        try:
            agent_meta = load_json(meta_file.read_bytes())[0]
        except (OSError, ValueError, RecursionError):
            agent_meta = None
        if isinstance(agent_meta, dict):
            session.meta["agent"] = agent_meta
    context = initial_context(path)
    records: list[Record] = []
    titles: dict[str, str] = {}
    first_prompt: str | None = None
    for record in iter_file_records(path, session_id, parse_lines, context):
        if not metadata_only:
            records.append(record)
        raw = record.raw if isinstance(record.raw, dict) else {}
        if record.ts_source == "host":
            session.started = session.started or record.ts
            session.updated = later(session.updated, record.ts)
        if session.cwd is None and isinstance(raw.get("cwd"), str):
            session.cwd = raw["cwd"]
        if session.model is None and record.model and record.role == "assistant":
            session.model = record.model
        if "version" not in session.meta and isinstance(raw.get("version"), str):
            session.meta["version"] = raw["version"]
        if "git_branch" not in session.meta and isinstance(raw.get("gitBranch"), str):
            session.meta["git_branch"] = raw["gitBranch"]
        if agent_id and session.parent is None and isinstance(raw.get("sessionId"), str):
            session.parent = raw["sessionId"]
        fold_title(titles, record)
        if first_prompt is None and is_prompt(record, agent_id is not None):
            first_prompt = prompt_title(record.text)
    session.title, session.title_source = choose_title(titles, first_prompt)
    return session, records
