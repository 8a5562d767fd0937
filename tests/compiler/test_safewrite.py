"""safewrite: the operation lock, atomic writes and modes, compare-and-swap, undo, restore.

The crash and fault suites drive the scenario in `safewrite_child.py`: a home-like folder,
an earlier committed apply ("one"), and an apply ("two") touching 11 targets (a merged
JSON file, overwritten, created and deleted files, an executable, a 0600 file in a 0700
folder, new nested folders, a replaced, a created and a deleted skill folder).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import pickle
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler import digest
from memhub.compiler.safewrite import durable, journal, store
from memhub.compiler.safewrite.errors import (
    LockTimeoutError,
    StaleTargetError,
    UndoConflictError,
    WriteError,
)
from memhub.compiler.safewrite.fsops import fingerprint
from memhub.compiler.safewrite.lock import lock_held, operation_lock
from memhub.compiler.safewrite.recovery import recover
from memhub.compiler.safewrite.restore import restore_originals
from memhub.compiler.safewrite.transaction import Transaction
from memhub.compiler.safewrite.undo import undo_last
from memhub.hubspec.errors import MemhubError

from tests.compiler import safewrite_child as child

CHILD = Path(child.__file__)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path)) / "memhub"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = Path(os.path.realpath(tmp_path)) / "root"
    folder.mkdir()
    return folder


@pytest.fixture
def fast_base(tmp_path: Path) -> Iterator[Path]:
    """Scratch space on tmpfs when there is one: the crash suites create ~100,000 files."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield Path(os.path.realpath(tmp_path))
        return
    base = Path(tempfile.mkdtemp(prefix="memhub-safewrite-", dir=shm))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def refs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, child.Snapshot]:
    return child.references(tmp_path_factory.mktemp("refs"))


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(folder: Path) -> list[str]:
    """memhub temp, staging or set-aside names anywhere under `folder`."""
    return sorted(str(p) for p in folder.rglob("*") if ".memhub-" in p.name)


def run_cases(tasks: list[Any]) -> list[tuple[bool, list[str]]]:
    """Run crash cases on two (or up to four) forked workers."""
    workers = max(2, min(4, os.cpu_count() or 2))
    # Workers come from a small preloaded server, so the children they fork are cheap.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([child.__name__])
    with context.Pool(workers) as pool:
        return pool.map_async(child.crash_task, tasks, chunksize=4).get(timeout=600)


def problems_of(results: list[tuple[bool, list[str]]]) -> str:
    problems = [p for _, found in results for p in found]
    return "\n".join(problems[:25]) + (f"\n... {len(problems)} in all" if problems else "")


# -- the operation lock -------------------------------------------------------------------


def test_lock_is_reentrant_in_a_thread_and_excludes_other_threads(home: Path) -> None:
    failures: list[BaseException] = []

    def other_thread() -> None:
        try:
            with operation_lock(home, timeout=0.1):
                pass
        except LockTimeoutError as err:
            failures.append(err)

    with operation_lock(home) as lock_file:
        assert lock_file == home / "lock"
        with operation_lock(home):
            assert lock_held(home)
        assert lock_held(home)
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    assert len(failures) == 1
    assert not lock_held(home)
    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    assert len(failures) == 1  # free again: the second thread got it


def test_lock_timeout_names_the_lock_file_and_the_holder(home: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, str(CHILD), "hold", str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        start = time.monotonic()
        with pytest.raises(LockTimeoutError) as info, operation_lock(home, timeout=0.3):
            pass
        assert 0.25 <= time.monotonic() - start < 10
        assert isinstance(info.value, MemhubError)
        assert str(home / "lock") in str(info.value)
        if Path("/proc/locks").exists():
            assert info.value.holder == holder.pid
            assert f"process {holder.pid}" in str(info.value)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)
    with operation_lock(home, timeout=10):
        pass


def test_transaction_requires_the_lock(home: Path) -> None:
    with pytest.raises(RuntimeError, match="operation_lock"), Transaction(home):
        pass


def test_errors_carry_exit_codes_and_survive_pickling(tmp_path: Path) -> None:
    """Errors cross process boundaries (multiprocessing) with their fields intact."""
    errors: list[MemhubError] = [
        StaleTargetError("x: changed", tmp_path / "x"),
        LockTimeoutError(tmp_path / "lock", 42, 1.5),
        UndoConflictError("run-1", [(tmp_path / "a", "sha256:1", "sha256:2")]),
        WriteError("y: cannot write"),
    ]
    for error in errors:
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error)
        assert copy.exit_code == error.exit_code == (2 if isinstance(error, WriteError) else 3)
        assert vars(copy) == vars(error)


# -- fingerprints -------------------------------------------------------------------------


def test_fingerprint_of_files_folders_and_absence(tmp_path: Path) -> None:
    file = tmp_path / "f"
    assert fingerprint(file) == "absent"
    file.write_bytes(b"x")
    assert fingerprint(file) == "sha256:" + hashlib.sha256(b"x").hexdigest()

    def make(folder: Path, order: list[str]) -> None:
        for rel in order:
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(rel.encode())
            os.chmod(folder / rel, 0o644)

    one, two = tmp_path / "one", tmp_path / "two"
    make(one, ["a", "sub/b"])
    make(two, ["sub/b", "a"])
    digest = fingerprint(one)
    assert digest.startswith("sha256:") and digest == fingerprint(two)
    assert digest != fingerprint(one / "a")
    os.chmod(one / "a", 0o600)
    assert fingerprint(one) == digest  # only the exec bit of a mode counts
    os.chmod(one / "a", 0o755)
    assert fingerprint(one) != digest
    os.chmod(one / "a", 0o644)
    (one / "sub" / "b").rename(one / "sub" / "c")
    assert fingerprint(one) != digest
    assert fingerprint(tmp_path / "missing" / "x") == "absent"


def test_a_written_tree_has_the_fingerprint_its_journal_promised(home: Path, root: Path) -> None:
    files = {"SKILL.md": (b"s", 0o644), "bin/run": (b"r", 0o755)}
    with operation_lock(home), Transaction(home) as tx:
        tx.write_tree(root / "skill", files)
    [path] = journal.journal_paths(home)
    [entry] = journal.Journal.load(path).entries
    assert entry["after"] == fingerprint(root / "skill") == digest.tree_digest(files)


# -- writes, modes and no-ops ------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_created_modes_do_not_depend_on_the_umask(home: Path, root: Path, umask: int) -> None:
    private = root / "private"
    private.mkdir()
    os.chmod(private, 0o700)
    old = os.umask(umask)
    try:
        with operation_lock(home), Transaction(home) as tx:
            tx.write(root / "plain.json", b"{}")
            tx.write(root / "new" / "dir" / "file.md", b"x")
            tx.write(private / "secret.env", b"x")
            tx.write(private / "deeper" / "token.ref", b"x")
            tx.write(root / "tool.sh", b"#!/bin/sh\n", mode=0o755)
            tx.write_tree(
                root / "skills" / "s", {"SKILL.md": (b"s", 0o644), "bin/run": (b"r", 0o755)}
            )
        modes = {p.relative_to(root).as_posix(): oct(mode_of(p)) for p in sorted(root.rglob("*"))}
        undo_last(home)
        restore_originals(home)
    finally:
        os.umask(old)
    assert modes == {
        "new": "0o755",
        "new/dir": "0o755",
        "new/dir/file.md": "0o644",
        "plain.json": "0o644",
        "private": "0o700",
        "private/deeper": "0o700",
        "private/deeper/token.ref": "0o600",
        "private/secret.env": "0o600",
        "skills": "0o755",
        "skills/s": "0o755",
        "skills/s/SKILL.md": "0o644",
        "skills/s/bin": "0o755",
        "skills/s/bin/run": "0o755",
        "tool.sh": "0o755",
    }
    assert sorted(p.name for p in root.iterdir()) == ["private"]
    # memhub's own records are private whatever the umask
    records = list(home.rglob("*"))
    assert len(records) > 10
    for path in records:
        assert mode_of(path) == (0o700 if path.is_dir() else 0o600), path


def test_overwrite_keeps_exec_and_private_modes(home: Path, root: Path) -> None:
    hook, secret, odd = root / "hook.sh", root / "creds.json", root / "odd.txt"
    for path, mode in ((hook, 0o755), (secret, 0o600), (odd, 0o640)):
        path.write_bytes(b"old")
        os.chmod(path, mode)
    skill = root / "skill"
    skill.mkdir()
    (skill / "run").write_bytes(b"old")
    os.chmod(skill, 0o750)
    with operation_lock(home), Transaction(home) as tx:
        for path in (hook, secret, odd):
            assert tx.write(path, b"new")
        tx.write_tree(skill, {"run": (b"new", 0o755)})
    assert [(p.read_bytes(), mode_of(p)) for p in (hook, secret, odd)] == [
        (b"new", 0o755),
        (b"new", 0o600),
        (b"new", 0o640),
    ]
    assert mode_of(skill) == 0o750 and mode_of(skill / "run") == 0o755
    with operation_lock(home), Transaction(home) as tx:
        assert tx.write(hook, b"new", mode=0o700)  # an explicit mode is a change
        assert not tx.write(secret, b"new")  # same bytes, same mode: nothing to do
    assert mode_of(hook) == 0o700
    undo_last(home)
    assert mode_of(hook) == 0o755


def test_a_run_with_nothing_to_change_leaves_no_trace(home: Path, root: Path) -> None:
    target = root / "same.json"
    target.write_bytes(b"{}")
    with operation_lock(home), Transaction(home) as tx:
        assert not tx.write(target, b"{}")
        assert not tx.write_merged(target, lambda current: current or b"")
        assert not tx.delete(root / "never-was")
        assert not tx.delete_tree(root / "no-folder")
    assert sorted(p.name for p in home.iterdir()) == ["lock"]


def test_a_symlinked_target_is_written_through_its_link(home: Path, root: Path) -> None:
    real = root / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_bytes(b"{}")
    link = root / ".claude.json"
    link.symlink_to(real)
    with operation_lock(home), Transaction(home) as tx:
        tx.write(link, b'{"a": 1}')
    assert link.is_symlink() and real.read_bytes() == b'{"a": 1}'
    undo_last(home)
    assert link.is_symlink() and real.read_bytes() == b"{}"


def test_write_tree_refuses_escaping_paths_and_folders_holding_links(
    home: Path, root: Path
) -> None:
    with (
        pytest.raises(WriteError, match="inside the folder"),
        operation_lock(home),
        Transaction(home) as tx,
    ):
        tx.write_tree(root / "skill", {"../escape": (b"x", 0o644)})
    linked = root / "linked"
    linked.mkdir()
    (linked / "to-etc").symlink_to("/etc")
    with pytest.raises(WriteError, match="to-etc"), operation_lock(home), Transaction(home) as tx:
        tx.write_tree(linked, {"SKILL.md": (b"x", 0o644)})
    assert sorted(p.name for p in root.iterdir()) == ["linked"]
    assert [p.name for p in linked.iterdir()] == ["to-etc"]


# -- stale targets and compare-and-swap -------------------------------------------------


def test_expect_mismatch_writes_nothing_and_rolls_the_run_back(home: Path, root: Path) -> None:
    first, second = root / "a.json", root / "b.json"
    first.write_bytes(b"A0")
    second.write_bytes(b"B0")
    before = child.snapshot(root)
    with pytest.raises(StaleTargetError) as info, operation_lock(home), Transaction(home) as tx:
        tx.write(first, b"A1", expect=fingerprint(first))
        tx.write(second, b"B1", expect=digest.file_digest(b"what the plan saw"))
    assert info.value.exit_code == 3 and info.value.path == second
    assert str(second) in str(info.value) and str(first) not in str(info.value)
    assert child.snapshot(root) == before
    [path] = journal.journal_paths(home)
    run = journal.Journal.load(path)
    assert run.state == "rolled_back"
    assert [e["path"] for e in run.entries] == [str(first)]
    assert str(second) not in store.Originals(home).records()


def test_a_stale_first_target_leaves_nothing_under_home(home: Path, root: Path) -> None:
    target = root / "config.toml"
    target.write_bytes(b"changed by the user")
    with pytest.raises(StaleTargetError), operation_lock(home), Transaction(home) as tx:
        tx.delete(target, expect=digest.file_digest(b"planned"))
    assert target.read_bytes() == b"changed by the user"
    assert sorted(p.name for p in home.iterdir()) == ["lock"]


def test_write_merged_redoes_the_merge_when_the_file_changes_underneath(
    home: Path, root: Path
) -> None:
    target = root / ".claude.json"
    target.write_bytes(b'{"numStartups": 1}\n')
    seen: list[bytes | None] = []

    def merge(current: bytes | None) -> bytes:
        seen.append(current)
        if len(seen) == 1:  # the host rewrites its file between our read and our replace
            target.write_bytes(b'{"numStartups": 2}\n')
        return child.add_key("memhub", 1)(current)

    with operation_lock(home), Transaction(home) as tx:
        assert tx.write_merged(target, merge)
    assert seen == [b'{"numStartups": 1}\n', b'{"numStartups": 2}\n']
    assert json.loads(target.read_bytes()) == {"numStartups": 2, "memhub": 1}
    # the kept pre-image is what was really replaced, so undo returns the host's write
    assert undo_last(home) == [target]
    assert target.read_bytes() == b'{"numStartups": 2}\n'
    assert leftovers(root) == []


def test_a_retry_that_finds_nothing_to_do_leaves_no_live_intent(home: Path, root: Path) -> None:
    target = root / "settings.json"
    target.write_bytes(b"{}\n")
    merge = child.add_key("memhub", 1)

    def host_applies_the_same_entry(current: bytes | None) -> bytes:
        target.write_bytes(merge(current))  # the host (or a user) makes the same change
        return merge(current)

    with operation_lock(home), Transaction(home) as tx:
        assert not tx.write_merged(target, host_applies_the_same_entry)
        tx.write(root / "other.txt", b"x")
    [path] = journal.journal_paths(home)
    entries = journal.Journal.load(path).entries
    assert [(e["path"], e["skipped"]) for e in entries] == [
        (str(target), True),
        (str(root / "other.txt"), False),
    ]
    assert undo_last(home) == [root / "other.txt"]
    assert json.loads(target.read_bytes()) == {"memhub": 1}


def test_write_merged_gives_up_after_its_retries(home: Path, root: Path) -> None:
    target = root / "busy.json"
    target.write_bytes(b"host 0")
    calls = [0]

    def merge(current: bytes | None) -> bytes:
        calls[0] += 1
        target.write_bytes(b"host %d" % calls[0])
        return b"ours"

    with pytest.raises(StaleTargetError) as info, operation_lock(home), Transaction(home) as tx:
        tx.write_merged(target, merge, retries=2)
    assert calls[0] == 3
    assert info.value.exit_code == 3 and str(target) in str(info.value)
    assert target.read_bytes() == b"host 3"
    assert leftovers(root) == []


def test_expect_is_checked_again_right_before_the_replace(
    home: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = root / "config.toml"
    target.write_bytes(b"v1")
    create_file = durable.create_file

    def host_edits_meanwhile(path: Path, data: bytes, mode: int) -> None:
        create_file(path, data, mode)
        if path.parent == root:  # our temp file is written: the host saves its own edit
            target.write_bytes(b"v1 + host edit")

    monkeypatch.setattr(durable, "create_file", host_edits_meanwhile)
    with pytest.raises(StaleTargetError), operation_lock(home), Transaction(home) as tx:
        tx.write(target, b"v2", expect=digest.file_digest(b"v1"))
    assert target.read_bytes() == b"v1 + host edit"
    assert leftovers(root) == []


# -- undo and restore ---------------------------------------------------------------------


def test_undo_reverts_the_last_run_as_one_unit(home: Path, root: Path) -> None:
    child.seed(root)
    seed = child.snapshot(root)
    child.run_apply(home, root, child.apply_one)
    one = child.snapshot(root)
    child.run_apply(home, root, child.apply_two)
    assert sorted(undo_last(home)) == sorted(root / t for t in child.TARGETS)
    assert child.snapshot(root) == one
    undo_last(home)
    assert child.snapshot(root) == seed
    assert undo_last(home) == []
    assert child.snapshot(root) == seed


def test_undo_refuses_after_a_later_change_and_names_the_files(home: Path, root: Path) -> None:
    child.prepare(home, root, second=True)
    config, skill = root / ".codex" / "config.toml", root / ".claude" / "skills" / "beta"
    with config.open("ab") as handle:
        handle.write(b"# the user's own line\n")
    (skill / "SKILL.md").write_bytes(b"edited by hand\n")
    before, runs = child.snapshot(root), journal.journal_paths(home)
    with pytest.raises(UndoConflictError) as info:
        undo_last(home)
    assert info.value.exit_code == 3
    assert sorted(info.value.paths) == sorted([config, skill])
    message = str(info.value)
    assert str(config) in message and str(skill) in message
    assert str(root / "AGENTS.md") not in message
    assert child.snapshot(root) == before
    assert journal.journal_paths(home) == runs


def test_restore_originals_brings_back_first_touch_bytes_and_archives_the_current(
    home: Path, root: Path
) -> None:
    child.seed(root)
    seed = child.snapshot(root)
    child.run_apply(home, root, child.apply_one)
    child.run_apply(home, root, child.apply_two)
    (root / "AGENTS.md").write_bytes(b"# my own edit of a file memhub created\n")
    (root / ".claude.json").write_bytes(b'{"host": "rewrote it"}\n')
    current = child.snapshot(root)
    restored = restore_originals(home)
    assert child.snapshot(root) == seed  # first-touch bytes; created files and folders gone
    assert set(restored) == {root / t for t in child.TARGETS}
    [archive] = (home / "recovery" / "archives").iterdir()
    manifest = json.loads((archive / "manifest.json").read_text())
    agents = manifest[str(root / "AGENTS.md")]
    assert (archive / agents["stored"]).read_bytes() == b"# my own edit of a file memhub created\n"
    assert manifest[str(root / "notes.md")]["kind"] == "absent"
    alpha = manifest[str(root / ".claude" / "skills" / "alpha")]
    assert alpha["kind"] == "tree" and alpha["modes"]["scripts/go.sh"] == 0o755
    # a restore is a run like any other: undo puts the archived state back
    undo_last(home)
    assert child.snapshot(root) == current


def test_originals_are_append_only(home: Path, root: Path) -> None:
    child.seed(root)
    child.run_apply(home, root, child.apply_one)
    folder = home / "recovery" / "originals"
    index = (folder / "index.jsonl").read_bytes()
    stored = {p.name: child.snapshot(p) if p.is_dir() else p.read_bytes() for p in folder.iterdir()}
    child.run_apply(home, root, child.apply_two)
    restore_originals(home)
    child.run_apply(home, root, child.apply_one)
    assert (folder / "index.jsonl").read_bytes().startswith(index)
    for name, kept in stored.items():
        if name != "index.jsonl":
            now = folder / name
            assert (child.snapshot(now) if now.is_dir() else now.read_bytes()) == kept
    paths = [r["path"] for r in durable.read_records(folder / "index.jsonl")]
    assert len(paths) == len(set(paths))  # one record per path, ever
    original = store.Originals(home).records()[str(root / "bin" / "hook.sh")]
    assert (folder / original["stored"]).read_bytes() == child.SEED["bin/hook.sh"][0]
    assert original["mode"] == 0o755


def test_recover_rolls_back_a_killed_run_but_not_a_later_host_write(
    home: Path, root: Path, refs: dict[str, child.Snapshot]
) -> None:
    child.prepare(home, root)
    total = child.count_calls(root.parent / "count", "apply", child.NO_FSYNC)

    def victim() -> None:
        with operation_lock(home), child.faults(child._kill_at(total), child.NO_FSYNC):
            child.run_apply(home, root, child.apply_two)

    status = child._forked(victim)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert child.open_journals(home)
    host = root / ".claude.json"
    host.write_bytes(b'{"host": "wrote after the crash"}\n')
    [run_id] = [p.name.removesuffix(".jsonl") for p in journal.journal_paths(home)][-1:]
    with operation_lock(home), Transaction(home):  # every transaction recovers first
        pass
    assert host.read_bytes() == b'{"host": "wrote after the crash"}\n'
    expected = dict(refs["one"], **{".claude.json": child.snapshot(root)[".claude.json"]})
    assert child.snapshot(root) == expected
    run = journal.Journal.load(home / "journal" / f"{run_id}.jsonl")
    assert run.state == "rolled_back" and run.conflicts == [str(host)]
    assert recover(home) == []


def test_a_rollback_failing_after_a_commit_record_landed_is_finished_by_recover(
    home: Path, root: Path, tmp_path: Path, refs: dict[str, child.Snapshot]
) -> None:
    """The commit record is written but its fsync fails; the rollback then fails midway."""
    calls = child.call_names(tmp_path / "count", "apply", child.ALL_POINTS)
    assert calls[-3:] == ["open", "write", "fsync"]  # the commit record is the last append
    commit_fsync = len(calls)
    # then the rollback-marker append (3 calls), and a failure 6 calls into the rollback
    child.prepare(home, root)
    with (
        pytest.raises(WriteError) as info,
        operation_lock(home),
        child.faults(child.fail_at_steps({commit_fsync, commit_fsync + 9}), child.ALL_POINTS),
    ):
        child.run_apply(home, root, child.apply_two)
    assert "rolling back run" in "\n".join(getattr(info.value, "__notes__", []))
    assert child.snapshot(root) not in (refs["one"], refs["two"])  # rollback stopped midway
    assert child.open_journals(home)
    recover(home)
    assert child.snapshot(root) == refs["one"]


# -- fault injection and SIGKILL at every step -------------------------------------------


def test_a_failure_at_every_call_leaves_every_target_wholly_old(
    fast_base: Path, refs: dict[str, child.Snapshot]
) -> None:
    """Make the k-th open/write/replace/rename/unlink/mkdir/rmdir of apply two fail (EIO).

    fsync and chmod failures take the same paths; the next test fails them every 9th call.
    """
    total = child.count_calls(fast_base / "count", "apply", child.WRITES)
    assert total > 100
    tasks = [
        ("fault", "apply", k, str(fast_base / f"f{k}"), refs, child.WRITES)
        for k in range(1, total + 2)
    ]
    results = run_cases(tasks)
    assert [done for done, _ in results] == [False] * total + [True]
    assert not any(found for _, found in results), problems_of(results)


def test_sigkill_at_every_call_leaves_whole_files_that_recovery_puts_back(
    fast_base: Path, refs: dict[str, child.Snapshot]
) -> None:
    """SIGKILL a forked child before each file-system call of apply two, for every call."""
    total = child.count_calls(fast_base / "count", "apply", child.NO_FSYNC)
    tasks = [
        ("kill", "apply", k, str(fast_base / f"k{k}"), refs, child.NO_FSYNC)
        for k in range(1, total + 2)
    ]
    results = run_cases(tasks)
    assert [done for done, _ in results] == [False] * total + [True]
    assert not any(found for _, found in results), problems_of(results)


def test_faults_and_kills_during_undo_restore_and_failing_rollbacks(
    fast_base: Path, refs: dict[str, child.Snapshot]
) -> None:
    """Every 9th call and the last ones: kills and failures inside undo and restore, and
    failures that persist (so the rollback fails too and `recover` must finish it)."""
    tasks = []
    for mode, kind in [
        ("kill", "undo"),
        ("kill", "restore"),
        ("fault", "undo"),
        ("fault", "restore"),
        ("sticky", "apply"),
    ]:
        points = child.NO_FSYNC if mode == "kill" else child.ALL_POINTS
        total = child.count_calls(fast_base / f"count-{mode}-{kind}", kind, points)
        steps = sorted({*range(1, total + 1, 4), total, total + 1})
        base = fast_base / f"{mode}-{kind}"
        tasks += [(mode, kind, k, str(base / str(k)), refs, points) for k in steps]
    results = run_cases(tasks)
    assert not any(found for _, found in results), problems_of(results)


def test_sigkill_of_a_fresh_interpreter_mid_apply(
    tmp_path: Path, refs: dict[str, child.Snapshot]
) -> None:
    """The same crash through a real `python safewrite_child.py kill K` process."""
    total = child.count_calls(tmp_path / "count", "apply", child.NO_FSYNC)
    steps = sorted({1, total // 4, total // 2, 3 * total // 4, total})

    def crash(step: int) -> list[str]:
        home, root = tmp_path / f"s{step}" / "home", tmp_path / f"s{step}" / "root"
        child.prepare(home, root)
        command = [sys.executable, str(CHILD), "kill", str(step), str(home), str(root)]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if proc.returncode != -signal.SIGKILL:
            return [f"step {step}: exit {proc.returncode}: {proc.stderr[-500:]}"]
        found = child.whole_problems(child.snapshot(root), refs["one"], refs["two"])
        restore_originals(home)
        if child.snapshot(root) != refs["seed"]:
            found.append(f"step {step}: restore --originals did not bring back the seed")
        return [f"step {step}: {p}" for p in found]

    with ThreadPoolExecutor(2) as pool:
        found = [p for problems in pool.map(crash, steps) for p in problems]
    assert not found, "\n".join(found)


# -- eight processes, one home ----------------------------------------------------------

ROUNDS = 4


def test_eight_processes_sharing_one_home_lose_no_entry(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    shared = folder / "shared.json"
    shared.write_bytes(b'{"user": true}\n')
    procs = [
        subprocess.Popen(
            [sys.executable, str(CHILD), "concurrent", str(home), str(folder), str(i), str(ROUNDS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in procs:  # start together
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
    data = json.loads(shared.read_bytes())
    expected = {f"p{i}-r{r}" for i in range(8) for r in range(ROUNDS)} | {"user"}
    assert set(data) == expected
    for i in range(8):
        lines = (folder / f"own-{i}.txt").read_text().splitlines()
        assert lines == [f"round {r}" for r in range(ROUNDS)]
    runs = [journal.Journal.load(p) for p in journal.journal_paths(home)]
    # Every commit prunes to the newest MAX_RUNS_KEPT runs (from any of the processes); all
    # that remain are committed. That every process ran is what `expected` above shows.
    kept = min(8 * ROUNDS, journal.MAX_RUNS_KEPT)
    assert len(runs) == kept and {r.state for r in runs} == {"committed"}
    assert (folder / "counter.txt").read_text() == f"{8 * ROUNDS}\n"
    assert leftovers(folder) == []
