"""memhub's runtime `handler:` hooks in the real GitHub Copilot CLI (1.0.102), offline against
a scripted model (Copilot's own anthropic provider settings).

examples/team-memory, with copilot among its hosts, is applied at user scope (hooks run
`memhub-hook`) or bundled and installed as a plugin (hooks run the vendored
`memhub_runtime/hook.py` under `python3 -S`). The checkout holds three lessons, as in
test_recall_hosts.py: the model creates billing/models.py with Copilot's `create`, runs a
mutating command with `bash`, edits the file with `edit`, runs the command again, then runs a
read-only command that fails naming the missing file. Copilot shows the model a preToolUse
hook's `additionalContext` ("Additional context from preToolUse hook: ...") and a
postToolUseFailure's after the failed result: each lesson first reaches the model in the
request carrying the result of the call that fired it, and exactly once in the session's last
request; `memhub recall stats` names each lesson fired once in that session, the hook log
stays empty. The same hub's capture hooks store every record of Copilot's session file
(runtime/transcripts/copilot.py) once. The build's coverage rows carry every handler.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from . import scripted
from .fake_tools import Call, ToolsAnthropic, _claude_results
from .harness import build_bundle, describe, read_hub, run
from .scripted import HUB, TIMEOUT_S, host_env, memhub
from .test_capture_hosts import CAPTURE_WAIT_S, FIRST, _assert_captured
from .test_copilot_host import _env as copilot_env
from .test_copilot_host import copilot_cli  # noqa: F401 (fixture)
from .test_recall_hosts import (
    COMMAND,
    FAILING,
    FILE,
    FIRED_BY,
    PROMPT,
    _assert_accounted,
    _assert_recalled,
    _project,
)

pytestmark = pytest.mark.e2e


def _hub(tmp_path: Path) -> Path:
    """examples/team-memory with Copilot CLI among its hosts."""
    root = tmp_path / "team-memory"
    shutil.copytree(HUB, root)
    text = (root / "hub.yaml").read_text(encoding="utf-8")
    old = "hosts: [claude, codex, gemini, cursor]"
    assert old in text
    (root / "hub.yaml").write_text(text.replace(old, "hosts: [copilot]"), encoding="utf-8")
    return root


def _install(how: str, hub: Path, env: dict[str, str], cli: Path, iso: Any) -> None:
    if how == "apply":
        scripted.apply("copilot", env, iso.root, hub)
        return
    bundle = iso.root / "bundle"
    build_bundle(hub, bundle)
    info = read_hub(hub)
    for args in (
        ["plugin", "marketplace", "add", str(bundle)],
        ["plugin", "install", f"{info.plugin}@{info.marketplace}"],
    ):
        proc = run([cli, *args], env=env, cwd=iso.root)
        assert proc.returncode == 0, describe(proc)


def _session(cli: Path, env: dict[str, str], cwd: Path, calls: list[Call]) -> scripted.Session:
    with ToolsAnthropic(calls, final_text="Done.") as fake:
        run_env = {
            **env,
            "COPILOT_PROVIDER_BASE_URL": fake.base_url,
            "COPILOT_PROVIDER_TYPE": "anthropic",
            "COPILOT_PROVIDER_API_KEY": scripted.FAKE_KEY,
            "COPILOT_MODEL": "claude-sonnet-4.5",
        }
        argv = [cli, "-p", PROMPT, "--allow-all-tools", "--trust-folder", "-s"]
        proc = run(argv, env=run_env, cwd=cwd, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
    return scripted.Session(fake, proc, _claude_results)


@pytest.mark.parametrize("how", ["apply", "bundle"])
def test_copilot_recalls_each_lesson_once(
    copilot_cli: Path,  # noqa: F811
    isolated_home: Any,
    git_repo: Path,
    tmp_path: Path,
    how: str,
) -> None:
    hub = _hub(tmp_path)
    env = host_env(isolated_home, **copilot_env(isolated_home, isolated_home.root / "out"))
    _install(how, hub, env, copilot_cli, isolated_home)
    ids = _project(env, git_repo)
    path = str(git_repo / FILE)
    calls = [
        Call("create", {"path": path, "file_text": "MODEL = 1\n"}),
        Call("bash", {"command": COMMAND, "description": "e2e step"}),
        Call("edit", {"path": path, "old_str": "MODEL = 1", "new_str": "MODEL = 2"}),
        Call("bash", {"command": COMMAND, "description": "e2e step"}),
        Call("bash", {"command": FAILING, "description": "e2e step"}),  # fails: reactive
    ]
    session = _session(copilot_cli, env, git_repo, calls)
    results = session.fake.results()
    assert [r.name for r in results] == [c.tool for c in calls], results
    assert "exit code 1" in results[-1].text, results[-1]  # Copilot's failed command
    _assert_recalled(session.fake, session.results, FIRED_BY)
    assert (git_repo / FILE).read_text() == "MODEL = 2\n"
    _assert_accounted(env, git_repo, "copilot", ids, list(FIRED_BY))


@pytest.mark.parametrize("how", ["apply", "bundle"])
def test_copilot_session_is_captured(
    copilot_cli: Path,  # noqa: F811
    isolated_home: Any,
    git_repo: Path,
    tmp_path: Path,
    how: str,
) -> None:
    """capture.turn_end (agentStop), capture.commit (postToolUse on bash) and
    capture.session_end (sessionEnd) store every record of Copilot's events.jsonl once, under
    the title `memhub sessions` gives it; the session's real `git commit` made a commit flush."""
    hub = _hub(tmp_path)
    env = host_env(isolated_home, **copilot_env(isolated_home, isolated_home.root / "out"))
    _install(how, hub, env, copilot_cli, isolated_home)
    calls = [Call("bash", {"command": c, "description": "e2e step"}) for c in FIRST]
    session = _session(copilot_cli, env, git_repo, calls)
    assert [r.is_error for r in session.fake.results()] == [False, False]
    # Copilot ends the session within a second of the commit: the turn, commit and
    # session-end flushes run together, and whichever holds the lock first sends it all;
    # the commit's flush logs once it has run (sent, or nothing new)
    log = Path(env["MEMHUB_HOME"]) / "logs" / "capture.log"
    deadline = time.monotonic() + CAPTURE_WAIT_S
    while not re.search(r"copilot \S+: commit (\+|flush: )", _text(log)):
        assert time.monotonic() < deadline, _text(log)
        time.sleep(0.5)
    _assert_captured("copilot", env, git_repo, None)


def _text(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def test_copilot_coverage_of_the_handlers(tmp_path: Path, isolated_home: Any) -> None:
    """Every handler of the hub is carried on Copilot: mapped, or a caveat naming what
    Copilot has not (async, a status message, an MCP tool to match)."""
    env = host_env(isolated_home)
    proc = memhub(["build", str(_hub(tmp_path)), "--out", str(tmp_path / "b"), "--json"], env,
                  tmp_path)  # fmt: skip
    rows = [r for r in json.loads(proc.stdout)["data"]["coverage"] if r["component"] == "hook"]
    assert rows and all(r["status"] in ("mapped", "caveat") for r in rows), rows
    assert {r["id"] for r in rows} >= {"capture-turn", "capture-session-end", "capture-commit"}
