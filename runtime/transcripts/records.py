"""The canonical record stream every transcript reader produces, and its line-level contract.

Stdlib only, relative imports only: bundles vendor this folder and run it under `python3 -S`.

Two types
---------
`Session` is a transcript's identity header: its id, host, source path, title (and where the
title came from: "host" when the host generated it, "user" when the user renamed the session,
"prompt" when memhub derived it from the first prompt, None when there is none), first and
last timestamps, working directory, Codex `thread_source`, and for a subagent transcript the
parent session and agent id. `Session.header(metadata_only)` is its JSON line
(`"type": "session"`); metadata-only drops a prompt-derived title (it is user content).

`Record` is one entry of a transcript: one line of a JSONL transcript, one message of a JSON
or SQLite store. `Record.to_json()` is its JSON line (`"type": "record"`). Fields:

- `id`: stable. The host's own id where it has one (Claude `uuid`, Gemini message `id`,
  Cursor store blob hash), else `stable_id(host, session id, str(byte offset of the line))`
  (the offset of the line's first byte in its source file, so the same line always gets the
  same id however the file is chunked). `id_source` says which ("host" | "derived").
  A host id is used only when it is a token (`is_host_id`: no whitespace; fixtures' "[trimmed]"
  placeholders are not ids). The same id twice in one source is the same record rewritten
  (Gemini rewrites a message in full under its id): the later one replaces the earlier one,
  so consumers upsert by id.
- `ts`: ISO-8601 UTC (`YYYY-MM-DDTHH:MM:SS.mmmZ`). `ts_source` says where it came from:
  "host" (the record's own), "previous" (inherited from the previous record of the same
  source, for hosts that stamp only some lines), "file" (no earlier timestamp: the
  source's start, see `context["file_ts"]`).
- `kind`: one of `KINDS`, or the host's own type string when the type is unknown to the
  reader. Unknown types are carried with `raw`, never dropped; a line that is not JSON is a
  record of kind "invalid" whose `raw` is the line's text.
- `role` ("user" | "assistant" | "system" | "tool" | None), `text` (readable text or None),
  `usage` (token counters the host recorded, canonical keys `USAGE_KEYS`, or None: never
  estimated; counted once per API message, so summing `usage` over records is the
  session's total: see `usage_once`), `message_id` (the host's API message id: Claude
  writes one line per content block of a message, each repeating the message's usage so
  far), `sidechain` (Claude side chain / subagent record), `agent_id` (the subagent
  that wrote it), `parent` (the host's parent record id), `subtype` (the host's own sub-type),
  `model`.
- `raw`: the host's original object, unchanged.
- `end`: byte offset just past the record's line (its newline included) in its source file;
  None for sources that are not byte streams (Cursor store.db, Gemini legacy `.json`).

Host modules (`read_claude`, `read_codex`, `read_cursor`, `read_gemini`) each provide
--------------------------------------------------------------------------------------
- `HOST`: the host name.
- `roots(env=None) -> list[Path]`: where the host keeps transcripts (honouring
  `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `HOME`); capture reads nothing else.
- `discover(env=None) -> list[Path]`: every transcript source under those roots.
- `read_session(path, metadata_only=False) -> (Session, list[Record])`: the whole source.
  With `metadata_only` the list is empty (the source is still scanned for its title).
  A JSONL source's unterminated last line counts only if it parses as JSON (a transcript
  may simply lack its final newline); a half-written one is not a record.
- `initial_context(path) -> dict`: the context for the first `parse_lines` call on `path`.
- optional, where subagents write transcripts of their own (Claude, Cursor):
  `subagents(path, flat=False) -> list[Path]`, the subagent transcripts a session's
  transcript spawned, and `subagent_of(path) -> (agent id, parent session id)`.
- `parse_lines(session_id, data, start, context) -> list[Record]` (JSONL hosts):
  `data` holds bytes of the transcript starting at byte offset `start`, which must be the
  start of a line. Every COMPLETE line of `data` (ending in b"\\n") becomes records, with ids
  identical to those `read_session` gives for the same lines; bytes after the last newline
  (a half-written line) are ignored and must be passed again, completed, on the next call.
  `context` is a small JSON-serialisable dict the caller persists between calls on the same
  source and passes back (the readers update it in place): e.g. the last timestamp seen
  (`"ts"`), the source's fallback timestamp (`"file_ts"`), the Codex `session_meta`
  summary, the last cumulative usage snapshot. Pass `initial_context(path)` on the first
  call (or `{}`). Per record, `end` tells the caller how far the source is consumed.
  For Gemini, `parse_lines` also yields the log's `$set` / `$rewindTo` operations as records
  (kinds "set" and "rewind"); `read_gemini.fold` applies them the way `read_session` does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeGuard

HOSTS = ("claude", "codex", "cursor", "gemini")
NAMESPACE = uuid.UUID("0d6f3b52-6a3e-5a8e-9c1e-6d656d687562")  # fixed: never change
TITLE_SOURCES = ("host", "user", "prompt")
KINDS = (
    "message",  # user or assistant text
    "tool_call",  # the model asks for a tool
    "tool_result",  # a tool's output
    "reasoning",  # thinking / reasoning summary
    "summary",  # a host-written summary of (part of) the session
    "compaction",  # context compaction boundary or replacement history
    "title",  # a title record (generated or a rename)
    "meta",  # session metadata (Codex session_meta, turn_context, Gemini header)
    "event",  # a host event that is not conversation content
    "usage",  # token counters only
    "set",  # Gemini `$set` operation
    "rewind",  # Gemini `$rewindTo` operation
    "invalid",  # a line that is not JSON
)
USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "reasoning_tokens",
    "tool_tokens",
    "total_tokens",
)
BLOCK = 1 << 22  # bytes read per step by the whole-file readers


_NAMESPACE_BYTES = NAMESPACE.bytes


def host_dir(env: Mapping[str, str], name: str, default: Path) -> Path | None:
    """The folder a host's override variable (CLAUDE_CONFIG_DIR, CODEX_HOME, ...) names, else
    `default`. Empty counts as unset, as the hosts treat it. A relative value gives None:
    the host resolved it against the folder it started in, which neither a hook nor
    `memhub sessions` can know (the compiler refuses such a value too), so no folder of
    that host is read rather than a guessed one."""
    value = env.get(name)
    if not value:
        return default
    path = Path(value)
    return path if path.is_absolute() else None


def stable_id(*parts: str) -> str:
    """A deterministic uuid5 under memhub's fixed namespace (`uuid.uuid5`, computed inline)."""
    digest = bytearray(hashlib.sha1(_NAMESPACE_BYTES + "\x1f".join(parts).encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


@dataclass
class Session:
    id: str
    host: str
    source: str
    title: str | None = None
    title_source: str | None = None
    started: str | None = None
    updated: str | None = None
    cwd: str | None = None
    thread_source: str | None = None
    parent: str | None = None
    agent_id: str | None = None
    model: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def header(self, metadata_only: bool = False) -> dict[str, Any]:
        title, title_source = self.title, self.title_source
        if metadata_only and title_source == "prompt":
            title, title_source = None, None
        return {
            "type": "session",
            "id": self.id,
            "host": self.host,
            "source": self.source,
            "title": title,
            "title_source": title_source,
            "started": self.started,
            "updated": self.updated,
            "cwd": self.cwd,
            "thread_source": self.thread_source,
            "parent": self.parent,
            "agent_id": self.agent_id,
            "model": self.model,
            "meta": self.meta,
        }


@dataclass
class Record:
    id: str
    session: str
    host: str
    ts: str
    kind: str
    role: str | None = None
    text: str | None = None
    usage: dict[str, int] | None = None
    sidechain: bool = False
    agent_id: str | None = None
    raw: Any = None
    end: int | None = None
    ts_source: str = "host"
    id_source: str = "host"
    parent: str | None = None
    subtype: str | None = None
    model: str | None = None
    message_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "record",
            "id": self.id,
            "session": self.session,
            "host": self.host,
            "ts": self.ts,
            "ts_source": self.ts_source,
            "id_source": self.id_source,
            "kind": self.kind,
            "subtype": self.subtype,
            "role": self.role,
            "text": self.text,
            "usage": self.usage,
            "model": self.model,
            "sidechain": self.sidechain,
            "agent_id": self.agent_id,
            "parent": self.parent,
            "message_id": self.message_id,
            "end": self.end,
            "raw": self.raw,
        }


def is_host_id(value: Any) -> TypeGuard[str]:
    """Whether a host-given id is usable: a non-empty token (placeholders with spaces are not)."""
    return (
        isinstance(value, str)
        and bool(value)
        and len(value.split()) == 1
        and value == value.strip()
    )


# --- timestamps ---------------------------------------------------------------------------

EPOCH = "1970-01-01T00:00:00.000Z"
_CANONICAL_TS = re.compile(
    r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z"
)


def format_ts(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def iso_utc(value: Any) -> str | None:
    """`value` (ISO-8601 string, epoch seconds or milliseconds) as ISO-8601 UTC, else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return format_ts(datetime.fromtimestamp(seconds, UTC))
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value:
        return None
    if _CANONICAL_TS.fullmatch(value):
        return value  # already YYYY-MM-DDTHH:MM:SS.mmmZ (most hosts write exactly this)
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        # more than 6 fractional digits (e.g. nanoseconds) is not ISO for Python
        match = re.match(r"^(.*T\d\d:\d\d:\d\d)\.(\d+)(.*)$", text)
        if not match:
            return None
        try:
            moment = datetime.fromisoformat(f"{match[1]}.{match[2][:6]}{match[3]}")
        except ValueError:
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return format_ts(moment)


def file_ts(path: Path | str) -> str:
    """A source's modification time, the timestamp of last resort."""
    try:
        return format_ts(datetime.fromtimestamp(os.stat(path).st_mtime, UTC))
    except OSError:
        return EPOCH


def take_ts(value: Any, context: dict[str, Any]) -> tuple[str, str]:
    """The record's timestamp and its source, updating `context["ts"]`."""
    ts = iso_utc(value)
    if ts is not None:
        context["ts"] = ts
        return ts, "host"
    previous = context.get("ts")
    if previous:
        return previous, "previous"
    return context.get("file_ts") or EPOCH, "file"


# --- usage ---------------------------------------------------------------------------------


def usage_of(**counters: Any) -> dict[str, int] | None:
    """Canonical usage: only the non-negative integer counters given, None when there are none."""
    out = {
        key: value
        for key, value in counters.items()
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0
    }
    return out or None


def usage_once(
    message_id: str | None, usage: dict[str, int] | None, context: dict[str, Any]
) -> dict[str, int] | None:
    """The part of `usage` not yet counted for its API message: the counters the host
    wrote on an earlier line of the same message (in `context["message_usage"]`) are
    subtracted, so each message is counted once (its last, full counters in total).

    Claude repeats a message's usage on every content-block line, growing as the message
    streams: summing it per line over-counted output tokens 3.3 times in a real session.
    Lines of one message are consecutive, so only the latest message is remembered.
    """
    if usage is None or not message_id:
        return usage
    seen = context.get("message_usage")
    counted: dict[str, int] = {}
    if isinstance(seen, list) and len(seen) == 2 and seen[0] == message_id:
        counted = seen[1] if isinstance(seen[1], dict) else {}
    grown = {key: value - counted.get(key, 0) for key, value in usage.items()}
    context["message_usage"] = [message_id, {**counted, **usage}]
    return {key: value for key, value in grown.items() if value > 0} or None


# --- lines ---------------------------------------------------------------------------------


def complete_lines(data: bytes, start: int) -> Iterator[tuple[int, int, bytes]]:
    """(offset, end, line) for every complete, non-blank line of `data` (offsets absolute)."""
    pos = 0
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        if nl < 0:
            return
        line = data[pos:nl]
        if line.strip():
            yield start + pos, start + nl + 1, line
        pos = nl + 1


def load_line(line: bytes) -> Any:
    """The line's JSON value, or `INVALID` when it is not JSON."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return INVALID


INVALID = object()


def jsonl_records(
    host: str,
    session_id: str,
    data: bytes,
    start: int,
    context: dict[str, Any],
    to_record: Callable[[str, dict[str, Any], int, int, dict[str, Any]], Record],
) -> list[Record]:
    """The `parse_lines` every JSONL reader shares: each complete line of `data` as a record.

    An object line goes through the host's `to_record(session_id, obj, offset, end,
    context)`; a line that is not JSON, or JSON but not an object, is carried as kind
    "invalid" (with the parsed value as `raw` when it parsed).
    """
    out: list[Record] = []
    for offset, end, line in complete_lines(data, start):
        value = load_line(line)
        if value is INVALID or not isinstance(value, dict):
            record = invalid_record(host, session_id, offset, end, line, context)
            if value is not INVALID:
                record.raw = value
            out.append(record)
            continue
        out.append(to_record(session_id, value, offset, end, context))
    return out


def invalid_record(
    host: str, session_id: str, offset: int, end: int, line: bytes, context: dict[str, Any]
) -> Record:
    ts, ts_source = take_ts(None, context)
    return Record(
        id=stable_id(host, session_id, str(offset)),
        session=session_id,
        host=host,
        ts=ts,
        ts_source=ts_source,
        kind="invalid",
        raw=line.decode("utf-8", "replace"),
        end=end,
        id_source="derived",
    )


ParseLines = Callable[[str, bytes, int, dict[str, Any]], list[Record]]


def iter_file_records(
    path: Path | str, session_id: str, parse: ParseLines, context: dict[str, Any]
) -> Iterator[Record]:
    """Every record of a JSONL file through `parse`, read in bounded blocks.

    An unterminated last line is parsed only when it is valid JSON (else it is taken to be
    half-written and left out, as `parse_lines` leaves it out).
    """
    with open(path, "rb") as handle:
        offset = 0
        pending = b""
        while True:
            block = handle.read(BLOCK)
            if not block:
                break
            data = pending + block
            cut = data.rfind(b"\n") + 1
            if cut:
                yield from parse(session_id, data[:cut], offset, context)
                offset += cut
                pending = data[cut:]
            else:
                pending = data
        if pending.strip() and load_line(pending) is not INVALID:
            for record in parse(session_id, pending + b"\n", offset, context):
                record.end = offset + len(pending)  # just past the line: the end of the file
                yield record


# --- text -------------------------------------------------------------------------------

# Blocks the hosts wrap around what the user typed: the named ones, and any tag whose name
# has a `_` or `-` (ide_selection, ide_opened_file, user_query, ...: host-made, unlike HTML)
_WRAPPER = re.compile(
    r"<(system-reminder|command-name|command-message|command-args|local-command-stdout|"
    r"local-command-stderr|local-command-caveat|environment_context|user_instructions|"
    r"recommended_plugins|session_context|[a-z]+(?:[_-][a-z0-9]+)+)(?:\s[^>]*)?>.*?</\1>",
    re.S,
)
TITLE_MAX = 80


def fold_title(titles: dict[str, str], record: Record) -> None:
    """Fold one record into `titles` (title source -> text): the one title rule that
    `memhub sessions` (the readers) and capture share, fed record by record so that a
    whole-file read and capture's deltas agree. The latest of each source wins: "user" (a
    rename: Claude `custom-title`), "host" (generated: Claude `ai-title`, Codex
    `thread_name_updated`, Gemini `$set.summary`), "summary" (Claude's older summary lines).
    """
    if record.kind == "title" and record.text:
        titles["user" if record.subtype == "custom-title" else "host"] = record.text
    elif record.kind == "summary" and record.subtype is None and record.text:
        titles["summary"] = record.text
    elif record.kind == "set" and isinstance(record.raw, dict):
        change = record.raw.get("$set")
        summary = change.get("summary") if isinstance(change, dict) else None
        if isinstance(summary, str) and summary.strip():
            titles["host"] = summary.strip()


def choose_title(titles: dict[str, str], first_prompt: str | None) -> tuple[str | None, str | None]:
    """(title, title source): a rename, else the host's title, else a summary line, else
    the first prompt (`prompt_title`), else none."""
    if titles.get("user"):
        return titles["user"], "user"
    for key in ("host", "summary"):
        if titles.get(key):
            return titles[key], "host"
    if first_prompt:
        return first_prompt, "prompt"
    return None, None


def prompt_title(text: str | None) -> str | None:
    """A first prompt as a title: wrappers removed, one line, at most 80 characters."""
    if not text:
        return None
    cleaned = _WRAPPER.sub(" ", text)
    for line in cleaned.splitlines():
        line = " ".join(line.split())
        if line and not line.startswith("<"):
            break
    else:
        return None
    if len(line) <= TITLE_MAX:
        return line
    cut = line[: TITLE_MAX - 1]
    space = cut.rfind(" ")
    if space >= TITLE_MAX // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def block_text(content: Any, types: tuple[str, ...] = ("text", "input_text", "output_text")) -> str:
    """The joined text of a string or of a list of content blocks of the given types."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type", "text") in types:
                value = block.get("text")
                if isinstance(value, str):
                    parts.append(value)
    return "\n".join(parts)


def later(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def earlier(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


_CALL_BLOCKS = frozenset({"tool_use", "tool_call", "tool-call", "server_tool_use"})
_RESULT_BLOCKS = frozenset({"tool_result", "tool-result", "web_search_tool_result"})
_THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking", "reasoning"})


def classify_blocks(content: Any) -> tuple[str, str | None]:
    """(kind, text) of Anthropic- or Vercel-style message content (a string or blocks)."""
    if isinstance(content, str):
        return "message", content
    if not isinstance(content, list):
        return "message", None
    types = {block.get("type") for block in content if isinstance(block, dict)}
    texts: list[str] = []
    if types & _RESULT_BLOCKS:
        for block in content:
            if isinstance(block, dict) and block.get("type") in _RESULT_BLOCKS:
                inner = block.get("content", block.get("result"))
                text = block_text(inner) if not isinstance(inner, dict) else None
                if text:
                    texts.append(text)
        return "tool_result", "\n".join(texts) or None
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif isinstance(block, str):
            texts.append(block)
    text = "\n".join(texts) or None
    if types & _CALL_BLOCKS:
        return "tool_call", text
    if types and types <= _THINKING_BLOCKS:
        thoughts = [
            block.get("thinking") or block.get("text") or ""
            for block in content
            if isinstance(block, dict)
        ]
        return "reasoning", "\n".join(t for t in thoughts if isinstance(t, str) and t) or None
    return "message", text
