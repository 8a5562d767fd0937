"""Handler hooks compile to one dispatcher entry per host event and settings.

However many logical hooks a hub binds to one host event with the same timeout, async flag
and status message, the host starts one runtime process for them; the entry's arguments name
every handler bound there, and the runtime parses them back (`dispatch.parse_bindings`).
Hooks whose settings differ get an entry each: merging would change what the author asked.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.build import build
from memhub.compiler.hosts import claude, codex, cursor, gemini
from memhub.compiler.install.scope import Scope
from memhub.hubspec import load
from memhub.runtime import dispatch

from tests.hubs import HUBS

HOOKS = """hooks:
  - {id: one-shell, event: after_tool, tools: [shell], handler: probe.one, timeout: 20}
  - {id: two-edit, event: after_tool, tools: [edit], handler: probe.two, timeout: 20}
  - {id: three-fail, event: after_tool_failure, tools: [shell], handler: probe.three, timeout: 20}
  - {id: guard, event: after_tool, tools: [shell], command: "echo guard"}
  - {id: turn-one, event: turn_end, handler: probe.one, async: true, status_message: Saving}
  - {id: turn-two, event: turn_end, handler: probe.two, async: true, status_message: Saving}
  - {id: start, event: session_start, handler: probe.one}
  - {id: turn-script, event: turn_end, command: "echo turn"}
"""
HOOK_FILES = {
    "claude": "plugins/hello-hub/hooks/claude-hooks.json",
    "codex": "plugins/hello-hub/hooks/codex-hooks.json",
    "cursor": "plugins/hello-hub/hooks/cursor-hooks.json",
    "gemini": "gemini/hello-hub/hooks/hooks.json",
}
MODULES = {"claude": claude, "codex": codex, "cursor": cursor, "gemini": gemini}


@pytest.fixture()
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from memhub.runtime import handlers

    for name in ("probe.one", "probe.two", "probe.three"):
        monkeypatch.setitem(handlers.HANDLERS, name, "test handler")
    root = tmp_path / "hub"
    shutil.copytree(HUBS["minimal"], root)
    with (root / "hub.yaml").open("a") as handle:
        handle.write(HOOKS)
    return load(root)


def _handlers(host: str, document: dict[str, Any]) -> list[tuple[str, str | None, dict]]:
    """(host event, matcher, handler) of every handler in a host's hooks document."""
    found = []
    for event, groups in document["hooks"].items():
        for group in groups:
            if host == "cursor":
                found.append((event, group.get("matcher"), group))
            else:
                found.extend((event, group.get("matcher"), h) for h in group["hooks"])
    return found


def _runtime(found: list[tuple[str, str | None, dict]]) -> dict[str, list[tuple[str, Any]]]:
    """host event -> [(matcher, handler)] of the entries that start the runtime."""
    by_event: dict[str, list[tuple[str, Any]]] = {}
    for event, matcher, handler in found:
        words = shlex.split(handler["command"])
        if "memhub-hook" in words[0] or any(w.endswith("/memhub_runtime/hook.py") for w in words):
            by_event.setdefault(event, []).append((matcher, handler))
    return by_event


def _bindings(command: str, host: str, event: str) -> list[tuple[str, frozenset[str] | None]]:
    words = shlex.split(command)
    start = next(i for i, w in enumerate(words) if w == host)
    assert words[start + 1] == event
    return dispatch.parse_bindings(words[start + 2 :])


@pytest.mark.parametrize("host", list(HOOK_FILES))
def test_one_dispatcher_entry_per_host_event_and_settings(hub, host: str) -> None:
    result = build(hub, [host])
    document = json.loads(result.artifact(HOOK_FILES[host]).content)
    runtime = _runtime(_handlers(host, document))
    for entries in runtime.values():
        settings = [(h.get("timeout"), h.get("async"), h.get("statusMessage")) for _, h in entries]
        assert len(set(settings)) == len(settings), runtime
    events = MODULES[host].EVENTS
    expected = {
        host_event
        for name in ("after_tool", "after_tool_failure", "turn_end")
        for host_event in (events[name].host_event, *events[name].handler_also)
    }
    assert set(runtime) == expected | {events["session_start"].host_event}
    # the command hook is kept as written, beside the dispatcher
    commands = [h["command"] for _, _, h in _handlers(host, document)]
    assert commands.count("echo guard") == 1


def test_claude_dispatchers_carry_every_binding(hub) -> None:
    document = json.loads(build(hub, ["claude"]).artifact(HOOK_FILES["claude"]).content)
    runtime = _runtime(_handlers("claude", document))
    ((matcher, post),) = runtime["PostToolUse"]
    assert matcher == "Bash|Edit|MultiEdit|Write|NotebookEdit"
    assert post["command"] == (
        'python3 -S "${CLAUDE_PLUGIN_ROOT}/memhub_runtime/hook.py" claude PostToolUse '
        "probe.one=shell probe.two=edit"
    )
    assert post["timeout"] == 20  # the timeout both bound hooks give
    ((matcher, failure),) = runtime["PostToolUseFailure"]
    assert (matcher, failure["timeout"]) == ("Bash", 20)
    assert _bindings(failure["command"], "claude", "PostToolUseFailure") == [
        ("probe.three", frozenset({"shell"}))
    ]
    ((matcher, stop),) = runtime["Stop"]
    assert matcher is None
    assert _bindings(stop["command"], "claude", "Stop") == [
        ("probe.one", None),
        ("probe.two", None),
    ]
    assert stop["async"] is True and stop["statusMessage"] == "Saving"  # as both bound hooks ask
    # a subagent's turn ends with SubagentStop: the same handlers run there, in their own
    # dispatcher; a command hook stays on Stop only (its script expects Stop's payload)
    ((matcher, subagent),) = runtime["SubagentStop"]
    assert matcher is None
    assert _bindings(subagent["command"], "claude", "SubagentStop") == [
        ("probe.one", None),
        ("probe.two", None),
    ]
    scripts = [
        (e, h["command"]) for e, _, h in _handlers("claude", document) if "echo" in h["command"]
    ]
    assert ("Stop", "echo turn") in scripts and ("SubagentStop", "echo turn") not in scripts
    ((_, start),) = runtime["SessionStart"]
    assert "async" not in start


def test_codex_merges_after_tool_and_its_failure_into_one_process(hub) -> None:
    document = json.loads(build(hub, ["codex"]).artifact(HOOK_FILES["codex"]).content)
    ((matcher, post),) = _runtime(_handlers("codex", document))["PostToolUse"]
    assert matcher == "^(?:Bash|shell|local_shell|apply_patch|Edit|Write)$"
    assert _bindings(post["command"], "codex", "PostToolUse") == [
        ("probe.one", frozenset({"shell"})),
        ("probe.two", frozenset({"edit"})),
        ("probe.three", frozenset({"shell"})),
    ]


def test_gemini_names_the_dispatcher_after_its_hooks(hub) -> None:
    document = json.loads(build(hub, ["gemini"]).artifact(HOOK_FILES["gemini"]).content)
    runtime = _runtime(_handlers("gemini", document))
    ((_, after),) = runtime["AfterTool"]
    assert after["name"] == "one-shell,two-edit,three-fail"
    assert after["timeout"] == 20_000
    assert after["command"].startswith('python3 -S "${extensionPath}/memhub_runtime/hook.py"')


def test_a_hook_on_every_tool_drops_the_matcher(hub, tmp_path: Path, monkeypatch) -> None:
    from memhub.runtime import handlers

    monkeypatch.setitem(handlers.HANDLERS, "probe.all", "test handler")
    root = tmp_path / "hub"
    with (root / "hub.yaml").open("a") as handle:
        handle.write("  - {id: all-tools, event: after_tool, handler: probe.all, timeout: 20}\n")
        handle.write(
            "  - {id: again, event: after_tool, tools: [mcp], handler: probe.one, timeout: 20}\n"
        )
    document = json.loads(build(load(root), ["claude"]).artifact(HOOK_FILES["claude"]).content)
    ((matcher, post),) = _runtime(_handlers("claude", document))["PostToolUse"]
    assert matcher is None
    assert _bindings(post["command"], "claude", "PostToolUse") == [
        ("probe.one", frozenset({"shell", "mcp"})),
        ("probe.two", frozenset({"edit"})),
        ("probe.all", None),
    ]


def test_a_bundle_without_the_runtime_calls_the_installed_one(hub, tmp_path: Path) -> None:
    root = tmp_path / "hub"
    text = (root / "hub.yaml").read_text()
    (root / "hub.yaml").write_text(text + "runtime: {vendor: never}\n")
    result = build(load(root), ["claude"])
    assert not [a for a in result.artifacts if "/memhub_runtime/" in a.path]
    document = json.loads(result.artifact(HOOK_FILES["claude"]).content)
    for entries in _runtime(_handlers("claude", document)).values():
        ((_, handler),) = entries
        assert handler["command"].startswith("memhub-hook claude "), handler


@pytest.mark.parametrize("host", list(MODULES))
def test_installs_call_the_installed_runtime(hub, host: str, tmp_path: Path) -> None:
    entries, rows = MODULES[host].install_entries(hub, Scope("user", tmp_path / "home"))
    hooks = [e for e in entries if e.kind == "json-item" and e.path[0] == "hooks"]
    found = []
    for entry in hooks:
        handlers = [entry.value] if host == "cursor" else entry.value["hooks"]
        found.extend((entry.path[1], entry.value.get("matcher"), h) for h in handlers)
    runtime = _runtime(found)
    assert runtime and all(len(entries) == 1 for entries in runtime.values()), runtime
    for entries in runtime.values():
        ((_, handler),) = entries
        assert handler["command"].startswith(f"memhub-hook {host} ")
        assert "None" not in handler["command"]
    assert all(r.status != "unsupported" for r in rows if r.component == "hook")


def test_the_generated_bundle_command_runs(hub, tmp_path: Path) -> None:
    """Each dispatcher of a built bundle, run as Claude Code runs it (sh -c, the plugin root
    in the environment): the vendored runtime answers `{}` and exits 0."""
    out = tmp_path / "bundle"
    for artifact in build(hub, ["claude"]).artifacts:
        target = out / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
    document = json.loads((out / HOOK_FILES["claude"]).read_text())
    runtime = _runtime(_handlers("claude", document))
    assert set(runtime) == {
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SubagentStop",
        "SessionStart",
    }
    for event, ((_, handler),) in runtime.items():
        env = {
            "PATH": f"{os.path.dirname(sys.executable)}:{os.environ.get('PATH', '')}",
            "HOME": str(tmp_path),
            "MEMHUB_HOME": str(tmp_path / "memhub"),
            "CLAUDE_PLUGIN_ROOT": str(out / "plugins/hello-hub"),
        }
        proc = subprocess.run(
            ["sh", "-c", handler["command"]], input=b"{}", capture_output=True, env=env, timeout=30
        )
        assert proc.returncode == 0 and json.loads(proc.stdout) == {}, (event, proc)
    # the probe handlers are not in this runtime: said in the log, never to the host
    assert "unknown handler 'probe.one'" in (tmp_path / "memhub/logs/hook.log").read_text()


SPLIT = """hooks:
  - {id: flush, event: turn_end, handler: probe.one, async: true, timeout: 300}
  - {id: refresh, event: turn_end, handler: probe.two, async: true, timeout: 60}
  - {id: recall, event: before_tool, tools: [edit], handler: probe.one, timeout: 8,
     status_message: Checking}
  - {id: recall-shell, event: before_tool, tools: [shell], handler: probe.one, timeout: 8,
     status_message: Checking}
  - {id: quiet, event: before_tool, tools: [shell], handler: probe.two, timeout: 8}
"""


@pytest.mark.parametrize("host", ["claude", "codex", "gemini"])
def test_hooks_whose_settings_differ_get_an_entry_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host: str
) -> None:
    from memhub.runtime import handlers

    for name in ("probe.one", "probe.two"):
        monkeypatch.setitem(handlers.HANDLERS, name, "test handler")
    root = tmp_path / "hub"
    shutil.copytree(HUBS["minimal"], root)
    with (root / "hub.yaml").open("a") as handle:
        handle.write(SPLIT)
    document = json.loads(build(load(root), [host]).artifact(HOOK_FILES[host]).content)
    runtime = _runtime(_handlers(host, document))
    events = MODULES[host].EVENTS
    turn = runtime[events["turn_end"].host_event]
    assert [h.get("timeout") for _, h in turn] in ([300, 60], [300000, 60000])
    before = runtime[events["before_tool"].host_event]
    assert len(before) == 2  # recall and recall-shell share one; quiet has no status message
    event = events["before_tool"].host_event
    assert _bindings(before[0][1]["command"], host, event) == [
        ("probe.one", frozenset({"edit", "shell"}))
    ]
    assert _bindings(before[1][1]["command"], host, event) == [("probe.two", frozenset({"shell"}))]
