"""`memhub sessions`: exit codes, valid JSONL on partial failure, filters, read-only."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.cli.sessions import EXIT_INCOMPLETE

CLAUDE_SESSION = "11111111-2222-4333-8444-555555555555"
CODEX_THREAD = "019b0000-aaaa-7bbb-8ccc-dddddddddddd"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict], str]:
    code = main(["sessions", *args])
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]  # every line is JSON
    assert out == "" or out.endswith("\n")
    return code, lines, err


def by_session(lines: list[dict]) -> dict[str, list[dict]]:
    """Records grouped under the header they follow (and each record belongs to it)."""
    grouped: dict[str, list[dict]] = {}
    current = None
    for line in lines:
        if line["type"] == "session":
            current = line["id"]
            assert current not in grouped
            grouped[current] = []
        else:
            assert line["type"] == "record" and line["session"] == current
            grouped[current].append(line)
    return grouped


def _write_jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture
def homes() -> dict[str, Path]:
    """One Claude session (titled only by its prompt) and one named Codex thread."""
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-work-repo"
    _write_jsonl(
        claude / f"{CLAUDE_SESSION}.jsonl",
        [
            {
                "type": "user",
                "uuid": "u1",
                "sessionId": CLAUDE_SESSION,
                "timestamp": "2026-03-01T10:00:00Z",
                "cwd": "/srv/repo",
                "message": {"role": "user", "content": "please fix the parser"},
            },
            {
                "type": "assistant",
                "uuid": "a1",
                "sessionId": CLAUDE_SESSION,
                "timestamp": "2026-03-01T10:00:05Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            },
        ],
    )
    codex = Path(os.environ["CODEX_HOME"])
    _write_jsonl(
        codex / "sessions/2026/01/02" / f"rollout-2026-01-02T03-04-05-{CODEX_THREAD}.jsonl",
        [
            {
                "timestamp": "2026-01-02T03:04:05Z",
                "type": "session_meta",
                "payload": {"id": CODEX_THREAD, "cwd": "/w", "thread_source": "user"},
            },
            {
                "timestamp": "2026-01-02T03:04:06Z",
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "write docs"}],
                },
            },
        ],
    )
    (codex / "session_index.jsonl").write_text(
        json.dumps(
            {"id": CODEX_THREAD, "thread_name": "Docs pass", "updated_at": "2026-01-02T04:00:00Z"}
        )
        + "\n"
    )
    return {"claude": claude, "codex": codex}


def test_headers_then_records_for_every_host(homes: dict[str, Path], capsys) -> None:
    code, lines, err = run(capsys)
    assert code == 0 and err == ""
    grouped = by_session(lines)
    assert [r["id"] for r in grouped[CLAUDE_SESSION]] == ["u1", "a1"]
    assert len(grouped[CODEX_THREAD]) == 2
    headers = {line["id"]: line for line in lines if line["type"] == "session"}
    assert headers[CLAUDE_SESSION]["title"] == "please fix the parser"
    assert headers[CLAUDE_SESSION]["title_source"] == "prompt"
    assert headers[CODEX_THREAD]["title"] == "Docs pass"
    assert headers[CODEX_THREAD]["thread_source"] == "user"


def test_metadata_only_has_no_records_and_no_prompt_titles(homes: dict[str, Path], capsys) -> None:
    code, lines, _ = run(capsys, "--metadata-only")
    assert code == 0
    assert {line["type"] for line in lines} == {"session"}
    headers = {line["id"]: line for line in lines}
    assert headers[CLAUDE_SESSION]["title"] is None
    assert headers[CLAUDE_SESSION]["title_source"] is None
    assert "please fix" not in json.dumps(lines)
    assert headers[CODEX_THREAD]["title"] == "Docs pass"  # the host's own name stays


def test_host_since_and_session_filters(homes: dict[str, Path], capsys) -> None:
    code, lines, _ = run(capsys, "--host", "codex")
    assert code == 0 and set(by_session(lines)) == {CODEX_THREAD}
    code, lines, _ = run(capsys, "--since", "2026-02-01T00:00:00Z")
    assert code == 0 and set(by_session(lines)) == {CLAUDE_SESSION}
    code, lines, _ = run(capsys, "--since", "2026-03-01T10:00:05+00:00")
    assert code == 0 and set(by_session(lines)) == {CLAUDE_SESSION}
    code, lines, _ = run(capsys, "--since", "2026-03-01T11:00:00+01:00")  # 10:00 UTC
    assert code == 0 and set(by_session(lines)) == {CLAUDE_SESSION}
    code, lines, _ = run(capsys, "--since", "2026-04-01")
    assert code == 0 and lines == []
    code, lines, _ = run(capsys, "--session", CODEX_THREAD)
    assert code == 0 and set(by_session(lines)) == {CODEX_THREAD}


def test_bad_since_is_invalid_usage(homes: dict[str, Path], capsys) -> None:
    code = main(["sessions", "--since", "last tuesday"])
    _, err = capsys.readouterr()
    assert code == 2 and "--since" in err


def test_an_unreadable_source_is_incomplete_coverage_with_valid_output(
    homes: dict[str, Path], capsys
) -> None:
    broken = homes["claude"] / "22222222-0000-4000-8000-000000000000.jsonl"
    broken.mkdir()  # a transcript that cannot be read
    store = Path(os.environ["HOME"]) / ".cursor" / "chats" / "h" / "chat-1" / "store.db"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"this is not a database")
    code, lines, err = run(capsys)
    assert code == EXIT_INCOMPLETE == 4
    assert str(broken) in err and str(store) in err and "incomplete coverage" in err
    assert set(by_session(lines)) == {CLAUDE_SESSION, CODEX_THREAD}  # the rest still printed


def test_a_host_asked_for_with_no_sessions_folder_is_missing(
    homes: dict[str, Path], capsys
) -> None:
    code, lines, err = run(capsys, "--host", "gemini", "--host", "claude")
    assert code == EXIT_INCOMPLETE
    assert ".gemini" in err and "gemini" in err
    assert set(by_session(lines)) == {CLAUDE_SESSION}
    # without --host, a host that is simply not installed is not an error
    assert run(capsys)[0] == 0


def test_an_unknown_session_is_named(homes: dict[str, Path], capsys) -> None:
    code, lines, err = run(capsys, "--session", "no-such-session")
    assert code == EXIT_INCOMPLETE and lines == [] and "no-such-session" in err


def test_it_never_writes_capture_state(homes: dict[str, Path], capsys) -> None:
    before = {p: p.stat().st_mtime_ns for p in Path(os.environ["HOME"]).rglob("*") if p.is_file()}
    assert run(capsys)[0] == 0
    after = {p: p.stat().st_mtime_ns for p in Path(os.environ["HOME"]).rglob("*") if p.is_file()}
    assert after == before
    assert not (Path(os.environ["MEMHUB_HOME"]) / "capture").exists()


def test_help_documents_the_exit_codes(capsys) -> None:
    assert main(["sessions", "--help"]) == 0
    out = capsys.readouterr().out
    assert "incomplete coverage" in out and "4" in out
    for option in ("--host", "--since", "--session", "--metadata-only"):
        assert option in out


def test_json_gathers_the_stream_into_one_envelope(homes: dict[str, Path], capsys) -> None:
    _, lines, _ = run(capsys)
    code = main(["sessions", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    document = json.loads(out)
    assert document["command"] == "sessions" and document["ok"] and document["errors"] == []
    sessions = {s["id"]: s for s in document["data"]["sessions"]}
    streamed = by_session(lines)
    assert set(sessions) == set(streamed)
    for session_id, records in streamed.items():
        assert sessions[session_id]["records"] == records
        header = {k: v for k, v in sessions[session_id].items() if k != "records"}
        assert header == next(x for x in lines if x.get("id") == session_id)


def test_json_names_each_source_it_could_not_read(homes: dict[str, Path], capsys) -> None:
    code = main(["sessions", "--json", "--host", "gemini", "--session", "no-such-session"])
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert code == EXIT_INCOMPLETE == document["exit_code"] and document["ok"] is False
    messages = [e["message"] for e in document["errors"]]
    assert any(m.startswith("gemini: no sessions folder") for m in messages), messages
    assert any("no-such-session" in m for m in messages), messages
    assert document["data"]["sessions"] == []
    assert "incomplete coverage" in err  # named on stderr as without --json
