"""Where `memhub memory add` files a record: the project of the git checkout it runs in (a
subfolder, another worktree), or none with a message (a moved checkout, TMPDIR, no checkout)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.compiler.cli.memkit import Memhub, add, connected, record_files, worktree


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


ADD = ("memory", "add", "--kind", "fact", "--title", "A fact", "--body", "b", "--yes")


def test_a_subfolder_files_under_the_project(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    deep = top / "src" / "pkg"
    deep.mkdir(parents=True)
    rid = add(mh, deep, "From a subagent in a subfolder")
    assert [p.stem for p in record_files(pid)] == [rid]


def test_a_second_worktree_shares_the_project(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    other = worktree(top, tmp_path / "elsewhere" / "feature")
    rid = add(mh, other, "From the feature worktree")
    assert [p.stem for p in record_files(pid)] == [rid]
    assert rid in mh("memory", "list", cwd=top).out


def test_a_moved_checkout_files_nothing_and_says_why(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    moved = tmp_path / "moved"
    shutil.move(top, moved)
    ran = mh(*ADD, cwd=moved)
    assert ran.code == 1, ran.err
    assert "is gone" in ran.err and "memhub project connect --project" in ran.err
    assert record_files("*") == []
    rebound = mh("project", "connect", "--project", pid, cwd=moved)
    assert rebound.code == 0
    rid = add(mh, moved, "After the rebind")
    assert [p.stem for p in record_files(pid)] == [rid]


def test_a_session_in_tmpdir_files_nothing(mh: Memhub, tmp_path: Path) -> None:
    connected(mh, tmp_path / "app")
    ran = mh(*ADD, cwd=Path(tempfile.gettempdir()))
    assert ran.code == 1 and "not inside a git checkout" in ran.err
    assert record_files("*") == []
    as_json = mh(*ADD, "--json", cwd=Path(tempfile.gettempdir())).json()
    assert as_json["errors"][0]["error"] == "NoProject"


def test_an_unconnected_checkout_files_nothing(mh: Memhub, tmp_path: Path) -> None:
    from tests.compiler.cli.memkit import repo

    plain = repo(tmp_path / "plain")
    ran = mh(*ADD, cwd=plain)
    assert ran.code == 1 and "memhub project connect" in ran.err
    assert record_files("*") == []
    listing = mh("memory", "list", cwd=plain)
    assert listing.code == 0 and "only shared records" in listing.err
    assert mh("memory", "list", "--scope", "project", cwd=plain).code == 1


def test_two_repos_with_the_same_folder_name_are_two_memories(mh: Memhub, tmp_path: Path) -> None:
    one, p1 = connected(mh, tmp_path / "a" / "app")
    two, p2 = connected(mh, tmp_path / "b" / "app")
    assert p1 != p2
    r1 = add(mh, one, "Only in the first app")
    r2 = add(mh, two, "Only in the second app")
    assert [p.stem for p in record_files(p1)] == [r1]
    assert [p.stem for p in record_files(p2)] == [r2]
    assert {r["id"] for r in mh("memory", "list", "--json", cwd=two).data["records"]} == {r2}


def test_project_option_reads_another_checkout(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    rid = add(mh, top, "Seen through --project")
    elsewhere = tmp_path / "outside"
    elsewhere.mkdir()
    listed = mh("memory", "list", "--project", str(top), "--json", cwd=elsewhere).data
    assert listed["project"]["id"] == pid and [r["id"] for r in listed["records"]] == [rid]


def test_a_disconnected_project_keeps_its_records_behind_the_gate(
    mh: Memhub, tmp_path: Path
) -> None:
    top, pid = connected(mh, tmp_path / "app")
    rid = add(mh, top, "Kept while disconnected")
    assert mh("project", "disconnect", cwd=top).code == 0
    assert [p.stem for p in record_files(pid)] == [rid]
    ran = mh("memory", "get", rid, cwd=top)
    assert ran.code == 1 and "disconnected" not in ran.out
    assert mh(*ADD, cwd=top).code == 1
    mh("project", "connect", cwd=top)
    assert mh("memory", "get", rid, cwd=top).code == 0
