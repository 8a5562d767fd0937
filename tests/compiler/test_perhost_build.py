"""Per-host content in the build: each adapter builds its own view of the hub (snapshots of
tests/data/perhost), native events, hook options, and quoted plugin folder references."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from memhub.compiler.build import Build, build
from memhub.compiler.hosts.hooks import quote_plugin_refs
from memhub.hubspec import HubError, load

from tests.hubs import REPO, text_files

HUB = REPO / "tests" / "data" / "perhost"
PLUGIN = "plugins/perhost-probe"


@cache
def _built() -> Build:
    return build(load(HUB))


def _json(path: str) -> dict:
    artifact = _built().artifact(path)
    assert artifact is not None, path
    return json.loads(artifact.content)


@pytest.mark.parametrize(
    "owner", ["claude", "codex", "cursor", "gemini", "agent-plugins", "shared"]
)
def test_perhost_files_match_snapshot(owner: str, snapshot) -> None:
    assert text_files(_built(), owner) == snapshot


def test_perhost_coverage_matches_snapshot(snapshot) -> None:
    assert [row.to_json() for row in _built().coverage] == snapshot


def _commands(document: dict) -> list[str]:
    found = []
    for groups in document["hooks"].values():
        for group in groups:
            found += [h["command"] for h in group.get("hooks", [group])]
    return found


def test_a_hook_limited_to_claude_is_only_in_claudes_file() -> None:
    claude = _commands(_json(f"{PLUGIN}/hooks/claude-hooks.json"))
    codex = _commands(_json(f"{PLUGIN}/hooks/codex-hooks.json"))
    cursor = _commands(_json(f"{PLUGIN}/hooks/cursor-hooks.json"))
    claude_only = 'test -n "${CLAUDE_PLUGIN_ROOT:-}" && echo claude'
    assert claude_only in claude
    assert claude_only not in codex + cursor
    assert "echo codex" in codex and "echo codex" not in claude + cursor
    rows = {(r.host, r.id): r for r in _built().coverage if r.component == "hook"}
    assert rows["codex", "claude-only"].reason == "limited to claude (hosts:)"


def test_native_events_land_on_their_hosts_only() -> None:
    assert "SubagentStop" in _json(f"{PLUGIN}/hooks/claude-hooks.json")["hooks"]
    cursor = _json(f"{PLUGIN}/hooks/cursor-hooks.json")["hooks"]
    assert cursor["afterFileEdit"] == [{"command": "sh -c 'echo cursor-edit'", "timeout": 8}]
    assert cursor["afterShellExecution"] == [{"command": "echo committed", "matcher": "git commit"}]
    gemini = {(r.host, r.id): r for r in _built().coverage}["gemini", "subagent"]
    assert gemini.status == "unsupported" and "no such event on gemini" in gemini.reason


def test_options_in_each_hosts_spelling() -> None:
    post = _json(f"{PLUGIN}/hooks/claude-hooks.json")["hooks"]["PostToolUse"]
    commit = next(g["hooks"][0] for g in post if g.get("matcher") == "Bash")
    assert commit["if"] == "Bash(git commit:*)" and commit["asyncRewake"] is True
    assert commit["async"] is True  # async: {claude: true}
    stop = _json(f"{PLUGIN}/hooks/cursor-hooks.json")["hooks"]["stop"]
    assert stop == [{"command": "echo stop", "loop_limit": 3, "failClosed": True}]
    codex = {(r.host, r.id): r for r in _built().coverage}["codex", "git-commit"]
    assert codex.status == "caveat" and "codex has no hook option async_rewake, if" in codex.reason


def test_per_host_descriptions() -> None:
    assert _json(f"{PLUGIN}/.codex-plugin/plugin.json")["description"].endswith(
        "Codex describes it."
    )
    assert _json(f"{PLUGIN}/.cursor-plugin/plugin.json")["description"].endswith(
        "Cursor describes it."
    )
    claude = _json(f"{PLUGIN}/.claude-plugin/plugin.json")
    assert claude["description"].startswith("Exercises per-host content")
    assert claude["keywords"] == ["probe", "claude-only"]


def test_a_skill_limited_to_claude_stays_out_of_gemini() -> None:
    paths = {a.path for a in _built().artifacts}
    assert f"{PLUGIN}/skills/claude-only/SKILL.md" in paths
    assert "gemini/perhost-probe/skills/claude-only/SKILL.md" not in paths
    rows = {(r.host, r.id): r for r in _built().coverage if r.component == "skill"}
    assert "reads the skills folder it shares with claude" in rows["codex", "claude-only"].reason


def test_a_required_hook_refused_where_an_option_is_dropped(tmp_path: Path) -> None:
    (tmp_path / "hub.yaml").write_text(
        "version: 1\nplugin: {name: demo, version: 1.0.0, description: d}\n"
        "marketplace: {name: m, owner: {name: o}}\nhosts: [claude, codex]\n"
        "hooks:\n  - {id: x, event: turn_end, command: echo, required: true,"
        " options: {async_rewake: true}}\n"
    )
    with pytest.raises(HubError) as caught:
        build(load(tmp_path))
    assert "codex cannot carry required hook 'x': codex has no hook option async_rewake" in str(
        caught.value
    )


@pytest.mark.parametrize(
    ("command", "quoted"),
    [
        ("python3 ${plugin_root}/x.py", 'python3 "${plugin_root}"/x.py'),
        ('python3 "${plugin_root}/x.py"', 'python3 "${plugin_root}/x.py"'),
        ("sh -c 'a ${plugin_root}/b'", "sh -c 'a ${plugin_root}/b'"),
        ("a x${plugin_root}/y ${plugin_data}", 'a x"${plugin_root}"/y "${plugin_data}"'),
        ('a "q" ${plugin_root} "${plugin_data}"', 'a "q" "${plugin_root}" "${plugin_data}"'),
        ('echo \\" ${plugin_root}', 'echo \\" "${plugin_root}"'),
        ("echo ${env:X} ${plugin_rootx}", "echo ${env:X} ${plugin_rootx}"),
    ],
)
def test_plugin_refs_outside_quotes_are_quoted(command: str, quoted: str) -> None:
    assert quote_plugin_refs(command) == quoted


def test_unquoted_root_is_quoted_on_every_host() -> None:
    start = {
        "claude": 'python3 "${CLAUDE_PLUGIN_ROOT}"/scripts/start.py',
        "codex": 'python3 "${PLUGIN_ROOT}"/scripts/start.py',
    }
    for host, command in start.items():
        hooks = _json(f"{PLUGIN}/hooks/{host}-hooks.json")["hooks"]["SessionStart"]
        assert hooks[0]["hooks"][0]["command"] == command
    cursor = _json(f"{PLUGIN}/hooks/cursor-hooks.json")["hooks"]["sessionStart"]
    assert cursor[0]["command"] == 'python3 "${CURSOR_PLUGIN_ROOT}"/scripts/start.py'


def test_consecutive_command_hooks_with_one_matcher_share_a_group(tmp_path: Path) -> None:
    (tmp_path / "hub.yaml").write_text(
        "version: 1\nplugin: {name: demo, version: 1.0.0, description: d}\n"
        "marketplace: {name: m, owner: {name: o}}\nhosts: [claude]\n"
        "hooks:\n"
        "  - {id: a, event: turn_end, command: echo a}\n"
        "  - {id: b, event: turn_end, command: echo b}\n"
        "  - {id: c, event: turn_end, handler: capture.turn_end}\n"
        "  - {id: d, event: before_tool, tools: [shell], command: echo d}\n"
        "  - {id: e, event: before_tool, tools: [edit], command: echo e}\n"
        "  - {id: f, event: before_tool, tools: [edit], command: echo f}\n"
    )
    result = build(load(tmp_path))
    artifact = result.artifact("plugins/demo/hooks/claude-hooks.json")
    assert artifact is not None
    hooks = json.loads(artifact.content)["hooks"]
    stop = [[h["command"] for h in g["hooks"]] for g in hooks["Stop"]]
    assert stop[0] == ["echo a", "echo b"] and len(stop) == 2  # the dispatcher keeps its own
    before = [[h["command"] for h in g["hooks"]] for g in hooks["PreToolUse"]]
    assert before == [["echo d"], ["echo e", "echo f"]]
