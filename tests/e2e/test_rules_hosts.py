"""Rulebook rules through the real hosts: each advisory reaches the model in the next request.

`memhub apply examples/team-memory --scope user` installs `rules.advise` on session_start,
before_tool and after_tool (edit and shell tools). One book binding everyone holds four
rules: a session-start rule, an edit rule on `billing/*.py`, a bash rule on `mkdir -p dist`,
and an edit rule on `reports/*.csv` that only a shell command writes (a redirect: the hook
sees it after the command, from what git says changed and the file's mtime). The scripted
model writes the billing file, makes the folder, writes the report through the shell, then
writes the billing file again. Codex edits through the shell: its first billing edit is an
`apply_patch <<'EOF'` deleting a committed billing file (Codex reports it as Bash; the hook
reads it as an edit of the patch's files, before it is applied), the second a redirect.

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

from . import scripted
from .fake_tools import Call
from .scripted import first_after, once_in_last
from .test_recall_hosts import _env, _memhub

pytestmark = pytest.mark.e2e

START = "RULE-START tickets are ENG-N"
EDIT = "RULE-EDIT billing code needs a finance review"
BASH = "RULE-BASH dist is built by CI only"
SHELL_EDIT = "RULE-SHELL reports are generated, never hand-written"
BILLING = "billing/models.py"
MKDIR = "mkdir -p dist"
REPORT = "printf 'q,total\\n' > reports/q1.csv"
PROMPT = "update the billing models"


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


def _assert_advised(run: scripted.Session, fired_by: dict[str, int]) -> None:
    sent = run.sent()
    prompted = [body for _, body in sent if PROMPT in body]
    assert START in prompted[0], prompted[0][:3000]  # the first turn's request
    once_in_last(sent, START)
    for text, call in fired_by.items():
        first_after(sent, text, call)
        once_in_last(sent, text)


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
    scripted.apply("claude", env, isolated_home.root)
    _book(env, git_repo)
    path = str(git_repo / BILLING)
    calls = [
        Call("Write", {"file_path": path, "content": "MODEL = 1\n"}),
        Call("Bash", {"command": MKDIR, "description": "e2e step"}),
        Call("Bash", {"command": REPORT, "description": "e2e step"}),
        Call("Write", {"file_path": path, "content": "MODEL = 2\n"}),
    ]
    run = scripted.claude(claude_cli, env, git_repo, PROMPT, calls,
                          "--allowedTools", "Write,Edit,Bash")  # fmt: skip
    assert [r.is_error for r in run.fake.results()] == [False] * 4, run.fake.results()
    _assert_advised(run, FIRED_BY)
    assert (git_repo / "reports" / "q1.csv").read_text() == "q,total\n"
    _assert_recorded(env, git_repo, "claude")


def test_codex_gets_each_rule_once_in_the_next_request(
    codex_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home, MEMHUB_E2E_FAKE_KEY=scripted.FAKE_KEY)
    # a patch that deletes a billing file: only the patch names it (git's view after the
    # command has nothing on disk to read), so the rule fires only if the hook reads the patch
    patch = ("apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: billing/legacy.py\n"
             "*** End Patch\nEOF\n")  # fmt: skip
    commands = [patch, MKDIR, REPORT, f"printf 'MODEL = 2\\n' > {BILLING}"]

    def setup() -> None:
        scripted.apply("codex", env, isolated_home.root)
        _book(env, git_repo)
        (git_repo / "billing" / "legacy.py").write_text("OLD = 1\n")
        for argv in (["add", "billing"], ["commit", "-q", "-m", "billing"]):
            scripted.run(["git", "-C", git_repo, *argv], env=env, check=True, timeout=30)

    run = scripted.codex(codex_cli, isolated_home, env, git_repo, PROMPT, commands, setup)
    # the apply_patch is an edit of its files: the billing rule comes with its result
    _assert_advised(run, FIRED_BY)
    assert not (git_repo / "billing" / "legacy.py").exists()
    assert (git_repo / BILLING).read_text() == "MODEL = 2\n"
    assert (git_repo / "reports" / "q1.csv").read_text() == "q,total\n"
    _assert_recorded(env, git_repo, "codex")


def test_gemini_gets_each_rule_once_in_the_next_request(
    gemini_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home)
    scripted.gemini_settings(isolated_home)
    scripted.apply("gemini", env, isolated_home.root)
    _book(env, git_repo)
    path = str(git_repo / BILLING)
    calls = [
        Call("write_file", {"file_path": path, "content": "MODEL = 1\n"}),
        Call("run_shell_command", {"command": MKDIR, "description": "e2e step"}),
        Call("run_shell_command", {"command": REPORT, "description": "e2e step"}),
        Call("write_file", {"file_path": path, "content": "MODEL = 2\n"}),
    ]
    run = scripted.gemini(gemini_cli, env, git_repo, PROMPT, calls)
    _assert_advised(run, FIRED_BY)
    _assert_recorded(env, git_repo, "gemini")
