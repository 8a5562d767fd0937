"""The PR and spec hook handlers on each host's real payload shape: what reaches the model
(the host's answer), what is recorded against the session, and silence everywhere else."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime import dispatch, handlers
from memhub.runtime.events import normalise
from memhub.runtime.workflows import prstore

URL = "https://github.com/acme/app/pull/42"
CREATE = "gh pr create --fill"
PR_HANDLERS = ("workflow.pr_link", "workflow.pr_babysit")


def _run(
    home: Path, host: str, host_event: str, payload: dict[str, Any], names=PR_HANDLERS
) -> dict[str, Any]:
    """The host's answer after the named handlers ran on the event (as the dispatcher does)."""
    event = normalise(host, host_event, {"session_id": "s-1", "cwd": str(home), **payload})
    out = dispatch.Output(str(home))
    for name in names:
        handlers.HANDLERS[name](event, out)
    return json.loads(dispatch.render(event.host, event.host_event, out))


def _context(answer: dict[str, Any]) -> str:
    return answer.get("hookSpecificOutput", {}).get("additionalContext", "")


def _links(home: Path) -> list[tuple[str, str, str]]:
    return [
        (doc["host"], doc["session_id"], link["url"])
        for doc in prstore.sessions(str(home))
        for link in doc["links"]
    ]


def _claude_bash(command: str, stdout: str, event: str = "PostToolUse") -> dict[str, Any]:
    return {
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
        "hook_event_name": event,
    }


def test_claude_create_self_links_and_arms_the_babysit_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_PLUGIN_ROOT", raising=False)  # hooks memhub apply installed
    answer = _run(tmp_path, "claude", "PostToolUse", _claude_bash(CREATE, f"{URL}\n"))
    text = _context(answer)
    assert "this session opened pull request acme/app#42" in text, answer
    assert f"`/loop /pr-babysit {URL}`" in text  # the person's own skill, as apply installs it
    assert _links(tmp_path) == [("claude", "s-1", URL)]
    # the same create reported twice is one link
    _run(tmp_path, "claude", "PostToolUse", _claude_bash(CREATE, f"{URL}\n"))
    assert _links(tmp_path) == [("claude", "s-1", URL)]


def test_a_failed_create_is_silent(tmp_path: Path) -> None:
    payload = {
        "tool_name": "Bash",
        "tool_input": {"command": CREATE},
        "error": f"a pull request for branch x already exists:\n{URL}",
    }
    assert _run(tmp_path, "claude", "PostToolUseFailure", payload) == {}
    # Codex reports a failed create as PostToolUse too; gh's refusal names the existing PR
    refused = {
        "tool_name": "Bash",
        "tool_input": {"command": CREATE},
        "tool_response": f'a pull request for branch "x" already exists:\n{URL}\n',
    }
    # Codex sends no exit status with a plain result: not a self-link, not the babysit loop
    answer = _run(tmp_path, "codex", "PostToolUse", refused)
    assert "self-paced loop" not in _context(answer) and _links(tmp_path) == []
    gemini = {
        "tool_name": "run_shell_command",
        "tool_input": {"command": CREATE},
        "tool_response": {"llmContent": f"Output: {URL}", "error": {"message": "exit 1"}},
    }
    assert _run(tmp_path, "gemini", "AfterTool", gemini) == {}
    # Gemini CLI 0.61 sets no `error` for a non-zero exit: its result names the exit code
    refusal = "a pull request for branch x already exists:\n" + URL
    shell = f"<untrusted_context>\nOutput: {refusal}\nExit Code: 1\nProcess Group PGID: 9\n</untrusted_context>"
    gemini = {**gemini, "tool_response": {"llmContent": shell, "returnDisplay": refusal}}
    assert _run(tmp_path, "gemini", "AfterTool", gemini) == {}
    assert _links(tmp_path) == []


def test_a_pipeline_that_can_hide_a_failure_is_judged(tmp_path: Path) -> None:
    payload = _claude_bash(f"{CREATE} 2>&1 | tail -5", f"{URL}\n")
    text = _context(_run(tmp_path, "claude", "PostToolUse", payload))
    assert "can hide a failed create" in text and "babysit" in text
    assert _links(tmp_path) == []


def test_a_call_naming_one_pr_asks_to_link_only_if_this_session_wrote_it(tmp_path: Path) -> None:
    payload = _claude_bash("gh pr view 42", f"title:\tFix\nurl:\t{URL}\n")
    answer = _run(tmp_path, "claude", "PostToolUse", payload)
    assert "If this session wrote that PR's code" in _context(answer), answer
    assert _links(tmp_path) == []
    # the babysit handler alone says nothing about a PR this session did not open
    assert _run(tmp_path, "claude", "PostToolUse", payload, ("workflow.pr_babysit",)) == {}


def test_heredoc_bodies_and_other_commands_are_silent(tmp_path: Path) -> None:
    heredoc = f"cat > notes.md <<'EOF'\n{CREATE}\nEOF"
    assert _run(tmp_path, "claude", "PostToolUse", _claude_bash(heredoc, f"{URL}\n")) == {}
    assert _run(tmp_path, "claude", "PostToolUse", _claude_bash("ls", f"{URL}\n")) == {}
    assert _run(tmp_path, "claude", "PostToolUse", {"tool_name": "Bash"}) == {}
    assert _links(tmp_path) == []


def test_codex_and_gemini_result_shapes(tmp_path: Path) -> None:
    codex = {"tool_name": "Bash", "tool_input": {"command": CREATE}, "tool_response": URL + "\n"}
    assert "opened pull request" in _context(_run(tmp_path, "codex", "PostToolUse", codex))
    shell = (
        f"Command: {CREATE}\nDirectory: (root)\nOutput: {URL}\nError: (none)\n"
        "Exit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7"
    )
    gemini = {
        "session_id": "g-1",
        "tool_name": "run_shell_command",
        "tool_input": {"command": CREATE},
        "tool_response": {"llmContent": shell, "returnDisplay": URL},
    }
    assert "opened pull request" in _context(_run(tmp_path, "gemini", "AfterTool", gemini))
    wrapped = f"<untrusted_context>\nOutput: {URL}\nProcess Group PGID: 8\n</untrusted_context>"
    gemini["tool_response"] = {"llmContent": wrapped, "returnDisplay": URL}
    gemini["session_id"] = "g-2"
    assert "opened pull request" in _context(_run(tmp_path, "gemini", "AfterTool", gemini))
    assert sorted(_links(tmp_path)) == [
        ("codex", "s-1", URL),
        ("gemini", "g-1", URL),
        ("gemini", "g-2", URL),
    ]


def test_github_mcp_create_self_links(tmp_path: Path) -> None:
    result = [{"type": "text", "text": json.dumps({"number": 42, "html_url": URL})}]
    payload = {
        "tool_name": "mcp__github__create_pull_request",
        "tool_input": {"owner": "acme", "repo": "app", "title": "Fix", "head": "x"},
        "tool_response": result,
    }
    assert "opened pull request" in _context(_run(tmp_path, "claude", "PostToolUse", payload))
    assert _links(tmp_path) == [("claude", "s-1", URL)]
    other = {**payload, "tool_name": "mcp__memhub__search_memory"}
    assert _run(tmp_path / "other", "claude", "PostToolUse", other) == {}


def test_an_unwritable_home_still_answers(tmp_path: Path) -> None:
    home = tmp_path / "file"
    home.write_text("not a folder")
    answer = _run(home, "claude", "PostToolUse", _claude_bash(CREATE, f"{URL}\n"))
    assert "opened pull request" in _context(answer)  # the babysit text still arrives
    assert home.read_text() == "not a folder"  # the lost link is only logged (nowhere here)


# ------------------------------------------------------------------ spec ownership
SPEC = """---
title: Authentication
owns:
  - src/auth/**
---
# Authentication
"""


def _git(repo: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e", "PATH": "/usr/bin:/bin"}  # fmt: skip
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "docs" / "specs").mkdir(parents=True)
    (root / "src" / "auth").mkdir(parents=True)
    (root / "docs" / "specs" / "auth.md").write_text(SPEC)
    (root / "docs" / "specs" / "old.md").write_text(
        SPEC.replace("title:", "status: retired\ntitle:")
    )
    (root / "src" / "auth" / "a.py").write_text("x = 1\n")
    (root / "README.md").write_text("hi\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "init")
    return root


def _edit(repo: Path, path: str, host: str = "claude") -> dict[str, Any]:
    if host == "gemini":
        payload = {"tool_name": "write_file", "tool_input": {"file_path": path, "content": "x"},
                   "tool_response": {"llmContent": "ok"}, "cwd": str(repo)}  # fmt: skip
        return _run(repo.parent / "home", "gemini", "AfterTool", payload, ("workflow.spec_owner",))
    payload = {"tool_name": "Edit", "tool_input": {"file_path": path}, "tool_response": {},
               "cwd": str(repo)}  # fmt: skip
    return _run(repo.parent / "home", host, "PostToolUse", payload, ("workflow.spec_owner",))


def test_an_owned_edit_names_its_spec_once_per_session(repo: Path) -> None:
    text = _context(_edit(repo, str(repo / "src" / "auth" / "a.py")))
    assert "`src/auth/a.py` is owned by spec **Authentication** (`docs/specs/auth.md`)" in text
    assert "old.md" not in text  # retired specs never fire
    assert _edit(repo, "src/auth/a.py") == {}  # once per session
    assert _edit(repo, "README.md") == {}  # owned by none
    assert _edit(repo, "docs/specs/auth.md") == {}  # a spec is not its own code
    assert "Authentication" in _context(_edit(repo, "src/auth/a.py", host="gemini"))


def _codex_patch(repo: Path, *heads: str, cwd: Path | None = None) -> dict[str, Any]:
    """Codex's `apply_patch <<'EOF'` as the real CLI reports it: Bash, the envelope its
    command, on PreToolUse only (no PostToolUse follows a patch)."""
    body = "".join(f"*** {head}\n+x = 2\n" for head in heads)
    command = f"apply_patch <<'EOF'\n*** Begin Patch\n{body}*** End Patch\nEOF\n"
    payload = {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(cwd or repo)}
    return _run(repo.parent / "home", "codex", "PreToolUse", payload, ("workflow.spec_owner",))


def test_a_codex_apply_patch_names_the_owning_spec_once(repo: Path) -> None:
    text = _context(_codex_patch(repo, "Update File: src/auth/a.py", "Add File: src/auth/b.py"))
    assert text.count("owned by spec **Authentication**") == 1, text  # one spec, named once
    assert "`src/auth/a.py`" in text
    assert _codex_patch(repo, "Update File: src/auth/a.py") == {}  # once per session


def test_a_before_tool_edit_names_nothing_where_an_after_tool_follows(repo: Path) -> None:
    payload = {"tool_name": "Edit", "tool_input": {"file_path": "src/auth/a.py"}, "cwd": str(repo)}
    home = repo.parent / "home"
    assert _run(home, "claude", "PreToolUse", payload, ("workflow.spec_owner",)) == {}


def test_a_codex_patch_deleting_an_owned_file_names_its_spec(repo: Path) -> None:
    text = _context(_codex_patch(repo, "Delete File: src/auth/a.py"))
    assert "`src/auth/a.py` is owned by spec **Authentication**" in text


def test_a_codex_patch_leaving_the_session_directory_is_not_followed(repo: Path) -> None:
    inner = repo / "docs"  # a session in a subfolder: the owned code is outside it
    for head in ("Update File: ../src/auth/a.py", f"Update File: {repo / 'src/auth/a.py'}"):
        assert _codex_patch(repo, head, cwd=inner) == {}


def test_a_repo_without_specs_is_silent(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    payload = {"tool_name": "Write", "tool_input": {"file_path": "x.py"}, "cwd": str(tmp_path)}
    answer = _run(tmp_path, "claude", "PostToolUse", payload, ("workflow.spec_owner",))
    assert answer == {}


def _push(repo: Path, command: str, host: str = "claude") -> dict[str, Any]:
    name = {"claude": "Bash", "codex": "Bash"}[host]
    payload = {"tool_name": name, "tool_input": {"command": command}, "cwd": str(repo)}
    return _run(repo.parent / "home", host, "PreToolUse", payload, ("workflow.spec_owner",))


def test_before_a_push_names_specs_whose_code_changed_without_a_spec_edit(repo: Path) -> None:
    _git(repo, "checkout", "-q", "-b", "feature")
    assert _push(repo, "git push -u origin feature") == {}  # nothing changed on the branch
    (repo / "src" / "auth" / "a.py").write_text("x = 2\n")
    _git(repo, "commit", "-q", "-am", "change auth")
    text = _context(_push(repo, "git push -u origin feature"))
    assert "**Authentication** (`docs/specs/auth.md`): `src/auth/a.py`" in text, text
    assert "Authentication" in _context(_push(repo, f"{CREATE} --base main", host="codex"))
    assert _push(repo, "git status") == {}
    assert _push(repo, "git push --dry-run") == {}
    (repo / "docs" / "specs" / "auth.md").write_text(SPEC + "\nrevised\n")
    _git(repo, "commit", "-q", "-am", "revise the spec")
    assert _push(repo, "git push") == {}  # the spec was edited on the branch


@pytest.mark.parametrize(
    ("command", "looked"),
    [
        ("deploy-svc7 --prod", False),
        ("printf 'x' > notes.txt", False),
        ("pre-commit run --all-files", False),
        ("git push origin main", True),
        ("gh pr create --fill", True),
    ],
)
def test_spec_owner_looks_only_at_a_push_or_a_create(
    command: str, looked: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The before-push reminder's prefilter: a command that can be neither a push nor `gh pr
    create` does not even import the spec code (a mutating hook's hot path)."""
    import sys

    monkeypatch.delitem(sys.modules, "memhub.runtime.workflows.spechooks", raising=False)
    payload = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": command}}  # fmt: skip
    event = normalise("claude", "PreToolUse", payload)
    handlers.HANDLERS["workflow.spec_owner"](event, dispatch.Output(str(tmp_path / "home")))
    assert ("memhub.runtime.workflows.spechooks" in sys.modules) is looked


@pytest.mark.parametrize(
    "command",
    [
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\nEOF\n",
        ["apply_patch", "*** Begin Patch\n*** Update File: a.py\n*** End Patch\n"],
        ["bash", "-lc", "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\nEOF"],
    ],
)
def test_a_codex_shell_apply_patch_is_an_edit_of_its_files(tmp_path: Path, command: Any) -> None:
    from memhub.runtime import shellglance
    from memhub.runtime.workflows.hookdata import edited_paths

    payload = {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(tmp_path)}
    event = normalise("codex", "PreToolUse", payload)
    assert (event.tool_class, event.command) == ("edit", None)
    assert edited_paths(event) == [str(tmp_path / "a.py")]
    if isinstance(command, str):  # never the read-only fast path either
        assert not shellglance.read_only(command)
    plain = normalise("codex", "PreToolUse", {**payload, "tool_input": {"command": "ls"}})
    assert plain.tool_class == "shell"  # any other command stays a shell call
    claude = normalise("claude", "PreToolUse", payload)
    assert claude.tool_class == "shell"  # a Codex convention: other hosts run it as a command


def test_a_plugins_hook_names_the_skill_by_its_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "plugin"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "team-memory"}')
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(root))
    text = _context(_run(tmp_path, "claude", "PostToolUse", _claude_bash(CREATE, f"{URL}\n")))
    assert f"`/loop /team-memory:pr-babysit {URL}`" in text and "/memhub:" not in text
