"""Skills in group folders (`skills/<group>/<name>/SKILL.md`): loaded with their group, kept
in the shared plugin folder and the folders of hosts that load them (Codex, OpenCode,
Copilot), written flat for Gemini CLI and Agent Plugins, a coverage row for each host that
does not load them where they are (tests/e2e/test_skill_groups_hosts.py runs the CLIs), and
read back by `import --from-repo`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec import HubError, load

from tests.hubs import REPO
from tests.hubspec.test_load import write_hub

HELLO = "---\nname: hello\ndescription: Says hello.\n---\n\nHello.\n"
FLAT = "---\nname: flat\ndescription: Plain.\n---\n\nFlat.\n"
HOSTS = "hosts: [claude, codex, cursor, gemini, opencode, copilot, agent-plugins]\n"


def grouped(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    files = {"skills/group/hello/SKILL.md": HELLO, "skills/flat/SKILL.md": FLAT, **(extra or {})}
    return write_hub(tmp_path / "hub", HOSTS, files)


def test_a_skill_of_a_group_folder_loads_with_its_group(tmp_path: Path) -> None:
    hub = load(grouped(tmp_path, {"skills/group/NOTES.md": "beside the skills\n"}))
    by_name = {s.name: s for s in hub.skills}
    assert (by_name["hello"].group, by_name["hello"].folder) == ("group", "group/hello")
    assert (by_name["flat"].group, by_name["flat"].folder) == (None, "flat")
    assert [f.path for f in by_name["hello"].files] == ["SKILL.md"]


def test_each_bundle_folder_keeps_or_flattens_the_group(tmp_path: Path) -> None:
    paths = {a.path for a in build(load(grouped(tmp_path))).artifacts}
    kept = ["plugins/p", "opencode/p", "copilot/p"]
    flat = ["gemini/p", "agent-plugins/p"]
    assert {f"{b}/skills/group/hello/SKILL.md" for b in kept} <= paths
    assert {f"{b}/skills/hello/SKILL.md" for b in flat} <= paths
    assert not {f"{b}/skills/hello/SKILL.md" for b in kept} & paths
    assert not {f"{b}/skills/group/hello/SKILL.md" for b in flat} & paths


def test_each_host_that_does_not_load_the_group_has_a_row(tmp_path: Path) -> None:
    rows = {
        r.host: r
        for r in build(load(grouped(tmp_path))).coverage
        if r.component == "skill" and r.id == "hello"
    }
    assert set(rows) == {"claude", "cursor", "gemini", "agent-plugins"}
    assert (rows["claude"].status, rows["claude"].target) == (
        "unsupported",
        "skills/group/hello/SKILL.md",
    )
    assert rows["claude"].reason.startswith("Claude Code 2.1 loads only skills/<name>/SKILL.md")
    assert rows["cursor"].status == "unsupported"
    assert (rows["gemini"].status, rows["gemini"].target) == ("caveat", "skills/hello/SKILL.md")
    assert rows["gemini"].reason == (
        "written flat, out of its group folder group/: Gemini CLI 0.61 loads only "
        "skills/<name>/SKILL.md (gemini skills list)"
    )


def test_one_name_in_two_groups_is_refused(tmp_path: Path) -> None:
    """Flattening is lossless only while skill folders are unique across groups."""
    root = grouped(tmp_path, {"skills/other/hello/SKILL.md": HELLO})
    with pytest.raises(HubError) as caught:
        load(root)
    assert "skill folder 'hello' is the name of skill 'hello' too" in str(caught.value)


def test_a_group_folder_link_is_refused(tmp_path: Path) -> None:
    root = grouped(tmp_path)
    os.symlink(root / "skills" / "group", root / "skills" / "linked")
    with pytest.raises(HubError) as caught:
        load(root)
    assert "'linked' is not a skill folder" in str(caught.value)


def test_a_folder_inside_a_group_without_skill_md_is_refused(tmp_path: Path) -> None:
    root = grouped(tmp_path, {"skills/group/assets/logo.txt": "x\n"})
    with pytest.raises(HubError) as caught:
        load(root)
    assert f"{root / 'skills/group/assets/SKILL.md'}:1:1: missing SKILL.md" in str(caught.value)


def test_a_repository_with_skill_groups_round_trips_whole() -> None:
    tree = read_tree(REPO / "tests" / "data" / "repos" / "skill-groups")
    result = round_trip(tree, import_repo(tree))
    assert result.unreproduced == []
    assert (result.files_same, result.files_total) == (7, 7)
