"""GitHub Copilot CLI's session file (runtime/transcripts/copilot.py).

The fixture is a real copilot 1.0.102 session of our own (the e2e probe hub against the
scripted model: a prompt, a bash call, a failed bash call, the answer; paths replaced, the
system prompt trimmed). Counts and ids are checked against this file's own line parsing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from memhub.runtime.capture.sources import admit
from memhub.runtime.transcripts import copilot as reader
from memhub.runtime.transcripts.records import stable_id

from tests.conftest import REPO

SID = "ba5ceb83-6c28-42a2-91d6-64ccf9585c35"
FIXTURE = REPO / "tests" / "data" / "transcripts" / "copilot" / SID / "events.jsonl"


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def _home(tmp_path: Path) -> Path:
    """A Copilot home holding the fixture session; its events.jsonl."""
    target = tmp_path / ".copilot" / "session-state" / SID / "events.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copy(FIXTURE, target)
    return target


def test_the_real_session_reads_every_line_in_order() -> None:
    session, records = reader.read_session(FIXTURE)
    lines = _lines(FIXTURE.read_bytes())
    assert [r.id for r in records] == [line["id"] for line in lines]
    assert all(r.id_source == "host" and r.ts_source == "host" for r in records)
    assert records[-1].end == FIXTURE.stat().st_size
    assert (session.id, session.host, session.title, session.title_source) == (
        SID,
        "copilot",
        "say hello",
        "prompt",
    )
    assert (session.cwd, session.model) == ("/home/dev/src/app", "claude-sonnet-4.5")
    assert session.meta == {"git_branch": "master", "version": "1.0.102"}
    assert (session.started, session.updated) == (records[0].ts, records[-1].ts)


def test_kinds_roles_and_text() -> None:
    _, records = reader.read_session(FIXTURE)
    seen = [(r.subtype, r.kind, r.role) for r in records if r.kind not in ("event",)]
    assert seen == [
        ("session.start", "meta", None),
        ("user.message", "message", "user"),
        ("system.message", "meta", "system"),
        ("session.usage_record", "usage", None),
        ("assistant.message", "tool_call", "assistant"),
        ("tool.execution_complete", "tool_result", "tool"),
        ("session.usage_record", "usage", None),
        ("assistant.message", "tool_call", "assistant"),
        ("tool.execution_complete", "tool_result", "tool"),
        ("session.usage_record", "usage", None),
        ("assistant.message", "message", "assistant"),
    ]
    texts = [r.text for r in records if r.kind in ("message", "tool_result")]
    assert texts[0] == "say hello" and texts[-1] == "All done."
    assert texts[1].startswith("memhub-copilot-e2e\n")  # the bash output as the model got it
    assert texts[2] == '"command": Required'  # the failed call's error
    usage = [r.usage for r in records if r.usage]
    assert len(usage) == 3 and all(u["input_tokens"] == 5 for u in usage)
    events = {r.subtype for r in records if r.kind == "event"}
    assert events == {"hook.start", "hook.end", "assistant.turn_start", "assistant.turn_end",
                      "tool.execution_start", "session.shutdown"}  # fmt: skip


@pytest.mark.parametrize("step", [1, 7, 333, 4096])
def test_parse_lines_in_chunks_gives_the_whole_file_ids(step: int) -> None:
    data = FIXTURE.read_bytes()
    _, whole = reader.read_session(FIXTURE)
    context = reader.initial_context(FIXTURE)
    got, start = [], 0
    while start < len(data):
        chunk = data[start : start + step]
        if b"\n" not in chunk:  # a half-written line: passed again, completed, next time
            chunk = data[start : data.index(b"\n", start) + 1]
        cut = chunk.rindex(b"\n") + 1
        found = reader.parse_lines(SID, chunk[:cut], start, context)
        got.extend(found)
        start += cut
    assert [(r.id, r.end) for r in got] == [(r.id, r.end) for r in whole]


def test_a_broken_line_an_unknown_type_and_a_line_without_id(tmp_path: Path) -> None:
    path = tmp_path / SID / "events.jsonl"
    path.parent.mkdir()
    good = {"type": "assistant.newthing", "data": {"x": 1}, "id": "n1",
            "timestamp": "2026-12-06T18:21:05.472Z"}  # fmt: skip
    anonymous = {"type": "user.message", "data": {"content": "hi there"}, "id": "a b"}
    path.write_bytes(
        json.dumps(good).encode() + b"\n{not json\n" + json.dumps(anonymous).encode() + b"\n"
        b'{"type": "half'
    )
    session, records = reader.read_session(path)
    assert [(r.kind, r.id_source) for r in records] == [
        ("assistant.newthing", "host"),
        ("invalid", "derived"),
        ("message", "derived"),
    ]
    assert records[0].raw == good and records[1].raw == "{not json"
    offset = len(json.dumps(good)) + 1 + len("{not json\n")
    assert records[2].id == stable_id("copilot", SID, str(offset))
    assert records[2].ts == records[0].ts and records[2].ts_source == "previous"
    assert session.title == "hi there"


def test_discovery_honours_copilot_home(tmp_path: Path) -> None:
    target = _home(tmp_path)
    (target.parent.parent / "not-a-session").mkdir()
    assert reader.discover({"HOME": str(tmp_path)}) == [target]
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / ".copilot", moved)
    env = {"HOME": str(tmp_path), "COPILOT_HOME": str(moved)}
    assert reader.discover(env) == [moved / "session-state" / SID / "events.jsonl"]
    assert reader.roots({"HOME": str(tmp_path), "COPILOT_HOME": "relative/dir"}) == []
    assert reader.session_id_for(target) == SID


def test_capture_reads_only_copilots_own_session_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook payload's `transcriptPath` is anyone's to write: capture admits only a regular
    file under Copilot's session-state, after resolving links."""
    target = _home(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    assert admit("copilot", target) == (target.resolve(), None)
    secret = tmp_path / "secret.txt"
    secret.write_text("token")
    link = target.parent / "link.jsonl"
    link.symlink_to(secret)
    for hostile in (secret, link, target.parent / ".." / ".." / ".." / "secret.txt"):
        path, why = admit("copilot", hostile)
        assert path is None and why and "transcript folders" in why, hostile
