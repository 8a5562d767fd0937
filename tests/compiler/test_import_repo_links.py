"""`import --from-repo` of a repository with links (repo_tree, repo_links, roundtrip): a link
inside a plugin folder whose target stays in the imported plugins comes back as a link; any
other is read as its target's bytes and listed as not reproduced as a link."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo_links import KEPT_NOT
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

from tests.hubs import REPO

FIXTURE = REPO / "tests" / "data" / "repos" / "linked"
DEV = "plugins/tools-dev"


def trip(root: Path):
    tree = read_tree(root)
    imported = import_repo(tree)
    return imported, round_trip(tree, imported)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(FIXTURE, copy, symlinks=True)
    return copy


def test_the_fixture_round_trips_whole_with_its_links_kept() -> None:
    imported, result = trip(FIXTURE)
    assert result.unreproduced == []
    assert (result.files_same, result.files_total) == (9, 9)
    assert (result.links_same, result.links_total) == (3, 3)
    assert imported.links == {
        f"{DEV}/hooks": "../tools/hooks",
        f"{DEV}/scripts": "../tools/scripts",
        f"{DEV}/skills": "../tools/skills",
    }
    hub = yaml.safe_load(imported.files[f"{DEV}/hub.yaml"][0])
    assert {"from": "skills", "link": True} in hub["files"]
    assert "skills" not in hub  # what the link reaches is the target's


def test_the_imported_hub_folder_holds_the_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    assert main(["import", "--from-repo", str(FIXTURE), "--into", str(into), "--yes"]) == 0
    assert "9/9 files reproduced" in capsys.readouterr().out
    assert os.readlink(into / DEV / "skills") == "../tools/skills"
    assert os.readlink(into / DEV / "hooks") == "../tools/hooks"
    # tools' hub generates its hooks file: the link reaches it in the bundle, not here
    assert not (into / "plugins" / "tools" / "hooks").exists()


def test_a_link_to_a_folder_of_no_plugin_ships_its_bytes_and_is_listed(repo: Path) -> None:
    (repo / "shared").mkdir()
    (repo / "shared" / "notes.md").write_text("shared notes\n")
    os.symlink("../../shared", repo / "plugins" / "tools" / "notes")
    imported, result = trip(repo)
    assert "plugins/tools/notes" not in imported.links
    listed = {u.path: u.reason for u in result.unreproduced}
    assert listed == {"plugins/tools/notes": KEPT_NOT}
    assert (result.files_same, result.files_total) == (10, 10)  # notes.md, as bytes
    assert (result.links_same, result.links_total) == (3, 4)


def test_an_absolute_link_inside_the_repository_is_not_kept(repo: Path) -> None:
    os.symlink(repo / "plugins" / "tools" / "scripts", repo / "plugins" / "tools" / "bin")
    imported, result = trip(repo)
    assert "plugins/tools/bin" not in imported.links
    assert {u.path for u in result.unreproduced} == {"plugins/tools/bin"}


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("../../..", "leaving the repository: not followed"),
        ("../tools/gone", "that reaches nothing"),
    ],
)
def test_a_link_leaving_the_repository_or_dangling_is_one_row(
    repo: Path, target: str, said: str
) -> None:
    """Not followed and not kept (the build refuses a link reaching nothing): one row."""
    (repo / DEV / "skills").unlink()
    os.symlink(target, repo / DEV / "skills")
    tree = read_tree(repo)
    assert tree[f"{DEV}/skills"].link == target and not tree[f"{DEV}/skills"].folder
    assert not any(p.startswith(f"{DEV}/skills/") for p in tree)  # nothing read through it
    imported, result = trip(repo)
    assert f"{DEV}/skills" not in imported.links
    listed = {u.path: u.reason for u in result.unreproduced}
    assert list(listed) == [f"{DEV}/skills"] and said in listed[f"{DEV}/skills"]
    assert (result.links_same, result.links_total) == (2, 2)  # the other links still kept


def test_a_link_looping_into_its_own_folder_is_one_row(repo: Path) -> None:
    os.symlink("..", repo / "plugins" / "tools" / "skills" / "up")
    tree = read_tree(repo)
    assert tree["plugins/tools/skills/up"].unread is not None
    assert "looping back" in str(tree["plugins/tools/skills/up"].unread)


def test_a_link_is_recorded_with_its_target_text_and_its_files_under_it(repo: Path) -> None:
    tree = read_tree(repo)
    assert tree[f"{DEV}/skills"].link == "../tools/skills" and tree[f"{DEV}/skills"].folder
    assert (
        tree[f"{DEV}/skills/greet/SKILL.md"].content
        == (repo / "plugins" / "tools" / "skills" / "greet" / "SKILL.md").read_bytes()
    )


def test_a_skill_folder_that_is_a_link_stays_a_link_beside_the_skills(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`skills/b -> ../../tools/skills/<x>` in a plugin with skills of its own: kept as a
    link shipped beside the hub's skills (two copies of one skill make Copilot CLI load
    neither), and the build writes the link back."""
    dev = repo / DEV
    (dev / "skills").unlink()  # the fixture links the whole folder: a real one here
    (dev / "skills" / "own").mkdir(parents=True)
    (dev / "skills" / "own" / "SKILL.md").write_text("---\nname: own\ndescription: O.\n---\nO\n")
    target = next(p for p in (repo / "plugins/tools/skills").iterdir() if p.is_dir())
    (dev / "skills" / target.name).symlink_to(f"../../tools/skills/{target.name}")
    imported, result = trip(repo)
    assert imported.links[f"{DEV}/skills/{target.name}"] == f"../../tools/skills/{target.name}"
    assert result.unreproduced == []
    into, out = tmp_path / "hub", tmp_path / "out"
    assert main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    capsys.readouterr()
    assert os.readlink(out / DEV / "skills" / target.name) == f"../../tools/skills/{target.name}"
    assert (out / DEV / "skills" / "own" / "SKILL.md").read_text().startswith("---\nname: own")
