"""`memhub import --from-repo` on what cannot be read safely: a link that dangles, loops or
leaves the repository, a FIFO, socket or device, an over-size file. None is followed, opened
or read; each costs its own path alone (one `cannot_reproduce` row naming it and why), every
other plugin file is given back and the written hub builds."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main

from tests.hubs import REPO

FIXTURE = REPO / "tests" / "data" / "repos" / "claude-only"
PLUGIN = "plugins/review-kit"
SKILL = f"{PLUGIN}/skills/lint/SKILL.md"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(FIXTURE, copy)
    return copy


def imported(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """The round trip of a written import (exit 1: rows); the written hub builds."""
    into = tmp_path / "hub"
    code = main(["import", "--from-repo", str(repo), "--into", str(into), "--yes", "--json"])
    reply = json.loads(capsys.readouterr().out)
    assert code == 1, reply
    assert main(["build", str(into), "--out", str(tmp_path / "out")]) == 0
    trip: dict[str, Any] = reply["data"]["round_trip"]
    return trip


def rows(trip: dict[str, Any]) -> dict[str, str]:
    return {row["path"]: row["reason"] for row in trip["cannot_reproduce"]}


def given_back_but_one(trip: dict[str, Any], path: str) -> None:
    """Only `path` is lost: every other file comes back, the skill's SKILL.md among them."""
    assert list(rows(trip)) == [path]
    files = trip["files"]
    assert files["reproduced"] == files["total"] - 1 and files["total"] > 5


def nothing_of(tmp_path: Path, text: bytes) -> None:
    """No file of the written hub or its build holds `text` (nothing outside was read)."""
    for folder in (tmp_path / "hub", tmp_path / "out"):
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                assert text not in path.read_bytes(), path


def test_a_dangling_link_in_a_skill_folder_is_one_row(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assets = repo / PLUGIN / "skills" / "lint" / "assets"
    assets.mkdir()
    (assets / "X.png").symlink_to("../../../../../.agents/lint/X.png")
    trip = imported(repo, tmp_path, capsys)
    path = f"{PLUGIN}/skills/lint/assets/X.png"
    given_back_but_one(trip, path)
    assert "'../../../../../.agents/lint/X.png' that reaches nothing" in rows(trip)[path]
    assert SKILL not in rows(trip)  # the skill itself comes back


def test_a_link_leaving_the_repository_is_one_row_and_nothing_outside_is_read(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not yours\n")
    (repo / PLUGIN / "scripts" / "leak.txt").symlink_to(secret)
    trip = imported(repo, tmp_path, capsys)
    given_back_but_one(trip, f"{PLUGIN}/scripts/leak.txt")
    assert "leaving the repository: not followed" in rows(trip)[f"{PLUGIN}/scripts/leak.txt"]
    nothing_of(tmp_path, b"not yours")


def test_a_folder_link_leaving_the_repository_is_one_row(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "vendored.txt").write_text("not yours either\n")
    (repo / PLUGIN / "vendor").symlink_to(outside, target_is_directory=True)
    trip = imported(repo, tmp_path, capsys)
    given_back_but_one(trip, f"{PLUGIN}/vendor")
    nothing_of(tmp_path, b"not yours either")


def test_a_link_looping_into_its_own_folder_is_one_row(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / PLUGIN / "loop").symlink_to(repo / PLUGIN, target_is_directory=True)
    trip = imported(repo, tmp_path, capsys)
    given_back_but_one(trip, f"{PLUGIN}/loop")
    assert "looping back" in rows(trip)[f"{PLUGIN}/loop"]


def test_a_link_to_itself_is_one_row(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / PLUGIN / "scripts" / "self").symlink_to("self")
    trip = imported(repo, tmp_path, capsys)
    given_back_but_one(trip, f"{PLUGIN}/scripts/self")


def test_a_fifo_is_one_row_and_never_opened(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(repo / PLUGIN / "scripts" / "pipe")  # opening it to read would block
    trip = imported(repo, tmp_path, capsys)
    given_back_but_one(trip, f"{PLUGIN}/scripts/pipe")
    assert "a FIFO, socket or device" in rows(trip)[f"{PLUGIN}/scripts/pipe"]


def test_an_over_size_file_is_one_row_not_read(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with open(repo / PLUGIN / "scripts" / "blob.bin", "wb") as handle:
        handle.truncate(10 * 1024 * 1024 + 1)  # sparse: costs no disk
    trip = imported(repo, tmp_path, capsys)
    given_back_but_one(trip, f"{PLUGIN}/scripts/blob.bin")
    assert "10485761 bytes, over the 10 MiB" in rows(trip)[f"{PLUGIN}/scripts/blob.bin"]


def test_a_dangling_link_of_no_plugin_is_listed_with_the_files_of_none(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "gone.md").symlink_to("nowhere.md")
    into = tmp_path / "hub"
    code = main(["import", "--from-repo", str(repo), "--into", str(into), "--yes", "--json"])
    reply = json.loads(capsys.readouterr().out)
    assert code == 0 and reply["data"]["round_trip"]["cannot_reproduce"] == []
    assert "docs/gone.md" in reply["data"]["not_imported"]
