"""Per-host content in the hub: `hosts:`, `{default: ..., <host>: ...}` values, native
events and hook options, as the loader reads and refuses them (hubspec/perhost.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.hubspec import HubError, load
from memhub.hubspec.perhost import NATIVE_ONLY, limited, split, view

BASE = """\
version: 1
plugin:
  name: demo
  version: 1.0.0
  description: {description}
marketplace: {{name: demo-market, owner: {{name: Demo}}}}
hosts: [claude, codex, cursor, gemini, agent-plugins]
"""


def _hub(tmp_path: Path, body: str, description: str = "A demo plugin.") -> Path:
    (tmp_path / "hub.yaml").write_text(BASE.format(description=description) + body)
    return tmp_path


def _problems(tmp_path: Path, body: str, **kw: str) -> str:
    with pytest.raises(HubError) as caught:
        load(_hub(tmp_path, body, **kw))
    return str(caught.value)


def test_split_plain_and_per_host() -> None:
    assert split("x") == ("x", {})
    assert split({"default": "x", "codex": "y"}) == ("x", {"codex": "y"})
    assert split({"claude": "y"}) == (None, {"claude": "y"})


def test_plugin_values_per_host(tmp_path: Path) -> None:
    text = BASE.format(description="{default: Everywhere., codex: On Codex.}")
    text = text.replace(
        "marketplace:",
        "  display_name: {codex: Demo for Codex}\n  keywords: {default: [a], claude: [a, b]}\n"
        "marketplace:",
    )
    (tmp_path / "hub.yaml").write_text(text)
    hub = load(tmp_path)
    assert hub.plugin.description == "Everywhere."
    assert hub.plugin.display_name is None
    assert view(hub, "codex").plugin.description == "On Codex."
    assert view(hub, "codex").plugin.display_name == "Demo for Codex"
    assert view(hub, "claude").plugin.keywords == ("a", "b")
    assert view(hub, "cursor").plugin == hub.plugin


def test_hooks_and_servers_limited_to_hosts(tmp_path: Path) -> None:
    hub = load(
        _hub(
            tmp_path,
            "mcp:\n  servers:\n    only-claude: {command: npx, hosts: [claude]}\n"
            "hooks:\n"
            "  - {id: only-codex, event: turn_end, command: echo, hosts: [codex]}\n"
            "  - {id: all, event: turn_end, command: echo}\n",
        )
    )
    assert [h.id for h in view(hub, "codex").hooks] == ["only-codex", "all"]
    assert [h.id for h in view(hub, "claude").hooks] == ["all"]
    assert [s.name for s in view(hub, "claude").mcp_servers] == ["only-claude"]
    assert view(hub, "codex").mcp_servers == ()
    away = {(item.component, item.id) for item in limited(hub, "claude")}
    assert away == {("hook", "only-codex")}
    assert {(i.component, i.id) for i in limited(hub, "gemini")} == {
        ("hook", "only-codex"),
        ("mcp", "only-claude"),
    }


def test_native_event_per_host(tmp_path: Path) -> None:
    hub = load(
        _hub(
            tmp_path,
            "hooks:\n"
            "  - id: sub\n    event: {claude: SubagentStop, cursor: afterAgentResponse}\n"
            "    command: echo\n"
            "  - id: edit\n    event: {default: after_tool, cursor: afterFileEdit}\n"
            "    tools: [edit]\n    matcher: {cursor: '.*'}\n    command: echo\n",
        )
    )
    sub, edit = hub.hooks
    assert edit.event == "after_tool"
    assert sub.event == NATIVE_ONLY
    assert view(hub, "claude").hooks[0].event == "SubagentStop"
    assert view(hub, "cursor").hooks[1].event == "afterFileEdit"
    assert view(hub, "cursor").hooks[1].matcher == ".*"
    assert view(hub, "claude").hooks[1].event == "after_tool"
    assert view(hub, "claude").hooks[1].matcher is None


def test_options_per_host(tmp_path: Path) -> None:
    hub = load(
        _hub(
            tmp_path,
            "hooks:\n  - id: x\n    event: turn_end\n    command: echo\n"
            "    options: {loop_limit: {cursor: 3}, if: 'Bash(git *)'}\n"
            "    timeout: {default: 5, gemini: 9}\n",
        )
    )
    (hook,) = hub.hooks
    assert dict(hook.options) == {"if": "Bash(git *)"}
    assert dict(view(hub, "cursor").hooks[0].options) == {"if": "Bash(git *)", "loop_limit": 3}
    assert (hook.timeout, view(hub, "gemini").hooks[0].timeout) == (5, 9)


def test_skill_hosts(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "only-claude"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: only-claude\ndescription: A skill.\n---\nHi.\n")
    hub = load(_hub(tmp_path, "skills: skills\nskill_hosts: {only-claude: [claude]}\n"))
    assert hub.skills[0].hosts == ("claude",)
    assert view(hub, "codex").skills == ()
    assert view(hub, "claude").skills == hub.skills


# ---- refused, each with where, what and the fix -------------------------------------------


def test_unknown_native_event_names_the_known_ones(tmp_path: Path) -> None:
    text = _problems(
        tmp_path, "hooks:\n  - {id: x, event: {cursor: afterAgentReply}, command: echo}\n"
    )
    assert "hub.yaml:9:" in text
    assert "cursor has no hook event 'afterAgentReply'" in text
    assert "afterAgentResponse" in text and "beforeShellExecution" in text


def test_another_hosts_native_event_is_refused(tmp_path: Path) -> None:
    text = _problems(tmp_path, "hooks:\n  - {id: x, event: {codex: Notification}, command: e}\n")
    assert "codex has no hook event 'Notification'" in text


def test_native_event_needs_a_command(tmp_path: Path) -> None:
    text = _problems(
        tmp_path, "hooks:\n  - {id: x, event: {claude: SubagentStop}, handler: capture.turn}\n"
    )
    assert "runs a `command:`, not a runtime handler" in text


def test_matcher_on_a_logical_event(tmp_path: Path) -> None:
    text = _problems(
        tmp_path, "hooks:\n  - {id: x, event: before_tool, matcher: Bash, command: echo}\n"
    )
    assert text.count("`matcher` applies to a host's native event") == 1
    assert "use `tools:`" in text


def test_unknown_hook_option(tmp_path: Path) -> None:
    text = _problems(
        tmp_path, "hooks:\n  - {id: x, event: turn_end, command: e, options: {iff: a}}\n"
    )
    assert "unknown hook option 'iff'" in text and "async_rewake" in text


def test_unknown_host_names_the_hosts(tmp_path: Path) -> None:
    text = _problems(tmp_path, "hooks:\n  - {id: x, event: turn_end, command: e, hosts: [clod]}\n")
    assert "'clod'" in text or '"clod"' in text
    assert "claude" in text and "gemini" in text


def test_unknown_host_in_a_per_host_value(tmp_path: Path) -> None:
    text = _problems(tmp_path, "", description="{default: x, clod: y}")
    assert "name 'clod' is not one of default, claude, codex" in text
    assert "(did you mean 'cloud'" not in text


def test_per_host_description_needs_a_default(tmp_path: Path) -> None:
    text = _problems(tmp_path, "", description="{codex: y}")
    assert "needs a `default:`" in text


def test_unknown_skill_in_skill_hosts(tmp_path: Path) -> None:
    text = _problems(tmp_path, "skill_hosts: {nope: [claude]}\n")
    assert "no skill named 'nope'" in text


def test_a_claude_variable_sent_to_other_hosts(tmp_path: Path) -> None:
    text = _problems(
        tmp_path,
        "hooks:\n  - {id: x, event: turn_end, command: 'python3 \"${CLAUDE_PLUGIN_ROOT:-}/a\"'}\n",
    )
    assert "CLAUDE_PLUGIN_ROOT, which cursor does not set" in text
    assert "CLAUDE_PLUGIN_ROOT, which gemini does not set" in text
    assert "which codex" not in text  # Codex sets CLAUDE_PLUGIN_ROOT as an alias
    assert "write ${plugin_root}" in text and "hosts: [claude, codex]" in text


def test_a_host_variable_is_fine_when_limited(tmp_path: Path) -> None:
    hub = load(
        _hub(
            tmp_path,
            "hooks:\n  - {id: x, event: turn_end, hosts: [cursor],"
            " command: 'sh \"$CURSOR_PLUGIN_ROOT/a\"'}\n"
            "  - {id: y, event: turn_end, command: {default: 'echo', gemini: 'sh ${extensionPath}'}}\n",
        )
    )
    assert [h.id for h in hub.hooks] == ["x", "y"]


def test_gemini_variable_in_the_default_command(tmp_path: Path) -> None:
    text = _problems(
        tmp_path, "hooks:\n  - {id: y, event: turn_end, command: 'sh ${extensionPath}'}\n"
    )
    assert "extensionPath, which claude does not set" in text


def test_a_value_for_a_host_the_hook_leaves_out(tmp_path: Path) -> None:
    text = _problems(
        tmp_path,
        "hooks:\n  - {id: x, event: turn_end, hosts: [claude], command: {default: a, codex: b}}\n",
    )
    assert "a value is given for codex, which this hook's `hosts` leaves out" in text


def test_a_native_default_event(tmp_path: Path) -> None:
    text = _problems(
        tmp_path, "hooks:\n  - {id: x, event: {default: SubagentStop}, command: echo}\n"
    )
    assert "`default:` takes a logical event, not 'SubagentStop'" in text


def test_tools_on_a_native_only_hook(tmp_path: Path) -> None:
    text = _problems(
        tmp_path, "hooks:\n  - {id: x, event: {claude: PostToolUse}, tools: [shell], command: e}\n"
    )
    assert "not 'native events'" in text and "matcher: {<host>: ...}" in text
