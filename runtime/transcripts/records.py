"""The canonical record stream every transcript reader produces, and its line-level contract.

Stdlib only, relative imports only: bundles vendor this folder and run it under `python3 -S`.
The readers' shared helpers sit beside this module: `timestamps` (ISO-8601 UTC), `lines`
(complete lines, JSON per line, invalid lines as records), `titles` (titles and text).

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
- `raw`: the host's original object, unchanged except for text no store takes: bytes that
  are not UTF-8 and lone surrogates (`\\ud83c`, as Node writes when it cuts a string inside
  an emoji) are replaced by U+FFFD (`clean`), in `raw` and in every field taken from it.
- `repaired`: True when that replacement happened; `to_json()` then carries
  `"repaired": true` (and only then, so a clean record's JSON, and digest, is unchanged).
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
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

HOSTS = ("claude", "codex", "copilot", "cursor", "gemini")
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
    repaired: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
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
        if self.repaired:
            out["repaired"] = True
        return out


def type_of(obj: Mapping[str, Any], key: str = "type") -> str | None:
    """A line's type name: a string, else None (a line may hold a list or an object there,
    and a reader compares it with its sets and tables of names)."""
    value = obj.get(key)
    return value if isinstance(value, str) else None


def is_host_id(value: Any) -> TypeGuard[str]:
    """Whether a host-given id is usable: a non-empty token (placeholders with spaces are not)."""
    return (
        isinstance(value, str)
        and bool(value)
        and len(value.split()) == 1
        and value == value.strip()
    )


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
