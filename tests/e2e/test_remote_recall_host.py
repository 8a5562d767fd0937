"""Directive recall from a remote server through real Claude Code and Codex: the hub says so.

A real `memhub mcp serve --http` runs in a memhub home of its own, serving the session's
checkout with the three lessons of test_recall_hosts.py. `examples/team-memory`, with
`memory.recall.remote` naming that server (the key in a variable, `key_env`), is applied
into the isolated HOME, whose own memory is empty: no project is connected there. The
scripted model edits the file, runs the command, repeats both, then runs a read-only command
that fails; each lesson must reach the model in the request right after the call that fired
it, once, exactly as with local recall, and the hook log stays empty.

The brief and the prompt ask the same server: the branch's commit touches the lesson's
file, so the brief's detached child finds the lesson under Apply (the server's
`recall_directives`) and the server's overview; the first prompt's hook delivers them with
the pointer to a fact naming the prompt's file (the server's `search_memory`), all in the
first request.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from . import scripted
from .fake_tools import Call
from .harness import run
from .test_recall_hosts import (
    COMMAND,
    COMMAND_LESSON,
    ERROR_LESSON,
    FAILING,
    FILE,
    FILE_LESSON,
    HUB,
    _assert_accounted,
    _assert_recalled,
    _env,
    _memhub,
    _project,
)

pytestmark = [pytest.mark.e2e, pytest.mark.memory_e2e, pytest.mark.usefixtures("cpu_load")]

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
    scripted.memhub(["apply", str(_remote_hub(root, url)), "--scope", "user", "--hosts", host],
                    env, root)  # fmt: skip
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
        session = scripted.claude(claude_cli, {**env, KEY_ENV: key}, git_repo,
                                  "update the billing models", calls,
                                  "--allowedTools", "Write,Edit,Bash")  # fmt: skip
        results = session.fake.results()
        assert [r.is_error for r in results] == [False] * 4 + [True], results
        fired_by = {FILE_LESSON: 0, COMMAND_LESSON: 1, ERROR_LESSON: 4}
        _assert_recalled(session.fake, session.results, fired_by)
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
        session = scripted.codex(
            codex_cli, isolated_home, {**env, KEY_ENV: key}, git_repo,
            "update the billing models", commands,
            lambda: _apply(env, isolated_home.root, url, "codex"),
        )  # fmt: skip
        assert "preToolUse" in {h["eventName"] for h in session.hooks}, session.hooks
        fired_by = {FILE_LESSON: 0, COMMAND_LESSON: 1, ERROR_LESSON: 4}
        _assert_recalled(session.fake, session.results, fired_by)
    finally:
        served.close()
    assert (git_repo / FILE).read_text() == "MODEL = 2\n"
    _assert_accounted(env, git_repo, "codex", ids, list(fired_by))
    _assert_session_kept(env, "codex", key)


PROMPT = "What does docs/deploy.md say about releases?"
DEPLOY_FACT = "Deploy checklist"  # a fact on the server naming docs/deploy.md
LATE = "the rest of this session's brief"  # brief_render.LATE_HEAD


def _brief_world(env: dict[str, str], server_env: dict[str, str], repo: Path) -> None:
    """The lessons and a fact naming docs/deploy.md on the server; a commit touching the
    file lesson's path in the checkout (the branch's files)."""
    _project(server_env, repo)
    _memhub(["memory", "add", "--kind", "fact", "--title", DEPLOY_FACT, "--body",
             "docs/deploy.md lists the release steps.", "--yes"], server_env, repo)  # fmt: skip
    (repo / FILE).write_text("MODEL = 0\n")
    ident = ["-c", "user.name=e2e", "-c", "user.email=e2e@example.org"]
    for args in (["add", FILE], [*ident, "commit", "-q", "-m", "billing: models"]):
        run(["git", "-C", str(repo), *args], env=env, check=True, timeout=30)


def _assert_remote_brief(sent: str, url: str, home: Path) -> None:
    assert f"the remote server at {url}" in sent, sent[:3000]
    rest = sent.split(LATE, 1)
    assert len(rest) == 2, f"the brief's rest did not reach the first request: {sent[:4000]}"
    assert "The remote server's overview:" in rest[1], rest[1][:3000]
    apply = rest[1].split("### Apply", 1)
    assert len(apply) == 2 and FILE_LESSON in apply[1], rest[1][:3000]
    pointer = sent.split("memhub memory names what this prompt names", 1)
    assert len(pointer) == 2 and DEPLOY_FACT in pointer[1], sent[:4000]
    log = home / "logs" / "hook.log"
    assert not log.exists(), log.read_text()[-3000:]


def _first_request(bodies: list[Any]) -> str:
    texts = [json.dumps(body) for body in bodies]
    found = [text for text in texts if "docs/deploy.md say about releases" in text]
    assert found, f"no request carried the prompt; {len(texts)} requests"
    return found[0]


def test_claude_gets_the_brief_and_the_pointer_from_a_remote_server(
    claude_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home)
    server_env = {**env, "MEMHUB_HOME": str(isolated_home.root / "server-home")}
    _brief_world(env, server_env, git_repo)
    served = _serve(server_env, git_repo)
    url, key = next(served)
    try:
        _apply(env, isolated_home.root, url, "claude")
        session = scripted.claude(claude_cli, {**env, KEY_ENV: key}, git_repo, PROMPT, [],
                                  final_text="Noted.")  # fmt: skip
        sent = _first_request(session.bodies())
    finally:
        served.close()
    _assert_remote_brief(sent, url, Path(env["MEMHUB_HOME"]))


def test_codex_gets_the_brief_and_the_pointer_from_a_remote_server(
    codex_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home, MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake")
    server_env = {**env, "MEMHUB_HOME": str(isolated_home.root / "server-home")}
    _brief_world(env, server_env, git_repo)
    served = _serve(server_env, git_repo)
    url, key = next(served)
    try:
        session = scripted.codex(
            codex_cli, isolated_home, {**env, KEY_ENV: key}, git_repo, PROMPT, [],
            lambda: _apply(env, isolated_home.root, url, "codex"),
        )  # fmt: skip
        assert {"sessionStart", "userPromptSubmit"} <= {h["eventName"] for h in session.hooks}
        sent = _first_request(session.bodies())
    finally:
        served.close()
    _assert_remote_brief(sent, url, Path(env["MEMHUB_HOME"]))
