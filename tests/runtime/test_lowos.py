"""lowos: the hot path's OS calls answer as `os` and `os.path` do."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from memhub.runtime import lowos

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="lowos wraps os there")


@pytest.mark.parametrize(
    "path", ["", "/", "//", "a", "a/", "a/b", "/a/b", "/a/b/", "a//b", "//a", "///a/b//c", "./x"]
)
def test_dirname_is_os_paths(path: str) -> None:
    assert lowos.dirname(path) == os.path.dirname(path)


def test_kinds_of_path_are_os_paths(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "d")
    (tmp_path / "dangling").symlink_to(tmp_path / "missing")
    for name in ("f", "d", "link", "dangling", "missing", "f/below"):
        path = str(tmp_path / name)
        assert lowos.is_dir(path) == os.path.isdir(path), name
        assert lowos.is_file(path) == os.path.isfile(path), name
        assert lowos.exists(path) == os.path.exists(path), name


def test_makedirs_makes_missing_parents_and_accepts_an_existing_folder(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c"
    lowos.makedirs(str(target), 0o700)
    assert target.is_dir() and (target.stat().st_mode & 0o777) == 0o700
    lowos.makedirs(str(target))  # already there
    lowos.makedirs(str(tmp_path / "x" / "y") + "/")  # a trailing separator
    assert (tmp_path / "x" / "y").is_dir()


def test_makedirs_refuses_a_file_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(OSError):
        lowos.makedirs(str(tmp_path / "f"))
    with pytest.raises(OSError):
        lowos.makedirs(str(tmp_path / "f" / "below"))


def test_listdir_of_a_missing_folder_is_empty(tmp_path: Path) -> None:
    (tmp_path / "n").write_text("")
    assert lowos.listdir(str(tmp_path)) == ["n"]
    assert lowos.listdir(str(tmp_path / "missing")) == []
