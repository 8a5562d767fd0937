"""Rulebook rules through the real hosts: each advisory reaches the model in the next request.

`memhub apply examples/team-memory --scope user` installs `rules.advise` on session_start,
before_tool and after_tool (edit and shell tools). One book binding everyone holds four
rules: a session-start rule, an edit rule on `billing/*.py`, a bash rule on `mkdir -p dist`,
and an edit rule on `reports/*.csv` that only a shell command writes (a redirect: the hook
sees it after the command, from what git says changed and the file's mtime). The scripted
model writes the billing file, makes the folder, writes the report through the shell, then
writes the billing file again.

What the model saw is what the host sent the fake: the session rule is in the first request;
each other rule first appears in the request right after the call that fired it, and exactly
once in the session's last request (the second write gets nothing: once per session). The
fire ledger (`memhub rules fires`) names each rule once; the hook entry logged no failure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fake_responses import FakeResponses
from .fake_tools import (
    Call,
    ToolsAnthropic,
    ToolsGemini,
    _claude_results,
    _gemini_results,
    _responses_results,
)
from .harness import describe, run
from .test_capture_hosts import (
    _trust_user_hooks,
    write_codex_fake,
    write_gemini_settings,
)
from .test_recall_hosts import HUB, TIMEOUT_S, _env, _memhub

pytestmark = pytest.mark.e2e

START = "RULE-START tickets are ENG-N"
EDIT = "RULE-EDIT billing code needs a finance review"
BASH = "RULE-BASH dist is built by CI only"
SHELL_EDIT = "RULE-SHELL reports are generated, never hand-written"
BILLING = "billing/models.py"
MKDIR = "mkdir -p dist"
REPORT = "printf 'q,total\\n' > reports/q1.csv"


def _book(env: dict[str, str], repo: Path) -> None:
    rules = [
        ("start", "session_start", [], START),
        ("billing", "edit", ["--path", "billing/*.py"], EDIT),
        ("dist", "bash", ["--command", MKDIR], BASH),
        ("reports", "edit", ["--path", "reports/*.csv"], SHELL_EDIT),
    ]
    for rule_id, event, trigger, text in rules:
        _memhub(["rules", "add", "--book", "org", "--member", "all", "--id", rule_id,
                 "--event", event, *trigger, "--text", text, "--yes"], env, repo)  # fmt: skip
    (repo / "billing").mkdir()
    (repo / "reports").mkdir()


def _assert_advised(fake: Any, results: Any, fired_by: dict[str, int]) -> None:
    requests = [r.body for r in fake.requests if isinstance(r.body, dict)]
    sent = [json.dumps(body) for body in requests]
    answered = [len(results(body)) for body in requests]
    last = max(range(len(sent)), key=lambda i: (answered[i], len(sent[i])))
    prompted = [i for i, text in enumerate(sent) if "update the billing models" in text]
    assert START in sent[prompted[0]], sent[prompted[0]][:3000]  # the first turn's request
    assert sent[last].count(START) == 1, sent[last][:3000]
    for text, call in fired_by.items():
        first = next((i for i, s in enumerate(sent) if text in s), None)
        assert first is not None, f"{text!r} never reached the model\n{sent[last][-4000:]}"
        assert answered[first] == call + 1, (text, answered, first)
        assert sent[last].count(text) == 1, (text, sent[last][-6000:])


def _assert_recorded(env: dict[str, str], repo: Path, host: str) -> None:
    log = Path(env["MEMHUB_HOME"]) / "logs" / "hook.log"
    assert not log.exists(), log.read_text()[-3000:]
    proc = _memhub(["rules", "fires", "--json"], env, repo)
    fires = [f for f in json.loads(proc.stdout)["data"]["fires"] if f["host"] == host]
    assert sorted(f["rule"] for f in fires) == ["billing", "dist", "reports", "start"], fires


FIRED_BY = {EDIT: 0, BASH: 1, SHELL_EDIT: 2}


def test_claude_gets_each_rule_once_in_the_next_request(
    claude_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home)
    _memhub(["apply", str(HUB), "--scope", "user", "--hosts", "claude"], env, isolated_home.root)
    _book(env, git_repo)
    path = str(git_repo / BILLING)
    calls = [
        Call("Write", {"file_path": path, "content": "MODEL = 1\n"}),
        Call("Bash", {"command": MKDIR, "description": "e2e step"}),
        Call("Bash", {"command": REPORT, "description": "e2e step"}),
        Call("Write", {"file_path": path, "content": "MODEL = 2\n"}),
    ]
    with ToolsAnthropic(calls) as fake:
        run_env = {**env, "ANTHROPIC_BASE_URL": fake.base_url,
                   "ANTHROPIC_API_KEY": "sk-memhub-e2e-fake", "IS_SANDBOX": "1"}  # fmt: skip
        argv = [claude_cli, "-p", "update the billing models", "--output-format", "json",
                "--allowedTools", "Write,Edit,Bash"]  # fmt: skip
        proc = run(argv, env=run_env, cwd=git_repo, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        assert [r.is_error for r in fake.results()] == [False] * 4, fake.results()
        _assert_advised(fake, _claude_results, FIRED_BY)
    assert (git_repo / "reports" / "q1.csv").read_text() == "q,total\n"
    _assert_recorded(env, git_repo, "claude")


def test_codex_gets_each_rule_once_in_the_next_request(
    codex_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home, MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake")
    commands = [f"printf 'MODEL = 1\\n' > {BILLING}", MKDIR, REPORT,
                f"printf 'MODEL = 2\\n' > {BILLING}"]  # fmt: skip
    with FakeResponses(commands) as fake:
        write_codex_fake(isolated_home.codex_home, fake.base_url)
        _memhub(["apply", str(HUB), "--scope", "user", "--hosts", "codex"], env,
                isolated_home.root)  # fmt: skip
        _book(env, git_repo)
        _trust_user_hooks(codex_cli, env, isolated_home.codex_home, git_repo)
        flags = ["--json", "--dangerously-bypass-approvals-and-sandbox"]
        proc = run([codex_cli, "exec", *flags, "update the billing models"], env=env,
                   cwd=git_repo, timeout=TIMEOUT_S)  # fmt: skip
        assert proc.returncode == 0, describe(proc)
        assert fake.issued == len(commands), fake.answers()
        # Codex edits through the shell here: the billing write is seen after the command
        _assert_advised(fake, _responses_results, FIRED_BY)
    _assert_recorded(env, git_repo, "codex")


def test_gemini_gets_each_rule_once_in_the_next_request(
    gemini_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home)
    write_gemini_settings(isolated_home.home)
    _memhub(["apply", str(HUB), "--scope", "user", "--hosts", "gemini"], env, isolated_home.root)
    _book(env, git_repo)
    path = str(git_repo / BILLING)
    calls = [
        Call("write_file", {"file_path": path, "content": "MODEL = 1\n"}),
        Call("run_shell_command", {"command": MKDIR, "description": "e2e step"}),
        Call("run_shell_command", {"command": REPORT, "description": "e2e step"}),
        Call("write_file", {"file_path": path, "content": "MODEL = 2\n"}),
    ]
    with ToolsGemini(calls) as fake:
        run_env = {**env, "GEMINI_API_KEY": "memhub-e2e-fake",
                   "GOOGLE_GEMINI_BASE_URL": fake.base_url}  # fmt: skip
        argv = [gemini_cli, "-m", "fake-model", "--yolo", "--skip-trust", "-o", "json",
                "-p", "update the billing models"]  # fmt: skip
        proc = run(argv, env=run_env, cwd=git_repo, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        assert len(fake.results()) == 4, (fake.results(), sorted(fake.offered))
        _assert_advised(fake, _gemini_results, FIRED_BY)
    _assert_recorded(env, git_repo, "gemini")
