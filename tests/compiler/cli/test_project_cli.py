"""`memhub project connect | disconnect | list` against real git checkouts and worktrees."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from memhub.runtime.memory import projects as P

from tests.compiler.cli.memkit import Memhub, home, memhub_process, repo, spawn, worktree


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


def registry() -> dict[str, object]:
    return json.loads((home() / "memory" / "projects.json").read_text())["projects"]


def test_connect_makes_a_project_with_a_random_id(mh: Memhub, tmp_path: Path) -> None:
    app = repo(tmp_path / "app")
    ran = mh("project", "connect", "--json", cwd=app)
    assert ran.code == 0, ran.err
    project = ran.data["project"]
    assert ran.data["action"] == P.CREATED
    assert P.ID_PATTERN.fullmatch(project["id"]) and "app" not in project["id"]
    assert project["name"] == "app" and project["shared"] is True
    assert list(registry()) == [project["id"]]
    text = mh("project", "connect", cwd=app)
    assert text.code == 0 and "already connected" in text.out and project["id"] in text.out


def test_a_subfolder_and_a_second_worktree_join_the_project(mh: Memhub, tmp_path: Path) -> None:
    app = repo(tmp_path / "app", commit=True)
    first = mh("project", "connect", "--json", cwd=app).data["project"]["id"]
    (app / "src" / "deep").mkdir(parents=True)
    sub = mh("project", "connect", "--json", cwd=app / "src" / "deep")
    assert sub.data["project"]["id"] == first and sub.data["action"] == P.ALREADY
    other = worktree(app, tmp_path / "elsewhere" / "feature")
    wt = mh("project", "connect", str(other), "--json")
    assert wt.data["project"]["id"] == first and wt.data["action"] == P.WORKTREE
    assert len(registry()) == 1


def test_two_repos_with_the_same_folder_name_are_two_projects(mh: Memhub, tmp_path: Path) -> None:
    one = mh("project", "connect", str(repo(tmp_path / "a" / "app")), "--json").data
    two = mh("project", "connect", str(repo(tmp_path / "b" / "app")), "--json").data
    assert one["project"]["id"] != two["project"]["id"]
    assert two["action"] == P.CREATED_NAMESAKE
    assert one["project"]["name"] == two["project"]["name"] == "app"


def test_a_moved_checkout_is_rebound_only_with_its_id(mh: Memhub, tmp_path: Path) -> None:
    pid = mh("project", "connect", str(repo(tmp_path / "app")), "--json").data["project"]["id"]
    moved = tmp_path / "moved"
    shutil.move(tmp_path / "app", moved)
    listed = mh("project", "list")
    assert "(gone)" in listed.out
    ran = mh("project", "connect", "--project", pid, "--json", cwd=moved)
    assert ran.code == 0, ran.err
    assert ran.data["action"] == P.REBOUND and ran.data["project"]["id"] == pid
    assert [b["toplevel"] for b in ran.data["project"]["bindings"]] == [str(moved.resolve())]


def test_outside_a_checkout_connect_refuses_and_writes_nothing(mh: Memhub, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    ran = mh("project", "connect", str(plain))
    assert ran.code == 2 and "not inside a git checkout" in ran.err
    assert not (home() / "memory" / "projects.json").exists()
    assert (
        mh("project", "connect", "--json", cwd=plain).json()["errors"][0]["error"] == "InputError"
    )


@pytest.mark.parametrize("bad", ["../x", "/etc/passwd", "p-nothex", "p-0123456789ab"])
def test_a_bad_or_unknown_project_id_is_refused(mh: Memhub, tmp_path: Path, bad: str) -> None:
    app = repo(tmp_path / "app")
    ran = mh("project", "connect", "--project", bad, cwd=app)
    assert ran.code == 2, ran.err
    assert ran.err.startswith("memhub: ") and ran.err.endswith("\n")
    assert not (home() / "memory" / "projects.json").exists()


def test_shared_is_switched_and_kept(mh: Memhub, tmp_path: Path) -> None:
    app = repo(tmp_path / "app")
    off = mh("project", "connect", "--no-shared", "--json", cwd=app).data["project"]
    assert off["shared"] is False
    assert mh("project", "connect", "--json", cwd=app).data["project"]["shared"] is False
    assert mh("project", "connect", "--shared", "--json", cwd=app).data["project"]["shared"]
    assert (
        mh("project", "connect", "--name", "renamed", "--json", cwd=app).data["project"]["name"]
        == "renamed"
    )


def test_disconnect_by_id_by_folder_and_reconnect(mh: Memhub, tmp_path: Path) -> None:
    app = repo(tmp_path / "app")
    pid = mh("project", "connect", "--json", cwd=app).data["project"]["id"]
    (app / "sub").mkdir()
    ran = mh("project", "disconnect", "--json", cwd=app / "sub")
    assert ran.code == 0 and ran.data["project"]["state"] == P.DISCONNECTED
    assert mh("project", "list", "--json").data["projects"][0]["state"] == P.DISCONNECTED
    again = mh("project", "connect", "--json", cwd=app).data
    assert again["action"] == P.RECONNECTED and again["project"]["id"] == pid
    assert mh("project", "disconnect", pid).code == 0
    assert "disconnected" in mh("project", "list").out


@pytest.mark.parametrize("target", ["p-0123456789ab", "../x", "/etc/passwd"])
def test_disconnect_of_nothing_known_is_refused(mh: Memhub, tmp_path: Path, target: str) -> None:
    mh("project", "connect", str(repo(tmp_path / "app")))
    before = (home() / "memory" / "projects.json").read_bytes()
    ran = mh("project", "disconnect", target)
    assert ran.code == 2 and "project" in ran.err
    assert (home() / "memory" / "projects.json").read_bytes() == before


def test_list_empty_and_a_malformed_registry(mh: Memhub, tmp_path: Path) -> None:
    assert "no projects" in mh("project", "list").out
    assert mh("project", "list", "--json").data == {"projects": []}
    target = home() / "memory" / "projects.json"
    target.parent.mkdir(parents=True)
    target.write_text('{"version": 1,\n "projects": [}\n')
    ran = mh("project", "list")
    assert ran.code == 2 and "projects.json:2:" in ran.err
    assert mh("project", "list", "--json").json()["errors"][0]["error"] == "RegistryError"
    assert target.read_text() == '{"version": 1,\n "projects": [}\n'


def test_concurrent_connects_all_land(tmp_path: Path) -> None:
    """Six processes connecting six repositories at once: the lock keeps every one."""
    repos = [repo(tmp_path / f"r{i}") for i in range(6)]
    children = [spawn("project", "connect", "--json", cwd=r) for r in repos]
    for child in children:
        _out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    found = memhub_process("project", "list", "--json", cwd=tmp_path).data["projects"]
    assert sorted(p["bindings"][0]["toplevel"] for p in found) == sorted(
        str(r.resolve()) for r in repos
    )


@pytest.mark.parametrize("name", ["", "   ", "a\nb", "tab\there", "x" * 201, "esc\x1b[2J"])
def test_an_unusable_name_is_refused_before_the_registry_is_written(
    mh: Memhub, tmp_path: Path, name: str
) -> None:
    app = repo(tmp_path / "app")
    ran = mh("project", "connect", "--name", name, cwd=app)
    assert ran.code == 2 and "--name" in ran.err
    assert not (home() / "memory" / "projects.json").exists()
    assert mh("project", "connect", "--name", "fine name", cwd=app).code == 0
    assert mh("project", "list", cwd=app).code == 0
