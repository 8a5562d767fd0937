"""The PR and spec workflow hooks through the real hosts, each against a scripted model.

`memhub apply examples/team-memory --scope user` installs the hub's hooks (the PR hooks on
`after_tool` for shell and MCP, the spec hook on `after_tool` for edits). A fake `gh` on PATH
answers `gh pr create`: with `--title ok` it prints a PR URL and exits 0, with `--title
fail` it prints gh's refusal (naming the existing PR) on stderr and exits 1. In a checkout
whose `docs/specs/auth.md` owns `src/auth/**`, the scripted model runs the failing create,
then the good one, then writes two owned files. Expected, from what the host sent the model:

* the request after the failing create holds no PR instruction at all;
* the request after the good create holds the babysit instruction naming that PR;
* `memhub sessions prs --json` lists exactly that PR against the host's session id;
* after the first owned write the spec is named, and only once in the whole session;
* once the change is committed, a `git push` (which then fails: there is no remote) brings
  the push reminder naming the spec and the branch's owned files (Claude Code and Codex,
  whose PreToolUse output reaches the model; Gemini's BeforeTool output does not).

Claude Code, Codex (shell only: its PostToolUse output reaches the model; the scripted Codex
has no edit tool; its login shell resets PATH, so it runs the fake `gh` by its path) and
Gemini CLI (AfterTool output reaches the model) run it. Claude Code also opens a PR through
a GitHub MCP server's `create_pull_request` (a stdio stand-in, fake_github_mcp.py): the same
babysit instruction, the same self-link.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from . import scripted
from .fake_tools import Call
from .harness import describe, run
from .scripted import memhub

pytestmark = pytest.mark.e2e

URL = "https://github.com/acme/app/pull/42"
EXISTING = "https://github.com/acme/app/pull/41"
FAIL = "gh pr create --title fail --body e2e"
CREATE = "gh pr create --title ok --body e2e"
BABYSIT = "pr-babysit"  # the skill the babysit instruction names
PR_TEXTS = ("MemHub: this session opened", "MemHub: this call")  # every PR instruction starts so
OWNED = "is owned by spec **Authentication**"
FAKE_GH = f"""#!/bin/sh
if [ "$1 $2" = "pr create" ]; then
  case "$*" in
    *"--title ok"*) echo "{URL}"; exit 0 ;;
  esac
  echo 'a pull request for branch "feature" into branch "main" already exists:' >&2
  echo "{EXISTING}" >&2
  exit 1
fi
echo "fake gh: unsupported: $*" >&2
exit 1
"""
COMMIT = "git add -A && git commit -q -m 'auth change'"
PUSH = "git push origin x"  # no remote: it fails, after the before_tool hook has run
PUSH_TEXT = "these specs own code changed on this branch but were not edited"
SPEC = "---\ntitle: Authentication\nowns:\n  - src/auth/**\n---\n# Authentication\n"


def _env(iso: Any, **extra: str) -> dict[str, str]:
    """The isolated environment with the fake `gh`, then memhub's scripts, first on PATH."""
    tools = iso.root / "fake-bin"
    tools.mkdir(exist_ok=True)
    gh = tools / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(0o755)
    return scripted.host_env(iso, tools, **extra)


def _checkout(repo: Path, env: dict[str, str]) -> None:
    """Specs in the empty checkout, committed, on a feature branch."""
    (repo / "docs" / "specs").mkdir(parents=True)
    (repo / "docs" / "specs" / "auth.md").write_text(SPEC)
    (repo / "src" / "auth").mkdir(parents=True)
    for argv in (["add", "."], ["commit", "-q", "-m", "specs"], ["checkout", "-q", "-b", "x"]):
        run(["git", "-C", repo, *argv], env=env, check=True, timeout=30)


def _shown(sent: list[str], after: int) -> str:
    """What the host sent the model once `after` tool results were in (the first such
    request), as JSON text."""
    return next((text for n, text in sent if n == after), "")  # type: ignore[misc]


def _links(env: dict[str, str], cwd: Path) -> list[tuple[str, str, str]]:
    proc = memhub(["sessions", "prs", "--json"], env, cwd)
    return [
        (x["host"], x["session_id"], x["url"]) for x in json.loads(proc.stdout)["data"]["links"]
    ]


def _assert_pr_flow(requests: list[tuple[int, str]], fail_at: int, create_at: int) -> None:
    after_fail = _shown(requests, fail_at)
    after_create = _shown(requests, create_at)
    assert after_fail and after_create, [n for n, _ in requests]
    assert not any(text in after_fail for text in PR_TEXTS), after_fail[-3000:]
    assert EXISTING in after_fail  # the model saw gh's refusal, and nothing from memhub
    assert f"{PR_TEXTS[0]} pull request acme/app#42" in after_create, after_create[-3000:]
    assert f"{BABYSIT} {URL}" in after_create
    assert after_create.count("self-paced loop") == 1


# ------------------------------------------------------------------ Claude Code
def _claude_requests(fake: Any) -> list[tuple[int, str]]:
    out = []
    for request in fake.requests:
        body = request.body if isinstance(request.body, dict) else {}
        if not body.get("stream") or "Bash" not in json.dumps(body.get("tools")):
            continue
        results = sum(json.dumps(m).count('"tool_result"') for m in body.get("messages") or [])
        out.append((results, json.dumps(body)))
    return out


def test_claude_pr_create_babysit_link_and_spec_owner(
    claude_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    calls = [
        Call("Bash", {"command": FAIL, "description": "e2e"}),
        Call("Bash", {"command": CREATE, "description": "e2e"}),
        Call("Write", {"file_path": str(git_repo / "src/auth/a.py"), "content": "a = 1\n"}),
        Call("Write", {"file_path": str(git_repo / "src/auth/b.py"), "content": "b = 1\n"}),
        Call("Bash", {"command": COMMIT, "description": "e2e"}),
        Call("Bash", {"command": PUSH, "description": "e2e"}),
    ]
    env = _env(isolated_home)
    _checkout(git_repo, env)
    scripted.apply("claude", env, isolated_home.root)
    session = scripted.claude(claude_cli, env, git_repo, "open the PR", calls,
                              "--allowedTools", "Bash,Write")  # fmt: skip
    proc, results = session.proc, session.fake.results()
    requests = _claude_requests(session.fake)
    session_id = json.loads(proc.stdout)["session_id"]
    assert len(results) == len(calls), (results, describe(proc))
    assert [r.is_error for r in results] == [True, False, False, False, False, True], results
    _assert_pr_flow(requests, 1, 2)
    assert _links(env, git_repo) == [("claude", session_id, URL)]
    assert OWNED not in _shown(requests, 2)
    assert "`src/auth/a.py` " + OWNED in _shown(requests, 3)
    assert _shown(requests, 4).count(OWNED) == 1  # named once, not again for b.py
    assert PUSH_TEXT not in _shown(requests, 5)  # the commit is no push
    after_push = _shown(requests, 6)
    assert after_push.count(PUSH_TEXT) == 1, after_push[-3000:]
    owned = "**Authentication** (`docs/specs/auth.md`): `src/auth/a.py`, `src/auth/b.py`"
    assert owned in after_push


# ------------------------------------------------------------------ Codex
def _patch(path: str, line: str) -> str:
    """Codex's edit as its model writes it through the shell: an `apply_patch` envelope."""
    return (
        f"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {path}\n+{line}\n*** End Patch\nEOF\n"
    )


def test_codex_pr_create_babysit_link_and_spec_owner(
    codex_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    # Codex runs commands in a login shell, whose profile resets PATH: the fake by its path
    gh = str(isolated_home.root / "fake-bin" / "gh")
    calls = [
        Call("exec_command", {"cmd": gh + FAIL[2:]}),
        Call("exec_command", {"cmd": gh + CREATE[2:]}),
        Call("exec_command", {"cmd": _patch("src/auth/a.py", "a = 1")}),
        Call("exec_command", {"cmd": _patch("src/auth/b.py", "b = 1")}),
        Call("exec_command", {"cmd": COMMIT}),
        Call("exec_command", {"cmd": PUSH}),
    ]
    env = _env(isolated_home, MEMHUB_E2E_FAKE_KEY=scripted.FAKE_KEY)

    def setup() -> None:
        _checkout(git_repo, env)
        scripted.apply("codex", env, isolated_home.root)

    session = scripted.codex(codex_cli, isolated_home, env, git_repo, "pr", calls, setup)
    assert all(h["trustStatus"] == "trusted" for h in session.hooks), session.hooks
    lines = [json.loads(x) for x in session.proc.stdout.splitlines() if x.startswith("{")]
    thread = next(e["thread_id"] for e in lines if e.get("type") == "thread.started")
    requests = session.sent()
    _assert_pr_flow(requests, 1, 2)
    assert _links(env, git_repo) == [("codex", thread, URL)]
    # apply_patch is an edit (Codex reports it as Bash): the owning spec is named once
    assert (git_repo / "src/auth/b.py").read_text() == "b = 1\n"
    assert OWNED not in _shown(requests, 2)
    assert "`src/auth/a.py` " + OWNED in _shown(requests, 3)
    assert _shown(requests, 4).count(OWNED) == 1  # named once, not again for b.py
    assert PUSH_TEXT not in _shown(requests, 5)
    after_push = _shown(requests, 6)
    assert after_push.count(PUSH_TEXT) == 1, after_push[-3000:]
    owned = "**Authentication** (`docs/specs/auth.md`): `src/auth/a.py`, `src/auth/b.py`"
    assert owned in after_push


# ------------------------------------------------------------------ Gemini CLI
def test_gemini_pr_create_babysit_link_and_spec_owner(
    gemini_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    calls = [
        Call("run_shell_command", {"command": FAIL}),
        Call("run_shell_command", {"command": CREATE}),
        Call("write_file", {"file_path": str(git_repo / "src/auth/a.py"), "content": "a = 1\n"}),
        Call("write_file", {"file_path": str(git_repo / "src/auth/b.py"), "content": "b = 1\n"}),
    ]
    scripted.gemini_settings(isolated_home)
    env = _env(isolated_home)
    _checkout(git_repo, env)
    scripted.apply("gemini", env, isolated_home.root)
    session_id = str(uuid.uuid4())
    session = scripted.gemini(gemini_cli, env, git_repo, "open the PR", calls,
                              "--session-id", session_id)  # fmt: skip
    proc, results = session.proc, session.fake.results()
    requests = session.sent()
    assert len(results) == len(calls), (results, describe(proc))
    _assert_pr_flow(requests, 1, 2)
    assert _links(env, git_repo) == [("gemini", session_id, URL)]
    assert "`src/auth/a.py` " + OWNED in _shown(requests, 3)
    assert _shown(requests, 4).count(OWNED) == 1


MCP_URL = "https://github.com/acme/app/pull/43"


def test_claude_github_mcp_create_self_links(
    claude_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    """A GitHub MCP server's `create_pull_request` (a stand-in on stdio) self-links too."""
    server = Path(__file__).with_name("fake_github_mcp.py")
    config = isolated_home.root / "github-mcp.json"
    spec = {"command": sys.executable, "args": [str(server), MCP_URL]}
    config.write_text(json.dumps({"mcpServers": {"github": spec}}))
    args = {"owner": "acme", "repo": "app", "title": "e2e", "head": "x", "base": "main"}
    calls = [Call("create_pull_request", args)]
    env = _env(isolated_home)
    scripted.apply("claude", env, isolated_home.root)
    session = scripted.claude(claude_cli, env, git_repo, "open the PR", calls, "--mcp-config",
                              str(config), "--allowedTools", "mcp__github__create_pull_request")  # fmt: skip
    proc, results = session.proc, session.fake.results()
    session_id = json.loads(proc.stdout)["session_id"]
    sent = json.dumps(session.bodies())
    assert len(results) == 1 and not results[0].is_error, (results, describe(proc))
    assert MCP_URL in results[0].text
    assert f"{PR_TEXTS[0]} pull request acme/app#43" in sent, sent[-3000:]
    assert _links(env, git_repo) == [("claude", session_id, MCP_URL)]
