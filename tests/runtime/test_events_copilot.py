"""GitHub Copilot CLI's hook payloads in the runtime (runtime/events_copilot.py): normalised
events, tool classes, its answer format, and the hook process run as a bundle vendors it.

The payloads are what copilot 1.0.102 sent the e2e probe hub's hooks (paths replaced);
tests/e2e/test_copilot_runtime.py proves the answers with the real CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.runtime import dispatch, events_copilot
from memhub.runtime.dispatch import Output, render
from memhub.runtime.events import normalise

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"
SID = "ba5ceb83-6c28-42a2-91d6-64ccf9585c35"
CWD = "/home/dev/src/app"
EVENTS_FILE = f"/home/dev/.copilot/session-state/{SID}/events.jsonl"
_BASE = {"sessionId": SID, "timestamp": 1796581265675, "cwd": CWD}
_SHELL_ARGS = {"command": "echo memhub-copilot-e2e", "description": "e2e step"}
PAYLOADS: dict[str, dict] = {
    "sessionStart": {**_BASE, "source": "new", "initialPrompt": "say hello"},
    "userPromptSubmitted": {**_BASE, "prompt": "say hello"},
    "preToolUse": {**_BASE, "toolName": "bash", "toolArgs": _SHELL_ARGS},
    "postToolUse": {
        **_BASE,
        "toolName": "bash",
        "toolArgs": _SHELL_ARGS,
        "toolResult": {
            "resultType": "success",
            "textResultForLlm": "memhub-copilot-e2e\n<shellId: 0 completed with exit code 0>",
        },
    },
    "postToolUseFailure": {
        **_BASE,
        "toolName": "bash",
        "toolArgs": {"description": "e2e step"},
        "error": '"command": Required',
    },
    "agentStop": {
        **_BASE,
        "transcriptPath": EVENTS_FILE,
        "stopReason": "end_turn",
        "stop_hook_active": False,
    },
    "sessionEnd": {**_BASE, "reason": "complete"},
}


def test_every_event_is_normalised() -> None:
    seen = {name: normalise("copilot", name, PAYLOADS[name]) for name in PAYLOADS}
    assert {n: e.name for n, e in seen.items()} == {
        "sessionStart": "session_start",
        "userPromptSubmitted": "prompt_submit",
        "preToolUse": "before_tool",
        "postToolUse": "after_tool",
        "postToolUseFailure": "after_tool_failure",
        "agentStop": "turn_end",
        "sessionEnd": "session_end",
    }
    for event in seen.values():
        assert (event.host, event.session_id, event.cwd) == ("copilot", SID, CWD)
    assert seen["agentStop"].transcript_path == EVENTS_FILE
    assert seen["userPromptSubmitted"].prompt == "say hello"
    assert (seen["sessionStart"].source, seen["sessionEnd"].source) == ("new", "complete")
    before, after, failed = seen["preToolUse"], seen["postToolUse"], seen["postToolUseFailure"]
    assert (before.tool_name, before.tool_class, before.command) == (
        "bash",
        "shell",
        "echo memhub-copilot-e2e",
    )
    assert (before.failed, after.failed, failed.failed) == (None, False, True)
    assert after.tool_input == _SHELL_ARGS and failed.command is None


def test_the_session_file_is_derived_where_copilot_does_not_name_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only agentStop names the transcript; the others get Copilot's own place for it, under
    COPILOT_HOME when set, and none for an id that could leave the folder."""
    monkeypatch.setenv("HOME", "/home/dev")
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    assert normalise("copilot", "sessionEnd", PAYLOADS["sessionEnd"]).transcript_path == EVENTS_FILE
    monkeypatch.setenv("COPILOT_HOME", "/srv/cp/")
    event = normalise("copilot", "sessionEnd", PAYLOADS["sessionEnd"])
    assert event.transcript_path == f"/srv/cp/session-state/{SID}/events.jsonl"
    for hostile in ("../../etc", "a/b", "..", ".hidden", "a\\b"):
        payload = {**PAYLOADS["sessionEnd"], "sessionId": hostile}
        assert normalise("copilot", "sessionEnd", payload).transcript_path is None, hostile


@pytest.mark.parametrize(
    ("tool", "args", "cls"),
    [
        ("create", {"path": "/x/a.py", "file_text": "x"}, "edit"),
        ("edit", {"path": "/x/a.py", "old_str": "a", "new_str": "b"}, "edit"),
        ("view", {"path": "/x/a.py"}, "read"),
        ("grep", {"pattern": "x"}, "search"),
        ("glob", {"pattern": "*.py"}, "search"),
        ("web_fetch", {"url": "https://example.com"}, "web"),
        ("task", {"prompt": "x"}, "agent"),
        ("github-list_issues", {}, None),  # an MCP tool: nothing marks it as one
        ("read_bash", {"shellId": "0"}, None),  # reads a running shell: runs no command
    ],
)
def test_tool_classes(tool: str, args: dict, cls: str | None) -> None:
    event = normalise("copilot", "preToolUse", {**_BASE, "toolName": tool, "toolArgs": args})
    assert (event.tool_class, event.command) == (cls, None)


@pytest.mark.parametrize(
    ("result", "failed"),
    [
        ({"resultType": "success", "textResultForLlm": "x\n<shellId: 3 completed with exit code 2>"}, True),
        ({"resultType": "success", "textResultForLlm": "exit code 2> printed\nmore"}, False),
        ({"resultType": "failure", "textResultForLlm": "boom"}, True),
        ({"resultType": "rejected"}, True),
        ({}, None),
        ("not an object", None),
    ],
)  # fmt: skip
def test_a_failed_shell_call_is_a_failure(result: object, failed: bool | None) -> None:
    payload = {**PAYLOADS["postToolUse"], "toolResult": result}
    assert normalise("copilot", "postToolUse", payload).failed is failed


@pytest.mark.parametrize(
    "payload",
    [None, [], "x", 3, {"sessionId": 7, "toolArgs": "[1]", "toolName": ["bash"], "cwd": {}}],
)
def test_odd_payloads_never_raise(payload: object) -> None:
    event = normalise("copilot", "preToolUse", payload)
    assert event.name == "before_tool"
    assert (event.session_id, event.tool_name, event.tool_input, event.cwd) == (
        None,
        None,
        {},
        None,
    )
    assert normalise("copilot", "notAnEvent", payload).name is None


def test_tables_agree_with_the_compiler() -> None:
    """The runtime reads back what compiler/hosts/copilot.py writes: events and tool names."""
    from memhub.compiler.hosts import copilot

    for logical, support in copilot.EVENTS.items():
        assert events_copilot.LOGICAL[support.host_event or ""] == logical
    for tool_class, names in copilot.TOOLS.items():
        for name in names or ():
            assert events_copilot.TOOLS[name] == tool_class, name
    assert dispatch.carries("copilot", "before_tool") and not dispatch.carries(
        "copilot", "turn_end"
    )


def _out(messages: list[str], contexts: list[str]) -> Output:
    out = Output("/nonexistent")
    for text in messages:
        out.system_message(text)
    for text in contexts:
        out.context(text)
    return out


def test_answers_in_copilots_format() -> None:
    """`additionalContext` where Copilot shows it to the model; `{}` elsewhere; messages for
    the user only at session start, where the model can say them."""
    for event in ("sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse",
                  "postToolUseFailure"):  # fmt: skip
        answer = json.loads(render("copilot", event, _out([], ["lesson A", "lesson B"])))
        assert answer == {"additionalContext": "lesson A\n\nlesson B"}, event
    for event in ("agentStop", "sessionEnd", "preCompact", "nope"):
        assert json.loads(render("copilot", event, _out(["m"], ["c"]))) == {}, event
    assert json.loads(render("copilot", "preToolUse", _out(["m"], []))) == {}
    start = json.loads(render("copilot", "sessionStart", _out(["capture is broken"], ["brief"])))
    assert start == {"additionalContext": "capture is broken\n\nbrief"}
    assert json.loads(render("copilot", "preToolUse", None)) == {}


@pytest.fixture()
def vendored(tmp_path: Path) -> Path:
    package = tmp_path / "plugin" / "memhub_runtime"
    package.parent.mkdir(parents=True)
    shutil.copytree(RUNTIME, package, ignore=shutil.ignore_patterns("__pycache__"))
    return package / "hook.py"


def _hook(script: Path, tmp_path: Path, *argv: str, stdin: bytes) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MEMHUB_HOME": str(tmp_path / "mh")}
    return subprocess.run(
        [sys.executable, "-S", "-X", "importtime", str(script), *argv],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=20,
    )


@pytest.mark.parametrize(
    "stdin",
    [b"", b"garbage", b"\xff\xfe", b"[1]", b'{"x": ', json.dumps(PAYLOADS["preToolUse"]).encode()],
)
def test_the_process_answers_and_stays_light(vendored: Path, tmp_path: Path, stdin: bytes) -> None:
    """Garbage or a real payload: exit 0 with `{}`, and a read-only shell call imports no
    `os`, `json`, `re` or handler body: what the Claude hook costs (bench/bench_hooks.py)."""
    argv = ("copilot", "preToolUse", "recall.directives=edit,shell")
    proc = _hook(vendored, tmp_path, *argv, stdin=stdin)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {}, proc.stderr[-2000:]
    loaded = {
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert {"os", "json", "re", "enum", "typing", "subprocess"}.isdisjoint(loaded), loaded
    assert "memhub_runtime.memory" not in loaded and "memhub_runtime.events_copilot" in loaded
    assert not (tmp_path / "mh" / "logs" / "hook.log").exists()


def test_a_failed_commands_output_is_read_for_reactive_recall() -> None:
    """Copilot reports a command that exited 1 on postToolUse, its output in `toolResult`."""
    from memhub.runtime.memory import directives_hook

    text = "cat: ledger/missing-ledger.csv: No such file or directory\n<shellId: 4 completed with exit code 1>"
    payload = {
        **PAYLOADS["postToolUse"],
        "toolResult": {"resultType": "success", "textResultForLlm": text},
    }
    event = normalise("copilot", "postToolUse", payload)
    assert event.failed is True and directives_hook.mode(event) == "reactive"
    assert directives_hook.failing_output(payload) == text
    failed = normalise("copilot", "postToolUseFailure", PAYLOADS["postToolUseFailure"])
    assert directives_hook.failing_output(failed.payload) == '"command": Required'
