"""The no-op memo digests what apply just wrote from the bytes it wrote: that digest must be
the one a recall computes from the disk, or every first re-apply would miss its memo (and
a path changed since must not match)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memhub.compiler.install.noopmemo import content_digest, written_digest

KEY = b"k" * 32
TREES = [
    [("SKILL.md", b"---\nname: a\n---\n")],
    [("SKILL.md", b"x"), ("scripts/run.sh", b"#!/bin/sh\n"), ("scripts/lib/util.py", b"")],
    [("a/b/c/d.txt", b"deep"), ("a/e.txt", b"e"), ("SKILL.md", b"s"), ("a-b.txt", b"-")],
    [("z.md", b"\0\xff bytes"), ("y/z.md", b"nested")],
]


@pytest.mark.parametrize("files", TREES, ids=lambda files: ",".join(rel for rel, _ in files))
def test_a_written_folder_digests_as_the_disk_does(
    files: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    folder = tmp_path / "skill"
    for rel, data in files:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    assert written_digest(files, KEY) == content_digest(os.fspath(folder), KEY)
    (folder / files[0][0]).write_bytes(b"edited")
    assert written_digest(files, KEY) != content_digest(os.fspath(folder), KEY)


def test_a_written_file_digests_as_the_disk_does(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_bytes(b'[mcp_servers.a]\ncommand = "npx"\n')
    assert written_digest(target.read_bytes(), KEY) == content_digest(os.fspath(target), KEY)
    assert written_digest(b"other", KEY) != content_digest(os.fspath(target), KEY)


def test_an_extra_file_in_the_folder_changes_its_digest(tmp_path: Path) -> None:
    folder = tmp_path / "skill"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"s")
    (folder / "stray.txt").write_bytes(b"someone else's")
    assert written_digest([("SKILL.md", b"s")], KEY) != content_digest(os.fspath(folder), KEY)
