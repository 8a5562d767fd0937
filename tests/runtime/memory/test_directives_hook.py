"""recall.directives: the hook handler over the real index, session state and dispatcher."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from memhub.runtime import dispatch
from memhub.runtime.dispatch import Output
from memhub.runtime.events import normalise
from memhub.runtime.memory import directives_hook as H
from memhub.runtime.memory import directives_project, directives_read, injections, layout
from memhub.runtime.memory.directives_render import HEADER

from .svchelp import Memory, make_memory, put
from .test_directives_read import lesson

IGNORE = shutil.ignore_patterns("__pycache__")


@pytest.fixture
def m(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Memory:
    mem = make_memory(tmp_path)
    monkeypatch.setenv("MEMHUB_HOME", str(mem.home))
    monkeypatch.setenv("HOME", str(tmp_path / "jane"))
    monkeypatch.delenv(H.BUDGET_ENV, raising=False)
    for rec in (
        lesson("r-models", "project", mem.pid, paths=("app/models.py",)),
        lesson("r-helm", "project", mem.pid, commands=("helm upgrade",)),
        lesson("r-quota", "project", mem.pid, errors=("exceeded quota",)),
        lesson("r-git", "project", mem.pid, commands=("git",)),
        lesson("r-app", "project", mem.pid, identifiers=("app",)),
        lesson("r-jane", "project", mem.pid, identifiers=("jane",)),
        lesson("r-long", "project", mem.pid, paths=("docs/long.md",)),
    ):
        put(mem.home, replace(rec, body="word " * 600) if rec.id == "r-long" else rec)
    with mem.service() as svc:
        svc.refresh_index()
    return mem


def call(
    m: Memory, host_event: str, payload: dict[str, object], host: str = "claude", sid: str = "s1"
) -> Output:
    event = normalise(host, host_event, {"session_id": sid, "cwd": str(m.app), **payload})
    out = Output(str(m.home))
    H.run(event, out)
    return out


def edit(m: Memory, path: str, sid: str = "s1") -> Output:
    return call(m, "PreToolUse", {"tool_name": "Edit", "tool_input": {"file_path": path}}, sid=sid)


def bash(m: Memory, command: str, host_event: str = "PreToolUse", **kw: object) -> Output:
    return call(m, host_event, {"tool_name": "Bash", "tool_input": {"command": command}, **kw})


def fired(out: Output) -> list[str]:
    text = "\n".join(out.contexts)
    return sorted(rid for rid in ("r-models", "r-helm", "r-quota", "r-git", "r-long")
                  if f"title of {rid}" in text)  # fmt: skip


def test_an_edit_fires_its_directive_once_per_session(m: Memory) -> None:
    first = edit(m, f"{m.app}/app/models.py")
    assert first.contexts[0].startswith(HEADER) and fired(first) == ["r-models"]
    assert fired(edit(m, f"{m.app}/app/models.py")) == []  # the same file: not looked up
    assert fired(edit(m, f"{m.app}/lib/models_test.py")) == []  # fired already
    assert fired(edit(m, f"{m.app}/app/models.py", sid="s2")) == ["r-models"]  # a new session


def test_a_read_only_command_costs_no_lookup(m: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: object, **kw: object) -> None:
        raise AssertionError("looked up")

    monkeypatch.setattr(directives_read, "_connect", never)
    monkeypatch.setattr(directives_project, "resolve", never)
    for command in ("grep -rn 'helm upgrade' .", "cat app/models.py", "git show HEAD", "ls"):
        assert bash(m, command).contexts == []
    assert not (m.home / injections.FOLDER).exists()  # not even a session folder


def test_a_mutating_command_fires_and_heredoc_bodies_are_not_command_text(m: Memory) -> None:
    note = "cat > notes.txt <<'EOF'\nhelm upgrade prod ./chart\nEOF"
    assert fired(bash(m, note)) == []  # mutating (a redirect), but helm is only data here
    assert fired(bash(m, "cd chart && helm upgrade prod .")) == ["r-helm"]


def test_the_gate_short_triggers_account_and_repo_names_never_fire(m: Memory) -> None:
    out = bash(m, "git push origin HEAD && touch app jane")
    assert out.contexts == []  # `git` is 3 characters; `app` the repo, `jane` the account


def test_a_long_directive_is_cut_to_the_budget_and_counted(
    m: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(H.BUDGET_ENV, "600")
    out = edit(m, f"{m.app}/docs/long.md")
    assert len(out.contexts[0]) <= 600 and "cut to budget" in out.contexts[0]
    [(name, [entry])] = list(injections.sessions(str(m.home)))
    assert name == "claude-s1" and entry["handler"] == "recall.directives"
    assert entry["cut"] and entry["chars"] == len(out.contexts[0])
    assert entry["tokens"] == -(-entry["chars"] // 4)
    assert entry["fired"][0]["id"] == "r-long" and entry["fired"][0]["trigger"] == "docs/long.md"


def test_a_failure_tail_fires_reactively_and_is_never_cached(m: Memory) -> None:
    error = "Traceback (most recent call last):\n  ...\nRuntimeError: exceeded quota for prod"
    first = bash(m, "python run.py", "PostToolUseFailure", error=error)
    assert fired(first) == ["r-quota"] and "failure you just hit" in first.contexts[0]
    calm = bash(m, "python run.py", "PostToolUseFailure", error="exceeded quota (warning only)")
    assert calm.contexts == []  # no error in the output: the reactive prefilter declines


def test_gemini_recalls_after_the_tool_because_its_before_tool_carries_nothing(
    m: Memory,
) -> None:
    tool = {"tool_name": "replace", "tool_input": {"file_path": "app/models.py"}}
    assert call(m, "BeforeTool", tool, host="gemini").contexts == []
    after = call(m, "AfterTool", {**tool, "tool_response": {"llmContent": "ok"}}, host="gemini")
    assert fired(after) == ["r-models"]


def test_codex_apply_patch_names_its_files_and_a_clean_exit_is_not_reactive(m: Memory) -> None:
    patch = "*** Begin Patch\n*** Update File: app/models.py\n@@\n-a\n+b\n*** End Patch\n"
    tool = {"tool_name": "apply_patch", "tool_input": {"command": patch}}
    assert fired(call(m, "PreToolUse", tool, host="codex")) == ["r-models"]
    done = {"tool_name": "Bash", "tool_input": {"command": "helm upgrade x"}}
    response = {"tool_response": {"exit_code": 0, "output": "Error: none, all fine"}}
    assert call(m, "PostToolUse", {**done, **response}, host="codex").contexts == []


def test_through_the_dispatcher_the_text_is_the_hosts_additional_context(m: Memory) -> None:
    payload = {"session_id": "s9", "cwd": str(m.app), "tool_name": "Write"}
    payload["tool_input"] = {"file_path": f"{m.app}/app/models.py", "content": "x"}
    stdout = io.StringIO()
    argv = ["claude", "PreToolUse", "recall.directives=edit,shell"]
    assert dispatch.run(argv, io.StringIO(json.dumps(payload)), stdout) == 0
    answer = json.loads(stdout.getvalue())["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse"
    assert answer["additionalContext"].startswith(HEADER)


def test_the_index_name_is_the_layouts() -> None:
    assert directives_project.INDEX == layout.INDEX_FILE


def test_a_read_only_command_loads_none_of_recall(tmp_path: Path) -> None:
    code = (
        "import io, json, sys\n"
        "from memhub.runtime import dispatch\n"
        "p = {'session_id': 'x', 'cwd': '.', 'tool_name': 'Bash',"
        " 'tool_input': {'command': 'git log --oneline'}}\n"
        "dispatch.run(['claude', 'PreToolUse', 'recall.directives=edit,shell'],"
        " io.StringIO(json.dumps(p)), io.StringIO())\n"
        "print(' '.join(m for m in sys.modules if 'directives' in m or 'sqlite' in m"
        " or m.endswith(('shellcmd', 'shellmutate'))))\n"
    )
    env = {**os.environ, "MEMHUB_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []  # the handler answered before importing its module


def test_a_recall_past_its_time_fails_open_and_is_logged(
    m: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(H, "TIME_BUDGET_S", -1.0)  # every lookup is over it
    out = edit(m, f"{m.app}/app/models.py")
    assert out.contexts == []
    log = (m.home / "logs" / "hook.log").read_text()
    assert "recall.directives: recall took" in log and "not injected" in log
    monkeypatch.setattr(H, "TIME_BUDGET_S", 2.0)
    assert fired(edit(m, f"{m.app}/lib/models_test.py")) == ["r-models"]  # not marked fired


def test_gemini_reports_a_failed_command_as_output_and_it_is_matched(m: Memory) -> None:
    tool = {"tool_name": "run_shell_command", "tool_input": {"command": "terraform plan"}}
    text = "Output: Error: exceeded quota for project\nExit Code: 1"
    done = call(m, "AfterTool", {**tool, "tool_response": {"llmContent": text}}, host="gemini")
    assert fired(done) == ["r-quota"] and "failure you just hit" in done.contexts[0]
    calm = {"tool_response": {"llmContent": "Output: no changes\nExit Code: 0"}}
    assert call(m, "AfterTool", {**tool, **calm}, host="gemini").contexts == []  # read-only


def test_a_successful_gemini_call_whose_output_names_an_error_is_not_a_failure(m: Memory) -> None:
    """`grep -r "exceeded quota" logs/` succeeds and prints the error words: output, not a
    failure (only the result's own `Exit Code:` line, or its error field, says it failed)."""
    tool = {"tool_name": "run_shell_command", "tool_input": {"command": "terraform plan"}}
    text = "<untrusted_context>\nOutput: Error: exceeded quota for project\nProcess Group PGID: 7"
    done = call(m, "AfterTool", {**tool, "tool_response": {"llmContent": text}}, host="gemini")
    assert done.contexts == []


def test_an_apply_patch_run_through_the_shell_is_an_edit(m: Memory) -> None:
    patch = (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: app/models.py\n+x\n*** End Patch\nEOF"
    )
    assert fired(bash(m, patch)) == ["r-models"]


def test_a_new_session_removes_sessions_untouched_for_a_week(m: Memory) -> None:
    old = Path(injections.session_dir(str(m.home), "claude", "old"))
    recent = Path(injections.session_dir(str(m.home), "claude", "recent"))
    for folder in (old, recent):
        folder.mkdir(parents=True)
        (folder / injections.FILE).write_text("{}\n")
    week = injections.KEEP_S + 60
    os.utime(old, (old.stat().st_atime - week, old.stat().st_mtime - week))
    assert fired(edit(m, f"{m.app}/app/models.py", sid="new")) == ["r-models"]
    assert not old.exists() and recent.exists()


def test_a_mutating_command_in_a_hook_process_loads_no_os(m: Memory, tmp_path: Path) -> None:
    """What a hook process runs (`python -S`, the vendored runtime): once the session knows
    its project, a mutating command, a miss or a hit, is recalled without importing `os`."""
    root = Path(dispatch.__file__).resolve().parent
    shutil.copytree(root, tmp_path / "vendored" / "memhub_runtime", ignore=IGNORE)
    assert fired(bash(m, "helm upgrade prod . && touch a.txt")) == ["r-helm"]  # memo, cache
    code = (
        f"import io, json, sys; sys.path.append({str(tmp_path / 'vendored')!r})\n"
        "from memhub_runtime import dispatch\n"
        "for command in sys.argv[1:]:\n"
        "    p = {'session_id': 's1', 'cwd': sys.stdin.readline().strip(), 'tool_name': 'Bash',"
        " 'tool_input': {'command': command}}\n"
        "    out = io.StringIO()\n"
        "    dispatch.run(['claude', 'PreToolUse', 'recall.directives=edit,shell',"
        " 'rules.advise=edit,shell'], io.StringIO(json.dumps(p)), out)\n"
        "    print('os' in sys.modules, 'title of r-models' in out.getvalue())\n"
    )
    env = {**os.environ, "MEMHUB_HOME": str(m.home), "HOME": str(tmp_path / "jane")}
    done = subprocess.run(
        [sys.executable, "-S", "-c", code, "rm -rf build && make", "touch app/models.py"],
        input=f"{m.app}\n{m.app}\n", capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["False False", "False True"], done.stdout
