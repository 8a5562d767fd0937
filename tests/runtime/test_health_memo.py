"""capture.health's memo: the session_start hook answers "healthy" without the full check
only while nothing that check read has changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memhub.runtime import handlers
from memhub.runtime.backends.base import BackendError
from memhub.runtime.capture import core as capture
from memhub.runtime.dispatch import Output

from tests.runtime.test_capture import append, claude_line, claude_project

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"


def home() -> str:
    path = Path(os.environ["MEMHUB_HOME"])
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


class Down:
    kind = "local"

    def import_conversation(self, header: object, records: object) -> None:
        raise BackendError("503")

    def close(self) -> None:
        pass


def session_start() -> list[str]:
    """What the handler tells the user at session start."""
    out = Output(home())
    handlers.capture_health(None, out)  # type: ignore[arg-type]  # it reads no event field
    return out.messages


def test_a_new_failure_voids_the_memo() -> None:
    transcript = claude_project() / "sess.jsonl"
    append(transcript, claude_line("u1"))
    assert not handlers.health_memo_holds(home())
    assert session_start() == []  # the full check ran and found nothing
    assert handlers.health_memo_holds(home())
    failed = capture.flush("claude", "sess", transcript, "turn", backend=Down())
    assert failed.status == "failed"
    assert not handlers.health_memo_holds(home())
    (message,) = session_start()
    assert "a recent flush failed" in message
    assert not handlers.health_memo_holds(home())  # a broken verdict is never memoised
    assert capture.flush("claude", "sess", transcript, "turn").status == "ok"
    assert session_start() == [] and handlers.health_memo_holds(home())


def test_settings_and_credential_changes_void_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    assert capture.health() is None and handlers.health_memo_holds(home())
    monkeypatch.setenv("MEMHUB_BACKEND", "remote")
    monkeypatch.setenv("MEMHUB_REMOTE_URL", "https://memory.example/mcp")
    assert not handlers.health_memo_holds(home())
    assert "memhub login" in session_start()[0]
    monkeypatch.delenv("MEMHUB_BACKEND")
    monkeypatch.delenv("MEMHUB_REMOTE_URL")
    assert session_start() == [] and handlers.health_memo_holds(home())
    Path(home(), "capture.json").write_text('{"backend": "remote"}')
    assert not handlers.health_memo_holds(home())
    assert session_start()  # remote without a credential or a URL
    Path(home(), "capture.json").unlink()
    assert session_start() == [] and handlers.health_memo_holds(home())
    Path(home(), "credentials.json").write_text('{"api_key": "x"}')
    assert not handlers.health_memo_holds(home())


def test_the_memo_ends_when_the_credential_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    soon = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 600))
    Path(home(), "credentials.json").write_text(json.dumps({"api_key": "k", "expires_at": soon}))
    monkeypatch.setenv("MEMHUB_BACKEND", "remote")
    monkeypatch.setenv("MEMHUB_REMOTE_URL", "https://memory.example/mcp")
    assert session_start() == []
    memo = Path(handlers.health_memo_path(home()))
    key, until = memo.read_text().splitlines()
    assert until == soon and key == handlers.health_inputs(home())
    past = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
    memo.write_text(f"{key}\n{past}\n")
    assert not handlers.health_memo_holds(home())
    for garbage in (b"", b"\xff\xfe", key.encode(), b"\n\n"):
        memo.write_bytes(garbage)
        assert not handlers.health_memo_holds(home())


def test_a_memo_that_cannot_be_written_costs_only_speed(tmp_path: Path) -> None:
    Path(home(), "hooks").mkdir(parents=True)
    Path(home(), "hooks", "health").mkdir()  # a folder where the memo goes
    assert session_start() == [] and session_start() == []


def test_the_fast_path_imports_nothing_heavy(tmp_path: Path) -> None:
    """Vendored as a bundle ships it: the second session start loads no json, os or capture."""
    package = tmp_path / "plugin" / "memhub_runtime"
    shutil.copytree(RUNTIME, package, ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    env["MEMHUB_HOME"] = str(tmp_path / "memhub-home")
    payload = json.dumps({"session_id": "s", "hook_event_name": "SessionStart"}).encode()
    argv = ["claude", "SessionStart", "capture.health"]
    loaded = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-S", "-X", "importtime", str(package / "hook.py"), *argv],
            input=payload,
            capture_output=True,
            env=env,
            check=False,
        )
        assert proc.returncode == 0 and json.loads(proc.stdout) == {}, proc.stderr
        loaded.append(
            {
                line.rsplit("|", 1)[-1].strip()
                for line in proc.stderr.decode().splitlines()
                if line.startswith("import time:") and "|" in line
            }
        )
    assert "memhub_runtime.capture.health" in loaded[0]  # the full check, once
    heavy = {"os", "json", "re", "typing", "pathlib", "sqlite3", "memhub_runtime.capture"}
    assert heavy.isdisjoint(loaded[1]), sorted(heavy & loaded[1])
