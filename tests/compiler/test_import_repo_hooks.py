"""`memhub import --from-repo` of hooks files: every host's file read into hub hooks and built
back byte for byte (tests/data/repos/hook-hosts, claude-only), and hostile hooks files
turned into a named cannot-reproduce row, never a crash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from memhub.compiler.cli.main import main
from memhub.compiler.hosts import claude_repo, codex_repo, cursor_repo
from memhub.compiler.importing.repo_hooks import MAX_HOOKS, as_hub_command
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import RepoError, read_tree
from memhub.compiler.importing.roundtrip import round_trip

from tests.hubs import REPO

REPOS = REPO / "tests" / "data" / "repos"
KIT = "plugins/hook-kit"
CLAUDE_FILE = f"{KIT}/hooks/claude-hooks.json"
CURSOR_FILE = f"{KIT}/hooks/cursor-hooks.json"
GEMINI_FILE = "gemini/hook-kit/hooks/hooks.json"
ONLY_FILE = "plugins/review-kit/hooks/hooks.json"


def trip(root: Path) -> tuple[dict[str, str], tuple[int, int], tuple[int, int]]:
    tree = read_tree(root)
    result = round_trip(tree, import_repo(tree))
    listed = {item.path: item.reason for item in result.unreproduced}
    return listed, (result.files_same, result.files_total), (result.keys_same, result.keys_total)


def imported_hub(root: Path, plugin: str) -> dict[str, Any]:
    """The plugin hub's hub.yaml data as the import writes it."""
    imported = import_repo(read_tree(root))
    files = imported.files
    name = next((p for p in files if p.endswith(f"{plugin}/hub.yaml")), "hub.yaml")
    return dict(yaml.safe_load(files[name][0]))


def test_hooks_of_four_hosts_round_trip_whole() -> None:
    """Native events (Claude Notification/SubagentStop, Cursor afterFileEdit/
    beforeShellExecution), matchers, timeouts, async, statusMessage, `if`, `shell`,
    asyncRewake, Codex commandWindows, Cursor failClosed/loop_limit, Gemini names and
    milliseconds, a top-level description, split groups and unusual key orders."""
    listed, files, keys = trip(REPOS / "hook-hosts")
    assert listed == {}
    assert files == (15, 15)
    assert keys[0] == keys[1] > 100


def test_imported_hooks_are_command_hooks_on_native_events() -> None:
    hub = imported_hub(REPOS / "hook-hosts", "hook-kit")
    hooks = {hook["id"]: hook for hook in hub["hooks"]}
    assert [h["id"] for h in hub["hooks"]][:2] == ["claude-notification", "claude-pre-tool-use"]
    edit = hooks["claude-pre-tool-use"]
    assert edit["event"] == {"claude": "PreToolUse"} and edit["hosts"] == ["claude"]
    assert edit["command"] == 'sh "${plugin_root}/scripts/guard.sh" edit'
    assert edit["key_order"] == ["hooks", "matcher", "type", "timeout", "statusMessage", "command"]
    # unquoted, the host's variable is kept: memhub would write ${plugin_root} quoted
    assert hooks["claude-pre-tool-use-2"]["command"].startswith("sh ${CLAUDE_PLUGIN_ROOT}/")
    assert hooks["claude-pre-tool-use-2"]["options"] == {
        "if": "Bash(git commit:*)",
        "shell": "powershell",
    }
    assert hooks["claude-pre-tool-use-3"]["new_group"] is True  # same matcher, its own group
    assert "new_group" not in hooks["claude-pre-tool-use-4"]  # shares the group before it
    assert hooks["claude-subagent-stop"]["async"] is True
    assert hooks["codex-pre-tool-use"]["options"] == {
        "command_windows": 'py -3 "%PLUGIN_ROOT%\\scripts\\guard.py" codex'
    }
    assert hooks["cursor-before-shell-execution"]["options"] == {"fail_closed": True}
    assert hooks["cursor-after-file-edit"]["event"] == {"cursor": "afterFileEdit"}
    assert hooks["gemini-start"]["timeout"] == 5  # 5000 ms in the file
    assert hooks["gemini-start"]["status_message"] == "Hook kit starting"
    assert hub["overrides"]["claude"]["hooks"] == {
        "description": "Hook kit: guards on edits, commits and subagents"
    }
    assert "hook_files" not in hub  # every file is where memhub writes it


def test_claude_default_hooks_file_is_named_in_hook_files() -> None:
    hub = imported_hub(REPOS / "claude-only", "review-kit")
    assert hub["hook_files"] == {"claude": "hooks/hooks.json"}
    assert hub["hooks"] == [
        {
            "id": "claude-subagent-stop",
            "event": {"claude": "SubagentStop"},
            "hosts": ["claude"],
            "command": '"${plugin_root}/scripts/check.sh"',
            "async": True,
        }
    ]


@pytest.mark.parametrize(
    ("command", "hub"),
    [
        ('sh "${CLAUDE_PLUGIN_ROOT}/x.sh"', 'sh "${plugin_root}/x.sh"'),
        (
            'sh "${CLAUDE_PLUGIN_ROOT}"/x.sh "${CLAUDE_PLUGIN_DATA}"',
            'sh "${plugin_root}"/x.sh "${plugin_data}"',
        ),
        ("sh ${CLAUDE_PLUGIN_ROOT}/x.sh", "sh ${CLAUDE_PLUGIN_ROOT}/x.sh"),  # unquoted: kept
        # a second use of the variable in another form: the whole command is kept
        ('[ -n "${CLAUDE_PLUGIN_ROOT:-}" ] && sh "${CLAUDE_PLUGIN_ROOT}/x"', None),
        ("echo ${plugin_root}", "none"),  # memhub would rewrite it: not importable
        ("echo ${env:HOME}", "none"),
        ("echo plain", "echo plain"),
    ],
)
def test_plugin_root_becomes_the_hub_reference_only_where_it_comes_back(
    command: str, hub: str | None
) -> None:
    want = command if hub is None else None if hub == "none" else hub
    assert as_hub_command(claude_repo.HOOKS, command) == want


def test_codex_and_cursor_variables_translate_too() -> None:
    assert as_hub_command(codex_repo.HOOKS, 'x "${PLUGIN_ROOT}/a"') == 'x "${plugin_root}/a"'
    assert as_hub_command(cursor_repo.HOOKS, 'x "${CURSOR_PLUGIN_ROOT}"') == 'x "${plugin_root}"'


def _hooks(*handlers: dict[str, Any], event: str = "Stop") -> str:
    return json.dumps({"hooks": {event: [{"hooks": list(handlers)}]}})


GOOD = {"type": "command", "command": "echo ok"}
HOSTILE = [
    ("not json", "{", "does not parse as JSON"),
    ("not utf-8", b"\xff\xfe", "is not UTF-8 JSON"),
    ("a list", "[]", 'is not a JSON object with a "hooks" object'),
    ("hooks a list", '{"hooks": []}', 'is not a JSON object with a "hooks" object'),
    ("no hooks", '{"hooks": {}}', "holds no hooks"),
    ("unknown event", _hooks(GOOD, event="Teardown"), "claude has no hook event 'Teardown'"),
    ("event not a list", '{"hooks": {"Stop": {}}}', "hooks/Stop: is not a non-empty list"),
    ("empty group", '{"hooks": {"Stop": [{"hooks": []}]}}', "is empty"),
    ("group key", '{"hooks": {"Stop": [{"x": 1, "hooks": []}]}}', "group key 'x'"),
    ("empty matcher", '{"hooks": {"Stop": [{"matcher": "", "hooks": []}]}}', "non-empty string"),
    ("prompt hook", _hooks({"type": "prompt", "prompt": "x"}), "is a 'prompt' hook"),
    ("no type", _hooks({"command": "x"}), "has no `type`"),
    ("handler not object", _hooks("echo"), "hooks/0: is not an object"),  # type: ignore[arg-type]
    ("unknown key", _hooks({**GOOD, "once": True}), "once: not a key memhub writes"),
    ("no command", _hooks({"type": "command", "timeout": 5}), "has no `command`"),
    ("long timeout", _hooks({**GOOD, "timeout": 900}), "timeout of 1 to 600 seconds"),
    ("text timeout", _hooks({**GOOD, "timeout": "5"}), "timeout of 1 to 600 seconds"),
    ("async false", _hooks({**GOOD, "async": False}), "`async` only as true"),
    ("object option", _hooks({**GOOD, "if": {"a": 1}}), "string, number or bool"),
    ("null option", _hooks({**GOOD, "if": None}), "if: null: a hub option's null means not"),
    (
        "credential",
        _hooks({**GOOD, "command": "curl -H 'x: ghp_" + "a1B2" * 9 + "'"}),
        "credential",
    ),
    ("memhub ref", _hooks({**GOOD, "command": "echo ${plugin_root}"}), "would not write"),
    (
        "foreign var",
        _hooks({**GOOD, "command": "x $CURSOR_PLUGIN_ROOT"}),
        "which claude does not set",
    ),
    (
        "key after hooks",
        _hooks(GOOD)[:-1] + ', "description": "d"}',
        "memhub writes description, hooks",
    ),
    ("nested", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
]


@pytest.mark.parametrize(
    ("content", "reason"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE]
)
def test_a_claude_hooks_file_the_hub_cannot_hold_is_kept_as_is(
    content: str | bytes, reason: str, tmp_path: Path
) -> None:
    """Shape 5: what the hub's hooks cannot hold (a `prompt` handler, `async: false`, an
    empty matcher, a key memhub does not write, a file no host can read, ...) keeps the
    whole file byte for byte (`hooks_kept`): no handler is lost, nothing is listed. A file
    holding a credential is never kept in a hub: it stays a named row."""
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    target = repo / ONLY_FILE
    target.write_bytes(content if isinstance(content, bytes) else content.encode())
    listed, files, _ = trip(repo)
    if reason == "credential":
        assert reason in listed[ONLY_FILE]
        return
    assert listed == {} and files[0] == files[1]
    hub = imported_hub(repo, "review-kit")
    assert hub["hooks_kept"] == ["claude"] and "hooks" not in hub


def test_a_bad_handler_keeps_the_whole_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    bad = {"type": "http", "url": "https://example.com"}
    (repo / ONLY_FILE).write_text(_hooks(GOOD, bad, {**GOOD, "command": "echo two"}))
    hub = imported_hub(repo, "review-kit")
    assert "hooks" not in hub and hub["hooks_kept"] == ["claude"]
    listed, files, _ = trip(repo)
    assert listed == {} and files[0] == files[1]


def test_a_credential_in_a_hooks_file_is_still_a_named_row(tmp_path: Path) -> None:
    """Even outside a command (an http hook's header): the file is read, never kept."""
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    secret = "Bearer ghp_" + "a1B2" * 9
    bad = {"type": "http", "url": "https://example.com", "headers": {"Authorization": secret}}
    (repo / ONLY_FILE).write_text(_hooks(GOOD, bad))
    hub = imported_hub(repo, "review-kit")
    assert "hooks_kept" not in hub
    assert [h["command"] for h in hub["hooks"]] == ["echo ok"]
    assert "is a 'http' hook" in trip(repo)[0][ONLY_FILE]


def test_a_huge_hooks_file_is_kept_whole(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    groups = [{"hooks": [GOOD]}] * (MAX_HOOKS + 1)
    (repo / ONLY_FILE).write_text(json.dumps({"hooks": {"Stop": groups}}))
    assert imported_hub(repo, "review-kit").get("hooks") is None
    listed, files, _ = trip(repo)
    assert listed == {} and files[0] == files[1]


def test_a_file_of_as_many_hooks_as_allowed_round_trips(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    groups = [
        {"matcher": f"T{n}", "hooks": [{**GOOD, "timeout": 1 + n % 600}]} for n in range(MAX_HOOKS)
    ]
    (repo / ONLY_FILE).write_text(json.dumps({"hooks": {"Stop": groups}}, indent=2) + "\n")
    listed, files, _ = trip(repo)
    assert listed == {} and files[0] == files[1]


CURSOR_HOSTILE = [
    ("version 2", {"version": 2, "hooks": {"stop": [{"command": "x"}]}}, "is 2; memhub writes 1"),
    (
        "typed",
        {"version": 1, "hooks": {"stop": [{"type": "command", "command": "x"}]}},
        "no `type`",
    ),
    ("camel", {"version": 1, "hooks": {"Stop": [{"command": "x"}]}}, "no hook event 'Stop'"),
]


@pytest.mark.parametrize(
    ("doc", "reason"), [h[1:] for h in CURSOR_HOSTILE], ids=[h[0] for h in CURSOR_HOSTILE]
)
def test_a_cursor_hooks_file_the_hub_cannot_hold_is_kept_as_is(
    doc: Any, reason: str, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "hook-hosts", repo)
    (repo / CURSOR_FILE).write_text(json.dumps(doc))
    listed, files, _ = trip(repo)
    assert listed == {} and files[0] == files[1]
    assert imported_hub(repo, "hook-kit")["hooks_kept"] == ["cursor"]


@pytest.mark.parametrize(
    ("handler", "reason"),
    [
        ({"type": "command", "command": "x"}, "has no `name`"),
        ({"type": "command", "name": "Not Kebab", "command": "x"}, "no unused kebab id"),
        ({"type": "command", "name": "g", "command": "x", "timeout": 1500}, "milliseconds"),
    ],
)
def test_hostile_gemini_handler_is_a_named_row(
    handler: dict[str, Any], reason: str, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "hook-hosts", repo)
    (repo / GEMINI_FILE).write_text(_hooks(handler, event="SessionEnd"))
    listed, _, _ = trip(repo)
    assert reason in listed[GEMINI_FILE]


def test_hostile_hooks_file_exits_1_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    (repo / ONLY_FILE).write_text("{ nope ghp_" + "a1B2" * 9)  # a credential: never kept
    code = main(
        ["import", "--from-repo", str(repo), "--into", str(tmp_path / "hub"), "--json", "--dry-run"]
    )
    envelope = json.loads(capsys.readouterr().out)
    assert code == envelope["exit_code"] == 1
    rows = envelope["data"]["round_trip"]["cannot_reproduce"]
    assert [r["path"] for r in rows] == [ONLY_FILE]
    assert rows[0]["reason"].startswith("line 1 col 3: does not parse as JSON")


def test_manifest_hooks_that_are_no_path_are_kept_as_an_override(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "hook-hosts", repo)
    manifest = repo / KIT / ".codex-plugin" / "plugin.json"
    data = json.loads(manifest.read_text())
    data["hooks"] = ["./hooks/codex-hooks.json"]
    manifest.write_text(json.dumps(data, indent=2) + "\n")
    imported = import_repo(read_tree(repo))
    assert any("is not one ./path" in note for note in imported.notes)
    hub = imported_hub(repo, "hook-kit")
    assert hub["overrides"]["codex"]["manifest"]["hooks"] == ["./hooks/codex-hooks.json"]
    assert not any(h["id"].startswith("codex-") for h in hub["hooks"])


def test_a_manifest_nested_past_the_stack_is_an_error_not_a_crash(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    manifest = repo / "plugins/review-kit/.claude-plugin/plugin.json"
    manifest.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RepoError, match="nested too deeply"):
        import_repo(read_tree(repo))


def _same_commands(tmp_path: Path, codex_extra: list[dict[str, Any]]) -> Path:
    """hook-hosts with Claude and Codex files running the same commands."""
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "hook-hosts", repo)
    stop = {"type": "command", "command": 'sh "${CLAUDE_PLUGIN_ROOT}/x.sh"', "timeout": 5}
    pre = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}
    claude = {"hooks": {"Stop": [{"hooks": [stop]}], "PreToolUse": [pre]}}
    codex_stop = {**stop, "command": 'sh "${PLUGIN_ROOT}/x.sh"', "timeout": 9}
    codex_stop["statusMessage"] = "s"
    codex_pre = {"matcher": "^Bash$", "hooks": pre["hooks"]}
    codex = {"hooks": {"Stop": [{"hooks": [codex_stop]}], "PreToolUse": [codex_pre, *codex_extra]}}
    (repo / CLAUDE_FILE).write_text(json.dumps(claude, indent=2) + "\n")
    (repo / KIT / "hooks/codex-hooks.json").write_text(json.dumps(codex, indent=2) + "\n")
    return repo


def test_hosts_running_the_same_commands_share_hooks_with_per_host_values(
    tmp_path: Path,
) -> None:
    repo = _same_commands(tmp_path, [])
    hooks = [h for h in imported_hub(repo, "hook-kit")["hooks"] if "codex" in h["hosts"]]
    assert hooks == [
        {
            "id": "stop",
            "event": {"claude": "Stop", "codex": "Stop"},
            "hosts": ["claude", "codex"],
            "command": 'sh "${plugin_root}/x.sh"',
            "timeout": {"claude": 5, "codex": 9},
            "status_message": {"codex": "s"},
        },
        {
            "id": "pre-tool-use",
            "event": {"claude": "PreToolUse", "codex": "PreToolUse"},
            "hosts": ["claude", "codex"],
            "matcher": {"claude": "Bash", "codex": "^Bash$"},
            "command": "echo pre",
        },
    ]
    listed, _, _ = trip(repo)
    assert listed == {}


def test_hosts_whose_hooks_do_not_pair_up_stay_apart(tmp_path: Path) -> None:
    extra = {"hooks": [{"type": "command", "command": "echo more"}]}
    repo = _same_commands(tmp_path, [extra])
    hooks = imported_hub(repo, "hook-kit")["hooks"]
    assert all(len(h["hosts"]) == 1 for h in hooks)
    assert trip(repo)[0] == {}


def test_a_second_file_claude_loads_by_itself_is_a_named_row(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "hook-hosts", repo)
    (repo / KIT / "hooks/hooks.json").write_text(_hooks(GOOD))
    listed, _, _ = trip(repo)
    assert listed == {
        f"{KIT}/hooks/hooks.json": "claude loads it beside the hooks file its manifest names: "
        "memhub writes one hooks file per host"
    }


def test_a_manifest_naming_hooks_json_keeps_that_key(tmp_path: Path) -> None:
    """Claude Code loads hooks/hooks.json by itself; a manifest naming it as well is kept as
    written (an override), and the file is still read into hooks."""
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    manifest = repo / "plugins/review-kit/.claude-plugin/plugin.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "hooks": "./hooks/hooks.json"}, indent=2) + "\n")
    hub = imported_hub(repo, "review-kit")
    assert hub["hook_files"] == {"claude": "hooks/hooks.json"}
    assert hub["hooks"][0]["event"] == {"claude": "SubagentStop"}
    assert trip(repo)[0] == {}
