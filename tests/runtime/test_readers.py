"""The transcript readers: every real transcript reads, counted and ordered independently.

Counts and order are checked against this file's own small parsers (line splitting, JSON,
the Gemini fold), never against the readers themselves.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.runtime.transcripts import claude as read_claude
from memhub.runtime.transcripts import codex as read_codex
from memhub.runtime.transcripts import cursor as read_cursor
from memhub.runtime.transcripts import gemini as read_gemini
from memhub.runtime.transcripts.records import Record, stable_id

from tests.conftest import REPO, material_root

READERS = {"claude": read_claude, "codex": read_codex, "cursor": read_cursor, "gemini": read_gemini}
FOLDERS = {"claude": "claude-code", "codex": "codex", "cursor": "cursor", "gemini": "gemini"}


def _transcripts(root: Path | None) -> list[tuple[str, str]]:
    """(host, path relative to the material) of every transcript in the material."""
    if root is None:
        return []
    found: list[tuple[str, str]] = []
    for host, folder in FOLDERS.items():
        for path in sorted((root / folder).rglob("*")):
            if not path.is_file():
                continue
            relative = path.relative_to(root).as_posix()
            if path.suffix == ".jsonl" or (host == "cursor" and path.suffix == ".db"):
                found.append((host, relative))
            elif host == "gemini" and path.suffix == ".json" and "gemini-cli" not in relative:
                found.append((host, relative))  # legacy recordings (not the CLI's own schemas)
    return found


TRANSCRIPTS = _transcripts(material_root())
JSONL = [(host, rel) for host, rel in TRANSCRIPTS if rel.endswith(".jsonl")]


# --- independent counting ------------------------------------------------------------------


def independent_lines(data: bytes) -> list[tuple[int, Any]]:
    """(end offset, JSON value or the line's text) of each record line, by hand.

    A non-blank line is a record; an unterminated last line only when it is JSON.
    """
    out: list[tuple[int, Any]] = []
    pos = 0
    while pos < len(data):
        newline = data.find(b"\n", pos)
        terminated = newline >= 0
        piece = data[pos : newline if terminated else len(data)]
        if piece.strip():
            try:
                value: Any = json.loads(piece)
            except ValueError:
                if not terminated:
                    break
                value = piece.decode("utf-8", "replace")
            out.append((newline + 1 if terminated else len(data), value))
        if not terminated:
            break
        pos = newline + 1
    return out


def independent_gemini(data: bytes) -> list[dict]:
    """The messages a Gemini JSONL log leaves, folded by hand: last per id, rewinds cut."""
    live: dict[str, dict] = {}
    for line in data.splitlines():
        if not line.strip():
            continue
        value = json.loads(line)
        if "$rewindTo" in value:
            ids = list(live)
            cut = ids.index(value["$rewindTo"]) if value["$rewindTo"] in live else 0
            for gone in ids[cut:]:
                del live[gone]
        elif "$set" in value:
            for message in value["$set"].get("messages") or []:
                live[message["id"]] = message
        elif "id" in value:
            live[value["id"]] = value
    return list(live.values())


def read(host: str, path: Path) -> tuple[Any, list[Record]]:
    return READERS[host].read_session(path)


# --- every transcript ------------------------------------------------------------------------


def test_material_holds_transcripts_of_every_host(material: Path) -> None:
    hosts = {host for host, _ in _transcripts(material)}
    assert hosts == set(READERS)


@pytest.mark.parametrize(("host", "relative"), TRANSCRIPTS, ids=[r for _, r in TRANSCRIPTS])
def test_every_transcript_reads_counted_and_ordered(
    material: Path, host: str, relative: str
) -> None:
    path = material / relative
    session, records = read(host, path)
    assert session.host == host and session.id and session.source == str(path)
    assert session.title_source in (None, "host", "user", "prompt")
    for record in records:
        assert record.id and record.ts.endswith("Z") and record.kind
        assert record.ts_source in ("host", "previous", "file")
        assert record.session == session.id and record.host == host
        assert json.loads(json.dumps(record.to_json()))["type"] == "record"
    if host == "gemini" and path.suffix == ".jsonl":
        expected = independent_gemini(path.read_bytes())
        assert [r.raw for r in records] == expected
        assert [r.id for r in records] == [m["id"] for m in expected]
    elif path.suffix == ".jsonl":
        expected = independent_lines(path.read_bytes())
        assert len(records) == len(expected)
        assert [r.end for r in records] == [end for end, _ in expected]
        assert [r.raw for r in records] == [value for _, value in expected]
    elif path.suffix == ".json":
        messages = json.loads(path.read_text()).get("messages") or []
        assert [r.raw for r in records] == messages
        assert all(r.end is None for r in records)
    else:  # a store.db: every JSON message blob
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        blobs = [bytes(d) for (d,) in conn.execute("SELECT data FROM blobs")]
        conn.close()
        assert len(records) == sum(1 for d in blobs if d[:1] == b"{" and b'"role"' in d)


def test_the_half_megabyte_real_line_and_empty_files_read(material: Path) -> None:
    real = (
        material / "claude-code/claude-code-log-real/-Users-dain-workspace-claude-code-log-sample"
    )
    _, records = read_claude.read_session(real / "0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl")
    assert max(len(json.dumps(r.raw)) for r in records) > 1_000_000
    empty, none = read_claude.read_session(real / "4fe49c7c-ff82-4ac7-b3f2-79c22036bd58.jsonl")
    assert none == [] and empty.title is None


# --- unknown types survive -----------------------------------------------------------------


def test_unknown_types_in_the_material_are_carried_with_their_raw_object(material: Path) -> None:
    _, codex = read_codex.read_session(
        material / "codex/claude-code-log/sessions/2026/01/02/"
        "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
    )
    future = [r for r in codex if r.kind == "future_synthetic_record"]
    assert len(future) == 1 and future[0].raw["type"] == "future_synthetic_record"
    _, claude = read_claude.read_session(material / "claude-code/agent-sessions/small.jsonl")
    assert {"frame-link", "atis-latch"} <= {r.kind for r in claude}


@pytest.mark.parametrize("host", ["claude", "codex", "cursor", "gemini"])
def test_an_unseen_type_and_a_broken_line_are_records(host: str) -> None:
    novel = {
        "type": "brand-new-type",
        "payload": {"x": [1, 2]},
        "timestamp": "2026-01-01T00:00:00Z",
    }
    data = json.dumps(novel).encode() + b"\n{not json\n"
    records = READERS[host].parse_lines("s1", data, 0, {})
    assert [r.kind for r in records] == ["brand-new-type", "invalid"]
    assert records[0].raw == novel and records[1].raw == "{not json"
    assert records[1].ts == "2026-01-01T00:00:00.000Z" and records[1].ts_source == "previous"


# --- parse_lines: the same ids under any chunking ------------------------------------------


def feed(host: str, session_id: str, data: bytes, cuts: list[int], path: Path) -> list[Record]:
    """parse_lines the way capture calls it: from each cursor to the last complete newline."""
    module = READERS[host]
    context = json.loads(json.dumps(module.initial_context(path)))  # it must survive JSON
    out: list[Record] = []
    cursor = 0
    for cut in [*sorted(set(cuts)), len(data)]:
        window = data[cursor:cut]
        complete = window.rfind(b"\n") + 1
        if not complete:
            continue
        out.extend(module.parse_lines(session_id, window[:complete], cursor, context))
        context = json.loads(json.dumps(context))
        cursor += complete
    return out


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_parse_lines_ids_match_the_whole_file_reader_under_any_chunking(
    material: Path, data: st.DataObject
) -> None:
    host, relative = data.draw(st.sampled_from(JSONL), label="transcript")
    path = material / relative
    session, whole = READERS[host].read_session(path)
    raw = original = path.read_bytes()
    if not raw.endswith(b"\n") and raw.strip():
        raw += b"\n"  # the whole-file reader takes a JSON last line even unterminated
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=12), label="cuts")
    pieces = feed(host, session.id, raw, cuts, path)
    if host == "gemini":
        pieces = read_gemini.fold(pieces)
    assert [r.id for r in pieces] == [r.id for r in whole]
    assert [r.ts for r in pieces] == [r.ts for r in whole]
    assert [min(r.end, len(original)) for r in pieces] == [r.end for r in whole]


def test_a_half_written_last_line_is_not_a_record_until_completed(tmp_path: Path) -> None:
    first = b'{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}\n'
    second = b'{"type":"assistant","uuid":"a1","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":"hello"}}\n'
    half = second[: len(second) // 2]
    context: dict[str, Any] = {}
    records = read_claude.parse_lines("s", first + half, 0, context)
    assert [r.id for r in records] == ["u1"] and records[0].end == len(first)
    rest = read_claude.parse_lines("s", second, len(first), context)
    assert [r.id for r in rest] == ["a1"] and rest[0].end == len(first) + len(second)
    # and the whole-file reader does not take a half-written (non-JSON) tail either
    path = tmp_path / "s.jsonl"
    path.write_bytes(first + half)
    assert [r.id for r in read_claude.read_session(path)[1]] == ["u1"]


def test_derived_ids_are_uuid5_of_host_session_and_offset() -> None:
    line = b'{"role":"user","message":{"content":[{"type":"text","text":"x"}]}}\n'
    records = read_cursor.parse_lines("chat-1", line * 2, 100, {})
    assert [r.id for r in records] == [
        stable_id("cursor", "chat-1", "100"),
        stable_id("cursor", "chat-1", str(100 + len(line))),
    ]
    assert all(r.id_source == "derived" and r.ts_source == "file" for r in records)


# --- Claude ----------------------------------------------------------------------------------


def _claude_line(**fields: Any) -> str:
    return json.dumps({"sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", **fields}) + "\n"


def test_claude_rename_outranks_the_generated_title(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        _claude_line(type="user", uuid="u1", message={"role": "user", "content": "fix the bug"})
        + _claude_line(type="ai-title", aiTitle="Generated title")
        + _claude_line(type="custom-title", customTitle="My name for it")
        + _claude_line(type="ai-title", aiTitle="A later generated title")
    )
    session, _ = read_claude.read_session(path)
    assert (session.title, session.title_source) == ("My name for it", "user")
    path.write_text(
        _claude_line(type="user", uuid="u1", message={"role": "user", "content": "fix the bug"})
        + _claude_line(type="ai-title", aiTitle="Generated title")
    )
    assert read_claude.read_session(path)[0].title_source == "host"
    path.write_text(
        _claude_line(
            type="user",
            uuid="u1",
            message={"role": "user", "content": "<command-name>/x</command-name>\n  first ask  "},
        )
    )
    session, _ = read_claude.read_session(path)
    assert (session.title, session.title_source) == ("first ask", "prompt")
    assert session.header(metadata_only=True)["title"] is None


def test_claude_material_titles_and_subagent_layouts(material: Path) -> None:
    small, records = read_claude.read_session(material / "claude-code/agent-sessions/small.jsonl")
    assert (small.title, small.title_source) == ("Stage0 small fixture", "user")
    kinds = {r.kind for r in records}
    assert {"compaction", "summary", "title", "tool_call", "tool_result"} <= kinds
    assert any(r.sidechain for r in records)
    worktrees = material / "claude-code/claude-code-log-real/-experiments-worktrees"
    new_layout = next(
        (worktrees / "ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents").glob("*.jsonl")
    )
    child, child_records = read_claude.read_session(new_layout)
    assert child.parent == "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    assert child.agent_id and child.id == f"agent-{child.agent_id}"
    assert "agentType" in child.meta["agent"]
    assert all(r.sidechain for r in child_records)
    flat = (
        material / "claude-code/claude-code-log-real/-Users-dain-workspace-claude-code-log-sample"
    )
    old, old_records = read_claude.read_session(flat / "agent-3be551df.jsonl")
    assert old.agent_id == "3be551df" and old.parent == "58edcfae-5291-436c-91e4-54fbb188a0ca"
    assert {r.agent_id for r in old_records} == {"3be551df"}


def test_claude_usage_is_the_hosts_own(material: Path) -> None:
    _, records = read_claude.read_session(
        material / "claude-code/ccusage/projects/project-alpha/session-alpha/chat.jsonl"
    )
    usages = [r.usage for r in records if r.usage]
    raws = [r.raw["message"]["usage"] for r in records if r.usage]
    assert usages and all(
        u["input_tokens"] == raw["input_tokens"] for u, raw in zip(usages, raws, strict=True)
    )


def test_claude_discovery_honours_claude_config_dir(tmp_path: Path) -> None:
    config = tmp_path / "elsewhere"
    project = config / "projects" / "-work-repo"
    (project / "s1" / "subagents" / "workflows" / "wf").mkdir(parents=True)
    for name in (
        "s1.jsonl",
        "agent-0a1b2c3d.jsonl",
        "s1/subagents/agent-x.jsonl",
        "s1/subagents/workflows/wf/agent-y.jsonl",
    ):
        (project / name).write_text(
            _claude_line(type="user", uuid=name, message={"role": "user", "content": "x"})
        )
    (project / "s1" / "tool-results").mkdir()
    (project / "s1" / "tool-results" / "big.jsonl").write_text("{}\n")
    found = read_claude.discover({"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path)})
    assert sorted(p.relative_to(project).as_posix() for p in found) == [
        "agent-0a1b2c3d.jsonl",
        "s1.jsonl",
        "s1/subagents/agent-x.jsonl",
        "s1/subagents/workflows/wf/agent-y.jsonl",
    ]


# --- Codex -----------------------------------------------------------------------------------

THREAD = "019b0000-1111-7222-8333-444455556666"


def _rollout(home: Path, lines: list[dict]) -> Path:
    path = home / "sessions/2026/01/02" / f"rollout-2026-01-02T03-04-05-{THREAD}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _meta(thread_source: Any = "user") -> dict:
    return {
        "timestamp": "2026-01-02T03:04:05Z",
        "type": "session_meta",
        "payload": {
            "id": THREAD,
            "cwd": "/w",
            "thread_source": thread_source,
            "originator": "codex_cli_rs",
        },
    }


def _ask(text: str) -> dict:
    return {
        "timestamp": "2026-01-02T03:04:06Z",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        },
    }


def test_codex_title_from_session_index_newest_entry(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    path = _rollout(
        home, [_meta(), _ask("<environment_context>x</environment_context>\nrename me")]
    )
    (home / "session_index.jsonl").write_text(
        json.dumps({"id": THREAD, "thread_name": "Old name", "updated_at": "2026-01-02T04:00:00Z"})
        + "\n"
        + json.dumps(
            {"id": "other", "thread_name": "Not this", "updated_at": "2026-01-03T00:00:00Z"}
        )
        + "\n"
        + json.dumps(
            {"id": THREAD, "thread_name": "New name", "updated_at": "2026-01-02T05:00:00Z"}
        )
        + "\n"
    )
    session, _ = read_codex.read_session(path)
    assert (session.title, session.title_source) == ("New name", "host")
    (home / "session_index.jsonl").unlink()
    session, _ = read_codex.read_session(path)
    assert (session.title, session.title_source) == ("rename me", "prompt")
    named = {
        "timestamp": "2026-01-02T03:05:00Z",
        "type": "event_msg",
        "payload": {"type": "thread_name_updated", "thread_name": "From the rollout"},
    }
    path = _rollout(home, [_meta(), _ask("rename me"), named])
    session, _ = read_codex.read_session(path)
    assert (session.title, session.title_source) == ("From the rollout", "host")


def test_codex_exposes_thread_source_and_usage(tmp_path: Path, material: Path) -> None:
    home = tmp_path / "codex"
    for value, expected in (
        ("subagent", "subagent"),
        ({"subagent": {"review": {}}}, "subagent"),
        ("memory_consolidation", "memory_consolidation"),
        (None, None),
    ):
        session, _ = read_codex.read_session(_rollout(home, [_meta(value)]))
        assert session.thread_source == expected and session.id == THREAD
    small, _ = read_codex.read_session(material / "codex/agent-sessions/small.jsonl")
    assert small.thread_source == "cli"
    _, records = read_codex.read_session(
        material / "codex/ccusage/sessions/project-alpha/session-alpha.jsonl"
    )
    usage = [r.usage for r in records if r.kind == "usage"]
    # last_token_usage per turn; input without the cached part
    assert usage == [
        {
            "input_tokens": 750,
            "output_tokens": 125,
            "cache_read_input_tokens": 250,
            "reasoning_tokens": 75,
            "total_tokens": 1200,
        },
        {
            "input_tokens": 2000,
            "output_tokens": 300,
            "cache_read_input_tokens": 500,
            "reasoning_tokens": 200,
            "total_tokens": 3000,
        },
    ]


def test_codex_discovery_honours_codex_home(tmp_path: Path) -> None:
    home = tmp_path / "ch"
    live = _rollout(home, [_meta()])
    archived = home / "archived_sessions" / live.name
    archived.parent.mkdir(parents=True)
    archived.write_text(live.read_text())
    assert sorted(read_codex.discover({"CODEX_HOME": str(home)})) == sorted([live, archived])


# --- Cursor ----------------------------------------------------------------------------------


def _tlv(field_no: int, payload: bytes) -> bytes:
    return bytes([(field_no << 3) | 2, len(payload)]) + payload


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _varint_field(field_no: int, value: int) -> bytes:
    return _varint(field_no << 3) + _varint(value)


def build_store(
    folder: Path, messages: list[dict], name: str = "Fix the flaky test"
) -> tuple[Path, list[str]]:
    """A tiny real cursor-agent store: JSON message blobs under one protobuf root node."""
    folder.mkdir(parents=True)
    path = folder / "store.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    ids = []
    for message in reversed(messages):  # table order is not conversation order
        data = json.dumps(message).encode()
        blob_id = hashlib.sha256(data).hexdigest()
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (blob_id, data))
        ids.insert(0, blob_id)
    root = b"".join(_tlv(1, bytes.fromhex(i)) for i in ids) + _varint_field(26, 1767225600000)
    root_id = hashlib.sha256(root).hexdigest()
    conn.execute("INSERT INTO blobs VALUES (?, ?)", (root_id, root))
    meta = {
        "agentId": folder.name,
        "name": name,
        "createdAt": 1767225500000,
        "latestRootBlobId": root_id,
        "lastUsedModel": "m-1",
    }
    conn.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
    conn.commit()
    conn.close()
    return path, ids


def test_cursor_store_db_walks_the_tree_read_only(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "You are an agent."},
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "<user_info>x</user_info><user_query>why is it flaky?</user_query>",
                }
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "look"},
                {"type": "tool-call", "toolCallId": "c1", "toolName": "read", "args": {}},
            ],
            "usage": {"inputTokens": 10, "outputTokens": 3},
        },
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "result": "ok"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "A race."}]},
    ]
    chat = tmp_path / ".cursor" / "chats" / "abc123" / "5f0c1e2d-0000-4000-8000-000000000001"
    path, ids = build_store(chat, messages)
    before = {p.name: p.stat().st_mtime_ns for p in chat.iterdir()}
    session, records = read_cursor.read_session(path)
    assert {p.name: p.stat().st_mtime_ns for p in chat.iterdir()} == before  # nothing written
    assert [r.id for r in records] == ids
    assert [r.raw for r in records] == messages
    assert [r.kind for r in records] == [
        "message",
        "message",
        "tool_call",
        "tool_result",
        "message",
    ]
    assert records[1].text == "why is it flaky?"
    assert records[2].usage == {"input_tokens": 10, "output_tokens": 3}
    assert {r.ts for r in records} == {"2026-01-01T00:00:00.000Z"} and all(
        r.end is None for r in records
    )
    assert session.id == chat.name and (session.title, session.title_source) == (
        "Fix the flaky test",
        "host",
    )
    assert read_cursor.discover({"HOME": str(tmp_path)}) == [path]
    _, default_named = read_cursor.read_session(
        build_store(tmp_path / "c2", messages, name="New Agent")[0]
    )
    assert read_cursor.read_session(tmp_path / "c2" / "store.db")[0].title == "why is it flaky?"
    assert len(default_named) == len(messages)


def test_cursor_material_store_and_transcripts(material: Path) -> None:
    session, records = read_cursor.read_session(
        material / "cursor/agent-sessions/tests/test-store.db"
    )
    assert records == [] and session.title == "Test Session" and session.model == "claude-4-sonnet"
    parent, _ = read_cursor.read_session(
        material / "cursor/agent-sessions/tests/test-session.jsonl"
    )
    assert (parent.title, parent.title_source) == ("run ls command", "prompt")
    child, _ = read_cursor.read_session(
        material / "cursor/agent-sessions/subagent/subagents/child.jsonl"
    )
    assert child.parent == "subagent" and child.agent_id == "child"


# --- Gemini ----------------------------------------------------------------------------------


def test_gemini_set_and_rewind_last_record_per_id_wins(tmp_path: Path) -> None:
    lines = [
        {
            "sessionId": "g-1",
            "projectHash": "h",
            "startTime": "2026-01-01T00:00:00Z",
            "kind": "main",
        },
        {
            "id": "m1",
            "timestamp": "2026-01-01T00:00:01Z",
            "type": "user",
            "content": [{"text": "hello there"}],
        },
        {
            "id": "m2",
            "timestamp": "2026-01-01T00:00:02Z",
            "type": "gemini",
            "content": "",
            "toolCalls": [{"id": "t"}],
        },
        {"$set": {"lastUpdated": "2026-01-01T00:00:03Z", "summary": "Greeting session"}},
        {
            "id": "m2",
            "timestamp": "2026-01-01T00:00:02Z",
            "type": "gemini",
            "content": "done",
            "tokens": {
                "input": 10,
                "output": 2,
                "cached": 4,
                "thoughts": 1,
                "tool": 0,
                "total": 12,
            },
        },
        {"id": "m3", "timestamp": "2026-01-01T00:00:04Z", "type": "user", "content": "wrong turn"},
        {"id": "m4", "timestamp": "2026-01-01T00:00:05Z", "type": "gemini", "content": "oops"},
        {"$rewindTo": "m3"},
        {"id": "m5", "timestamp": "2026-01-01T00:00:06Z", "type": "user", "content": "again"},
        {"$set": {"messages": [{"id": "m6", "type": "info", "content": "compressed"}]}},
    ]
    path = tmp_path / "session-2026-01-01T00-00-g1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session, records = read_gemini.read_session(path)
    assert [r.id for r in records] == ["m1", "m2", "m5", "m6"]
    assert records[1].text == "done" and records[1].kind == "message"
    assert records[1].usage == {
        "input_tokens": 6,
        "output_tokens": 2,
        "cache_read_input_tokens": 4,
        "reasoning_tokens": 1,
        "tool_tokens": 0,
        "total_tokens": 12,
    }
    assert records[3].kind == "event" and records[3].role == "system"
    assert (session.id, session.title, session.title_source) == ("g-1", "Greeting session", "host")
    assert session.updated == "2026-01-01T00:00:06.000Z"
    # line by line, the operations are records of their own, with stable derived ids
    streamed = read_gemini.parse_lines("g-1", path.read_bytes(), 0, {})
    assert [r.kind for r in streamed].count("rewind") == 1 and [r.kind for r in streamed].count(
        "set"
    ) == 2
    assert [r.id for r in read_gemini.fold(streamed)] == ["m1", "m2", "m5", "m6"]
    # an unknown rewind target empties the conversation
    path.write_text(
        "".join(json.dumps(line) + "\n" for line in [*lines[:4], {"$rewindTo": "nope"}])
    )
    assert read_gemini.read_session(path)[1] == []
    assert read_gemini.read_session(path)[0].title == "Greeting session"


def test_gemini_discovery_and_subagents(tmp_path: Path) -> None:
    chats = tmp_path / ".gemini" / "tmp" / "projhash" / "chats"
    (chats / "g-parent").mkdir(parents=True)
    main = chats / "session-2026-01-01T00-00-aaaa1111.jsonl"
    main.write_text(json.dumps({"sessionId": "g-parent"}) + "\n")
    child = chats / "g-parent" / "g-child.jsonl"
    child.write_text(json.dumps({"sessionId": "g-child"}) + "\n")
    legacy = chats / "session-2025-01-01T00-00-bbbb2222.json"
    legacy.write_text(json.dumps({"sessionId": "g-old", "messages": []}))
    assert sorted(read_gemini.discover({"HOME": str(tmp_path)})) == sorted([main, child, legacy])
    session, _ = read_gemini.read_session(child)
    assert (session.id, session.parent) == ("g-child", "g-parent")


# --- the runtime stays stdlib-only, vendored whole ------------------------------------------


def test_runtime_imports_under_python_S_with_no_third_party_module(tmp_path: Path) -> None:
    """Every module of the runtime as a bundle vendors it (build's own copy, subpackages
    included) imports under `python3 -S -I` and pulls in nothing outside the stdlib."""
    from memhub.compiler.hosts.common import NOT_VENDORED, RUNTIME_PACKAGE, runtime_artifacts
    from memhub.hubspec import load

    hub = load(REPO / "examples" / "memhub")
    assert hub.needs_runtime
    artifacts = runtime_artifacts(hub, "bundle")
    shipped = sorted(a.path.partition(f"/{RUNTIME_PACKAGE}/")[2] for a in artifacts)
    source = sorted(
        str(p.relative_to(REPO / "runtime"))
        for p in (REPO / "runtime").rglob("*.py")
        if "__pycache__" not in p.parts
        and not str(p.relative_to(REPO / "runtime")).startswith(NOT_VENDORED)
    )
    assert shipped == source  # no module of a subpackage is left behind
    for artifact in artifacts:
        target = tmp_path / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
    root = Path(artifacts[0].path.partition(f"/{RUNTIME_PACKAGE}/")[0])
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(
        _claude_line(type="user", uuid="u1", message={"role": "user", "content": "hi"})
    )
    modules = [RUNTIME_PACKAGE + "." + name[:-3].replace("/", ".") for name in shipped]
    probe = f"""
import importlib, sys
sys.path.insert(0, {str(tmp_path / root)!r})
before = set(sys.modules)
from memhub_runtime.transcripts import claude as read_claude
session, recs = read_claude.read_session({str(transcript)!r})
assert [r.id for r in recs] == ["u1"], recs
for name in {modules!r}:
    importlib.import_module(name.removesuffix(".__init__"))
new = {{name.split(".")[0] for name in set(sys.modules) - before}}
third = sorted(n for n in new if n not in sys.stdlib_module_names and n != "memhub_runtime")
print(third)
"""
    result = subprocess.run(
        [sys.executable, "-S", "-I", "-c", probe],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def _usage_per_message(path: Path) -> dict[str, int]:
    """Each API message's last (complete) usage, summed: read independently of the readers."""
    last: dict[Any, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line) if line.strip() else None
        message = obj.get("message") if isinstance(obj, dict) else None
        if isinstance(message, dict) and isinstance(message.get("usage"), dict):
            last[message.get("id") or object()] = message["usage"]
    total: dict[str, int] = {}
    for usage in last.values():
        for key in ("input_tokens", "output_tokens", "cache_read_input_tokens"):
            if isinstance(usage.get(key), int):
                total[key] = total.get(key, 0) + usage[key]
    return total


def test_claude_usage_is_counted_once_per_api_message(material: Path) -> None:
    """Claude repeats a message's usage on each content-block line; summing records' usage
    must give each message's usage once, whole, and every record names its message."""
    real = sorted((material / "claude-code" / "claude-code-log-real").rglob("*.jsonl"))
    checked = 0
    for path in real:
        _, records = read_claude.read_session(path)
        total: dict[str, int] = {}
        for record in records:
            for key, value in (record.usage or {}).items():
                total[key] = total.get(key, 0) + value
            if isinstance(record.raw, dict) and isinstance(record.raw.get("message"), dict):
                assert record.message_id == record.raw["message"].get("id")
        expected = _usage_per_message(path)
        assert {k: total.get(k, 0) for k in expected} == expected, path
        checked += bool(expected.get("output_tokens"))
    assert checked >= 10
