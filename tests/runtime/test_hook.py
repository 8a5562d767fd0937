"""The hook entry: payload normalisation, host answers, and a process that never fails its host.

Process tests run the runtime as bundles vendor it (`<tmp>/memhub_runtime/hook.py` under
`python3 -S`). Tests of the process itself (exit status, stdout, timing, the detached
child's session and descriptors) use a stub `capture/core.py` that records each flush; tests of
what capture does (`real_hook`) run the real capture engine and local store behind it.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memhub.runtime import dispatch, events
from memhub.runtime.events import dumps, loads, normalise

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"
HOME = "/home/dev"
REPO = f"{HOME}/src/app"
CLAUDE_T = f"{HOME}/.claude/projects/-home-dev-src-app/9fe08aad-a692-4579-a5b5-8786303de2f5.jsonl"
CODEX_T = (
    f"{HOME}/.codex/sessions/2026/11/30/"
    "rollout-2026-11-30T08-29-33-01a22b92-d757-7f10-9a75-9ef58ff98a6a.jsonl"
)
GEMINI_T = f"{HOME}/.gemini/tmp/app/chats/session-2026-11-30T08-29-ea4f8c7d.jsonl"
CURSOR_T = f"{HOME}/.cursor/projects/home-dev-src-app/agent-transcripts/1111/1111.jsonl"
CLAUDE_ID = "9fe08aad-a692-4579-a5b5-8786303de2f5"
CODEX_ID = "01a22b92-d757-7f10-9a75-9ef58ff98a6a"
GEMINI_ID = "ea4f8c7d-c647-42e2-ab44-07be94f76c94"
CURSOR_ID = "11111111-2222-4333-8444-555555555555"

# Payloads as the real CLIs sent them (claude 2.1.332, codex 0.171.0, gemini 0.61.0, recorded
# by the e2e probe hub; home paths replaced), and Cursor's from its documentation and the
# MemHub plugin's recorded fixture.
_CLAUDE = {"session_id": CLAUDE_ID, "transcript_path": CLAUDE_T, "cwd": REPO}
_CODEX = {"session_id": CODEX_ID, "transcript_path": CODEX_T, "cwd": REPO, "model": "gpt-5"}
_GEMINI = {"session_id": GEMINI_ID, "transcript_path": GEMINI_T, "cwd": REPO}
_CURSOR = {
    "conversation_id": CURSOR_ID,
    "generation_id": CURSOR_ID,
    "model": "auto-smart",
    "cursor_version": "2026.08.11-e8db854",
    "workspace_roots": [REPO],
    "user_email": "dev@example.com",
    "transcript_path": CURSOR_T,
}
PAYLOADS: dict[tuple[str, str], dict] = {
    ("claude", "SessionStart"): {**_CLAUDE, "hook_event_name": "SessionStart", "source": "startup"},
    ("claude", "UserPromptSubmit"): {
        **_CLAUDE,
        "prompt_id": "c76e2edd",
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "run the probe steps",
    },
    ("claude", "PreToolUse"): {
        **_CLAUDE,
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "echo ok", "description": "step"},
        "tool_use_id": "toolu_1",
    },
    ("claude", "PostToolUse"): {
        **_CLAUDE,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -m x", "description": "step"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
        "tool_use_id": "toolu_1",
        "duration_ms": 50,
    },
    ("claude", "PostToolUseFailure"): {
        **_CLAUDE,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "ls /nope"},
        "tool_use_id": "toolu_2",
        "error": "Exit code 2",
        "is_interrupt": False,
    },
    ("claude", "Stop"): {
        **_CLAUDE,
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "All done.",
        "background_tasks": [],
        "session_crons": [],
    },
    ("claude", "PreCompact"): {
        **_CLAUDE,
        "hook_event_name": "PreCompact",
        "trigger": "manual",
        "custom_instructions": None,
    },
    ("claude", "SessionEnd"): {**_CLAUDE, "hook_event_name": "SessionEnd", "reason": "other"},
    ("codex", "SessionStart"): {**_CODEX, "hook_event_name": "SessionStart", "source": "startup"},
    ("codex", "UserPromptSubmit"): {
        **_CODEX,
        "turn_id": "t1",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "run the probe steps",
    },
    ("codex", "PreToolUse"): {
        **_CODEX,
        "turn_id": "t1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "echo ok"},
        "tool_use_id": "call_1",
    },
    ("codex", "PostToolUse"): {
        **_CODEX,
        "turn_id": "t1",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls /nope"},
        "tool_response": "ls: cannot access '/nope': No such file or directory\n",
        "tool_use_id": "call_2",
    },
    ("codex", "Stop"): {
        **_CODEX,
        "turn_id": "t1",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "All done.",
    },
    ("codex", "PreCompact"): {**_CODEX, "hook_event_name": "PreCompact", "trigger": "auto"},
    ("codex", "SessionEnd"): {**_CODEX, "hook_event_name": "SessionEnd", "reason": "other"},
    ("gemini", "SessionStart"): {
        **_GEMINI,
        "hook_event_name": "SessionStart",
        "timestamp": "2026-11-30T08:29:57.507Z",
        "source": "startup",
    },
    ("gemini", "BeforeAgent"): {**_GEMINI, "hook_event_name": "BeforeAgent", "prompt": "tidy up"},
    ("gemini", "BeforeTool"): {
        **_GEMINI,
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "echo ok", "description": "step"},
    },
    ("gemini", "AfterTool"): {
        **_GEMINI,
        "hook_event_name": "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "echo ok", "description": "step"},
        "tool_response": {"llmContent": "Output: ok", "returnDisplay": "ok"},
    },
    ("gemini", "AfterAgent"): {
        **_GEMINI,
        "hook_event_name": "AfterAgent",
        "prompt": "tidy up",
        "prompt_response": "All done.",
        "stop_hook_active": False,
    },
    ("gemini", "PreCompress"): {**_GEMINI, "hook_event_name": "PreCompress", "trigger": "auto"},
    ("gemini", "SessionEnd"): {**_GEMINI, "hook_event_name": "SessionEnd", "reason": "exit"},
    ("cursor", "sessionStart"): {**_CURSOR, "hook_event_name": "sessionStart"},
    ("cursor", "beforeSubmitPrompt"): {
        **_CURSOR,
        "hook_event_name": "beforeSubmitPrompt",
        "prompt": "tidy up",
        "attachments": [],
    },
    ("cursor", "preToolUse"): {
        **_CURSOR,
        "hook_event_name": "preToolUse",
        "tool_name": "Shell",
        "tool_input": {"command": "git status"},
    },
    ("cursor", "postToolUse"): {
        **_CURSOR,
        "hook_event_name": "postToolUse",
        "tool_name": "Shell",
        "tool_input": {"command": "gh pr create --fill"},
    },
    ("cursor", "beforeShellExecution"): {
        **_CURSOR,
        "hook_event_name": "beforeShellExecution",
        "command": "echo hook-probe",
        "cwd": REPO,
        "sandbox": False,
    },
    ("cursor", "afterMCPExecution"): {
        **_CURSOR,
        "hook_event_name": "afterMCPExecution",
        "tool_name": "search_memory",
        "tool_input": '{"query": "auth"}',
        "result_json": "{}",
    },
    ("cursor", "stop"): {
        **_CURSOR,
        "session_id": CURSOR_ID,
        "hook_event_name": "stop",
        "status": "completed",
        "loop_count": 0,
    },
    ("cursor", "sessionEnd"): {**_CURSOR, "hook_event_name": "sessionEnd"},
}

# (host, host event) -> logical event, tool class, tool name, command, failed
EXPECTED = {
    ("claude", "SessionStart"): ("session_start", None, None, None, None),
    ("claude", "UserPromptSubmit"): ("prompt_submit", None, None, None, None),
    ("claude", "PreToolUse"): ("before_tool", "shell", "Bash", "echo ok", None),
    ("claude", "PostToolUse"): ("after_tool", "shell", "Bash", "git commit -m x", False),
    ("claude", "PostToolUseFailure"): ("after_tool_failure", "shell", "Bash", "ls /nope", True),
    ("claude", "Stop"): ("turn_end", None, None, None, None),
    ("claude", "PreCompact"): ("pre_compact", None, None, None, None),
    ("claude", "SessionEnd"): ("session_end", None, None, None, None),
    ("codex", "SessionStart"): ("session_start", None, None, None, None),
    ("codex", "UserPromptSubmit"): ("prompt_submit", None, None, None, None),
    ("codex", "PreToolUse"): ("before_tool", "shell", "Bash", "echo ok", None),
    ("codex", "PostToolUse"): ("after_tool", "shell", "Bash", "ls /nope", None),
    ("codex", "Stop"): ("turn_end", None, None, None, None),
    ("codex", "PreCompact"): ("pre_compact", None, None, None, None),
    ("codex", "SessionEnd"): ("session_end", None, None, None, None),
    ("gemini", "SessionStart"): ("session_start", None, None, None, None),
    ("gemini", "BeforeAgent"): ("prompt_submit", None, None, None, None),
    ("gemini", "BeforeTool"): ("before_tool", "shell", "run_shell_command", "echo ok", None),
    ("gemini", "AfterTool"): ("after_tool", "shell", "run_shell_command", "echo ok", False),
    ("gemini", "AfterAgent"): ("turn_end", None, None, None, None),
    ("gemini", "PreCompress"): ("pre_compact", None, None, None, None),
    ("gemini", "SessionEnd"): ("session_end", None, None, None, None),
    ("cursor", "sessionStart"): ("session_start", None, None, None, None),
    ("cursor", "beforeSubmitPrompt"): ("prompt_submit", None, None, None, None),
    ("cursor", "preToolUse"): ("before_tool", "shell", "Shell", "git status", None),
    ("cursor", "postToolUse"): ("after_tool", "shell", "Shell", "gh pr create --fill", False),
    ("cursor", "beforeShellExecution"): (
        "before_tool",
        "shell",
        "Shell",
        "echo hook-probe",
        None,
    ),
    ("cursor", "afterMCPExecution"): ("after_tool", "mcp", "search_memory", None, False),
    ("cursor", "stop"): ("turn_end", None, None, None, None),
    ("cursor", "sessionEnd"): ("session_end", None, None, None, None),
}
IDS = {"claude": CLAUDE_ID, "codex": CODEX_ID, "gemini": GEMINI_ID, "cursor": CURSOR_ID}
TRANSCRIPTS = {"claude": CLAUDE_T, "codex": CODEX_T, "gemini": GEMINI_T, "cursor": CURSOR_T}


# --- normalisation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "host_event"), list(PAYLOADS), ids=[f"{h}-{e}" for h, e in PAYLOADS]
)
def test_real_payloads_normalise_to_one_shape(host: str, host_event: str) -> None:
    event = normalise(host, host_event, PAYLOADS[host, host_event])
    name, tool_class, tool_name, command, failed = EXPECTED[host, host_event]
    assert (event.host, event.host_event, event.name) == (host, host_event, name)
    assert event.session_id == IDS[host]
    assert event.transcript_path == TRANSCRIPTS[host]
    assert event.cwd == REPO
    assert (event.tool_class, event.tool_name, event.command, event.failed) == (
        tool_class,
        tool_name,
        command,
        failed,
    )


def test_event_details() -> None:
    assert normalise("claude", "UserPromptSubmit", PAYLOADS["claude", "UserPromptSubmit"]).prompt
    assert normalise("gemini", "BeforeAgent", PAYLOADS["gemini", "BeforeAgent"]).prompt == "tidy up"
    assert normalise("claude", "SessionStart", PAYLOADS["claude", "SessionStart"]).source == (
        "startup"
    )
    assert normalise("codex", "PreCompact", PAYLOADS["codex", "PreCompact"]).source == "auto"
    assert normalise("cursor", "stop", PAYLOADS["cursor", "stop"]).source == "completed"
    mcp = normalise("cursor", "afterMCPExecution", PAYLOADS["cursor", "afterMCPExecution"])
    assert mcp.tool_input == {"query": "auth"}  # Cursor sends it as a JSON string
    assert normalise("claude", "PreToolUse", {"tool_name": "mcp__memhub__search"}).tool_class == (
        "mcp"
    )
    assert normalise("gemini", "BeforeTool", {"tool_name": "mcp_memhub_search"}).tool_class == "mcp"
    assert normalise("codex", "PreToolUse", {"tool_name": "apply_patch"}).tool_class == "edit"
    argv = ["bash", "-lc", "git commit -m x"]
    shell = normalise(
        "codex", "PostToolUse", {"tool_name": "shell", "tool_input": {"command": argv}}
    )
    assert shell.command == argv
    assert "payload" not in shell.as_dict() and repr(shell).startswith("Event(")


def test_gemini_failed_tool_is_after_tool_failure() -> None:
    payload = {
        **PAYLOADS["gemini", "AfterTool"],
        "tool_response": {"llmContent": "", "error": "Command exited with code 1"},
    }
    event = normalise("gemini", "AfterTool", payload)
    assert (event.name, event.failed) == ("after_tool_failure", True)


@pytest.mark.parametrize(
    ("text", "failed"),
    [
        ("<untrusted_context>\nOutput: boom\nExit Code: 2\nProcess Group PGID: 9\n"
         "</untrusted_context>", True),  # 0.61: the line only when not 0
        ("Command: ls /x\nDirectory: /tmp\nOutput: ls: /x: No such file or directory\n"
         "Error: (none)\nExit Code: 1\nSignal: 0\nBackground PIDs: (none)\n"
         "Process Group PGID: 12346", True),  # the older layout (shared material)
        ("Command: true\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: 0", False),
        ("Output: Error: quota\nProcess Group PGID: 7", False),  # 0.61, exit 0: no line
        # an `Exit Code:` line the command printed (a `cat` of a log) is output, not the tail
        ("Output: Exit Code: 1\nstill running\nProcess Group PGID: 7", False),
        ("Output: log\nExit Code: 1\nnext line of the log\nProcess Group PGID: 7", False),
    ],
)  # fmt: skip
def test_gemini_shell_result_naming_an_exit_code_is_a_failure(text: str, failed: bool) -> None:
    payload = {**PAYLOADS["gemini", "AfterTool"], "tool_response": {"llmContent": text}}
    event = normalise("gemini", "AfterTool", payload)
    assert event.tool_class == "shell" and event.failed is failed
    assert event.name == ("after_tool_failure" if failed else "after_tool")


def test_gemini_exit_code_counts_only_for_shell_tools() -> None:
    text = "Output: x\nExit Code: 1\nProcess Group PGID: 7"  # a read_file of a saved result
    payload = {"tool_name": "read_file", "tool_input": {"absolute_path": "/tmp/r.txt"},
               "tool_response": {"llmContent": text}}  # fmt: skip
    assert normalise("gemini", "AfterTool", payload).failed is False


def test_codex_structured_response_exit_code() -> None:
    payload = {**PAYLOADS["codex", "PostToolUse"], "tool_response": {"exit_code": 1}}
    assert normalise("codex", "PostToolUse", payload).failed is True
    payload["tool_response"] = {"exit_code": 0}
    assert normalise("codex", "PostToolUse", payload).failed is False


def test_cursor_running_claude_hooks_is_cursor() -> None:
    """Cursor loads Claude Code's hooks (third-party hooks) and sends its own payloads."""
    event = normalise("claude", "Stop", PAYLOADS["cursor", "stop"])
    assert (event.host, event.host_event, event.name) == ("cursor", "stop", "turn_end")
    assert event.session_id == CURSOR_ID


@pytest.mark.parametrize("payload", [None, [], "x", 3, {"session_id": 7, "tool_input": "[1]"}])
def test_odd_payloads_never_raise(payload: object) -> None:
    event = normalise("claude", "PreToolUse", payload)
    assert event.name == "before_tool" and event.session_id is None
    assert normalise("nohost", "Nothing", payload).name is None


def test_tables_agree_with_the_compiler() -> None:
    """The runtime reads back what the adapters write: host events and tool names."""
    from memhub.compiler.hosts import claude, codex, cursor, gemini

    for module in (claude, codex, cursor, gemini):
        for logical, support in module.EVENTS.items():
            mapped = events.LOGICAL[module.name][support.host_event]
            # hosts with one event for after_tool and after_tool_failure report after_tool
            assert mapped == logical or (mapped, logical) == ("after_tool", "after_tool_failure")
        for tool_class, names in module.TOOLS.items():
            for name in names or ():
                if ".*" in name:
                    assert name.startswith(events.MCP_PREFIX[module.name]), name
                else:
                    assert events.TOOLS[module.name][name] == tool_class, (module.name, name)


# --- JSON without the json package ------------------------------------------------------------


def test_loads_and_dumps_match_json() -> None:
    document = {"a": [1, 2.5, True, None, 'é\n"x"'], "b": {"c": {}}, "d": -3}
    assert loads(json.dumps(document)) == document
    assert loads(json.dumps(document).encode("utf-8")) == document
    assert json.loads(dumps(document)) == document
    assert dumps({"systemMessage": "ok"}) == '{"systemMessage":"ok"}'
    for bad in (b"", b"   ", b"garbage", b'{"a": 1} trailing', b"\xff\xfe", b'{"a": }'):
        assert loads(bad) is None


# --- answers per host ---------------------------------------------------------------------------


def _answer(host: str, host_event: str, out: dispatch.Output | None = None) -> dict:
    return json.loads(dispatch.render(host, host_event, out))


def test_neutral_answers() -> None:
    for host, host_event in PAYLOADS:
        answer = _answer(host, host_event)
        if host != "cursor":
            assert answer == {}, (host, host_event)
    assert _answer("cursor", "preToolUse") == {"permission": "allow"}
    assert _answer("cursor", "beforeShellExecution") == {"permission": "allow"}
    assert _answer("cursor", "beforeSubmitPrompt") == {"continue": True}
    assert _answer("cursor", "stop") == {} and _answer("cursor", "postToolUse") == {}
    assert _answer("", "") == {}


def test_messages_and_context_per_host() -> None:
    out = dispatch.Output("/unused")
    out.system_message("capture is broken")
    for host in ("claude", "codex", "gemini"):
        assert _answer(host, "SessionStart", out) == {"systemMessage": "capture is broken"}
    assert _answer("cursor", "sessionStart", out) == {"additional_context": "capture is broken"}
    out = dispatch.Output("/unused")
    out.context("remember X")
    assert _answer("claude", "PreToolUse", out) == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "remember X"}
    }
    assert _answer("claude", "Stop", out) == {}  # Stop takes no context
    assert _answer("gemini", "AfterTool", out)["hookSpecificOutput"]["hookEventName"] == "AfterTool"


def test_run_in_process_always_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from memhub.runtime import handlers

    def boom(event, out):
        raise RuntimeError("handler failed")

    monkeypatch.setitem(handlers.HANDLERS, "capture.health", boom)
    stdout = io.StringIO()
    payload = json.dumps(PAYLOADS["claude", "SessionStart"]).encode()
    assert (
        dispatch.run(["claude", "SessionStart", "capture.health"], io.BytesIO(payload), stdout) == 0
    )
    assert stdout.getvalue() == "{}\n"
    log = Path(os.environ["MEMHUB_HOME"], "logs", "hook.log").read_text()
    assert "claude SessionStart capture.health: RuntimeError: handler failed" in log
    stdout = io.StringIO()
    assert (
        dispatch.run(["cursor", "preToolUse", "nope.handler"], io.BytesIO(b"\x00garbage"), stdout)
        == 0
    )
    assert json.loads(stdout.getvalue()) == {"permission": "allow"}
    assert (
        "unknown handler 'nope.handler'"
        in Path(os.environ["MEMHUB_HOME"], "logs", "hook.log").read_text()
    )


def test_bindings() -> None:
    assert dispatch.parse_bindings(["capture.turn_end", "capture.commit=shell,edit", "x="]) == [
        ("capture.turn_end", None),
        ("capture.commit", frozenset({"shell", "edit"})),
        ("x", frozenset()),
    ]


# --- the process, as bundles run it ---------------------------------------------------------------

STUB = """
import json, os, sys, time

class Result:
    def __init__(self, status):
        self.status = status

def _fd(n):
    try:
        return os.readlink(f"/proc/self/fd/{n}")
    except OSError:
        return None

def flush(host, session_id, transcript_path, mode="turn", *, cwd=None, **extra):
    time.sleep(float(os.environ.get("STUB_SLEEP", "0")))
    record = {
        "host": host, "session_id": session_id, "transcript_path": transcript_path,
        "mode": mode, "cwd": cwd, "pid": os.getpid(), "ppid": os.getppid(),
        "sid": os.getsid(0), "pgid": os.getpgid(0), "stdin": _fd(0), "stdout": _fd(1),
        "stderr": _fd(2), "done": time.time(),
    }
    with open(os.environ["STUB_OUT"], "a") as out:
        out.write(json.dumps(record) + "\\n")
    return Result(os.environ.get("STUB_STATUS", "ok"))

def health():
    if os.environ.get("STUB_HEALTH_SLEEP"):
        time.sleep(float(os.environ["STUB_HEALTH_SLEEP"]))
    if os.environ.get("STUB_HEALTH_CRASH"):
        raise RuntimeError("health check crashed")
    return os.environ.get("STUB_HEALTH") or None
"""


@pytest.fixture()
def vendored(tmp_path: Path) -> Path:
    """The runtime as a bundle ships it, with a stub capture engine; returns hook.py."""
    package = tmp_path / "plugin" / "memhub_runtime"
    package.parent.mkdir(parents=True)
    shutil.copytree(RUNTIME, package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "capture" / "core.py").write_text(STUB)
    return package / "hook.py"


class Hook:
    def __init__(self, script: Path, tmp_path: Path) -> None:
        self.script = script
        self.out = tmp_path / "flushes.jsonl"
        self.home = tmp_path / "memhub-home"
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "MEMHUB_HOME": str(self.home),
            "STUB_OUT": str(self.out),
        }

    def __call__(self, *argv: str, stdin: bytes | dict = b"", timeout: float = 20, **env: str):
        data = json.dumps(stdin).encode() if isinstance(stdin, dict) else stdin
        merged = {**self.env, **env}
        merged = {k: v for k, v in merged.items() if v is not None}
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-S", str(self.script), *argv],
            input=data,
            capture_output=True,
            env=merged,
            timeout=timeout,
        )
        proc.elapsed = time.monotonic() - started  # type: ignore[attr-defined]
        return proc

    def flushes(self, wait: float = 0.0, count: int = 0) -> list[dict]:
        deadline = time.monotonic() + wait
        while True:
            found = []
            if self.out.exists():
                found = [json.loads(line) for line in self.out.read_text().splitlines() if line]
            if len(found) >= count or time.monotonic() >= deadline:
                return found
            time.sleep(0.05)

    def log(self) -> str:
        path = self.home / "logs" / "hook.log"
        return path.read_text() if path.exists() else ""


@pytest.fixture()
def hook(vendored: Path, tmp_path: Path) -> Hook:
    return Hook(vendored, tmp_path)


def _transcript(tmp_path: Path, host: str, payload: dict, text: str = '{"a": 1}\n') -> dict:
    path = tmp_path / f"{host}-transcript.jsonl"
    path.write_text(text)
    return {**payload, "transcript_path": str(path)}


@pytest.mark.parametrize("stdin", [b"", b"garbage", b"\xff\xfe\x00", b"[1, 2]", b'{"x": '])
@pytest.mark.parametrize(
    ("host", "host_event"),
    [
        ("claude", "PreToolUse"),
        ("codex", "Stop"),
        ("gemini", "AfterTool"),
        ("cursor", "preToolUse"),
        ("cursor", "beforeSubmitPrompt"),
    ],
)
def test_garbage_stdin_gets_a_valid_answer(
    hook: Hook, stdin: bytes, host: str, host_event: str
) -> None:
    proc = hook(host, host_event, "capture.turn_end", "capture.commit=shell", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == _answer(host, host_event)
    assert proc.stderr == b""
    assert hook.flushes() == []


def test_turn_end_flushes_in_a_detached_child(hook: Hook, tmp_path: Path) -> None:
    payload = _transcript(tmp_path, "claude", PAYLOADS["claude", "Stop"])
    proc = hook("claude", "Stop", "capture.turn_end", stdin=payload, STUB_SLEEP="3")
    returned = time.time()
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    # the host got its answer, and EOF on stdout and stderr, while the flush was still running
    assert proc.elapsed < 2.5, proc.elapsed
    assert hook.flushes() == []
    (flush,) = hook.flushes(wait=15, count=1)
    assert flush["done"] > returned + 0.5
    assert (flush["host"], flush["session_id"], flush["mode"]) == ("claude", CLAUDE_ID, "turn")
    assert flush["transcript_path"] == payload["transcript_path"] and flush["cwd"] == REPO
    # its own session (setsid), not the hook's, and no stdio of the host's
    assert flush["sid"] != os.getsid(0) and flush["pgid"] != os.getpgid(0)
    assert flush["sid"] != flush["pid"]  # the grandchild: it can never regain a terminal
    assert flush["stdin"] == flush["stdout"] == flush["stderr"] == os.devnull


def test_turn_end_does_nothing_when_the_transcript_did_not_grow(hook: Hook, tmp_path: Path) -> None:
    payload = _transcript(tmp_path, "codex", PAYLOADS["codex", "Stop"])
    for _ in range(3):
        assert hook("codex", "Stop", "capture.turn_end", stdin=payload).returncode == 0
    assert len(hook.flushes(wait=5, count=1)) == 1
    time.sleep(0.3)
    assert len(hook.flushes()) == 1
    Path(payload["transcript_path"]).write_text('{"a": 1}\n{"b": 2}\n')
    assert hook("codex", "Stop", "capture.turn_end", stdin=payload).returncode == 0
    assert len(hook.flushes(wait=5, count=2)) == 2


def test_a_failed_flush_is_retried_next_turn(hook: Hook, tmp_path: Path) -> None:
    payload = _transcript(tmp_path, "gemini", PAYLOADS["gemini", "AfterAgent"])
    hook("gemini", "AfterAgent", "capture.turn_end", stdin=payload, STUB_STATUS="failed")
    assert len(hook.flushes(wait=5, count=1)) == 1
    marker = hook.home / "hooks" / "turn" / f"gemini-{GEMINI_ID}"
    deadline = time.monotonic() + 5
    while marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not marker.exists()  # the child dropped it: the same size is retried
    hook("gemini", "AfterAgent", "capture.turn_end", stdin=payload)
    assert len(hook.flushes(wait=5, count=2)) == 2


def test_capture_off_starts_no_child(hook: Hook, tmp_path: Path) -> None:
    payload = _transcript(tmp_path, "claude", PAYLOADS["claude", "Stop"])
    for value in ("0", "off", "false"):
        assert (
            hook(
                "claude", "Stop", "capture.turn_end", stdin=payload, MEMHUB_CAPTURE=value
            ).returncode
            == 0
        )
        end = PAYLOADS["claude", "SessionEnd"]
        hook("claude", "SessionEnd", "capture.session_end", stdin=end, MEMHUB_CAPTURE=value)
    time.sleep(0.5)
    assert hook.flushes() == []


def test_session_end_is_a_backstop_flush(real_hook: Hook, tmp_path: Path) -> None:
    payload = _host_transcript(tmp_path, "codex", PAYLOADS["codex", "SessionEnd"])
    proc = real_hook("codex", "SessionEnd", "capture.session_end", stdin=payload)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    line = f"codex {CODEX_ID}: session_end +2 records"
    assert line in _capture_log(real_hook, line)
    assert len(_stored(real_hook, f"codex-{CODEX_ID}", 2)[1:]) == 2


def _host_transcript(home: Path, host: str, payload: dict) -> dict:
    """`payload` with its transcript_path on a small real transcript under the host's
    own transcript folder in `home` (capture reads nothing elsewhere)."""
    user = {"type": "text", "text": "Ship it"}
    if host == "claude":
        path = home / ".claude" / "projects" / "app" / f"{CLAUDE_ID}.jsonl"
        lines = [_line("u1", "Ship it")]
    elif host == "codex":
        path = home / ".codex" / "sessions" / "2026" / "11" / "30" / Path(CODEX_T).name
        meta = {"id": CODEX_ID, "cwd": REPO, "thread_source": "user"}
        lines = [
            {"timestamp": "2026-11-30T08:29:33Z", "type": "session_meta", "payload": meta},
            {"timestamp": "2026-11-30T08:29:34Z", "type": "response_item", "payload": {
                "type": "message", "role": "user", "content": [{"type": "input_text", "text": "Ship it"}]}},
        ]  # fmt: skip
    elif host == "gemini":
        path = home / ".gemini" / "tmp" / "app" / "chats" / Path(GEMINI_T).name
        lines = [
            {"sessionId": GEMINI_ID, "projectHash": "app", "startTime": "2026-11-30T08:29:33Z"},
            {"id": "m1", "timestamp": "2026-11-30T08:29:34Z", "type": "user", "content": [user]},
        ]
    else:
        path = home / ".cursor" / "projects" / "app" / "agent-transcripts" / "1111" / "1111.jsonl"
        lines = [{"role": "user", "message": {"content": [user]}}]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return {**payload, "transcript_path": str(path)}


@pytest.mark.parametrize(
    ("host", "host_event", "command", "flushed"),
    [
        ("claude", "PostToolUse", "git add . && git commit -m 'x'", True),
        ("claude", "PostToolUse", "git status && ls -la", False),
        ("claude", "PostToolUse", "echo 'git commit'", False),
        ("codex", "PostToolUse", 'bash -lc "gh pr create --fill"', True),
        ("gemini", "AfterTool", "gh pr merge 3 --squash", True),
        ("cursor", "postToolUse", "cat <<EOF\ngit commit\nEOF", False),
        ("cursor", "postToolUse", "gh pr create --fill", True),
    ],
)
def test_commit_flushes_only_for_a_real_commit(
    real_hook: Hook, tmp_path: Path, host: str, host_event: str, command: str, flushed: bool
) -> None:
    """The real capture engine behind the hook: a commit flush runs (and stores the
    transcript) only when the command really committed or made a PR step."""
    payload = _host_transcript(tmp_path, host, json.loads(json.dumps(PAYLOADS[host, host_event])))
    payload["tool_input"] = {"command": command}
    proc = real_hook(host, host_event, "capture.commit=shell", stdin=payload)
    assert proc.returncode == 0 and json.loads(proc.stdout) == _answer(host, host_event)
    session = {"claude": CLAUDE_ID, "codex": CODEX_ID, "gemini": GEMINI_ID}.get(host, CURSOR_ID)
    line = f"{host} {session}: commit +"
    log = _capture_log(real_hook, line, wait=20 if flushed else 1)
    assert (line in log) is flushed, log
    if flushed:  # what the transcript held was stored
        assert re.search(rf"{re.escape(line)}[12] records", log), log
    assert "refused" not in log and "failed" not in log, log


def test_commit_binding_skips_other_tool_classes(hook: Hook) -> None:
    payload = {**PAYLOADS["claude", "PostToolUse"], "tool_name": "Edit"}
    payload["tool_input"] = {"command": "git commit -m x", "file_path": "x"}
    hook("claude", "PostToolUse", "capture.commit=shell", stdin=payload)
    time.sleep(0.5)
    assert hook.flushes() == []


def test_health_message_reaches_the_user(hook: Hook) -> None:
    message = "MemHub capture is not signed in: run `memhub login`."
    for host, host_event in (
        ("claude", "SessionStart"),
        ("codex", "SessionStart"),
        ("gemini", "SessionStart"),
    ):
        proc = hook(
            host,
            host_event,
            "capture.health",
            stdin=PAYLOADS[host, host_event],
            STUB_HEALTH=message,
        )
        assert json.loads(proc.stdout) == {"systemMessage": message}
    proc = hook(
        "cursor",
        "sessionStart",
        "capture.health",
        stdin=PAYLOADS["cursor", "sessionStart"],
        STUB_HEALTH=message,
    )
    assert json.loads(proc.stdout) == {"additional_context": message}
    healthy = hook(
        "claude", "SessionStart", "capture.health", stdin=PAYLOADS["claude", "SessionStart"]
    )
    assert json.loads(healthy.stdout) == {}


def test_a_crashing_handler_still_answers_and_is_logged(hook: Hook) -> None:
    proc = hook(
        "claude",
        "SessionStart",
        "capture.health",
        stdin=PAYLOADS["claude", "SessionStart"],
        STUB_HEALTH_CRASH="1",
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) == {} and proc.stderr == b""
    assert "capture.health: RuntimeError: health check crashed at " in hook.log()


def test_a_slow_handler_is_cut_off_by_the_watchdog(hook: Hook) -> None:
    proc = hook(
        "cursor",
        "sessionStart",
        "capture.health",
        stdin=PAYLOADS["cursor", "sessionStart"],
        STUB_HEALTH_SLEEP="30",
        MEMHUB_HOOK_BUDGET_S="0.5",
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    assert proc.elapsed < 5, proc.elapsed


@pytest.mark.parametrize("where", ["file", "unset", "unwritable"])
def test_a_missing_or_unusable_memhub_home(hook: Hook, tmp_path: Path, where: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    env = {
        "file": {"MEMHUB_HOME": str(blocker / "home")},  # a path under a regular file
        # the default ~/.memhub, in a home folder that does not exist yet
        "unset": {"MEMHUB_HOME": None, "HOME": str(tmp_path / "new-home")},
        "unwritable": {"MEMHUB_HOME": "/proc/memhub-cannot-exist"},
    }[where]
    payload = _transcript(tmp_path, "claude", PAYLOADS["claude", "Stop"])
    proc = hook(
        "claude",
        "Stop",
        "capture.turn_end",
        "capture.health",
        stdin=payload,
        STUB_HEALTH_CRASH="1",
        **env,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) == {} and proc.stderr == b""
    assert hook.flushes(wait=5, count=1)  # the flush still starts
    if where == "unset":
        assert (
            "RuntimeError: health check crashed"
            in (tmp_path / "new-home" / ".memhub" / "logs" / "hook.log").read_text()
        )


def test_unknown_host_and_event_answer_neutrally(hook: Hook) -> None:
    for argv in (
        (),
        ("claude",),
        ("nohost", "Nothing", "capture.turn_end"),
        ("claude", "Notification", "capture.turn_end"),
    ):
        proc = hook(*argv, stdin=b"{}")
        assert proc.returncode == 0 and json.loads(proc.stdout) == {}, argv


def test_a_broken_runtime_still_answers(hook: Hook) -> None:
    (hook.script.parent / "dispatch.py").write_text("this is not python(\n")
    for argv, answer in (
        (("claude", "Stop", "capture.turn_end"), {}),
        (("cursor", "preToolUse", "capture.commit=shell"), {"permission": "allow"}),
        (("cursor", "beforeSubmitPrompt"), {"continue": True}),
    ):
        proc = hook(*argv, stdin=b"{}")
        assert proc.returncode == 0 and json.loads(proc.stdout) == answer


def test_vendored_modules_do_not_shadow_the_standard_library(hook: Hook) -> None:
    (hook.script.parent / "posix.py").write_text("raise SystemExit('shadowed')\n")
    (hook.script.parent / "_json.py").write_text("raise SystemExit('shadowed')\n")
    proc = hook(
        "claude", "PreToolUse", "capture.commit=shell", stdin=PAYLOADS["claude", "PreToolUse"]
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}


def test_the_hot_path_imports_little(hook: Hook, tmp_path: Path) -> None:
    """No `os`, `json`, `re` or capture engine on the no-op paths: each would cost every tool
    call a measurable share of a bare interpreter start."""
    payload = _transcript(tmp_path, "claude", PAYLOADS["claude", "Stop"])
    hook("claude", "Stop", "capture.turn_end", stdin=payload)  # the flush; the next is a no-op
    hook.flushes(wait=5, count=1)
    calls = [
        (["claude", "Stop", "capture.turn_end"], payload),
        (["claude", "PreToolUse", "capture.commit=shell"], PAYLOADS["claude", "PreToolUse"]),
        (["codex", "PostToolUse", "capture.commit=shell"], PAYLOADS["codex", "PostToolUse"]),
    ]
    for argv, stdin in calls:
        proc = subprocess.run(
            [sys.executable, "-S", "-X", "importtime", str(hook.script), *argv],
            input=json.dumps(stdin).encode(),
            capture_output=True,
            env=hook.env,
        )
        assert proc.returncode == 0 and json.loads(proc.stdout) == {}
        loaded = {
            line.rsplit("|", 1)[-1].strip()
            for line in proc.stderr.decode().splitlines()
            if line.startswith("import time:") and "|" in line
        }
        heavy = {"os", "json", "re", "enum", "typing", "subprocess", "sqlite3", "pathlib"}
        assert heavy.isdisjoint(loaded), sorted(heavy & loaded)
        assert not {"memhub_runtime.capture", "memhub_runtime.shellcmd"} & loaded, loaded
    assert len(hook.flushes()) == 1


def test_bytecode_goes_to_the_memhub_cache_not_the_plugin(hook: Hook) -> None:
    """Also under PYTHONDONTWRITEBYTECODE: recompiling the runtime on every call would double
    the hook's cost; the plugin folder stays as installed."""
    before = sorted(p.name for p in hook.script.parent.iterdir())
    payload = PAYLOADS["claude", "PreToolUse"]
    for _ in range(2):
        proc = hook(
            "claude",
            "PreToolUse",
            "capture.commit=shell",
            stdin=payload,
            PYTHONDONTWRITEBYTECODE="1",
        )
        assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    assert sorted(p.name for p in hook.script.parent.iterdir()) == before
    cached = {p.name.split(".")[0] for p in (hook.home / "cache" / "pyc").rglob("*.pyc")}
    assert {"dispatch", "events", "handlers", "lowos"} <= cached


def test_module_and_console_script_entries(tmp_path: Path) -> None:
    env = {**os.environ, "MEMHUB_HOME": str(tmp_path / "home")}
    payload = json.dumps(PAYLOADS["cursor", "preToolUse"]).encode()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhub.runtime.hook",
            "cursor",
            "preToolUse",
            "capture.commit=shell",
        ],
        input=payload,
        capture_output=True,
        env=env,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) == {"permission": "allow"}
    script = Path(sys.executable).parent / "memhub-hook"
    if not script.exists():
        pytest.skip("memhub-hook is not installed next to this interpreter")
    proc = subprocess.run(
        [str(script), "claude", "Stop"], input=b"{}", capture_output=True, env=env
    )
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}


# --- the real capture engine behind the hook --------------------------------------------------


@pytest.fixture()
def real_hook(tmp_path: Path) -> Hook:
    """The runtime as a bundle ships it, capture and local store included (no stub)."""
    package = tmp_path / "real-plugin" / "memhub_runtime"
    package.parent.mkdir(parents=True)
    shutil.copytree(RUNTIME, package, ignore=shutil.ignore_patterns("__pycache__"))
    return Hook(package / "hook.py", tmp_path)


def _claude_transcript(home: Path, name: str, lines: list[dict]) -> Path:
    path = home / ".claude" / "projects" / "-home-dev-src-app" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _line(uid: str, text: str, session: str = CLAUDE_ID, **extra: object) -> dict:
    return {
        "type": "user",
        "uuid": uid,
        "sessionId": session,
        "timestamp": "2026-11-30T08:29:33.000Z",
        "message": {"role": "user", "content": text},
        **extra,
    }


def _stored(hook: Hook, conversation: str, count: int, wait: float = 20) -> list[dict]:
    from memhub.runtime.backends.local import LocalStore

    deadline = time.monotonic() + wait
    while True:
        store = LocalStore(hook.home / "store.sqlite")
        try:
            records = store.records(conversation)
            sessions = {s["conversation_id"]: s for s in store.sessions()}
        finally:
            store.close()
        if len(records) >= count or time.monotonic() > deadline:
            return [{"session": sessions.get(conversation)}, *records]
        time.sleep(0.1)


def _capture_log(hook: Hook, needle: str, wait: float = 20) -> str:
    path = hook.home / "logs" / "capture.log"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ""
        if needle in text:
            return text
        time.sleep(0.1)
    return path.read_text() if path.exists() else ""


def test_a_turn_end_really_stores_the_turn(real_hook: Hook, tmp_path: Path) -> None:
    path = _claude_transcript(tmp_path, f"{CLAUDE_ID}.jsonl", [_line("u1", "Fix the login")])
    payload = {**PAYLOADS["claude", "Stop"], "transcript_path": str(path)}
    proc = real_hook("claude", "Stop", "capture.turn_end", stdin=payload)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    head, *records = _stored(real_hook, CLAUDE_ID, 1)
    assert [r["id"] for r in records] == ["u1"] and head["session"]["title"] == "Fix the login"


def test_a_hook_pointed_at_a_foreign_file_stores_nothing(real_hook: Hook, tmp_path: Path) -> None:
    secret = tmp_path / "credentials"
    secret.write_text(json.dumps(_line("k1", "aws_secret_access_key = hunter2")) + "\n")
    for name, path in (("direct", secret), ("link", tmp_path / ".claude" / "projects" / "l")):
        if name == "link":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(secret)
        payload = {"session_id": f"s-{name}", "transcript_path": str(path)}
        for event, handler in (("Stop", "capture.turn_end"), ("SessionEnd", "capture.session_end")):
            assert real_hook("claude", event, handler, stdin=payload).returncode == 0
        # each flush runs in its own detached child: wait for both, in either order
        _capture_log(real_hook, f"s-{name}: session_end flush refused")
        log = _capture_log(real_hook, f"s-{name}: turn flush refused")
        assert f"s-{name}: session_end flush refused" in log
        assert f"s-{name}: turn flush refused" in log and "not under claude's" in log
    store = real_hook.home / "store.sqlite"
    assert not store.exists() or not _stored(real_hook, "s-direct", 0, wait=0)[1:]


def test_a_subagent_stop_stores_the_subagent_linked_to_its_parent(
    real_hook: Hook, tmp_path: Path
) -> None:
    parent = _claude_transcript(tmp_path, f"{CLAUDE_ID}.jsonl", [_line("p1", "Plan it")])
    agent = _claude_transcript(
        tmp_path,
        f"{CLAUDE_ID}/subagents/agent-a5f1.jsonl",
        [_line("s1", "Explore the repo", isSidechain=True, agentId="a5f1")],
    )
    payload = {
        **_CLAUDE,
        "transcript_path": str(parent),
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "agent_id": "a5f1",
        "agent_type": "Explore",
        "agent_transcript_path": str(agent),
        "last_assistant_message": "Found it.",
    }
    proc = real_hook("claude", "SubagentStop", "capture.turn_end", stdin=payload)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}
    head, *records = _stored(real_hook, "agent-a5f1", 1)
    assert [r["id"] for r in records] == ["s1"]
    assert (head["session"]["parent"], head["session"]["agent_id"]) == (CLAUDE_ID, "a5f1")
    assert head["session"]["title"] == "Explore the repo"


def test_a_real_commit_makes_a_commit_flush(real_hook: Hook, tmp_path: Path) -> None:
    path = _claude_transcript(tmp_path, f"{CLAUDE_ID}.jsonl", [_line("u1", "Commit it")])
    payload = {**PAYLOADS["claude", "PostToolUse"], "transcript_path": str(path)}
    assert real_hook("claude", "PostToolUse", "capture.commit=shell", stdin=payload).returncode == 0
    assert f"claude {CLAUDE_ID}: commit +1 records" in _capture_log(real_hook, ": commit +")
    assert [r["id"] for r in _stored(real_hook, CLAUDE_ID, 1)[1:]] == ["u1"]


def test_subagent_stop_is_the_subagents_turn_end() -> None:
    agent = f"{HOME}/.claude/projects/-home-dev-src-app/{CLAUDE_ID}/subagents/agent-a5f1.jsonl"
    payload = {**_CLAUDE, "hook_event_name": "SubagentStop", "agent_transcript_path": agent}
    event = normalise("claude", "SubagentStop", payload)
    assert (event.name, event.session_id, event.transcript_path) == (
        "turn_end",
        "agent-a5f1",
        agent,
    )
    # without the subagent's transcript the event stays the parent's
    bare = normalise("claude", "SubagentStop", {**_CLAUDE, "hook_event_name": "SubagentStop"})
    assert (bare.session_id, bare.transcript_path) == (CLAUDE_ID, CLAUDE_T)


def _older_pythons() -> dict[str, str]:
    """python3.8-3.10 interpreters that run here: on PATH, or installed by pyenv (whose
    shims refuse a version that is not selected)."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = {}
    for version in ("3.8", "3.9", "3.10"):
        candidates = [shutil.which(f"python{version}")]
        candidates += sorted(str(p) for p in root.glob(f"versions/{version}.*/bin/python{version}"))
        for candidate in filter(None, candidates):
            ran = subprocess.run([candidate, "-c", "pass"], capture_output=True, check=False)
            if ran.returncode == 0:
                found[version] = candidate
                break
    return found


OLDER_PYTHONS = _older_pythons()


@pytest.mark.skipif(not OLDER_PYTHONS, reason="no python3.8-3.10 on this machine")
@pytest.mark.parametrize("version", sorted(OLDER_PYTHONS))
def test_a_bundles_hook_answers_under_an_older_python3(
    version: str, vendored: Path, tmp_path: Path
) -> None:
    """A bundle's hook runs under whatever `python3` the host finds, which may predate the
    3.11 memhub itself needs: it must still give its host a valid answer, never a traceback
    (sys.flags.safe_path, read at start, exists only from 3.11)."""
    interpreter = OLDER_PYTHONS[version]
    payload = _transcript(tmp_path, "gemini", PAYLOADS["gemini", "AfterTool"])
    proc = subprocess.run(
        [interpreter, "-S", str(vendored), "gemini", "AfterTool", "capture.commit=shell"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=Hook(vendored, tmp_path).env,
        timeout=20,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout) == _answer("gemini", "AfterTool")
    assert b"Traceback" not in proc.stderr
