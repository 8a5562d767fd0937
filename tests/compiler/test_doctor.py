"""memhub doctor on a temporary home: each check failing once and passing once.

The install hub (tests/data/install) is applied to all four hosts, then files are broken the
way people and hosts break them. A clean apply fails only on Codex hook trust: memhub never
trusts a hook for the person, and Codex skips an untrusted hook, so doctor counts it as a
failure until it is trusted in /hooks.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.doctor.commands import check_command
from memhub.compiler.hosts import codex
from memhub.hubspec.vocabulary import SKILL_DESCRIPTION_CAP

from tests.hubs import REPO

HUB = REPO / "tests" / "data" / "install"
ALL = "claude,codex,cursor,gemini"
NOT_CODEX = "claude,cursor,gemini"
# What codex 0.171 `hooks/list` reports as `currentHash` for the install hub's PreToolUse hook
# (tests/e2e/test_doctor_codex_trust.py checks the same against the real app-server).
CODEX_PRE_TOOL_USE_HASH = "sha256:35814dbf616093d5830dd3a59e7d67d5bbd58a269f8b982871c7b810274c1ed6"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run(capsys, "doctor", *args, "--json")
    assert out, err
    return code, json.loads(out)["data"]


def failures(report: dict[str, Any], name: str | None = None) -> list[dict[str, str]]:
    return [c for c in report["checks"] if c["status"] == "fail" and name in (None, c["name"])]


def of(report: dict[str, Any], name: str, status: str | None = None) -> list[dict[str, str]]:
    return [c for c in report["checks"] if c["name"] == name and status in (None, c["status"])]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no hub.yaml here, and the "project" is an empty folder
    return Path(os.environ["HOME"])


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    target = tmp_path / "hub"
    shutil.copytree(HUB, target)
    return target


@pytest.fixture
def applied(hub: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = run(capsys, "apply", str(hub), "--hosts", ALL)
    assert code == 0, err
    return hub


def claude_dir() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def codex_home() -> Path:
    return Path(os.environ["CODEX_HOME"])


def set_hook_command(hub: Path, command: str) -> None:
    """Make the hub's before_tool hook run `command`."""
    text = (hub / "hub.yaml").read_text()
    old = "command: 'echo shell >> \"$HOME/memhub-probe.log\"'"
    assert old in text
    (hub / "hub.yaml").write_text(text.replace(old, f"command: '{command}'"))


# --- a clean apply ----------------------------------------------------------------------------


def test_a_clean_apply_fails_only_on_untrusted_codex_hooks(applied: Path, capsys) -> None:
    code, report = doctor(capsys)
    assert code == 1
    assert {(c["host"], c["name"]) for c in failures(report)} == {("codex", "hook-trust")}
    assert len(failures(report)) == 3, "one per Codex hook: start, shell, turn"
    assert all("/hooks" in c["fix"] for c in failures(report))
    assert report["summary"]["fail"] == 3 and report["summary"]["warn"] == 0
    assert set(report["hosts"]) == set(ALL.split(","))
    assert of(report, "drift", "ok") and of(report, "skill", "ok")
    assert of(report, "hook-command", "ok") and of(report, "hooks-on", "ok")
    code, report = doctor(capsys, "--hosts", NOT_CODEX)
    assert code == 0, failures(report)
    assert "trusted_hash" not in (codex_home() / "config.toml").read_text(), "never trusts"


def test_text_report_groups_by_host_and_counts_ok_lines(applied: Path, capsys) -> None:
    code, out, _ = run(capsys, "doctor")
    assert code == 1
    assert "claude: " in out and "\ncodex: " in out and "codex,gemini: " in out
    assert "  ok    drift " in out
    assert out.count("fail  hook-trust") == 3
    assert "fix: open codex, run /hooks and trust it" in out
    assert out.rstrip().endswith("3 fail")


def test_json_shape(applied: Path, capsys) -> None:
    code, report = doctor(capsys, "--hosts", "cursor")
    assert code == 0
    assert set(report) == {"scope", "project", "hub", "hosts", "checks", "summary"}
    assert report["scope"] == "user" and report["hosts"] == ["cursor"] and report["hub"] is None
    assert set(report["summary"]) == {"ok", "warn", "fail"}
    assert report["summary"]["ok"] == len(report["checks"])
    for check in report["checks"]:
        assert set(check) == {"host", "name", "status", "target", "detail", "fix"}
        assert check["status"] in ("ok", "warn", "fail")


def test_nothing_applied_is_not_a_failure(home: Path, capsys) -> None:
    code, out, _ = run(capsys, "doctor")
    assert code == 0
    assert "applied nothing" in out


def test_an_invalid_hub_is_a_usage_error(home: Path, tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "hub.yaml").write_text("version: 1\n")
    code, _, err = run(capsys, "doctor", str(bad))
    assert code == 2 and "hub.yaml" in err


# --- drift and parse ------------------------------------------------------------------------


def test_a_hand_edited_mcp_server_is_drift(applied: Path, home: Path, capsys) -> None:
    settings = home / ".gemini" / "settings.json"
    data = json.loads(settings.read_text())
    data["mcpServers"]["probe-remote"]["httpUrl"] = "https://other.example/mcp"
    settings.write_text(json.dumps(data, indent=2))
    code, report = doctor(capsys, "--hosts", "gemini")
    assert code == 1
    (drift,) = failures(report)
    assert drift["name"] == "drift" and drift["host"] == "gemini"
    assert drift["target"] == str(settings)
    assert "mcpServers/probe-remote" in drift["detail"] and "edited" in drift["detail"]
    assert "memhub apply" in drift["fix"]


def test_a_removed_entry_is_drift(applied: Path, capsys) -> None:
    path = claude_dir() / ".claude.json"
    data = json.loads(path.read_text())
    del data["mcpServers"]["probe-stdio"]
    path.write_text(json.dumps(data))
    code, report = doctor(capsys, "--hosts", "claude")
    assert code == 1
    (gone,) = failures(report)
    assert gone["name"] == "drift" and "probe-stdio" in gone["detail"] and "gone" in gone["detail"]


def test_a_target_that_no_longer_parses_fails_with_its_line(applied: Path, capsys) -> None:
    config = codex_home() / "config.toml"
    config.write_text(config.read_text() + "\n[broken\n")
    code, report = doctor(capsys, "--hosts", "codex")
    assert code == 1
    (broken,) = failures(report, "parse")
    assert broken["target"] == str(config)
    assert "line " in broken["detail"], broken
    assert not [c for c in report["checks"] if c["target"] == str(config) and c["name"] == "drift"]


def test_an_instruction_file_with_broken_markers_fails_once(applied: Path, capsys) -> None:
    """Entry kinds doctor has no special case for (text-block) go through the same checks."""
    memory = claude_dir() / "CLAUDE.md"
    memory.write_text(memory.read_text() + "\n<!-- memhub:begin stray -->\n")
    code, report = doctor(capsys, "--hosts", "claude")
    assert code == 1
    (broken,) = failures(report)
    assert broken["name"] == "parse" and broken["target"] == str(memory)
    assert "line " in broken["detail"]


# --- skills ---------------------------------------------------------------------------------


def test_a_deleted_skill_folder_fails(applied: Path, capsys) -> None:
    shutil.rmtree(claude_dir() / "skills" / "tidy")
    code, report = doctor(capsys, "--hosts", "claude")
    assert code == 1
    (gone,) = failures(report)
    assert gone["name"] == "skill" and gone["target"] == str(claude_dir() / "skills" / "tidy")
    assert "gone" in gone["detail"]


def test_a_skill_folder_replaced_by_a_link_fails(applied: Path, tmp_path: Path, capsys) -> None:
    folder = claude_dir() / "skills" / "tidy"
    elsewhere = tmp_path / "tidy-elsewhere"
    shutil.move(folder, elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    code, report = doctor(capsys, "--hosts", "claude")
    assert code == 1
    (linked,) = failures(report)
    assert linked["name"] == "skill" and "link" in linked["detail"]


def test_a_linked_file_and_a_long_description_fail(applied: Path, home: Path, capsys) -> None:
    folder = home / ".cursor" / "skills" / "tidy"
    (folder / "extra.md").symlink_to(folder / "SKILL.md")
    text = (folder / "SKILL.md").read_text()
    start = text.index("description: ") + len("description: ")
    end = text.index("\n", start)
    # past the sanity cap every host shares (a host's own shorter limit is a coverage row)
    long = SKILL_DESCRIPTION_CAP + 1
    (folder / "SKILL.md").write_text(text[:start] + "x" * long + text[end:])
    code, report = doctor(capsys, "--hosts", "cursor")
    assert code == 1
    details = " | ".join(c["detail"] for c in failures(report, "skill"))
    assert "extra.md: skills may not contain links" in details
    assert f"{long} characters" in details
    assert failures(report, "drift"), "the folder differs from what memhub copied"


def test_a_skill_renamed_in_its_front_matter_fails(applied: Path, home: Path, capsys) -> None:
    """A name other than the folder's is a valid skill (hosts list it by that name), but not
    the one memhub copied: the folder drifted."""
    skill_md = home / ".agents" / "skills" / "tidy" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("name: tidy", "name: tidy-up"))
    code, report = doctor(capsys, "--hosts", "codex,gemini")
    assert code == 1
    assert not failures(report, "skill")
    assert failures(report, "drift"), "the folder differs from what memhub copied"


def test_a_skill_with_a_two_line_name_fails(applied: Path, home: Path, capsys) -> None:
    skill_md = home / ".agents" / "skills" / "tidy" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("name: tidy", 'name: "ti\\ndy"'))
    code, report = doctor(capsys, "--hosts", "codex,gemini")
    assert code == 1
    (renamed,) = failures(report, "skill")
    assert renamed["host"] == "codex,gemini"
    assert "has a line break" in renamed["detail"]


# --- hook commands --------------------------------------------------------------------------


def test_a_hook_command_not_on_path_fails(hub: Path, home: Path, capsys) -> None:
    set_hook_command(hub, "memhub-no-such-tool --check")
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    code, report = doctor(capsys, "--hosts", "claude")
    assert code == 1
    (missing,) = failures(report)
    assert missing["name"] == "hook-command"
    assert "memhub-no-such-tool" in missing["detail"] and "not on PATH" in missing["detail"]


def test_a_hook_command_on_path_names_what_was_found(
    hub: Path, home: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    tool = tmp_path / "bin" / "memhub-probe-tool"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}{os.pathsep}{os.environ['PATH']}")
    set_hook_command(hub, "memhub-probe-tool --check")
    assert run(capsys, "apply", str(hub), "--hosts", "cursor")[0] == 0
    code, report = doctor(capsys, "--hosts", "cursor")
    assert code == 0, failures(report)
    assert any(str(tool) in c["detail"] for c in of(report, "hook-command", "ok"))


def test_an_interpreter_script_must_exist(hub: Path, home: Path, capsys) -> None:
    set_hook_command(hub, 'python3 -S "$HOME/memhub-hooks/hook.py" claude before_tool x')
    assert run(capsys, "apply", str(hub), "--hosts", "gemini")[0] == 0
    code, report = doctor(capsys, "--hosts", "gemini")
    assert code == 1
    (missing,) = failures(report)
    assert f"{home}/memhub-hooks/hook.py does not exist" in missing["detail"]
    (home / "memhub-hooks").mkdir()
    (home / "memhub-hooks" / "hook.py").write_text("")
    code, report = doctor(capsys, "--hosts", "gemini")
    assert code == 0, failures(report)


def test_check_command_cases(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}
    assert check_command("echo hi >> log", env)[0] == "ok"
    assert check_command("LEVEL=1 echo hi", env)[0] == "ok"
    assert check_command("nope --x", env)[0] == "fail"
    assert check_command("'unbalanced", env)[0] == "fail"
    assert check_command('"${CLAUDE_PLUGIN_ROOT}/bin/x"', env)[0] == "warn"
    script = tmp_path / "run"
    script.write_text("#!/bin/sh\n")
    assert check_command(f"{script}", env)[:2] == ("fail", f"{script} is not executable")
    script.chmod(0o755)
    assert check_command("~/run --flag", env)[0] == "ok"
    assert check_command("run", env)[1] == f"`run` found at {script}"
    python = tmp_path / "python3"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    assert check_command("python3 -m http.server", env)[0] == "ok"
    assert check_command('python3 -S -W ignore "$HOME/x.py"', env)[0] == "fail"
    (tmp_path / "x.py").write_text("")
    assert check_command('python3 -S -W ignore "$HOME/x.py"', env)[0] == "ok"


# --- where hooks are read, and switches that turn them off ----------------------------------


def test_switches_that_turn_hooks_off_fail(applied: Path, home: Path, capsys) -> None:
    settings = claude_dir() / "settings.json"
    data = json.loads(settings.read_text())
    settings.write_text(json.dumps({**data, "disableAllHooks": True}))
    gemini = home / ".gemini" / "settings.json"
    data = json.loads(gemini.read_text())
    gemini.write_text(json.dumps({**data, "hooksConfig": {"enabled": False}}))
    config = codex_home() / "config.toml"
    config.write_text("[features]\nhooks = false\n\n" + config.read_text())
    code, report = doctor(capsys, "--hosts", "claude,codex,gemini")
    assert code == 1
    off = {
        (c["host"], c["target"], c["detail"].split(":")[0]) for c in failures(report, "hooks-on")
    }
    assert off == {
        ("claude", str(settings), "disableAllHooks is true"),
        ("gemini", str(gemini), "hooksConfig.enabled is false"),
        ("codex", str(config), "[features] hooks = false"),
    }


def test_a_gemini_hook_listed_as_disabled_fails(applied: Path, home: Path, capsys) -> None:
    gemini = home / ".gemini" / "settings.json"
    data = json.loads(gemini.read_text())
    gemini.write_text(json.dumps({**data, "hooksConfig": {"disabled": ["on-shell"]}}))
    code, report = doctor(capsys, "--hosts", "gemini")
    assert code == 1
    (off,) = failures(report)
    assert off["name"] == "hooks-on" and "on-shell" in off["detail"]


def test_a_cursor_hooks_file_without_version_fails(applied: Path, home: Path, capsys) -> None:
    hooks = home / ".cursor" / "hooks.json"
    data = json.loads(hooks.read_text())
    del data["version"]
    hooks.write_text(json.dumps(data))
    code, report = doctor(capsys, "--hosts", "cursor")
    assert code == 1
    (missing,) = failures(report)
    assert missing["name"] == "hooks-on" and '"version": 1' in missing["detail"]


def test_entries_where_the_host_no_longer_reads_fail(
    applied: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    old = codex_home()
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "moved-codex-home"))
    code, report = doctor(capsys, "--hosts", "codex")
    assert code == 1
    moved = failures(report, "location")
    assert {c["target"] for c in moved} == {str(old / "config.toml"), str(old / "hooks.json")}
    assert all("CODEX_HOME" in c["detail"] for c in moved)


# --- Codex hook trust -----------------------------------------------------------------------


def test_codex_trust_hash_matches_the_real_codex(applied: Path) -> None:
    data = json.loads((codex_home() / "hooks.json").read_text())
    group = data["hooks"]["PreToolUse"][0]
    assert codex.hook_trust_hash("PreToolUse", group["matcher"], group["hooks"][0]) == (
        CODEX_PRE_TOOL_USE_HASH
    )
    source = str(codex_home() / "hooks.json")
    assert codex.hook_trust_key(source, "PreToolUse", 0, 0) == f"{source}:pre_tool_use:0:0"


def trust(states: dict[str, dict[str, Any]]) -> None:
    """Write `[hooks.state."<key>"]` tables into config.toml, as Codex's /hooks does."""
    lines = []
    for key, state in states.items():
        lines.append(f"[hooks.state.{json.dumps(key)}]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in state.items()]
    config = codex_home() / "config.toml"
    config.write_text(config.read_text() + "\n" + "\n".join(lines) + "\n")


def test_codex_hooks_trusted_modified_or_turned_off(applied: Path, capsys) -> None:
    source = codex_home() / "hooks.json"
    data = json.loads(source.read_text())
    states: dict[str, dict[str, Any]] = {}
    for event, groups in data["hooks"].items():
        group = groups[0]
        key = codex.hook_trust_key(str(source), event, 0, 0)
        states[key] = {
            "trusted_hash": codex.hook_trust_hash(event, group.get("matcher"), group["hooks"][0])
        }
    trust(states)
    code, report = doctor(capsys, "--hosts", "codex")
    assert code == 0, failures(report)
    assert len(of(report, "hook-trust", "ok")) == 3

    config = codex_home() / "config.toml"
    pre = codex.hook_trust_key(str(source), "PreToolUse", 0, 0)
    text = config.read_text().replace(states[pre]["trusted_hash"], "sha256:" + "0" * 64)
    stop = codex.hook_trust_key(str(source), "Stop", 0, 0)
    text = text.replace(
        f"[hooks.state.{json.dumps(stop)}]\n",
        f"[hooks.state.{json.dumps(stop)}]\nenabled = false\n",
    )
    config.write_text(text)
    code, report = doctor(capsys, "--hosts", "codex")
    assert code == 1
    found = {c["detail"].rsplit(" (", 1)[0] for c in failures(report)}
    assert found == {
        "PreToolUse hook changed since it was trusted: Codex skips it until it is trusted again",
        "Stop hook is turned off in /hooks (enabled = false)",
    }


def test_a_hook_moved_in_its_array_needs_trust_again(applied: Path, capsys) -> None:
    """Codex trust keys are positions: a hook of the person's own ahead of memhub's moves it."""
    source = codex_home() / "hooks.json"
    data = json.loads(source.read_text())
    group = data["hooks"]["PreToolUse"][0]
    key = codex.hook_trust_key(str(source), "PreToolUse", 0, 0)
    trust({key: {"trusted_hash": CODEX_PRE_TOOL_USE_HASH}})
    mine = {"hooks": [{"type": "command", "command": "true"}]}
    data["hooks"]["PreToolUse"] = [mine, group]
    source.write_text(json.dumps(data, indent=2))
    code, report = doctor(capsys, "--hosts", "codex")
    assert code == 1
    pre = [c for c in failures(report, "hook-trust") if c["detail"].startswith("PreToolUse")]
    assert len(pre) == 1 and ":pre_tool_use:1:0" in pre[0]["detail"]


# --- MCP servers in two scopes --------------------------------------------------------------


def test_the_same_server_in_user_and_project_scope_warns(
    applied: Path, tmp_path: Path, capsys
) -> None:
    code, report = doctor(capsys, "--hosts", "cursor")
    assert code == 0 and of(report, "mcp-scopes", "ok") and not of(report, "mcp-scopes", "warn")
    project = tmp_path / "checkout"
    (project / ".cursor").mkdir(parents=True)
    (project / ".cursor" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"probe-stdio": {"command": "python3"}}})
    )
    code, report = doctor(capsys, "--hosts", "cursor", "--project", str(project))
    assert code == 0, "a warning does not fail"
    (twice,) = of(report, "mcp-scopes", "warn")
    assert "probe-stdio" in twice["detail"]
    assert str(project / ".cursor" / "mcp.json") in twice["detail"]
    assert str(Path(os.environ["HOME"]) / ".cursor" / "mcp.json") in twice["detail"]


def test_project_scope_checks_the_project_install(
    hub: Path, home: Path, tmp_path: Path, capsys
) -> None:
    project = tmp_path / "checkout"
    project.mkdir()
    args = ("--scope", "project", "--project", str(project))
    assert run(capsys, "apply", str(hub), "--hosts", "claude", *args)[0] == 0
    code, out, _ = run(capsys, "doctor", "--scope", "user")
    assert "applied nothing" in out, "project entries are not user scope"
    code, report = doctor(capsys, *args)
    assert code == 0, failures(report)
    assert report["hosts"] == ["claude"]
    assert any(c["target"] == str(project / ".mcp.json") for c in of(report, "drift", "ok"))


# --- with the hub ---------------------------------------------------------------------------


def test_with_the_hub_everything_it_wants_is_applied_and_current(
    hub: Path, home: Path, capsys
) -> None:
    code, report = doctor(capsys, str(hub), "--hosts", "claude")
    assert code == 1
    assert failures(report) and all(c["name"] == "hub" for c in failures(report))
    assert all("not applied" in c["detail"] for c in failures(report))
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    code, report = doctor(capsys, str(hub))
    assert code == 0, failures(report)
    assert report["hub"] == str(hub) and report["hosts"] == ["claude"]
    assert of(report, "hub", "ok")
    text = (hub / "hub.yaml").read_text().replace('"--help"', '"--version"')
    (hub / "hub.yaml").write_text(text)
    code, report = doctor(capsys, str(hub))
    assert code == 0
    (changed,) = of(report, "hub", "warn")
    assert "probe-stdio" in changed["detail"] and "changed" in changed["detail"]


def test_a_hub_yaml_in_the_current_folder_is_the_hub(
    hub: Path, home: Path, capsys, monkeypatch
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "cursor")[0] == 0
    monkeypatch.chdir(hub)
    code, report = doctor(capsys)
    assert code == 0, failures(report)
    assert report["hub"] == str(hub) and of(report, "hub", "ok")


def test_help_explains_the_command(capsys) -> None:
    code, out, _ = run(capsys, "doctor", "--help")
    assert code == 0
    for word in ("--scope", "--project", "--hosts", "--json", "/hooks", "Exit 0"):
        assert word in out


# --- which hosts: the hub's `hosts:` bound the default, as for plan and apply --------------


def _hosts_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *exes: str) -> None:
    """PATH holding only executables named like host CLIs (which is all the default reads);
    each answers its loader with success, so only the choice of hosts is under test."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for exe in exes:
        (bin_dir / exe).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / exe).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")


def test_with_a_hub_the_hubs_hosts_bound_the_default_and_doctor_says_which(
    hub: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    text = (hub / "hub.yaml").read_text()
    (hub / "hub.yaml").write_text(text.replace("mcp:\n", "hosts: [claude, cursor]\nmcp:\n", 1))
    _hosts_on_path(tmp_path, monkeypatch, "claude", "codex", "gemini")
    code, out, err = run(capsys, "doctor", str(hub), "--json")
    report = json.loads(out)["data"]
    assert report["hosts"] == ["claude"], "codex and gemini are on PATH, not in `hosts:`"
    assert "hosts: claude (the hub's `hosts:` whose CLI is on PATH" in err
    assert "on PATH but not in `hosts:`: codex, gemini" in err
    assert code == 1 and {c["host"] for c in failures(report)} == {"claude"}  # not applied
    # where this hub was applied outside its `hosts:` is checked too, and said
    assert run(capsys, "apply", str(hub), "--hosts", "codex")[0] == 0
    code, out, err = run(capsys, "doctor", str(hub))
    assert "hosts: claude, codex (" in err and "and where this hub is applied: codex" in err
    assert "codex" in out
    code, out, err = run(capsys, "doctor", str(hub), "--hosts", "gemini", "--json")
    assert json.loads(out)["data"]["hosts"] == ["gemini"] and "as named by --hosts" in err


def test_without_a_hub_doctor_says_it_checks_where_memhub_applied(
    hub: Path, home: Path, capsys
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "cursor")[0] == 0
    code, out, err = run(capsys, "doctor", "--json")
    assert code == 0 and json.loads(out)["data"]["hosts"] == ["cursor"]
    assert "hosts: cursor (where memhub applied something in user scope" in err
