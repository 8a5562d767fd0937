"""Directive recall from a remote server through real Claude Code and Codex: the hub says so.

A real `memhub mcp serve --http` runs in a memhub home of its own, serving the session's
checkout with the three lessons of test_recall_hosts.py. `examples/team-memory`, with
`memory.recall.remote` naming that server (the key in a variable, `key_env`), is applied
into the isolated HOME, whose own memory is empty: no project is connected there. The
scripted model edits the file, runs the command, repeats both, then runs a read-only command
that fails; each lesson must reach the model in the request right after the call that fired
it, once, exactly as with local recall, and the hook log stays empty.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .fake_responses import FakeResponses
from .fake_tools import Call, ToolsAnthropic, _claude_results, _responses_results
from .harness import describe, run
from .test_capture_hosts import _trust_user_hooks, write_codex_fake
from .test_recall_hosts import (
    COMMAND,
    COMMAND_LESSON,
    ERROR_LESSON,
    FAILING,
    FILE,
    FILE_LESSON,
    HUB,
    TIMEOUT_S,
    _assert_accounted,
    _assert_recalled,
    _env,
    _project,
)

pytestmark = pytest.mark.e2e

KEY_ENV = "MEMHUB_E2E_RECALL_KEY"


def _serve(env: dict[str, str], repo: Path) -> Iterator[tuple[str, str]]:
    """`memhub mcp serve --http` for `repo`: (url, key) while it runs."""
    memhub = str(Path(sys.executable).parent / "memhub")
    process = subprocess.Popen(
        [memhub, "mcp", "serve", "--project", str(repo), "--http", "--port", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert process.stderr is not None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = process.stderr.readline().decode("utf-8", "replace")
            found = re.search(r"serving (http://\S+)", line)
            if found:
                key = (Path(env["MEMHUB_HOME"]) / "mcp" / "http.key").read_text().strip()
                yield found.group(1), key
                return
            if not line and process.poll() is not None:
                break
        raise AssertionError("the memory server did not start")
    finally:
        process.terminate()
        process.wait(timeout=20)


def _remote_hub(root: Path, url: str) -> Path:
    hub = root / "remote-hub"
    shutil.copytree(HUB, hub)
    text = (hub / "hub.yaml").read_text()
    anchor = "  scopes: [shared, project]\n"
    recall = f"  recall:\n    remote: {{url: '{url}', key_env: {KEY_ENV}}}\n"
    (hub / "hub.yaml").write_text(text.replace(anchor, anchor + recall, 1))
    return hub


def _apply(env: dict[str, str], root: Path, url: str, host: str) -> None:
    hub = _remote_hub(root, url)
    proc = run(
        [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(hub),
         "--scope", "user", "--hosts", host],
        env=env, cwd=root,
    )  # fmt: skip
    assert proc.returncode == 0, describe(proc)
    assert (Path(env["MEMHUB_HOME"]) / "recall.json").is_file()
    assert not (Path(env["MEMHUB_HOME"]) / "memory" / "projects.json").exists()


def _assert_session_kept(env: dict[str, str], host: str, key: str) -> None:
    session = next((Path(env["MEMHUB_HOME"]) / "recall").glob(f"{host}-*/remote.session"))
    assert key not in session.read_text()


def test_claude_recalls_lessons_from_a_remote_server_once(
    claude_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home)
    server_env = {**env, "MEMHUB_HOME": str(isolated_home.root / "server-home")}
    ids = _project(server_env, git_repo)  # the lessons live on the server only
    served = _serve(server_env, git_repo)
    url, key = next(served)
    try:
        _apply(env, isolated_home.root, url, "claude")
        path = str(git_repo / FILE)
        calls = [
            Call("Write", {"file_path": path, "content": "MODEL = 1\n"}),
            Call("Bash", {"command": COMMAND, "description": "e2e step"}),
            Call("Edit", {"file_path": path, "old_string": "MODEL = 1", "new_string": "MODEL = 2"}),
            Call("Bash", {"command": COMMAND, "description": "e2e step"}),
            Call("Bash", {"command": FAILING, "description": "e2e step"}),  # fails: reactive
        ]
        with ToolsAnthropic(calls) as fake:
            run_env = {**env, "ANTHROPIC_BASE_URL": fake.base_url, KEY_ENV: key,
                       "ANTHROPIC_API_KEY": "sk-memhub-e2e-fake", "IS_SANDBOX": "1"}  # fmt: skip
            argv = [claude_cli, "-p", "update the billing models", "--output-format", "json",
                    "--allowedTools", "Write,Edit,Bash"]  # fmt: skip
            proc = run(argv, env=run_env, cwd=git_repo, timeout=TIMEOUT_S)
            assert proc.returncode == 0, describe(proc)
            assert [r.is_error for r in fake.results()] == [False] * 4 + [True], fake.results()
            fired_by = {FILE_LESSON: 0, COMMAND_LESSON: 1, ERROR_LESSON: 4}
            _assert_recalled(fake, _claude_results, fired_by)
    finally:
        served.close()
    assert (git_repo / FILE).read_text() == "MODEL = 2\n"
    _assert_accounted(env, git_repo, "claude", ids, list(fired_by))
    _assert_session_kept(env, "claude", key)


def test_codex_recalls_lessons_from_a_remote_server_once(
    codex_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home, MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake")
    server_env = {**env, "MEMHUB_HOME": str(isolated_home.root / "server-home")}
    ids = _project(server_env, git_repo)
    served = _serve(server_env, git_repo)
    url, key = next(served)
    patch = f"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {FILE}\n+MODEL = 1\n*** End Patch\nEOF\n"
    commands = [patch, COMMAND, f"printf 'MODEL = 2\\n' > {FILE}", COMMAND, FAILING]
    try:
        with FakeResponses(commands) as fake:
            write_codex_fake(isolated_home.codex_home, fake.base_url)
            _apply(env, isolated_home.root, url, "codex")
            hooks = _trust_user_hooks(codex_cli, env, isolated_home.codex_home, git_repo)
            assert "preToolUse" in {h["eventName"] for h in hooks}, hooks
            flags = ["--json", "--dangerously-bypass-approvals-and-sandbox"]
            proc = run([codex_cli, "exec", *flags, "update the billing models"],
                       env={**env, KEY_ENV: key}, cwd=git_repo, timeout=TIMEOUT_S)  # fmt: skip
            assert proc.returncode == 0, describe(proc)
            assert fake.issued == len(commands), fake.answers()
            fired_by = {FILE_LESSON: 0, COMMAND_LESSON: 1, ERROR_LESSON: 4}
            _assert_recalled(fake, _responses_results, fired_by)
    finally:
        served.close()
    assert (git_repo / FILE).read_text() == "MODEL = 2\n"
    _assert_accounted(env, git_repo, "codex", ids, list(fired_by))
    _assert_session_kept(env, "codex", key)
