"""Ownership and uninstall: adopted entries come back, files return byte for byte, and the
owner is the plugin's identity (name + hub id), not the hub folder's path."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.compiler.install.engine import apply_install, plan_install
from memhub.compiler.install.scope import Scope
from memhub.hubspec import load

from tests.compiler import test_install_properties as props
from tests.compiler.installkit import ALL, HUB, claude_json, run


def tree(root: Path) -> dict[str, tuple[str, bytes | str, int]]:
    """Every file, folder and link under `root` (memhub's own home left out), exactly."""
    found: dict[str, tuple[str, bytes | str, int]] = {}
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".memhub"]
        for name in dirs + files:
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                found[rel] = ("link", os.readlink(path), 0)
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = ("dir", b"", stat.S_IMODE(info.st_mode))
            else:
                found[rel] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
    return found


def set_id(hub: Path, hub_id: str) -> None:
    text = (hub / "hub.yaml").read_text()
    (hub / "hub.yaml").write_text(text.replace("version: 1\n", f"version: 1\nid: {hub_id}\n", 1))


# -- adopt records the pre-image; uninstall restores it --------------------------------


def test_an_adopted_server_comes_back_as_it_was_after_uninstall(
    hub: Path, home: Path, capsys
) -> None:
    theirs = {"command": "theirs", "args": ["--mine"], "env": {"LEVEL": "1"}}
    claude_json().write_text(json.dumps({"mcpServers": {"probe-stdio": theirs}}, indent=2))
    (home / ".codex").mkdir()
    (home / ".codex/config.toml").write_text(
        '[mcp_servers.probe-stdio]\ncommand = "theirs"  # my server\n'
    )
    assert run(capsys, "apply", str(hub), "--hosts", "claude,codex", "--adopt")[0] == 0
    data = json.loads(claude_json().read_text())
    assert data["mcpServers"]["probe-stdio"]["command"] == "python3"
    # Claude Code rewrites its file on every start: the way back is entry by entry.
    data["numStartups"] = 7
    claude_json().write_text(json.dumps(data, indent=2))
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude,codex")[0] == 0
    after = json.loads(claude_json().read_text())
    assert after["mcpServers"]["probe-stdio"] == theirs
    assert after["numStartups"] == 7
    codex = tomlkit.parse((home / ".codex/config.toml").read_text()).unwrap()
    assert codex["mcp_servers"]["probe-stdio"] == {"command": "theirs"}
    state = json.loads((home / ".memhub/state.json").read_text())
    assert state["targets"] == {}, "nothing is owned once the hub is uninstalled"


def test_an_entry_adopted_from_another_plugin_goes_back_to_it(
    hub: Path, tmp_path: Path, home: Path, capsys
) -> None:
    other = tmp_path / "other-hub"
    shutil.copytree(HUB, other)
    yaml_text = (other / "hub.yaml").read_text().replace("install-probe", "other-probe")
    (other / "hub.yaml").write_text(yaml_text.replace("instructions: INSTRUCTIONS.md\n", ""))
    assert run(capsys, "apply", str(other), "--hosts", "claude")[0] == 0
    first = claude_json().read_bytes()
    assert run(capsys, "apply", str(hub), "--hosts", "claude", "--adopt")[0] == 0
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude")[0] == 0
    assert claude_json().read_bytes() == first
    code, out, err = run(capsys, "plan", str(other), "--hosts", "claude", "--json")
    assert code == 0, err
    assert {t["kind"] for t in json.loads(out)["data"]["targets"]} == {"unchanged"}


def test_an_adopted_skill_folder_comes_back_after_uninstall(hub: Path, home: Path, capsys) -> None:
    mine = home / ".claude/skills/tidy"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: tidy\ndescription: my own\n---\nMine.\n")
    (mine / "run.sh").write_text("#!/bin/sh\necho mine\n")
    (mine / "run.sh").chmod(0o755)
    before = tree(mine)
    assert run(capsys, "apply", str(hub), "--hosts", "claude", "--adopt")[0] == 0
    assert "Mine." not in (mine / "SKILL.md").read_text()
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude")[0] == 0
    assert tree(mine) == before


def test_a_linked_skill_folder_is_never_written_through_nor_deleted(
    hub: Path, home: Path, capsys
) -> None:
    dotfiles = home / "dotfiles/skills/tidy"
    dotfiles.mkdir(parents=True)
    (dotfiles / "SKILL.md").write_text("---\nname: tidy\ndescription: dotfiles\n---\nMine.\n")
    skills = home / ".claude/skills"
    skills.mkdir(parents=True)
    (skills / "tidy").symlink_to(dotfiles)
    before = tree(home)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude", "--adopt")
    assert code == 2
    assert f"{skills / 'tidy'}: is a link to {dotfiles}" in err
    assert "remove the link" in err and "Traceback" not in err
    assert tree(home) == before, "nothing is written on a refusal"
    # A folder memhub installed and the person then replaced by a link is theirs too.
    (skills / "tidy").unlink()
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    shutil.rmtree(skills / "tidy")
    (skills / "tidy").symlink_to(dotfiles)
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude")[0] == 0
    assert (skills / "tidy").is_symlink()
    assert (dotfiles / "SKILL.md").read_text().endswith("Mine.\n")


# -- uninstall returns each file to what it was before memhub's first write ------------


def test_uninstall_returns_the_home_byte_for_byte(hub: Path, home: Path, capsys) -> None:
    claude_json().write_text('{\n  "mcpServers": {}\n}\n')
    (home / ".claude/settings.json").write_text('{"hooks": {}, "model": "opus"}')
    (home / ".cursor").mkdir()
    (home / ".cursor/mcp.json").write_text("{}")
    (home / ".gemini").mkdir()
    (home / ".gemini/settings.json").write_text("")  # empty, yet a file of the person's
    before = tree(home)
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    assert (home / ".codex/config.toml").is_file() and (home / ".agents/skills/tidy").is_dir()
    code, out, err = run(capsys, "uninstall", str(hub), "--hosts", ALL)
    assert code == 0, err
    assert tree(home) == before
    assert "delete" in out


@pytest.mark.parametrize("first_out", ["first", "second"])
def test_two_plugins_sharing_files_leave_them_byte_for_byte_in_either_order(
    first_out: str, hub: Path, tmp_path: Path, home: Path, capsys
) -> None:
    other = tmp_path / "other-hub"
    shutil.copytree(HUB, other)
    text = (other / "hub.yaml").read_text().replace("install-probe", "other-probe")
    text = text.replace("probe-", "other-").replace("echo ", "echo other-")
    (other / "hub.yaml").write_text(text)
    shutil.move(other / "skills/tidy", other / "skills/neat")
    skill = other / "skills/neat/SKILL.md"
    skill.write_text(skill.read_text().replace("name: tidy", "name: neat"))
    claude_json().write_text('{"theme": "dark"}\n')
    before = tree(home)
    hubs = [other, hub]
    for each in hubs:
        assert run(capsys, "apply", str(each), "--hosts", ALL)[0] == 0
    for each in hubs if first_out == "first" else reversed(hubs):
        code, _, err = run(capsys, "uninstall", str(each), "--hosts", ALL)
        assert code == 0, err
    assert tree(home) == before


def test_uninstall_removes_only_entries_once_someone_else_changed_the_file(
    hub: Path, home: Path, capsys
) -> None:
    settings = home / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "opus"}\n')
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    data = json.loads(settings.read_text())
    data["theme"] = "dark"
    settings.write_text(json.dumps(data))
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude")[0] == 0
    assert json.loads(settings.read_text()) == {"model": "opus", "theme": "dark"}


def test_undo_of_an_uninstall_brings_back_files_and_folders(hub: Path, home: Path, capsys) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "codex")[0] == 0
    applied = tree(home)
    assert run(capsys, "uninstall", str(hub), "--hosts", "codex")[0] == 0
    assert not (home / ".codex").exists() and not (home / ".agents").exists()
    assert run(capsys, "undo")[0] == 0
    assert tree(home) == applied


# -- the owner is the plugin's identity, not the hub folder ----------------------------


def test_a_moved_hub_is_the_same_owner(hub: Path, home: Path, capsys) -> None:
    before = tree(home)
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    moved = hub.with_name("acme-hub")
    hub.rename(moved)
    code, out, err = run(capsys, "plan", str(moved), "--hosts", ALL, "--json")
    assert code == 0, err
    assert json.loads(out)["data"]["conflicts"] == []
    assert {t["kind"] for t in json.loads(out)["data"]["targets"]} == {"unchanged"}
    code, out, err = run(capsys, "doctor", str(moved), "--hosts", ALL, "--json")
    hub_checks = [c for c in json.loads(out)["data"]["checks"] if c["name"] == "hub"]
    assert hub_checks and {c["status"] for c in hub_checks} == {"ok"}, hub_checks
    assert run(capsys, "uninstall", str(moved), "--hosts", ALL)[0] == 0
    assert tree(home) == before


def test_the_hub_id_tells_two_hubs_of_one_plugin_name_apart(
    hub: Path, tmp_path: Path, home: Path, capsys
) -> None:
    set_id(hub, "team-1")
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    clone = tmp_path / "clone"
    shutil.copytree(hub, clone)
    code, out, _ = run(capsys, "plan", str(clone), "--hosts", "claude", "--json")
    assert code == 0 and json.loads(out)["data"]["conflicts"] == [], "a re-clone is the same owner"
    stranger = tmp_path / "stranger"
    shutil.copytree(HUB, stranger)
    set_id(stranger, "someone-else")
    code, _, err = run(capsys, "plan", str(stranger), "--hosts", "claude")
    assert code == 2
    assert "owned by memhub plugin install-probe@team-1" in err


def test_uninstall_by_plugin_name_needs_no_hub(hub: Path, home: Path, capsys) -> None:
    before = tree(home)
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    shutil.rmtree(hub)
    code, _, err = run(capsys, "uninstall", str(hub), "--hosts", ALL)
    assert code == 2
    assert f"{hub}: no hub here" in err and "--plugin NAME" in err and "install-probe" in err
    code, _, err = run(capsys, "uninstall", "--plugin", "nope")
    assert code == 2
    assert "nothing for plugin 'nope'" in err and "install-probe" in err
    code, _, err = run(capsys, "uninstall", "--plugin", "install-probe")
    assert code == 0, err
    assert tree(home) == before


@pytest.mark.parametrize("name", ["", "   ", "../x", "a@b", "x" * 10_000], ids=len)
def test_uninstall_by_an_odd_plugin_name_is_refused_and_removes_nothing(
    name: str, hub: Path, home: Path, capsys
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    applied = tree(home)
    code, _, err = run(capsys, "uninstall", "--plugin", name)
    assert code == 2, err
    assert "install-probe" in err, "the message lists the plugins that are installed"
    assert "Traceback" not in err and len(err) < 5_000
    assert tree(home) == applied


def as_version_1(state_file: Path, hub: Path) -> None:
    """Rewrite the state as memhub before plugin identities wrote it: owners by hub path."""
    state = json.loads(state_file.read_text())
    legacy = {
        "version": 1,
        "targets": {
            target: {
                key: {k: v for k, v in {**owned, "hub": str(hub)}.items() if k != "pre"}
                for key, owned in entries.items()
            }
            for target, entries in state["targets"].items()
        },
    }
    state_file.write_text(json.dumps(legacy, indent=2))


def test_uninstall_by_plugin_name_keeps_to_its_scope(
    hub: Path, tmp_path: Path, home: Path, capsys
) -> None:
    project = tmp_path / "checkout"
    project.mkdir()
    (project / "AGENTS.md").write_text("# my project\n")
    before = tree(project)
    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    user_scope = tree(home)
    scoped = ("--scope", "project", "--project", str(project))
    assert run(capsys, "apply", str(hub), "--hosts", ALL, *scoped)[0] == 0
    assert (project / ".mcp.json").is_file()
    code, _, err = run(capsys, "uninstall", "--plugin", "install-probe", *scoped)
    assert code == 0, err
    assert tree(project) == before
    assert tree(home) == user_scope


def test_a_version_1_state_keyed_by_the_hub_path_is_read_and_migrated(
    hub: Path, home: Path, capsys
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    state_file = home / ".memhub/state.json"
    as_version_1(state_file, hub)
    code, out, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 0, err
    migrated = json.loads(state_file.read_text())
    assert migrated["version"] == 2
    owners = {o["hub"] for e in migrated["targets"].values() for o in e.values()}
    assert owners == {"install-probe"}
    moved = hub.with_name("acme-hub")
    hub.rename(moved)
    code, out, err = run(capsys, "plan", str(moved), "--hosts", "claude", "--json")
    assert code == 0 and json.loads(out)["data"]["conflicts"] == [], err


def test_a_version_1_owner_whose_hub_is_gone_is_named_by_its_instructions_block(
    hub: Path, home: Path, capsys
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "claude,codex")[0] == 0
    as_version_1(home / ".memhub/state.json", hub)
    shutil.rmtree(hub)
    code, _, err = run(capsys, "uninstall", "--plugin", "install-probe")
    assert code == 0, err
    assert "probe-stdio" not in (home / ".codex/config.toml").read_text()
    assert json.loads((home / ".memhub/state.json").read_text())["targets"] == {}


def test_init_writes_a_hub_id_and_a_bad_one_is_refused(tmp_path: Path, capsys) -> None:
    assert run(capsys, "init", str(tmp_path / "a"))[0] == 0
    assert run(capsys, "init", str(tmp_path / "b"))[0] == 0
    ids = [re.search(r"^id: (\S+)$", (tmp_path / n / "hub.yaml").read_text(), re.M) for n in "ab"]
    assert all(ids) and ids[0][1] != ids[1][1]  # type: ignore[index]
    hub_yaml = tmp_path / "a/hub.yaml"
    hub_yaml.write_text(re.sub(r"^id: \S+$", "id: not/ok", hub_yaml.read_text(), flags=re.M))
    code, _, err = run(capsys, "validate", str(tmp_path / "a"))
    assert code == 2
    assert "hub.yaml:" in err and "id" in err and "Traceback" not in err


# -- property: apply then uninstall gives back every byte ------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    json_doc=props.json_docs,
    toml_text=props.toml_docs(),
    empty_servers=st.booleans(),
    codex_exists=st.booleans(),
)
def test_apply_then_uninstall_returns_generated_configs_byte_for_byte(
    json_doc: tuple[dict[str, Any], Any, bool, bool],
    toml_text: str,
    empty_servers: bool,
    codex_exists: bool,
) -> None:
    data, indent, with_servers, ascii_only = json_doc
    if empty_servers and not with_servers:
        data = {**data, "mcpServers": {}}  # the person's own empty object stays
    json_text = props.render_json((data, indent, with_servers, ascii_only))
    with tempfile.TemporaryDirectory(prefix="memhub-own-") as tmp:
        root = Path(tmp)
        (root / "hub").mkdir()
        (root / "hub" / "hub.yaml").write_text(props.HUB_YAML)
        home, memhub_home = root / "home", root / "home" / ".memhub"
        claude_json = home / ".claude" / ".claude.json"
        claude_json.parent.mkdir(parents=True)
        claude_json.write_bytes(json_text.encode())
        if codex_exists:
            (home / ".codex").mkdir()
            (home / ".codex" / "config.toml").write_bytes(toml_text.encode())
        before = tree(home)
        env = {"CLAUDE_CONFIG_DIR": str(home / ".claude"), "CODEX_HOME": str(home / ".codex")}
        scope = Scope("user", home, None, env)
        hub = load(root / "hub")
        for remove_all in (False, True):
            apply_install(
                memhub_home,
                lambda r=remove_all: plan_install(
                    hub, scope, ("claude", "codex"), memhub_home, remove_all=r
                ),
            )
        assert tree(home) == before


def test_a_state_of_the_wrong_shape_is_one_clear_error(hub: Path, home: Path, capsys) -> None:
    (home / ".memhub").mkdir()
    (home / ".memhub/state.json").write_text('{"version": 2, "targets": {"x": {"k": {"a": 1}}}}')
    code, _, err = run(capsys, "plan", str(hub), "--hosts", "claude")
    assert code == 2
    assert "state.json: unreadable memhub state" in err and "Traceback" not in err


# -- undo of an uninstall re-wraps an adopted block in place ---------------------------

MY_RULES = "# My rules\n\nAlways run the tests before you commit.\n"


def test_undo_of_an_uninstall_rewraps_adopted_text_in_place(
    tmp_path: Path, home: Path, capsys
) -> None:
    """The file changed after the uninstall, so undo reverts entry by entry: the person's
    text is wrapped again where it stands, never appended a second time."""
    claude_md = home / ".claude/CLAUDE.md"
    claude_md.parent.mkdir(parents=True)
    claude_md.write_text(MY_RULES)
    adopting = tmp_path / "rules-hub"
    code, _, err = run(capsys, "import", "--into", str(adopting), "--hosts", "claude", "--yes")
    assert code == 0, err
    assert run(capsys, "apply", str(adopting), "--hosts", "claude")[0] == 0
    wrapped = claude_md.read_text()
    assert run(capsys, "uninstall", str(adopting), "--hosts", "claude")[0] == 0
    assert claude_md.read_text() == MY_RULES
    claude_md.write_text(MY_RULES + "Appended after the uninstall.\n")
    code, _, err = run(capsys, "undo")
    assert code == 0, err
    text = claude_md.read_text()
    assert text.count("Always run the tests") == 1, text
    assert text == wrapped + "Appended after the uninstall.\n"
    # memhub owns the block again: uninstall gives the text back, the appended line kept
    assert run(capsys, "uninstall", str(adopting), "--hosts", "claude")[0] == 0
    assert claude_md.read_text() == MY_RULES + "Appended after the uninstall.\n"


def test_undo_refuses_when_the_adopted_text_changed_after_the_uninstall(
    tmp_path: Path, home: Path, capsys
) -> None:
    """The text it would wrap is no longer there verbatim: appending a block would put a
    second copy beside the person's edited one, so undo refuses and writes nothing."""
    claude_md = home / ".claude/CLAUDE.md"
    claude_md.parent.mkdir(parents=True)
    claude_md.write_text(MY_RULES)
    adopting = tmp_path / "rules-hub"
    assert run(capsys, "import", "--into", str(adopting), "--hosts", "claude", "--yes")[0] == 0
    assert run(capsys, "apply", str(adopting), "--hosts", "claude")[0] == 0
    assert run(capsys, "uninstall", str(adopting), "--hosts", "claude")[0] == 0
    edited = MY_RULES.replace("the tests", "all the tests")
    claude_md.write_text(edited)
    code, _, err = run(capsys, "undo")
    assert code == 3, err
    assert "memhub block rules-hub" in err and "Traceback" not in err
    assert claude_md.read_text() == edited


# -- only containers memhub created are pruned -----------------------------------------


def _changed_by_the_host(path: Path) -> None:
    """Another writer (the host) touches the file, so no byte-for-byte base is left."""
    data = json.loads(path.read_text())
    data["numStartups"] = 7
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_uninstall_keeps_the_persons_own_empty_containers_once_the_file_changed(
    hub: Path, home: Path, capsys
) -> None:
    claude_json().write_text('{\n  "mcpServers": {}\n}\n')
    settings = home / ".claude/settings.json"
    settings.write_text('{\n  "hooks": {\n    "Stop": []\n  },\n  "model": "opus"\n}\n')
    (home / ".codex").mkdir()
    config = home / ".codex/config.toml"
    config.write_text('model = "o3"\n\n[mcp_servers]\n')
    assert run(capsys, "apply", str(hub), "--hosts", "claude,codex")[0] == 0
    assert json.loads(settings.read_text())["hooks"]["Stop"], "memhub's turn_end hook is in"
    for path in (claude_json(), settings):
        _changed_by_the_host(path)
    config.write_text(config.read_text().replace('"o3"', '"o4"'))
    code, _, err = run(capsys, "uninstall", str(hub), "--hosts", "claude,codex")
    assert code == 0, err
    assert json.loads(claude_json().read_text()) == {"mcpServers": {}, "numStartups": 7}
    assert json.loads(settings.read_text()) == {
        "hooks": {"Stop": []},
        "model": "opus",
        "numStartups": 7,
    }
    assert tomlkit.parse(config.read_text()) == {"model": "o4", "mcp_servers": {}}


def test_uninstall_prunes_the_containers_memhub_created_once_the_file_changed(
    hub: Path, home: Path, capsys
) -> None:
    claude_json().write_text('{"theme": "dark"}\n')
    settings = home / ".claude/settings.json"
    settings.write_text('{"model": "opus"}\n')
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    state = json.loads((home / ".memhub/state.json").read_text())
    assert {"hooks", "hooks/Stop"} <= {"/".join(c) for c in state["made"][str(settings)]}
    assert state["made"][str(claude_json())] == [["mcpServers"]]
    for path in (claude_json(), settings):
        _changed_by_the_host(path)
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude")[0] == 0
    assert json.loads(claude_json().read_text()) == {"theme": "dark", "numStartups": 7}
    assert json.loads(settings.read_text()) == {"model": "opus", "numStartups": 7}


def test_a_state_from_before_the_made_record_still_uninstalls(
    hub: Path, home: Path, capsys
) -> None:
    """A state written before containers were recorded loads; memhub cannot tell whose an
    empty container is then, so it prunes as it always did."""
    claude_json().write_text('{"theme": "dark"}\n')
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    state_file = home / ".memhub/state.json"
    state = json.loads(state_file.read_text())
    del state["made"]
    state_file.write_text(json.dumps(state))
    _changed_by_the_host(claude_json())
    code, _, err = run(capsys, "uninstall", str(hub), "--hosts", "claude")
    assert code == 0, err
    assert json.loads(claude_json().read_text()) == {"theme": "dark", "numStartups": 7}


def test_undo_after_the_host_changed_the_file_keeps_the_persons_empty_containers(
    hub: Path, home: Path, capsys
) -> None:
    claude_json().write_text('{"mcpServers": {}, "theme": "dark"}\n')
    settings = home / ".claude/settings.json"
    settings.write_text('{"hooks": {}, "model": "opus"}\n')
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    for path in (claude_json(), settings):
        _changed_by_the_host(path)
    code, _, err = run(capsys, "undo")
    assert code == 0, err
    assert json.loads(claude_json().read_text()) == {
        "mcpServers": {},
        "theme": "dark",
        "numStartups": 7,
    }
    assert json.loads(settings.read_text()) == {"hooks": {}, "model": "opus", "numStartups": 7}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_doc=props.json_docs, empty_servers=st.booleans(), host_key=props.keys)
def test_once_the_host_changed_the_file_uninstall_leaves_exactly_the_persons_data(
    json_doc: tuple[dict[str, Any], Any, bool, bool], empty_servers: bool, host_key: str
) -> None:
    """No base to return to: memhub's servers go, and with them only what memhub created;
    every member of the person's (an empty `mcpServers` too) and of the host's stays."""
    data, indent, with_servers, ascii_only = json_doc
    if empty_servers and not with_servers:
        data = {**data, "mcpServers": {}}
    json_text = props.render_json((data, indent, with_servers, ascii_only))
    with tempfile.TemporaryDirectory(prefix="memhub-own-") as tmp:
        root = Path(tmp)
        (root / "hub").mkdir()
        (root / "hub" / "hub.yaml").write_text(props.HUB_YAML)
        home, memhub_home = root / "home", root / "home" / ".memhub"
        target = home / ".claude" / ".claude.json"
        target.parent.mkdir(parents=True)
        target.write_bytes(json_text.encode())
        scope = Scope("user", home, None, {"CLAUDE_CONFIG_DIR": str(home / ".claude")})
        hub = load(root / "hub")

        def apply(remove_all: bool) -> None:
            apply_install(
                memhub_home,
                lambda: plan_install(hub, scope, ("claude",), memhub_home, remove_all=remove_all),
            )

        apply(False)
        applied = json.loads(target.read_text())
        host_value = {"written": "by the host"}
        applied = {**applied, host_key: host_value} if host_key != "mcpServers" else applied
        target.write_text(json.dumps(applied, indent=2))  # the host rewrites the whole file
        apply(True)
        expected = json.loads(json_text)
        if host_key != "mcpServers":
            expected[host_key] = host_value
        assert json.loads(target.read_text()) == expected
