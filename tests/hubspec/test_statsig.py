"""Folder stat signatures: any change a person can make to a folder changes its signature."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from memhub.hubspec import statsig


def make(root: Path) -> Path:
    folder = root / "skill"
    (folder / "scripts").mkdir(parents=True)
    (folder / "empty").mkdir()
    (folder / "SKILL.md").write_text("---\nname: skill\n---\nbody\n")
    (folder / "scripts" / "run.sh").write_text("#!/bin/sh\n")
    return folder


def same_size_rewrite_with_old_mtime(folder: Path) -> None:
    path = folder / "SKILL.md"
    info = path.stat()
    path.write_text(path.read_text().replace("body", "BODY"))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


CHANGES: dict[str, Callable[[Path], object]] = {
    "file added in an empty folder": lambda f: (f / "empty" / "new.md").write_text("x"),
    "file added at the top": lambda f: (f / "new.md").write_text("x"),
    "file removed": lambda f: (f / "scripts" / "run.sh").unlink(),
    "same-size rewrite, mtime put back": same_size_rewrite_with_old_mtime,
    "mode changed": lambda f: (f / "scripts" / "run.sh").chmod(0o755),
    "file replaced by a link": lambda f: (
        (f / "SKILL.md").unlink(),
        (f / "SKILL.md").symlink_to(f / "scripts" / "run.sh"),
    ),
}


@pytest.mark.parametrize("change", CHANGES)
def test_every_change_shows_in_the_signature(tmp_path: Path, change: str) -> None:
    folder = make(tmp_path)
    entries = statsig.listing(folder)
    assert entries == ["", "SKILL.md", "empty", "scripts", "scripts/run.sh"]
    before = statsig.signature(folder, entries)
    assert before is not None and statsig.signature(folder, entries) == before
    CHANGES[change](folder)
    assert statsig.signature(folder, entries) != before


def test_fresh_signatures_are_not_settled(tmp_path: Path) -> None:
    folder = make(tmp_path)
    sig = statsig.signature(folder, statsig.listing(folder))
    assert sig is not None and not statsig.settled(sig)
    old = sig[1] - statsig.RACY_NS - 1
    for path in [folder, *folder.rglob("*")]:
        os.utime(path, ns=(old, old), follow_symlinks=False)
    # ctime cannot be set back, so only a signature taken long enough ago settles
    assert not statsig.settled(statsig.signature(folder, statsig.listing(folder)))
