"""recovery/ is bounded: pre-images are stored once by content, and old runs are pruned.

Each apply used to copy the full pre-image of every target into its own run folder, so a
16 MB `.claude.json` grew `$MEMHUB_HOME/recovery` by 16 MB per apply. These tests drive real
transactions on real files and check the shared store, the pruning bound that `memhub undo`
documents, and that undo still steps back through every kept run.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.safewrite import journal, store
from memhub.compiler.safewrite.fsops import fingerprint
from memhub.compiler.safewrite.lock import operation_lock
from memhub.compiler.safewrite.transaction import Transaction
from memhub.compiler.safewrite.undo import undo_last


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path)) / "memhub"


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = Path(os.path.realpath(tmp_path)) / "root" / ".claude.json"
    path.parent.mkdir()
    return path


def write_run(home: Path, target: Path, content: bytes) -> None:
    with operation_lock(home), Transaction(home) as tx:
        tx.write(target, content, expect=fingerprint(target))


def stored_copies(home: Path, content: bytes) -> int:
    """How many files under recovery/ (originals excepted) hold exactly `content`."""
    recovery = home / "recovery"
    return sum(
        1
        for path in recovery.rglob("*")
        if path.is_file() and "originals" not in path.parts and path.read_bytes() == content
    )


def big(tag: str) -> bytes:
    return (tag * 200_000)[:1_000_000].encode()


def test_the_same_pre_image_is_stored_once_across_runs(home: Path, target: Path) -> None:
    a, b = big("a"), big("b")
    target.write_bytes(a)
    for content in (b, a, b, a, b, a):  # pre-images: a, b, a, b, a, b
        write_run(home, target, content)
    assert stored_copies(home, a) == 1
    assert stored_copies(home, b) == 1
    assert not (home / "recovery" / "runs").exists()
    size = sum(p.stat().st_size for p in (home / "recovery").rglob("*") if p.is_file())
    assert size < 3.5 * len(a), size  # a, b and the first-touch original of a


def test_runs_past_the_bound_are_pruned_and_undo_reaches_every_kept_run(
    home: Path, target: Path
) -> None:
    keep = journal.MAX_RUNS_KEPT
    versions = [f"v{i}\n".encode() * 1000 for i in range(keep + 6)]
    target.write_bytes(versions[0])
    for content in versions[1:]:
        write_run(home, target, content)
    assert len(journal.journal_paths(home)) == keep
    objects = store.objects_dir(home)
    # The pre-images of the kept runs, and nothing else.
    assert sorted(p.read_bytes() for p in objects.iterdir()) == sorted(versions[-keep - 1 : -1])
    for expected in reversed(versions[-keep - 1 : -1]):
        assert undo_last(home) == [target]
        assert target.read_bytes() == expected
    assert undo_last(home) == []  # older runs were pruned: undo stops at the bound
    assert target.read_bytes() == versions[-keep - 1]


def test_undo_runs_do_not_count_toward_the_bound(home: Path, target: Path) -> None:
    keep = journal.MAX_RUNS_KEPT
    versions = [f"v{i}\n".encode() for i in range(keep + 3)]
    target.write_bytes(versions[0])
    for content in versions[1:]:
        write_run(home, target, content)
    for step in range(keep):
        assert undo_last(home) == [target], f"undo {step + 1} of {keep}"
    assert target.read_bytes() == versions[2]


def test_a_run_journaled_in_the_per_run_layout_is_still_undone(home: Path, target: Path) -> None:
    target.write_bytes(b"before\n")
    write_run(home, target, b"after\n")
    (run_id,) = journal.run_ids(home)
    legacy = home / "recovery" / "runs" / run_id
    legacy.mkdir(parents=True)
    for item in store.objects_dir(home).iterdir():
        shutil.move(item, legacy / item.name)
    assert undo_last(home) == [target]
    assert target.read_bytes() == b"before\n"


def test_undo_help_states_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["undo", "--help"]) == 0
    assert f"last {journal.MAX_RUNS_KEPT} applies" in " ".join(capsys.readouterr().out.split())
