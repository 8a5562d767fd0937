"""The capture engine: bounded, acknowledged, idempotent deltas of a growing transcript."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.backends.base import AuthFailed, BackendError, PayloadTooLarge, canonical
from memhub.runtime.backends.local import LocalStore
from memhub.runtime.capture import core as capture
from memhub.runtime.transcripts import claude as read_claude

MB = 1 << 20


def claude_line(uid: str, role: str = "user", text: str | None = None, **extra: Any) -> str:
    obj = {
        "type": role,
        "uuid": uid,
        "sessionId": "sess",
        "cwd": "/srv/project",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": role, "content": text if text is not None else f"text of {uid}"},
        **extra,
    }
    return json.dumps(obj) + "\n"


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)


def expected_ids(path: Path) -> list[str]:
    _, records = read_claude.read_session(path)
    out: list[str] = []
    for record in records:
        if record.id not in out:
            out.append(record.id)
    return out


class LimitedStore(LocalStore):
    """A local store that answers 413 above `limit` bytes and counts its calls."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit
        self.calls: list[int] = []
        self.refused: list[int] = []

    def import_conversation(self, session_header, records):
        size = sum(len(canonical(r)) for r in records)
        self.calls.append(size)
        if size > self.limit:
            self.refused.append(size)
            raise PayloadTooLarge(size=size)
        return super().import_conversation(session_header, records)


def run_flush_subprocess(path: Path, mode: str = "turn", **env: str) -> subprocess.CompletedProcess:
    code = (
        "import sys; from memhub.runtime.capture import core as capture; "
        f"r = capture.flush('claude', 'sess', {str(path)!r}, {mode!r}); print(r.status)"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def claude_project() -> Path:
    """A project folder under Claude's transcript root (capture reads nothing elsewhere)."""
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-srv-project"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def codex_day() -> Path:
    folder = Path(os.environ["CODEX_HOME"]) / "sessions" / "2026" / "01" / "02"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def transcript() -> Path:
    return claude_project() / "sess.jsonl"


def test_grown_turn_by_turn_every_record_exactly_once(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Half-written lines, a 5 MB record, a 413 and a crash between send and cursor save."""
    monkeypatch.setenv("MEMHUB_CAPTURE_CAP", str(24 * MB))
    store = LimitedStore(limit=12 * MB)
    crash_ids: list[str] = []
    for turn in range(30):
        lines = [claude_line(f"u{turn}", "user"), claude_line(f"a{turn}", "assistant")]
        if turn == 10:  # a 5 MB record and a 3 MB one in one turn: 413, then the cap halves
            lines.insert(1, claude_line("big5", "user", "x" * (5 * MB)))
            lines.insert(2, claude_line("big3", "user", "y" * (3 * MB)))
        text = "".join(lines)
        if turn in (4, 17):  # the host is mid-write when the turn flush runs
            append(transcript, text[:-40])
            before = transcript.stat().st_size
            result = capture.flush("claude", "sess", transcript, "turn", backend=store)
            assert result.status == "ok"
            assert result.cursor < before  # the half-written line waits
            append(transcript, text[-40:])
        else:
            append(transcript, text)
        if turn == 20:  # killed after the backend stored the payload, before the cursor moved
            cursor_before = capture.load_state("claude", "sess")["offset"]
            crashed = run_flush_subprocess(transcript, MEMHUB_CAPTURE_FAULT="after_send")
            assert crashed.returncode == capture.FAULT_EXIT, crashed.stderr
            assert capture.load_state("claude", "sess")["offset"] == cursor_before
            crash_ids = ["u20", "a20"]
        result = capture.flush("claude", "sess", transcript, "turn", backend=store)
        assert result.status in ("ok", "nothing"), result
    assert store.refused, "the 18 MB payload was refused with 413"
    state = capture.load_state("claude", "sess")
    assert state["cap"] < 24 * MB  # halved and persisted
    # the backlog the bounded turns left is drained by the session-end backstop
    final = capture.flush("claude", "sess", transcript, "session_end", backend=store)
    assert final.status in ("ok", "nothing")
    state = capture.load_state("claude", "sess")
    assert state["offset"] == transcript.stat().st_size
    ids = [r["id"] for r in store.records("sess")]
    assert ids == expected_ids(transcript)
    assert len(ids) == len(set(ids)) == 30 * 2 + 2
    received = store.received("sess")
    assert {k for k, v in received.items() if v > 1} == set(crash_ids)  # re-sent, stored once
    assert all(received[k] == 2 for k in crash_ids)
    big = next(r for r in store.records("sess") if r["id"] == "big5")
    assert len(big["raw"]["message"]["content"]) == 5 * MB


def test_crash_after_watermark_resends_nothing(transcript: Path) -> None:
    append(transcript, claude_line("u1") + claude_line("a1", "assistant"))
    crashed = run_flush_subprocess(transcript, MEMHUB_CAPTURE_FAULT="after_watermark")
    assert crashed.returncode == capture.FAULT_EXIT
    assert capture.load_state("claude", "sess")["offset"] == 0
    result = capture.flush("claude", "sess", transcript, "turn")
    assert (result.status, result.sent, result.cursor) == ("nothing", 0, transcript.stat().st_size)
    store = LocalStore()
    assert store.received("sess") == {"u1": 1, "a1": 1}


def test_a_record_too_large_for_any_payload_is_stepped_over_and_logged(transcript: Path) -> None:
    store = LimitedStore(limit=1 * MB)
    append(transcript, claude_line("u1") + claude_line("huge", "user", "z" * (2 * MB)))
    append(transcript, claude_line("a1", "assistant"))
    first = capture.flush("claude", "sess", transcript, "commit", backend=store)
    assert first.status == "ok" and first.stepped_over == 1
    assert [r["id"] for r in store.records("sess")] == ["u1", "a1"]
    state = capture.load_state("claude", "sess")
    assert state["offset"] == transcript.stat().st_size  # the session is not pinned
    assert state["stepped_over"][0]["ids"] == ["huge"]
    assert "stepped over 1 record(s) huge" in capture.log_path().read_text()
    append(transcript, claude_line("u2"))
    assert capture.flush("claude", "sess", transcript, "turn", backend=store).sent == 1


def test_turn_sends_one_bounded_payload_and_commit_drains(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHUB_CAPTURE_CAP", "4000")
    for i in range(40):
        append(transcript, claude_line(f"r{i}"))
    store = LimitedStore(limit=10**9)
    first = capture.flush("claude", "sess", transcript, "turn", backend=store)
    assert first.payloads == 1 and 0 < first.sent < 40
    assert store.calls[0] <= 4000
    cursor = capture.load_state("claude", "sess")["offset"]
    last_sent = store.records("sess")[-1]
    assert last_sent["end"] == cursor  # the cursor lands on the last record sent
    drained = capture.flush("claude", "sess", transcript, "commit", backend=store)
    assert drained.payloads > 1 and first.sent + drained.sent == 40
    assert max(store.calls) <= 4000


def test_413_halves_the_cap_then_splits(transcript: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMHUB_CAPTURE_CAP", str(64_000))
    for i in range(60):
        append(transcript, claude_line(f"r{i}", "user", "w" * 900))
    store = LimitedStore(limit=20_000)
    result = capture.flush("claude", "sess", transcript, "commit", backend=store)
    assert result.status == "ok" and result.sent == 60 and result.stepped_over == 0
    assert capture.load_state("claude", "sess")["cap"] <= 20_000
    assert len(store.refused) >= 2  # 64 kB -> 32 kB -> 16 kB
    assert len(store.records("sess")) == 60


def test_unconfirmed_ack_keeps_the_cursor(transcript: Path) -> None:
    class Partial(LocalStore):
        def import_conversation(self, header, records):
            ack = super().import_conversation(header, records[:1])
            return ack  # acknowledges only the first record

    append(transcript, claude_line("u1") + claude_line("a1", "assistant"))
    result = capture.flush("claude", "sess", transcript, "turn", backend=Partial())
    assert result.status == "failed"
    state = capture.load_state("claude", "sess")
    assert state["offset"] == len(claude_line("u1").encode())  # through the confirmed record
    assert state["last_error"] == "unavailable"
    assert capture.health() is not None
    ok = capture.flush("claude", "sess", transcript, "turn")
    assert ok.sent == 1 and capture.health() is None


def test_failures_leave_the_cursor_and_report_health(transcript: Path) -> None:
    class Down:
        kind = "local"

        def __init__(self, error: Exception):
            self.error = error

        def import_conversation(self, header, records):
            raise self.error

        def close(self):
            pass

    append(transcript, claude_line("u1"))
    assert capture.health() is None
    failed = capture.flush("claude", "sess", transcript, "turn", backend=Down(BackendError("503")))
    assert failed.status == "failed"
    assert capture.load_state("claude", "sess")["offset"] == 0
    message = capture.health()
    assert message and "failed" in message
    capture.flush("claude", "sess", transcript, "turn", backend=Down(AuthFailed("401")))
    assert "credential" in capture.health()
    assert capture.flush("claude", "sess", transcript, "turn").status == "ok"
    assert capture.health() is None
    assert "flush failed" in capture.log_path().read_text()


def test_health_remote_without_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMHUB_BACKEND", "remote")
    monkeypatch.setenv("MEMHUB_REMOTE_URL", "https://memory.example/mcp")
    monkeypatch.delenv("MEMHUB_API_KEY", raising=False)
    assert "memhub login" in capture.health()
    monkeypatch.setenv("MEMHUB_API_KEY", "mhk_" + "k" * 30)
    assert capture.health() is None


def test_capture_off(transcript: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    append(transcript, claude_line("u1"))
    monkeypatch.setenv("MEMHUB_CAPTURE", "0")
    assert not capture.pending("claude", "sess", transcript)
    assert capture.flush("claude", "sess", transcript, "turn").status == "disabled"
    assert not LocalStore().exists()
    assert capture.health() is None


def test_pending_prefilter(transcript: Path) -> None:
    assert not capture.pending("claude", "sess", transcript)  # no transcript yet
    append(transcript, claude_line("u1"))
    assert capture.pending("claude", "sess", transcript)
    capture.flush("claude", "sess", transcript, "turn")
    assert not capture.pending("claude", "sess", transcript)
    append(transcript, claude_line("u2")[:10])
    assert capture.pending("claude", "sess", transcript)  # bytes, even if half a line


def test_rewritten_transcript_is_read_again_without_resending(transcript: Path) -> None:
    append(transcript, claude_line("u1") + claude_line("a1", "assistant"))
    capture.flush("claude", "sess", transcript, "turn")
    replacement = transcript.with_suffix(".new")
    replacement.write_text(claude_line("u1") + claude_line("u2"), encoding="utf-8")
    os.replace(replacement, transcript)  # a new file, shorter than the cursor
    result = capture.flush("claude", "sess", transcript, "turn")
    assert result.sent == 1
    assert LocalStore().received("sess") == {"u1": 1, "a1": 1, "u2": 1}


def test_session_end_backstop_is_independent_of_the_cursor(transcript: Path) -> None:
    for i in range(5):
        append(transcript, claude_line(f"u{i}"))
    capture.flush("claude", "sess", transcript, "turn")
    capture.state_path("claude", "sess").unlink()  # the per-turn state is lost
    append(transcript, claude_line("u5"))
    result = capture.flush("claude", "sess", transcript, "session_end")
    assert result.sent == 1  # the watermark knows the first five
    assert capture.load_state("claude", "sess")["offset"] == transcript.stat().st_size
    assert set(LocalStore().received("sess").values()) == {1}


def test_session_end_captures_a_session_the_turn_path_never_saw(transcript: Path) -> None:
    for i in range(7):
        append(transcript, claude_line(f"u{i}"))
    result = capture.flush("claude", "sess", transcript, "session_end")
    assert result.sent == 7
    assert [r["id"] for r in LocalStore().records("sess")] == [f"u{i}" for i in range(7)]


def test_many_concurrent_flushing_processes_on_one_session(transcript: Path) -> None:
    append(transcript, "".join(claude_line(f"s{i}") for i in range(20)))
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import time; from memhub.runtime.capture import core as capture\n"
                "for _ in range(15):\n"
                f"    capture.flush('claude', 'sess', {str(transcript)!r}, 'turn')\n"
                "    time.sleep(0.01)\n",
            ],
            env=os.environ.copy(),
        )
        for _ in range(8)
    ]
    for i in range(60):  # the host keeps writing, a line at a time, sometimes in halves
        line = claude_line(f"g{i}")
        append(transcript, line[:25])
        time.sleep(0.002)
        append(transcript, line[25:])
    for worker in workers:
        assert worker.wait(timeout=120) == 0
    while capture.flush("claude", "sess", transcript, "turn").status == "ok":
        pass
    store = LocalStore()
    assert [r["id"] for r in store.records("sess")] == expected_ids(transcript)
    assert len(store.records("sess")) == 80
    assert set(store.received("sess").values()) == {1}  # nothing was ever sent twice


def test_titles_rename_outranks_generated_outranks_first_prompt(transcript: Path) -> None:
    append(transcript, claude_line("u1", "user", "Fix the flaky\nlogin test please"))
    capture.flush("claude", "sess", transcript, "turn")
    assert LocalStore().sessions()[0]["title"] == "Fix the flaky"
    append(transcript, json.dumps({"type": "ai-title", "aiTitle": "Flaky login test"}) + "\n")
    append(transcript, claude_line("a1", "assistant"))
    capture.flush("claude", "sess", transcript, "turn")
    row = LocalStore().sessions()[0]
    assert (row["title"], row["title_source"]) == ("Flaky login test", "host")
    append(transcript, json.dumps({"type": "custom-title", "customTitle": "login-fix"}) + "\n")
    capture.flush("claude", "sess", transcript, "turn")
    row = LocalStore().sessions()[0]
    assert (row["title"], row["title_source"]) == ("login-fix", "user")


def codex_rollout(folder: Path, sid: str, thread_source: Any, name: str | None = None) -> Path:
    path = folder / f"rollout-2026-01-02T03-04-05-{sid}.jsonl"
    meta: dict[str, Any] = {"id": sid, "cwd": "/srv/project", "originator": "codex_exec"}
    if thread_source is not None:
        meta["thread_source"] = thread_source
    lines = [
        {"timestamp": "2026-01-02T03:04:05Z", "type": "session_meta", "payload": meta},
        {
            "timestamp": "2026-01-02T03:04:06Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Add a retry to the uploader"}],
            },
        },
    ]
    if name:
        lines.append(
            {
                "timestamp": "2026-01-02T03:04:07Z",
                "type": "event_msg",
                "payload": {"type": "thread_name_updated", "thread_name": name},
            }
        )
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("value", ["subagent", "guardian_review", "memory_consolidation"])
def test_codex_own_threads_are_skipped(tmp_path: Path, value: str) -> None:
    sid = "019a0000-0000-7000-8000-000000000001"
    path = codex_rollout(codex_day(), sid, value)
    result = capture.flush("codex", sid, path, "turn")
    assert result.status == "skipped"
    assert LocalStore().sessions() == []
    assert not capture.pending("codex", sid, path)
    assert f"thread_source {value!r}" in capture.log_path().read_text()


@pytest.mark.parametrize(
    ("value", "logged"), [("user", False), (None, False), ("brand_new_kind", True)]
)
def test_codex_user_and_unknown_threads_are_captured(
    tmp_path: Path, value: str | None, logged: bool
) -> None:
    sid = "019a0000-0000-7000-8000-000000000002"
    path = codex_rollout(codex_day(), sid, value, name="Uploader retries")
    result = capture.flush("codex", sid, path, "turn")
    assert result.status == "ok" and result.sent == 3
    row = LocalStore().sessions()[0]
    assert row["conversation_id"] == f"codex-{sid}"
    assert (row["title"], row["title_source"]) == ("Uploader retries", "host")
    log = capture.log_path().read_text() if capture.log_path().exists() else ""
    assert ("unknown thread_source" in log) is logged


def test_codex_without_a_name_is_titled_by_its_first_prompt(tmp_path: Path) -> None:
    sid = "019a0000-0000-7000-8000-000000000003"
    path = codex_rollout(codex_day(), sid, "user")
    capture.flush("codex", sid, path, "turn")
    row = LocalStore().sessions()[0]
    assert (row["title"], row["title_source"]) == ("Add a retry to the uploader", "prompt")


def test_backend_config(monkeypatch: pytest.MonkeyPatch) -> None:
    assert capture.backend_config()["backend"] == "local"
    home = Path(os.environ["MEMHUB_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "capture.json").write_text(
        json.dumps({"backend": "remote", "remote_url": "https://m.example/mcp"})
    )
    config = capture.backend_config()
    assert (config["backend"], config["remote_url"]) == ("remote", "https://m.example/mcp")
    monkeypatch.setenv("MEMHUB_BACKEND", "local")
    assert capture.backend_config()["backend"] == "local"


def test_gemini_log_titles_and_a_legacy_recording() -> None:
    chats = Path(os.environ["HOME"]) / ".gemini" / "tmp" / "project" / "chats"
    chats.mkdir(parents=True)
    log = chats / "session-2026-01-01T00-00-abcd1234.jsonl"
    lines = [
        {"sessionId": "g1", "projectHash": "p", "startTime": "2026-01-01T00:00:00Z"},
        {"id": "m1", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": "Hi there"},
        {"id": "m2", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "Hello"},
        {"$set": {"summary": "Greeting"}},
    ]
    log.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    result = capture.flush("gemini", "g1", log, "turn")
    assert result.sent == 4
    row = LocalStore().sessions()[0]
    assert (row["conversation_id"], row["title"]) == ("gemini-g1", "Greeting")
    legacy = chats / "session-legacy.json"
    legacy.write_text(
        json.dumps({"sessionId": "g2", "messages": [lines[1], lines[2]]}), encoding="utf-8"
    )
    assert capture.flush("gemini", "g2", legacy, "turn").sent == 2
    assert capture.flush("gemini", "g2", legacy, "turn").sent == 0  # the watermark has them
    third = {"id": "m3", "timestamp": "2026-01-01T00:00:03Z", "type": "user", "content": "More"}
    legacy.write_text(
        json.dumps({"sessionId": "g2", "messages": [lines[1], lines[2], third]}), encoding="utf-8"
    )
    assert capture.flush("gemini", "g2", legacy, "session_end").sent == 1
    assert [r["id"] for r in LocalStore().records("gemini-g2")] == ["m1", "m2", "m3"]


# --- memhub capture list|show|status and memhub login ---------------------------------------


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from memhub.compiler.cli.main import main

    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_capture_list_show_status(transcript: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, "capture", "list")[1].strip() == "no captured sessions"
    append(
        transcript, claude_line("u1", "user", "Tidy the parser") + claude_line("a1", "assistant")
    )
    capture.flush("claude", "sess", transcript, "turn")
    code, out, _ = cli(capsys, "capture", "list")
    assert code == 0 and "sess" in out and "Tidy the parser" in out and " 2 " in out
    code, out, _ = cli(capsys, "capture", "list", "--json")
    (row,) = json.loads(out)["data"]["sessions"]
    assert (row["id"], row["host"], row["records"], row["title"]) == (
        "sess",
        "claude",
        2,
        "Tidy the parser",
    )
    assert row["last_flush"].endswith("Z")
    code, out, _ = cli(capsys, "capture", "show", "sess")
    assert code == 0
    assert [json.loads(line)["id"] for line in out.splitlines()] == ["u1", "a1"]
    assert cli(capsys, "capture", "show", "nope")[0] == 2
    append(transcript, claude_line("u2")[:15])
    code, out, _ = cli(capsys, "capture", "status", "--json")
    report = json.loads(out)["data"]
    (session,) = report["sessions"]
    assert session["cursor"] < session["size"] and session["pending_bytes"] == 15
    assert report["backend"]["backend"] == "local" and report["health"] is None
    code, out, _ = cli(capsys, "capture", "status")
    assert code == 0 and "backend: local" in out and "cursor" in out


def test_capture_show_reads_the_transcript_for_a_remote_session(
    transcript: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    class Remote:
        kind, url = "remote", "https://m.example/mcp"

        def import_conversation(self, header, records):
            return {"conversation_id": header["conversation_id"], "ack_through": records[-1]["id"]}

    append(transcript, claude_line("u1") + claude_line("a1", "assistant"))
    capture.flush("claude", "sess", transcript, "turn", backend=Remote())
    append(transcript, claude_line("u2"))  # not sent yet: not shown
    code, out, err = cli(capsys, "capture", "show", "sess")
    assert code == 0 and "up to the capture cursor" in err
    assert [json.loads(line)["id"] for line in out.splitlines()] == ["u1", "a1"]


def test_login_stores_the_key_privately_and_never_echoes_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import stat as stat_module

    key = "mhk_" + "Q" * 36
    monkeypatch.delenv("MEMHUB_API_KEY", raising=False)
    assert cli(capsys, "login", "--status")[0] == 1
    monkeypatch.setattr(sys, "stdin", io.StringIO(key + "\n"))
    code, out, err = cli(capsys, "login", "--expires-at", "2999-01-01T00:00:00Z")
    assert code == 0 and key not in out + err
    path = Path(os.environ["MEMHUB_HOME"]) / "credentials.json"
    assert stat_module.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["api_key"] == key
    code, out, err = cli(capsys, "login", "--status")
    assert code == 0 and key not in out + err and "2999-01-01T00:00:00Z" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("not a key\n"))
    assert cli(capsys, "login")[0] == 2
    monkeypatch.setenv("MEMHUB_API_KEY", "mhk_" + "E" * 30)
    code, out, err = cli(capsys, "login")
    assert code == 0 and "EEEE" not in out + err
    assert json.loads(path.read_text())["api_key"] == "mhk_" + "E" * 30


def test_no_transcript_is_not_a_failure(tmp_path: Path) -> None:
    absent = claude_project() / "absent.jsonl"
    assert capture.flush("claude", "sess", absent, "turn").status == "nothing"
    assert capture.flush("claude", "sess", None, "session_end").status == "failed"  # type: ignore[arg-type]
    assert capture.flush("claude", "sess", tmp_path, "bogus").status == "failed"
    assert capture.health() is None


# --- capture reads only the hosts' own transcripts ------------------------------------------


class Recording:
    """A backend that keeps every payload it is sent (what a remote server would receive)."""

    kind, url = "remote", "https://m.example/mcp"

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def import_conversation(self, header, records):
        self.sent.extend(records)
        return {"conversation_id": header["conversation_id"], "ack_through": records[-1]["id"]}


def _secret(tmp_path: Path) -> Path:
    path = tmp_path / "credentials"
    path.write_text(claude_line("s1", text="aws_secret_access_key = hunter2"), encoding="utf-8")
    return path


def test_a_file_outside_the_transcript_roots_is_refused_and_logged(tmp_path: Path) -> None:
    secret = _secret(tmp_path)
    backend = Recording()
    for mode in capture.MODES:
        result = capture.flush("claude", "s1", secret, mode, backend=backend)
        assert (result.status, result.sent) == ("refused", 0)
    assert backend.sent == []
    assert capture.load_state("claude", "s1") is None  # nothing recorded about it either
    log = capture.log_path().read_text()
    assert f"{secret} is not under claude's transcript folders" in log


def test_a_link_from_inside_a_root_to_a_file_outside_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = claude_project() / "sess.jsonl"
    link.symlink_to(_secret(tmp_path))
    backend = Recording()
    assert capture.flush("claude", "sess", link, "session_end", backend=backend).status == (
        "refused"
    )
    # a root that is itself a link is resolved too: a transcript under it is admitted
    real_config = tmp_path / "real-claude"
    (real_config / "projects" / "p").mkdir(parents=True)
    linked_config = tmp_path / "linked-claude"
    linked_config.symlink_to(real_config)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(linked_config))
    inside = real_config / "projects" / "p" / "s2.jsonl"
    inside.write_text(claude_line("u1"), encoding="utf-8")
    assert capture.flush("claude", "s2", inside, "turn", backend=backend).sent == 1
    assert backend.sent[0]["id"] == "u1"


def test_a_fifo_or_folder_under_a_root_is_refused_without_blocking() -> None:
    fifo = claude_project() / "fifo.jsonl"
    os.mkfifo(fifo)
    folder = claude_project() / "folder.jsonl"
    folder.mkdir()
    for path in (fifo, folder):
        started = time.monotonic()
        result = capture.flush("claude", "sess", path, "session_end", backend=Recording())
        assert result.status == "refused" and "not a regular file" in result.error
        assert time.monotonic() - started < 5


def test_each_host_root_honours_its_override_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript under the default folder is refused once the host's variable moves it."""
    default_claude = Path(os.environ["HOME"]) / ".claude" / "projects" / "p" / "c.jsonl"
    default_claude.parent.mkdir(parents=True)
    default_claude.write_text(claude_line("u1"), encoding="utf-8")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert capture.admit("claude", default_claude) == (default_claude, None)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert capture.admit("claude", default_claude)[1]
    rollout = codex_rollout(codex_day(), "019a0000-0000-7000-8000-00000000000a", "user")
    assert capture.admit("codex", rollout) == (rollout, None)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "other-codex"))
    assert capture.admit("codex", rollout)[1]
    chats = tmp_path / "gemini-home" / ".gemini" / "tmp" / "p" / "chats"
    chats.mkdir(parents=True)
    chat = chats / "session-x.jsonl"
    chat.write_text("{}\n", encoding="utf-8")
    assert capture.admit("gemini", chat)[1]  # under HOME only, GEMINI_CLI_HOME unset
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gemini-home"))
    assert capture.admit("gemini", chat) == (chat, None)
    cursor = Path(os.environ["HOME"]) / ".cursor" / "projects" / "p" / "agent-transcripts"
    cursor.mkdir(parents=True)
    (cursor / "c.jsonl").write_text("{}\n", encoding="utf-8")
    assert capture.admit("cursor", cursor / "c.jsonl") == (cursor / "c.jsonl", None)
    assert capture.admit("cursor", default_claude)[1]  # another host's folder is not Cursor's


@pytest.mark.parametrize(
    ("host", "variable", "inside"),
    [
        ("claude", "CLAUDE_CONFIG_DIR", "rel/projects/p/c.jsonl"),
        ("codex", "CODEX_HOME", "rel/sessions/2026/01/01/rollout-x.jsonl"),
        ("gemini", "GEMINI_CLI_HOME", "rel/.gemini/tmp/p/chats/session-x.jsonl"),
    ],
)
def test_a_relative_override_variable_reads_no_folder(
    host: str, variable: str, inside: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative CODEX_HOME (or CLAUDE_CONFIG_DIR, GEMINI_CLI_HOME) was resolved by the host
    against the folder it started in, which a hook cannot know: the runtime reads no folder
    for it rather than one relative to wherever the hook runs (the compiler refuses it too)."""
    monkeypatch.chdir(tmp_path)
    transcript = tmp_path / inside
    transcript.parent.mkdir(parents=True)
    transcript.write_text("{}\n", encoding="utf-8")
    monkeypatch.setenv(variable, "rel")
    real, why = capture.admit(host, transcript)
    assert real is None and why and "is not under" in why and "relative" in why
    monkeypatch.setenv(variable, str(tmp_path / "rel"))  # the same folder, named absolutely
    assert capture.admit(host, transcript) == (transcript, None)


# --- a transcript rewritten in place ---------------------------------------------------------


def _rewrite_in_place(path: Path, text: str) -> None:
    """Overwrite `path` on its own inode (no rename), as an editor or a host compaction may."""
    inode = path.stat().st_ino
    with open(path, "r+", encoding="utf-8") as handle:
        handle.truncate(0)
        handle.write(text)
    assert path.stat().st_ino == inode


def test_a_transcript_rewritten_in_place_with_longer_records_loses_none(
    transcript: Path,
) -> None:
    append(transcript, "".join(claude_line(f"r{i}") for i in range(10)))
    assert capture.flush("claude", "sess", transcript, "turn").sent == 10
    longer = "".join(
        claude_line(f"r{i}", text=f"rewritten, longer text of r{i}") for i in range(12)
    )
    _rewrite_in_place(transcript, longer)
    assert transcript.stat().st_size > capture.load_state("claude", "sess")["offset"]
    result = capture.flush("claude", "sess", transcript, "turn")
    assert result.status == "ok" and result.sent == 12  # 10 new versions and 2 new records
    stored = LocalStore().records("sess")
    assert [r["id"] for r in stored] == [f"r{i}" for i in range(12)]
    assert all(r["text"].startswith("rewritten") for r in stored)
    assert not [r for r in stored if r["kind"] == "invalid"]
    assert "bytes before cursor" in capture.log_path().read_text()
    # the next turn goes on from the end, as usual: nothing is sent twice
    append(transcript, claude_line("r12"))
    assert capture.flush("claude", "sess", transcript, "turn").sent == 1


def test_truncate_then_append_past_the_cursor_loses_none(transcript: Path) -> None:
    append(transcript, "".join(claude_line(f"old{i}") for i in range(10)))
    assert capture.flush("claude", "sess", transcript, "turn").sent == 10
    _rewrite_in_place(transcript, "")
    for i in range(30):  # the host starts over and writes 30 records before the next flush
        append(transcript, claude_line(f"new{i}"))
    result = capture.flush("claude", "sess", transcript, "turn")
    assert result.sent == 30
    ids = [r["id"] for r in LocalStore().records("sess")]
    assert ids == [f"old{i}" for i in range(10)] + [f"new{i}" for i in range(30)]
    assert set(LocalStore().received("sess").values()) == {1}


def test_the_backstop_stores_a_whole_last_line_without_its_newline(transcript: Path) -> None:
    append(transcript, claude_line("u1") + claude_line("a1", "assistant").rstrip("\n"))
    _, listed = read_claude.read_session(transcript)  # what `memhub sessions` shows
    assert [r.id for r in listed] == ["u1", "a1"]
    assert capture.flush("claude", "sess", transcript, "turn").sent == 1  # the turn waits
    result = capture.flush("claude", "sess", transcript, "session_end")
    assert result.sent == 1 and result.cursor == transcript.stat().st_size
    assert [r["id"] for r in LocalStore().records("sess")] == ["u1", "a1"]
    # the host goes on writing (its newline first): nothing is lost or sent twice
    append(transcript, "\n" + claude_line("u2"))
    assert capture.flush("claude", "sess", transcript, "turn").sent == 1
    assert [r["id"] for r in LocalStore().records("sess")] == ["u1", "a1", "u2"]
    assert set(LocalStore().received("sess").values()) == {1}
    # a half-written last line is not a record, even for the backstop
    append(transcript, claude_line("u3")[:30])
    assert capture.flush("claude", "sess", transcript, "session_end").sent == 0


# --- one title rule ----------------------------------------------------------------------


def _grow_and_flush(source: Path, target: Path, session: str, step: int = 7) -> None:
    """Copy `source` into `target` a few lines at a time, flushing each turn, then the end."""
    lines = source.read_bytes().splitlines(keepends=True)
    for start in range(0, len(lines), step):
        with open(target, "ab") as handle:
            handle.write(b"".join(lines[start : start + step]))
        while capture.flush("claude", session, target, "turn").status == "ok":
            pass
    capture.flush("claude", session, target, "session_end")


def test_capture_and_sessions_name_real_sessions_alike(material: Path) -> None:
    """Real transcripts with 4 and 15 summary lines, and sessions named by a first prompt."""
    real = material / "claude-code" / "claude-code-log-real"
    sources = sorted(real.glob("*/*.jsonl"))
    assert len(sources) >= 8
    for source in sources:
        if not source.stat().st_size:
            continue
        session = source.stem
        target = claude_project() / source.name
        _grow_and_flush(source, target, session)
        header, _ = read_claude.read_session(target, metadata_only=True)
        row = next(r for r in LocalStore().sessions() if r["conversation_id"] == session)
        assert (row["title"], row["title_source"]) == (header.title, header.title_source), source


def test_a_prompt_after_an_ide_block_is_titled_by_what_the_user_typed(transcript: Path) -> None:
    prompt = (
        "<ide_opened_file>The user opened the file /srv/app/x.py in the IDE.</ide_opened_file>"
        "<ide_selection>The user selected the lines 1 to 2 from /srv/app/x.py:\n"
        "foo = 1\nbar = 2\n\nThis may or may not be related to the current task."
        "</ide_selection>\nRename foo to count"
    )
    append(transcript, claude_line("u1", text=prompt))
    capture.flush("claude", "sess", transcript, "turn")
    assert LocalStore().sessions()[0]["title"] == "Rename foo to count"
    assert read_claude.read_session(transcript)[0].title == "Rename foo to count"


def test_the_latest_summary_line_names_the_session_everywhere(transcript: Path) -> None:
    for index, summary in enumerate(("First summary", "Second summary")):
        append(transcript, json.dumps({"type": "summary", "summary": summary}) + "\n")
        append(transcript, claude_line(f"u{index}"))
        capture.flush("claude", "sess", transcript, "turn")
    assert read_claude.read_session(transcript)[0].title == "Second summary"
    assert LocalStore().sessions()[0]["title"] == "Second summary"


def test_captured_usage_counts_each_api_message_once(material: Path) -> None:
    """A real session whose 62 usage lines hold 17 API messages, captured 3 lines a turn
    (so one message's lines span flushes): the store sums to each message's usage once."""
    from tests.runtime.test_readers import _usage_per_message

    source = next((material / "claude-code" / "claude-code-log-real").glob("*/ef958aa1-*.jsonl"))
    target = claude_project() / source.name
    _grow_and_flush(source, target, source.stem, step=3)
    total: dict[str, int] = {}
    for record in LocalStore().records(source.stem):
        for key, value in (record.get("usage") or {}).items():
            total[key] = total.get(key, 0) + value
    expected = _usage_per_message(source)
    assert expected["output_tokens"] == 22901
    assert {key: total[key] for key in expected} == expected


# --- subagent transcripts -------------------------------------------------------------------


def test_subagent_transcripts_are_captured_linked_to_their_parent(material: Path) -> None:
    """A real session that spawned 6 subagents (`<session>/subagents/agent-*.jsonl`): the
    session's own turn flush captures each as a session of its own, linked to the parent."""
    import shutil

    real = material / "claude-code" / "claude-code-log-real" / "-experiments-worktrees"
    parent_id = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    project = claude_project()
    shutil.copyfile(real / f"{parent_id}.jsonl", project / f"{parent_id}.jsonl")
    shutil.copytree(real / parent_id, project / parent_id)
    subs = sorted((project / parent_id / "subagents").glob("agent-*.jsonl"))
    assert len(subs) == 6
    while capture.flush("claude", parent_id, project / f"{parent_id}.jsonl", "turn").sent:
        pass
    store = LocalStore()
    rows = {row["conversation_id"]: row for row in store.sessions()}
    for sub in subs:
        header, records = read_claude.read_session(sub)
        row = rows[header.id]
        assert (row["parent"], row["agent_id"]) == (parent_id, header.agent_id)
        assert row["title"] == header.title
        assert [r["id"] for r in store.records(header.id)] == [r.id for r in records]
        assert set(store.received(header.id).values()) == {1}
    # the next turn: nothing new anywhere, nothing re-sent
    capture.flush("claude", parent_id, project / f"{parent_id}.jsonl", "turn")
    assert all(set(store.received(s.stem).values()) == {1} for s in subs)


def test_the_backstop_captures_old_flat_subagent_files(material: Path) -> None:
    import shutil

    real = material / "claude-code" / "claude-code-log-real"
    agent = real / "-Users-dain-workspace-claude-code-log-sample" / "agent-3be551df.jsonl"
    parent_id = "58edcfae-5291-436c-91e4-54fbb188a0ca"  # the session the agent file names
    project = claude_project()
    shutil.copyfile(agent, project / agent.name)
    parent = project / f"{parent_id}.jsonl"
    append(parent, claude_line("p1"))
    capture.flush("claude", parent_id, parent, "turn")
    assert "agent-3be551df" not in {r["conversation_id"] for r in LocalStore().sessions()}
    capture.flush("claude", parent_id, parent, "session_end")
    row = next(r for r in LocalStore().sessions() if r["conversation_id"] == "agent-3be551df")
    assert (row["parent"], row["agent_id"]) == (parent_id, "3be551df")
    _, records = read_claude.read_session(project / agent.name)
    assert [r["id"] for r in LocalStore().records("agent-3be551df")] == [r.id for r in records]


def test_a_message_rewritten_under_its_id_is_sent_once_per_version() -> None:
    """Gemini writes a message again, whole, under its id (as the real CLI did in the e2e):
    the backstop re-reading the log must not send either version again."""
    chats = Path(os.environ["HOME"]) / ".gemini" / "tmp" / "project" / "chats"
    chats.mkdir(parents=True)
    log = chats / "session-2026-01-01T00-00-abcd1234.jsonl"
    first = {"id": "m1", "timestamp": "2026-01-01T00:00:01Z", "type": "gemini", "content": ""}
    lines = [
        {"sessionId": "g1", "projectHash": "p", "startTime": "2026-01-01T00:00:00Z"},
        first,
        {"$set": {"lastUpdated": "2026-01-01T00:00:01Z"}},
        {**first, "toolCalls": [{"id": "c1", "name": "run_shell_command"}]},
    ]
    log.write_text("".join(json.dumps(x) + "\n" for x in lines[:2]), encoding="utf-8")
    capture.flush("gemini", "g1", log, "turn")
    append(log, "".join(json.dumps(x) + "\n" for x in lines[2:]))
    capture.flush("gemini", "g1", log, "turn")
    for _ in range(2):
        capture.flush("gemini", "g1", log, "session_end")
    assert LocalStore().received("gemini-g1")["m1"] == 2  # two versions, each sent once
    (m1,) = [r for r in LocalStore().records("gemini-g1") if r["id"] == "m1"]
    assert m1["raw"].get("toolCalls")  # the later version is the one kept


def test_cursor_subagent_transcripts_are_captured_with_their_session(material: Path) -> None:
    import shutil

    fixture = material / "cursor" / "agent-sessions" / "subagent"
    parent_id = "11111111-2222-4333-8444-555555555555"
    folder = Path(os.environ["HOME"]) / ".cursor" / "projects" / "x" / "agent-transcripts"
    session = folder / parent_id
    (session / "subagents").mkdir(parents=True)
    shutil.copyfile(fixture / "parent.jsonl", session / f"{parent_id}.jsonl")
    shutil.copyfile(fixture / "subagents" / "child.jsonl", session / "subagents" / "child.jsonl")
    capture.flush("cursor", parent_id, session / f"{parent_id}.jsonl", "turn")
    rows = {row["conversation_id"]: row for row in LocalStore().sessions()}
    child = rows["cursor-child"]
    assert (child["parent"], child["agent_id"]) == (f"cursor-{parent_id}", "child")
    assert len(LocalStore().records("cursor-child")) == 2
