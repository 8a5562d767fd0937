"""memhub plan/apply/uninstall/undo on a temporary home: ownership, preservation, staleness."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import tomlkit

from tests.compiler.installkit import ALL, claude_json, run


def snapshot_tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".memhub" not in p.parts
    }


def test_apply_writes_every_host_and_second_plan_is_empty(hub: Path, home: Path, capsys) -> None:
    code, out, err = run(capsys, "apply", str(hub), "--hosts", ALL)
    assert code == 0, err
    claude = json.loads(claude_json().read_text())
    assert claude["mcpServers"]["probe-stdio"]["env"]["PROBE_TOKEN"] == "${PROBE_TOKEN}"
    settings = json.loads((Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json").read_text())
    assert settings["hooks"]["PreToolUse"][0]["matcher"] == "Bash"
    codex = tomlkit.parse((home / ".codex/config.toml").read_text()).unwrap()
    assert codex["mcp_servers"]["probe-stdio"]["env_vars"] == ["PROBE_TOKEN"]
    assert codex["mcp_servers"]["probe-remote"]["oauth"] == {"client_id": "probe-public-client"}
    assert json.loads((home / ".cursor/hooks.json").read_text())["version"] == 1
    gemini = json.loads((home / ".gemini/settings.json").read_text())
    assert gemini["mcpServers"]["probe-remote"]["httpUrl"] == "https://mcp.example.com/mcp"
    assert gemini["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 5000
    assert not (home / ".gemini/skills").exists(), "Gemini reads ~/.agents/skills"
    for skills in (".claude/skills", ".agents/skills", ".cursor/skills"):
        assert (home / skills / "tidy" / "SKILL.md").is_file()
        assert not (home / skills / "tidy").is_symlink()
    assert "next (codex): open /hooks" in out
    code, out, _ = run(capsys, "plan", str(hub), "--hosts", ALL, "--json")
    assert code == 0
    assert {t["kind"] for t in json.loads(out)["data"]["targets"]} == {"unchanged"}


def test_unrelated_content_survives_apply_and_uninstall_byte_for_byte(
    hub: Path, home: Path, capsys
) -> None:
    original_json = (
        '{\n    "numStartups": 3,\n    "mcpServers": {\n        "mine": {"command": "x"}\n    },\n'
        '    "projects": {"/a": {"x": [1, 2]}}\n}\n'
    )
    original_toml = (
        '# my settings\nmodel = "o3"  # keep this\n\n[mcp_servers.mine]\ncommand = "x"\n'
    )
    claude_json().write_text(original_json)
    (home / ".codex").mkdir()
    (home / ".codex/config.toml").write_text(original_toml)
    assert run(capsys, "apply", str(hub), "--hosts", "claude,codex")[0] == 0
    after = claude_json().read_text()
    assert after.startswith(
        '{\n    "numStartups": 3,\n    "mcpServers": {\n        "mine": {"command": "x"},'
    )
    assert "# my settings" in (home / ".codex/config.toml").read_text()
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude,codex")[0] == 0
    assert claude_json().read_text() == original_json
    assert (home / ".codex/config.toml").read_text() == original_toml


def test_an_entry_memhub_does_not_own_is_a_conflict_unless_adopted(
    hub: Path, home: Path, capsys
) -> None:
    claude_json().write_text('{"mcpServers": {"probe-stdio": {"command": "theirs"}}}\n')
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 2
    assert "probe-stdio" in err and "--adopt" in err
    assert claude_json().read_text() == '{"mcpServers": {"probe-stdio": {"command": "theirs"}}}\n'
    assert not (Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json").exists(), (
        "nothing is written on a conflict"
    )
    assert run(capsys, "apply", str(hub), "--hosts", "claude", "--adopt")[0] == 0
    assert (
        json.loads(claude_json().read_text())["mcpServers"]["probe-stdio"]["command"] == "python3"
    )


def test_target_that_does_not_parse_is_refused(hub: Path, home: Path, capsys) -> None:
    claude_json().write_text('{"mcpServers": {\n  "x": \n}\n')
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 2
    assert ".claude.json" in err and "line" in err
    assert claude_json().read_text() == '{"mcpServers": {\n  "x": \n}\n'


def test_saved_plan_refuses_when_a_target_changed(
    hub: Path, home: Path, tmp_path: Path, capsys
) -> None:
    plan_file = tmp_path / "plan.json"
    assert run(capsys, "plan", str(hub), "--hosts", "claude", "--out", str(plan_file))[0] == 0
    record = plan_file.read_text()
    assert "python3" not in record, "a plan holds fingerprints, not contents"
    claude_json().write_text('{"theme": "dark"}\n')
    code, _, err = run(capsys, "apply", str(plan_file))
    assert code == 3
    assert ".claude.json" in err
    assert claude_json().read_text() == '{"theme": "dark"}\n'
    assert not (Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json").exists()


def test_saved_plan_applies_when_nothing_changed(
    hub: Path, home: Path, tmp_path: Path, capsys
) -> None:
    plan_file = tmp_path / "plan.json"
    run(capsys, "plan", str(hub), "--hosts", "cursor", "--out", str(plan_file))
    code, _, err = run(capsys, "apply", str(plan_file))
    assert code == 0, err
    assert "probe-remote" in json.loads((home / ".cursor/mcp.json").read_text())["mcpServers"]
    # the hosts come from the plan (chosen when it was made), not from a --hosts of this run
    assert f"hosts: cursor (from the saved plan {plan_file})" in err
    assert "as named by --hosts" not in err


@pytest.mark.parametrize(
    "option", [("--hosts", "gemini"), ("--scope", "project"), ("--adopt",)], ids=str
)
def test_an_option_beside_a_saved_plan_is_refused_not_ignored(
    option: tuple[str, ...], hub: Path, home: Path, tmp_path: Path, capsys
) -> None:
    plan_file = tmp_path / "plan.json"
    run(capsys, "plan", str(hub), "--hosts", "cursor", "--out", str(plan_file))
    code, _, err = run(capsys, "apply", str(plan_file), *option)
    assert code == 2, err
    assert str(plan_file) in err and option[0] in err and "Fix:" in err
    assert not (home / ".cursor/mcp.json").exists(), "nothing is written"
    assert not (home / ".gemini").exists()


def test_undo_reverts_the_last_apply_as_one_unit(hub: Path, home: Path, capsys) -> None:
    (home / ".gemini").mkdir()
    original = '{"theme": "GitHub"}\n'
    (home / ".gemini/settings.json").write_text(original)
    assert run(capsys, "apply", str(hub), "--hosts", "gemini")[0] == 0
    assert run(capsys, "undo")[0] == 0
    assert (home / ".gemini/settings.json").read_text() == original
    assert not (home / ".agents/skills/tidy").exists()
    code, _, err = run(capsys, "undo")  # nothing left: said, with its own exit code for CI
    assert code == 1 and "nothing to undo" in err


def test_undo_keeps_what_a_host_wrote_since_and_reverts_only_memhub_entries(
    hub: Path, home: Path, capsys
) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text('{"theme": "GitHub"}\n')
    assert run(capsys, "apply", str(hub), "--hosts", "gemini")[0] == 0
    settings = home / ".gemini/settings.json"
    settings.write_text(settings.read_text().replace("GitHub", "Dracula"))  # the host's edit
    assert run(capsys, "undo")[0] == 0
    assert settings.read_text() == '{"theme": "Dracula"}\n'


def test_undo_refuses_naming_an_entry_edited_after_apply(hub: Path, home: Path, capsys) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "gemini")[0] == 0
    settings = home / ".gemini/settings.json"
    edited = settings.read_text().replace(
        "https://mcp.example.com/mcp", "https://other.example/mcp"
    )
    settings.write_text(edited)
    code, _, err = run(capsys, "undo")
    assert code == 3
    assert "mcpServers/probe-remote" in err
    assert settings.read_text() == edited


def test_a_canary_secret_reaches_no_file_plan_or_log(
    hub: Path, home: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    canary = "canary-5e1f-not-for-files"
    (hub / ".env").write_text(f"PROBE_TOKEN={canary}\n")
    monkeypatch.setenv("PROBE_TOKEN", canary)
    plan_file = tmp_path / "plan.json"
    run(capsys, "plan", str(hub), "--hosts", ALL, "--out", str(plan_file), "--json")
    code, out, err = run(capsys, "apply", str(hub), "--hosts", ALL)
    assert code == 0
    assert canary not in out + err + plan_file.read_text()
    leaked = [name for name, data in snapshot_tree(home).items() if canary.encode() in data]
    leaked += [
        p.name
        for p in (home / ".memhub").rglob("*")
        if p.is_file() and canary.encode() in p.read_bytes()
    ]
    assert leaked == []


def test_hosts_default_to_the_host_clis_on_path(tmp_path: Path, monkeypatch) -> None:
    from memhub.compiler.cli.hostchoice import parse_hosts
    from memhub.hubspec import MemhubError

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    with pytest.raises(MemhubError, match="cursor-agent"):
        parse_hosts(None)
    for exe in ("codex", "cursor-agent"):
        (bin_dir / exe).write_text("#!/bin/sh\n")
        (bin_dir / exe).chmod(0o755)
    assert parse_hosts(None) == ("codex", "cursor")
    assert parse_hosts("gemini,claude") == ("gemini", "claude")


def test_current_digest_matches_the_state_until_an_entry_is_edited(
    hub: Path, home: Path, capsys
) -> None:
    from memhub.compiler.install.engine import current_digest
    from memhub.compiler.install.state import State

    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    state = State.load(home / ".memhub")
    owned = [(t, k, o) for t, es in state.targets.items() for k, o in es.items()]
    kinds = {k.split(":")[0] for _, k, _ in owned}
    assert {"json-key", "json-item", "toml-table", "tree"} <= kinds
    assert [(t, k) for t, k, o in owned if current_digest(t, k) != o.digest] == []
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"] = {}
    settings.write_text(json.dumps(data))
    skill = next(t for t, k, _ in owned if k.startswith("tree:"))
    (Path(skill) / "extra.md").write_text("edited by hand\n")
    drifted = {(t, k.split(":")[0]) for t, k, o in owned if current_digest(t, k) != o.digest}
    assert (str(settings), "json-item") in drifted
    assert (skill, "tree") in drifted
    assert not any(t.endswith(".toml") for t, _ in drifted)


def instruction_files(home: Path) -> dict[str, Path]:
    return {
        "claude": Path(os.environ["CLAUDE_CONFIG_DIR"]) / "CLAUDE.md",
        "codex": Path(os.environ["CODEX_HOME"]) / "AGENTS.md",
        "gemini": home / ".gemini" / "GEMINI.md",
    }


def test_instructions_land_as_one_owned_block_beside_the_persons_text(
    hub: Path, home: Path, capsys
) -> None:
    files = instruction_files(home)
    mine = "# My notes\n\nAlways answer in French.\n"
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(mine)
    wanted = (hub / "INSTRUCTIONS.md").read_text()
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    for path in files.values():
        text = path.read_text()
        assert text.startswith(mine)
        assert (
            f"<!-- memhub:begin install-probe -->\n{wanted}<!-- memhub:end install-probe -->\n"
            in text
        )
    assert run(capsys, "uninstall", str(hub), "--hosts", ALL)[0] == 0
    assert {h: p.read_text() for h, p in files.items()} == {h: mine for h in files}


def test_instructions_in_project_scope_share_agents_md_between_codex_and_cursor(
    hub: Path, tmp_path: Path, capsys
) -> None:
    project = tmp_path / "checkout"
    project.mkdir()
    code, _, _ = run(
        capsys, "apply", str(hub), "--scope", "project", "--project", str(project), "--hosts", ALL
    )
    assert code == 0
    agents = (project / "AGENTS.md").read_text()
    assert agents.count("<!-- memhub:begin install-probe -->") == 1
    assert (project / "CLAUDE.md").is_file() and (project / "GEMINI.md").is_file()
    run(
        capsys,
        "uninstall",
        str(hub),
        "--scope",
        "project",
        "--project",
        str(project),
        "--hosts",
        ALL,
    )
    # files memhub created and left empty go; nothing else was there
    assert sorted(p.name for p in project.iterdir() if p.suffix == ".md") == []


def test_broken_block_markers_refuse_the_file_with_their_line(
    hub: Path, home: Path, capsys
) -> None:
    agents = instruction_files(home)["codex"]
    agents.parent.mkdir(parents=True, exist_ok=True)
    agents.write_text("# Mine\n<!-- memhub:begin install-probe -->\nhalf\n")
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "codex")
    assert code == 2
    assert f"{agents}: line 2: memhub block 'install-probe' has no end marker" in err
    assert not (Path(os.environ["CODEX_HOME"]) / "config.toml").exists()


def test_undo_refuses_when_the_block_was_edited_and_reverts_it_otherwise(
    hub: Path, home: Path, capsys
) -> None:
    claude_md = instruction_files(home)["claude"]
    claude_md.parent.mkdir(parents=True, exist_ok=True)
    claude_md.write_text("mine\n")
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    applied = claude_md.read_text()
    claude_md.write_text(applied.replace("answer", "reply"))
    code, _, err = run(capsys, "undo")
    assert code == 3 and "memhub block install-probe" in err
    # a host or person adding text outside the block does not stop undo
    claude_md.write_text("added above\n" + applied)
    assert run(capsys, "undo")[0] == 0
    assert claude_md.read_text() == "added above\nmine\n"


@pytest.mark.parametrize("source", ["environment", "env-file"])
def test_apply_refuses_a_write_that_would_carry_a_secret_value(
    hub: Path, home: Path, capsys, monkeypatch, source: str
) -> None:
    canary = "canary-77c1-in-a-skill"
    if source == "environment":
        monkeypatch.setenv("PROBE_TOKEN", canary)
    else:
        monkeypatch.delenv("PROBE_TOKEN", raising=False)
        (hub / ".env").write_text(f'# secrets\nexport PROBE_TOKEN="{canary}"\n')
    skill = next((hub / "skills").iterdir())
    (skill / "notes.md").write_text(f"the token is {canary}\n")
    before = snapshot_tree(home)
    code, out, err = run(capsys, "apply", str(hub), "--hosts", ALL)
    assert code == 2
    assert "notes.md: the write would contain the value of ${env:PROBE_TOKEN}" in err
    assert canary not in out + err
    assert snapshot_tree(home) == before


def test_a_secret_the_person_already_keeps_in_a_file_does_not_block_apply(
    hub: Path, home: Path, capsys, monkeypatch
) -> None:
    canary = "canary-31aa-theirs"
    monkeypatch.setenv("PROBE_TOKEN", canary)
    mcp = claude_json()
    mcp.write_text(json.dumps({"mcpServers": {"theirs": {"env": {"T": canary}}}}))
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    assert mcp.read_text().count(canary) == 1


def test_unset_references_and_a_loose_env_file_are_warned_about(
    hub: Path, home: Path, capsys, monkeypatch
) -> None:
    monkeypatch.delenv("PROBE_TOKEN", raising=False)
    code, _, err = run(capsys, "plan", str(hub), "--hosts", "claude")
    assert code == 0
    assert "${env:PROBE_TOKEN} has no value in the environment or" in err
    (hub / ".env").write_text("PROBE_TOKEN=value-from-env-file\n")
    (hub / ".env").chmod(0o644)
    code, out, err = run(capsys, "plan", str(hub), "--hosts", "claude", "--json")
    warnings = json.loads(out)["warnings"]
    assert warnings == [
        f"{hub / '.env'}: readable by other users (mode 644). Fix: chmod 600 {hub / '.env'}"
    ]


def test_a_no_op_plan_trusts_unchanged_skill_folders_and_sees_any_edit(
    hub: Path, home: Path, capsys, monkeypatch
) -> None:
    from memhub.compiler.install import trees as install
    from memhub.hubspec import statsig

    monkeypatch.setattr(statsig, "RACY_NS", 0)  # the folders were written a moment ago
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    run(capsys, "plan", str(hub), "--hosts", ALL)  # reads every folder once, remembers it
    reads: list[Path] = []
    real_read = install.read_folder
    monkeypatch.setattr(install, "read_folder", lambda p: reads.append(p) or real_read(p))
    code, out, _ = run(capsys, "plan", str(hub), "--hosts", ALL, "--json")
    assert code == 0 and reads == []
    assert {t["kind"] for t in json.loads(out)["data"]["targets"]} == {"unchanged"}
    # a same-size edit with the old mtime put back still changes the ctime: it is seen
    skill_md = home / ".claude" / "skills" / next((hub / "skills").iterdir()).name / "SKILL.md"
    info = skill_md.stat()
    data = skill_md.read_bytes()
    skill_md.write_bytes(data[:-2] + b"X\n")
    os.utime(skill_md, ns=(info.st_atime_ns, info.st_mtime_ns))
    code, out, _ = run(capsys, "plan", str(hub), "--hosts", ALL, "--json")
    changed = {
        t["path"]: t["kind"] for t in json.loads(out)["data"]["targets"] if t["kind"] != "unchanged"
    }
    assert changed == {str(skill_md.parent): "update"}


def test_gemini_installs_keep_env_references_in_args_and_headers(tmp_path: Path) -> None:
    """Gemini expands ${VAR} in every string of settings.json (checked on the real 0.61)."""
    from memhub.compiler.hosts import gemini
    from memhub.compiler.install.scope import Scope
    from memhub.hubspec import load

    hub_dir = tmp_path / "hub"
    hub_dir.mkdir()
    (hub_dir / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: refs, version: 0.1.0, description: refs}\n"
        "marketplace: {name: m, owner: {name: o}}\n"
        "mcp:\n  servers:\n"
        '    local: {command: run, args: ["--token", "${env:RUN_TOKEN}"]}\n'
        "    remote:\n      url: https://mcp.example.com/mcp\n"
        '      headers: {Authorization: "Bearer ${env:REMOTE_TOKEN}"}\n'
    )
    entries, rows = gemini.install_entries(load(hub_dir), Scope("user", tmp_path / "home"))
    specs = {e.path[1]: e.value for e in entries if e.path[0] == "mcpServers"}
    assert specs["local"]["args"] == ["--token", "${RUN_TOKEN}"]
    assert specs["remote"]["headers"] == {"Authorization": "Bearer ${REMOTE_TOKEN}"}
    assert {r.status for r in rows if r.component == "mcp"} == {"mapped"}


def test_a_repeated_no_op_apply_replays_without_loading_until_any_input_changes(
    hub: Path, home: Path, capsys, monkeypatch
) -> None:
    from memhub import hubspec
    from memhub.hubspec import statsig

    monkeypatch.setattr(statsig, "RACY_NS", 0)  # everything here was written a moment ago
    monkeypatch.setenv("PROBE_TOKEN", "first-value-of-the-token")
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    full = run(capsys, "apply", str(hub), "--hosts", ALL)  # a no-op: remembered
    assert ", 13 unchanged (" in full[1]  # the counts line
    loads: list[Path] = []
    real_load = hubspec.load
    monkeypatch.setattr(hubspec, "load", lambda p, **kw: loads.append(p) or real_load(p, **kw))

    def planned_then_replayed() -> None:
        """The next apply runs the full plan; once it is a no-op again, it is replayed."""
        loaded = len(loads)
        run(capsys, "apply", str(hub), "--hosts", ALL)
        assert len(loads) == loaded + 1
        no_op = run(capsys, "apply", str(hub), "--hosts", ALL)  # remembered again
        loaded = len(loads)
        assert run(capsys, "apply", str(hub), "--hosts", ALL) == no_op
        assert len(loads) == loaded

    assert run(capsys, "apply", str(hub), "--hosts", ALL) == full and loads == []
    changes = [
        lambda: (hub / "hub.yaml").write_text((hub / "hub.yaml").read_text() + "\n"),
        lambda: (home / ".gemini" / "settings.json").write_text(
            (home / ".gemini" / "settings.json").read_text() + " "
        ),
        lambda: monkeypatch.setenv("PROBE_TOKEN", "second-value-of-the-token"),
        lambda: (hub / ".env").write_text("OTHER=1\n"),
        lambda: (next((hub / "skills").iterdir()) / "extra.txt").write_text("x"),
        # a variable only one host's adapter reads (placing_env) moves its files
        lambda: monkeypatch.setenv("CODEX_HOME", str(home / "moved-codex")),
    ]
    for change in changes:
        change()
        planned_then_replayed()
    # a hand edit of an installed skill is a real change: apply refuses to overwrite it
    # (a `conflict`, see test_install_drift), and --force puts memhub's copy back
    installed = (
        Path(os.environ["CLAUDE_CONFIG_DIR"]) / "skills" / next((hub / "skills").iterdir()).name
    )
    (installed / "SKILL.md").write_text("edited by hand\n")
    code, out, err = run(capsys, "apply", str(hub), "--hosts", ALL)
    assert code == 2 and str(installed) in err and "--force" in err
    code, out, _ = run(capsys, "apply", str(hub), "--hosts", ALL, "--force")
    assert code == 0 and f"conflict  {installed}" in out


def test_an_install_in_one_scope_leaves_the_other_scope_alone(
    hub: Path, home: Path, tmp_path: Path, capsys
) -> None:
    project = tmp_path / "checkout"
    project.mkdir()
    in_project = ("--scope", "project", "--project", str(project), "--hosts", ALL)
    assert run(capsys, "apply", str(hub), *in_project)[0] == 0
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0  # user scope
    _, out, _ = run(capsys, "plan", str(hub), *in_project, "--json")
    assert {t["kind"] for t in json.loads(out)["data"]["targets"]} == {"unchanged"}
    assert run(capsys, "uninstall", str(hub), "--hosts", ALL)[0] == 0
    assert (project / "AGENTS.md").is_file() and (project / ".cursor" / "skills").is_dir()
    _, out, _ = run(capsys, "plan", str(hub), *in_project, "--json")
    assert {t["kind"] for t in json.loads(out)["data"]["targets"]} == {"unchanged"}


def test_the_first_apply_after_an_apply_is_replayed_as_the_no_op_it_is(
    hub: Path, home: Path, capsys, monkeypatch
) -> None:
    import shutil

    from memhub import hubspec
    from memhub.compiler.install.noopmemo import MEMO_DIR
    from memhub.compiler.install.state import memhub_home

    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    loads: list[Path] = []
    real_load = hubspec.load
    monkeypatch.setattr(hubspec, "load", lambda p, **kw: loads.append(p) or real_load(p, **kw))
    replayed = run(capsys, "apply", str(hub), "--hosts", ALL)  # files written a moment ago
    assert loads == [] and replayed[0] == 0
    assert "0 create, 0 update, 0 delete" in replayed[1]
    assert "applied: 0 change(s)" in replayed[1]
    shutil.rmtree(memhub_home() / MEMO_DIR)  # what the full no-op run prints is the same
    assert run(capsys, "apply", str(hub), "--hosts", ALL) == replayed and len(loads) == 1


def test_a_memo_of_young_files_checks_their_content_until_they_are_old(
    tmp_path: Path, monkeypatch
) -> None:
    import hashlib

    from memhub.compiler.install import noopmemo
    from memhub.hubspec import statsig

    target = tmp_path / "target.json"
    target.write_text('{"a": 1}\n')
    env_file = tmp_path / ".env"
    memo = noopmemo.NoopMemo(tmp_path / "home", "key")
    outcome = noopmemo.Remembered("out", "err", 0)
    memo.remember([str(target)], [], {}, env_file, outcome)
    racy = json.loads(memo.path.read_text())["racy"]
    key = noopmemo.install_key(tmp_path / "home")
    assert key is not None and racy[str(target)] == noopmemo.content_digest(str(target), key)
    # keyed, as the secret values are: not the plain hash of the content
    assert racy[str(target)] != hashlib.sha256(target.read_bytes()).hexdigest()
    assert memo.recall({}, env_file) == outcome
    # a same-size rewrite in the same clock tick leaves the stat as it was: the content shows it
    real = noopmemo._path_signature
    frozen = {str(target): real(str(target))}
    monkeypatch.setattr(noopmemo, "_path_signature", lambda p: frozen.get(p) or real(p))
    target.write_text('{"a": 2}\n')
    assert memo.recall({}, env_file) is None
    target.write_text('{"a": 1}\n')
    monkeypatch.setattr(statsig, "RACY_NS", 0)  # old enough now: the stat alone will do
    assert memo.recall({}, env_file) == outcome
    assert json.loads(memo.path.read_text())["racy"] == {}
