"""The layout of built hooks files (compiler/hosts/hook_files.py): events in the order the hub
first names them, `new_group`, `key_order` (per host too), `hook_files` and
`overrides.<host>.hooks`; and the loader's refusals of bad values for them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.build import build
from memhub.compiler.hosts.hook_files import in_order
from memhub.hubspec import HubError, load

HEAD = (
    "version: 1\nplugin: {name: demo, version: 1.0.0, description: d}\n"
    "marketplace: {name: m, owner: {name: o}}\n"
)


def _build(tmp_path: Path, body: str, hosts: str = "[claude]") -> dict[str, bytes]:
    (tmp_path / "hub.yaml").write_text(f"{HEAD}hosts: {hosts}\n{body}")
    return {a.path: a.content for a in build(load(tmp_path)).artifacts}


def _doc(files: dict[str, bytes], path: str) -> Any:
    return json.loads(files[path])


def test_in_order_puts_the_named_keys_first_and_keeps_the_rest() -> None:
    data = {"type": 1, "command": 2, "timeout": 3}
    assert list(in_order(data, ["timeout", "absent", "type"])) == ["timeout", "type", "command"]
    assert list(in_order(data, [])) == ["type", "command", "timeout"]


def test_events_follow_the_order_the_hub_first_names_them(tmp_path: Path) -> None:
    files = _build(
        tmp_path,
        "hooks:\n"
        "  - {id: a, event: {claude: Notification}, command: echo a}\n"
        "  - {id: b, event: turn_end, command: echo b}\n"
        "  - {id: c, event: session_start, command: echo c}\n"
        "  - {id: d, event: {claude: Notification}, command: echo d}\n",
    )
    hooks = _doc(files, "plugins/demo/hooks/claude-hooks.json")["hooks"]
    assert list(hooks) == ["Notification", "Stop", "SessionStart"]
    assert [h["command"] for h in hooks["Notification"][0]["hooks"]] == ["echo a", "echo d"]


def test_new_group_starts_a_group_with_the_same_matcher(tmp_path: Path) -> None:
    files = _build(
        tmp_path,
        "hooks:\n"
        "  - {id: a, event: {claude: PreToolUse}, matcher: Bash, command: echo a}\n"
        "  - {id: b, event: {claude: PreToolUse}, matcher: Bash, command: echo b, "
        "new_group: true}\n"
        "  - {id: c, event: {claude: PreToolUse}, matcher: Bash, command: echo c}\n",
    )
    groups = _doc(files, "plugins/demo/hooks/claude-hooks.json")["hooks"]["PreToolUse"]
    assert [[h["command"] for h in g["hooks"]] for g in groups] == [
        ["echo a"],
        ["echo b", "echo c"],
    ]


def test_key_order_orders_handler_and_group_keys_per_host(tmp_path: Path) -> None:
    files = _build(
        tmp_path,
        "hooks:\n"
        "  - id: a\n"
        "    event: {claude: PreToolUse, codex: PreToolUse}\n"
        "    matcher: Bash\n"
        "    command: echo a\n"
        "    timeout: 5\n"
        "    status_message: s\n"
        "    key_order: {default: [hooks, matcher, timeout, command], codex: [statusMessage]}\n",
        hosts="[claude, codex]",
    )
    claude = _doc(files, "plugins/demo/hooks/claude-hooks.json")["hooks"]["PreToolUse"][0]
    assert list(claude) == ["hooks", "matcher"]
    assert list(claude["hooks"][0]) == ["timeout", "command", "type", "statusMessage"]
    codex = _doc(files, "plugins/demo/hooks/codex-hooks.json")["hooks"]["PreToolUse"][0]
    assert list(codex) == ["matcher", "hooks"]
    assert list(codex["hooks"][0]) == ["statusMessage", "type", "command", "timeout"]


def test_hook_files_places_each_hosts_file(tmp_path: Path) -> None:
    files = _build(
        tmp_path,
        "hooks:\n  - {id: a, event: turn_end, command: echo a}\n"
        "hook_files: {claude: hooks/hooks.json, codex: config/codex.json}\n",
        hosts="[claude, codex]",
    )
    assert "plugins/demo/hooks/claude-hooks.json" not in files
    assert "plugins/demo/hooks/hooks.json" in files
    # Claude Code loads hooks/hooks.json itself: naming it as well would load it twice
    assert "hooks" not in _doc(files, "plugins/demo/.claude-plugin/plugin.json")
    codex = _doc(files, "plugins/demo/.codex-plugin/plugin.json")
    assert codex["hooks"] == "./config/codex.json"
    assert "plugins/demo/config/codex.json" in files


def test_overrides_hooks_add_top_level_keys_before_hooks(tmp_path: Path) -> None:
    files = _build(
        tmp_path,
        "hooks:\n  - {id: a, event: turn_end, command: echo a}\n"
        "overrides:\n  claude: {hooks: {description: Mine}}\n  cursor: {hooks: {note: n}}\n",
        hosts="[claude, cursor]",
    )
    claude = _doc(files, "plugins/demo/hooks/claude-hooks.json")
    assert list(claude) == ["description", "hooks"] and claude["description"] == "Mine"
    assert list(_doc(files, "plugins/demo/hooks/cursor-hooks.json")) == ["version", "note", "hooks"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("hook_files: {claude: ../out.json}\n", "hook_files"),
        ("hook_files: {claude: hooks/hooks.yaml}\n", "hook_files"),
        (
            "hooks:\n  - {id: a, event: turn_end, command: echo a, key_order: type}\n",
            "key_order",
        ),
        (
            "hooks:\n  - {id: a, event: turn_end, command: echo a, new_group: yes please}\n",
            "new_group",
        ),
    ],
)
def test_bad_layout_values_are_refused(body: str, words: str, tmp_path: Path) -> None:
    (tmp_path / "hub.yaml").write_text(f"{HEAD}hosts: [claude]\n{body}")
    with pytest.raises(HubError) as caught:
        load(tmp_path)
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("hook_files", "words"),
    [
        ("{claude: scripts/x.json}", "would land on scripts/x.json, where memhub writes claude's"),
        ("{claude: hooks/a.json, codex: hooks/a.json}", "codex and claude would both write"),
        ("{codex: hooks/claude-hooks.json}", "codex and claude would both write"),
        ("{claude: skills/hooks.json}", "a folder memhub writes itself"),
        ("{cursor: hooks/c.json}", "cursor writes no hooks file for this hub (it is not in"),
        ("{opencode: hooks/o.json}", "opencode writes no hooks file"),
        # Claude Code loads hooks/hooks.json beside its own file: Codex's hooks would run there
        ("{codex: hooks/hooks.json}", "claude loads hooks/hooks.json by itself, beside its own"),
    ],
)
def test_hook_files_that_would_collide_are_refused(
    hook_files: str, words: str, tmp_path: Path
) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "x.json").write_text("{}")
    (tmp_path / "hub.yaml").write_text(
        f"{HEAD}hosts: [claude, codex]\nfiles: [{{from: scripts}}]\n"
        f"hooks:\n  - {{id: a, event: turn_end, command: echo a}}\nhook_files: {hook_files}\n"
    )
    with pytest.raises(HubError) as caught:
        load(tmp_path)
    assert words in str(caught.value)


def test_gemini_keeps_its_own_folder_for_hooks_json(tmp_path: Path) -> None:
    files = _build(
        tmp_path,
        "hooks:\n  - {id: a, event: turn_end, command: echo a}\n"
        "hook_files: {claude: hooks/hooks.json}\n",
        hosts="[claude, gemini]",
    )
    assert "plugins/demo/hooks/hooks.json" in files and "gemini/demo/hooks/hooks.json" in files


def test_a_hosts_hooks_file_name_ships_only_where_that_host_is_not_built(tmp_path: Path) -> None:
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "codex-hooks.json").write_text('{"hooks": {}}\n')
    body = "files: [{from: hooks/codex-hooks.json}]\n"
    files = _build(tmp_path, body)  # claude only: the name is a plain file
    assert files["plugins/demo/hooks/codex-hooks.json"] == b'{"hooks": {}}\n'
    (tmp_path / "hub.yaml").write_text(f"{HEAD}hosts: [claude, codex]\n{body}")
    with pytest.raises(HubError) as caught:
        load(tmp_path)
    assert "files[0]: hooks/codex-hooks.json would land on hooks/codex-hooks.json, where " in str(
        caught.value
    )
    assert "hook_files: {codex: ...}" in str(caught.value)


def test_a_codex_hooks_json_is_fine_without_claude_or_when_it_is_claudes_own(
    tmp_path: Path,
) -> None:
    """hooks/hooks.json for Codex is refused only where Claude Code would load it too."""
    body = "hooks:\n  - {id: a, event: turn_end, command: echo a}\n"
    files = _build(tmp_path, body + "hook_files: {codex: hooks/hooks.json}\n", hosts="[codex]")
    assert "plugins/demo/hooks/hooks.json" in files
    both = _build(tmp_path, body + "hook_files: {claude: hooks/hooks.json}\n", "[claude, codex]")
    assert "plugins/demo/hooks/hooks.json" in both and "plugins/demo/hooks/codex-hooks.json" in both
