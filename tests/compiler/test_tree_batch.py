"""Folder writes queued in a Transaction: one sync for many folders, order and safety kept."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.safewrite import durable
from memhub.compiler.safewrite.errors import StaleTargetError, WriteError
from memhub.compiler.safewrite.lock import operation_lock
from memhub.compiler.safewrite.transaction import Transaction
from memhub.compiler.safewrite.undo import undo_last

SKILL = {
    "SKILL.md": (b"---\nname: s\n---\nbody\n", 0o644),
    "scripts/run.sh": (b"#!/bin/sh\n", 0o755),
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path)) / "memhub"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = Path(os.path.realpath(tmp_path)) / "root"
    folder.mkdir()
    return folder


def leftovers(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*") if ".memhub-" in p.name)


def count_syncs(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count os.fsync and syncfs calls from here on."""
    counts = {"fsync": 0, "syncfs": 0}
    real_fsync, real_syncfs = os.fsync, durable._syncfs

    def fsync(fd: int) -> None:
        counts["fsync"] += 1
        real_fsync(fd)

    def syncfs(fd: int) -> None:
        counts["syncfs"] += 1
        real_syncfs(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(durable, "_syncfs", syncfs)
    return counts


def write_skills(home: Path, folder: Path, count: int) -> None:
    with operation_lock(home), Transaction(home) as tx:
        for n in range(count):
            tx.write_tree(folder / f"skill-{n}", SKILL)


@pytest.mark.skipif(durable.syncfs_fn() is None, reason="syncfs is Linux only")
def test_many_folders_cost_the_syncs_of_one(
    home: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_skills(home, root / "warm", 1)  # the home's own folders exist from here on
    counts = count_syncs(monkeypatch)
    write_skills(home, root / "few", 3)
    few = dict(counts)
    counts.update(fsync=0, syncfs=0)
    write_skills(home, root / "many", 60)
    assert counts == few  # not one more sync for 57 more folders
    assert counts["syncfs"] == 1 and counts["fsync"] < 10
    assert sorted(p.name for p in (root / "many").iterdir()) == sorted(
        f"skill-{n}" for n in range(60)
    )
    assert (root / "many" / "skill-7" / "scripts" / "run.sh").stat().st_mode & 0o111
    assert leftovers(root) == []


def test_without_syncfs_every_file_and_folder_is_fsynced_once(
    home: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_skills(home, root / "warm", 1)
    monkeypatch.setattr(durable, "_SYNCFS", None)
    counts = count_syncs(monkeypatch)
    write_skills(home, root / "few", 3)
    few = counts["fsync"]
    counts.update(fsync=0)
    write_skills(home, root / "many", 13)
    # each skill: two files, two folders (the skill and scripts/), fsynced once each
    assert counts["fsync"] - few == 10 * 4 and counts["syncfs"] == 0
    assert (root / "many" / "skill-12" / "SKILL.md").read_bytes() == SKILL["SKILL.md"][0]


def test_queued_folders_keep_their_order_with_other_changes(home: Path, root: Path) -> None:
    skills = root / "skills"
    write_skills(home, skills, 2)
    with operation_lock(home), Transaction(home) as tx:
        tx.delete_tree(skills / "skill-0")
        tx.delete_tree(skills / "skill-1")
        assert tx.remove_empty_dir(skills)  # sees the folders gone: the queue ran first
        tx.write_tree(root / "a", SKILL)
        tx.write_tree(root / "a", {"only.md": (b"second\n", 0o644)})  # same target again
    assert not skills.exists()
    assert sorted(p.name for p in (root / "a").iterdir()) == ["only.md"]
    assert leftovers(root) == []
    undo_last(home)
    assert sorted(p.name for p in skills.iterdir()) == ["skill-0", "skill-1"]
    assert not (root / "a").exists()


def test_a_file_written_inside_a_queued_folder_lands_in_it(home: Path, root: Path) -> None:
    with operation_lock(home), Transaction(home) as tx:
        tx.write_tree(root / "b", SKILL)
        tx.write(root / "b" / "SKILL.md", b"edited\n")
        tx.write_tree(root / "c", SKILL)
        assert tx.changed == [root / "b", root / "b" / "SKILL.md", root / "c"]
    assert (root / "b" / "SKILL.md").read_bytes() == b"edited\n"
    assert (root / "b" / "scripts" / "run.sh").is_file() and (root / "c" / "SKILL.md").is_file()


def test_a_folder_changed_before_the_queue_runs_rolls_back_the_run(home: Path, root: Path) -> None:
    write_skills(home, root, 1)
    target = root / "skill-0"
    with pytest.raises(StaleTargetError), operation_lock(home), Transaction(home) as tx:
        tx.write_tree(root / "new", SKILL)
        tx.write_tree(target, {"SKILL.md": (b"mine\n", 0o644)})
        (target / "SKILL.md").write_bytes(b"the user's edit\n")  # before the queue runs
    assert (target / "SKILL.md").read_bytes() == b"the user's edit\n"
    assert not (root / "new").exists()
    assert leftovers(root) == []


def test_a_failing_sync_writes_nothing(
    home: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_skills(home, root, 1)
    before = (root / "skill-0" / "SKILL.md").read_bytes()

    def fails(*_: Any) -> None:
        raise OSError(5, "injected")

    monkeypatch.setattr(durable, "_syncfs", fails)
    monkeypatch.setattr(durable, "_SYNCFS", fails)
    with pytest.raises(WriteError), operation_lock(home), Transaction(home) as tx:
        tx.write_tree(root / "skill-0", {"SKILL.md": (b"new\n", 0o644)})
        tx.write_tree(root / "skill-1", SKILL)
    assert (root / "skill-0" / "SKILL.md").read_bytes() == before
    assert not (root / "skill-1").exists()
    assert leftovers(root) == []
