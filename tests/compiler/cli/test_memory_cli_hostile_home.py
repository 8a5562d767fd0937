"""memhub's own state folder as hostile input, through the real CLI: a folder, a FIFO or a
link where a record file should be, a records folder that links out of MEMHUB_HOME, a
read-only or full MEMHUB_HOME, an index that is garbage, a folder, a FIFO, damaged or
missing its FTS table. Reads still answer; writes fail with exit 4 naming the path and the
fix (exit 2, as the write layer's; a damaged index that a read meets: exit 4); no record
file changes; nothing hangs; `memory index --rebuild` repairs the index."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from memhub.runtime.memory import indexfile, scan, scanwindow

from tests.compiler.cli.memkit import Memhub, Ran, add, connected, home, record_files

HANG_S = 60  # a command that takes this long is taken to hang


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    # Every file here was written a moment ago: without this, a search right after a write
    # re-checks its files until they are 2 s old (the racy-clean rule), which is not what
    # these tests are about. raising=False: a later memhub may drop these names.
    for module in (scan, scanwindow):
        monkeypatch.setattr(module, "RACY_NS", 0, raising=False)
    monkeypatch.setenv("MEMHUB_MEMORY_TRUST_SECONDS", "0")  # the tests edit files in place
    return Memhub(capsys, monkeypatch, tmp_path)


@pytest.fixture
def app(mh: Memhub, tmp_path: Path) -> tuple[Path, str]:
    """A connected project that reads shared records, with one record in each scope."""
    top, pid = connected(mh, tmp_path / "app")
    add(mh, top, "Alpha lives in the project", "alpha project body")
    add(mh, top, "Alpha shared", "alpha shared body", "--scope", "shared")
    return top, pid


def shared_records() -> Path:
    return home() / "memory" / "shared" / "records"


def index() -> Path:
    return home() / "memory" / "index.sqlite"


def snapshot() -> dict[str, bytes]:
    """Every record file's bytes (a FIFO or a link among them is not read here either)."""
    return {
        str(path): path.read_bytes()
        for path in record_files("*")
        if path.is_file() and not path.is_symlink()
    }


def found(ran: Ran) -> set[str]:
    assert ran.code == 0, ran.err
    return {hit["title"] for hit in ran.data["hits"]}


def in_child(*args: str, cwd: Path) -> Ran:
    """`memhub ARGS` in a child process (this interpreter) that may not write what its mode
    bits forbid: as root, the capabilities that bypass them are dropped first."""
    child = subprocess.run(
        [sys.executable, "-m", "memhub.compiler.cli.main", *args],
        cwd=cwd,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_S,
        preexec_fn=_without_write_capabilities,
    )
    assert "Traceback" not in child.stderr, child.stderr
    return Ran(child.returncode, child.stdout, child.stderr)


def _without_write_capabilities() -> None:
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search, cap_fowner = 24, 1, 2, 3
    for cap in (cap_dac_override, cap_dac_read_search, cap_fowner):
        if libc.prctl(pr_capbset_drop, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


@contextlib.contextmanager
def read_only(root: Path) -> Iterator[None]:
    """`root` made read-only (folders 0555, files 0444) for the child runs inside."""
    tree = [Path(top) / name for top, dirs, files in os.walk(root) for name in dirs + files]
    modes = {path: path.lstat().st_mode for path in [root, *tree] if not path.is_symlink()}
    for path in modes:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def edit_shared(old: str, new: str) -> None:
    """Edit the shared record in place, as an editor does (the index does not know yet)."""
    [path] = record_files()
    path.write_text(path.read_text().replace(old, new))


# --- what lies in a records folder -----------------------------------------------------------


def test_a_folder_named_like_a_record_is_reported_never_fatal(
    mh: Memhub, app: tuple[Path, str], tmp_path: Path
) -> None:
    """`x.md` as a folder in the shared scope made every memory command of every project
    that reads shared records exit 70."""
    top, _ = app
    (shared_records() / "x.md").mkdir()
    assert found(mh("memory", "search", "alpha", "--json", cwd=top)) == {
        "Alpha lives in the project",
        "Alpha shared",
    }
    listed = mh("memory", "list", "--json", cwd=top)
    assert listed.code == 0 and len(listed.data["records"]) == 2
    assert any("x.md: a folder" in problem for problem in listed.data["problems"])
    assert mh("memory", "search", "alpha", cwd=tmp_path).code == 0  # outside any project
    add(mh, top, "Beta", "written beside it", "--scope", "shared")
    assert (shared_records() / "x.md").is_dir()


def test_a_fifo_and_links_are_never_opened_or_followed(
    mh: Memhub, app: tuple[Path, str], tmp_path: Path
) -> None:
    top, _ = app
    [record] = record_files()
    secret = tmp_path / "secret.md"
    secret.write_text(record.read_text() + "zebra")
    (shared_records() / "linked.md").symlink_to(secret)
    os.mkfifo(shared_records() / "pipe.md")
    ran = in_child("memory", "list", "--json", cwd=top)  # a child: a hang fails, never blocks
    assert ran.code == 0 and len(ran.data["records"]) == 2
    problems = " ".join(ran.data["problems"])
    assert "pipe.md: not a regular file" in problems and "linked.md: a link" in problems
    assert found(mh("memory", "search", "zebra", "--json", cwd=top)) == set()


def test_a_records_folder_linking_out_of_memhub_home_is_not_read(
    mh: Memhub, app: tuple[Path, str], tmp_path: Path
) -> None:
    top, _ = app
    outside = tmp_path / "outside"
    shared_records().rename(outside)
    for path in outside.glob("*.md"):
        path.write_text(path.read_text().replace("alpha shared body", "zebra outside"))
    shared_records().symlink_to(outside)
    listed = mh("memory", "list", "--json", cwd=top)
    assert listed.code == 0 and [r["scope"] for r in listed.data["records"]] == ["project"]
    assert any("records: a link" in problem for problem in listed.data["problems"])
    assert found(mh("memory", "search", "zebra", "--json", cwd=top)) == set()


# --- a read-only MEMHUB_HOME -------------------------------------------------------------------


@pytest.mark.parametrize("index_file", ["kept", "absent"])
def test_a_read_only_home_answers_reads_and_refuses_writes_with_exit_2(
    app: tuple[Path, str], index_file: str
) -> None:
    top, _ = app
    edit_shared("alpha shared body", "zebra shared body")
    if index_file == "absent":
        for path in index().parent.glob("index.sqlite*"):
            path.unlink()
    before = snapshot()
    with read_only(home()):
        search = in_child("memory", "search", "zebra", "--json", cwd=top)
        listed = in_child("memory", "list", "--json", cwd=top)
        wrote = in_child("memory", "add", "--kind", "fact", "--title", "t", "--body", "b",
                         "--yes", cwd=top)  # fmt: skip
        rebuilt = in_child("memory", "index", "--rebuild", cwd=top)
    assert found(search) == {"Alpha shared"}, "the edit made before it turned read-only"
    assert listed.code == 0 and len(listed.data["records"]) == 2
    assert any("answers come from an index in memory" in p for p in listed.data["problems"])
    assert wrote.code == 2, wrote.err
    assert f"cannot write {home()}" in wrote.err and "Permission denied" in wrote.err
    assert "MEMHUB_HOME" in wrote.err and "nothing was changed" in wrote.err
    assert rebuilt.code == 2 and f"cannot write {index()}" in rebuilt.err, rebuilt.err
    assert snapshot() == before


# --- a full disk ---------------------------------------------------------------------------


@contextlib.contextmanager
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A full disk under MEMHUB_HOME: every write of a file there fails with ENOSPC, and
    the index may not grow by one page (SQLite's own write path: SQLITE_FULL)."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc/self/fd to tell which file a write goes to")
    root, real_write, real_connect = str(home()), os.write, indexfile._connect

    def write(fd: int, data: bytes) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target.startswith(root):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    def connect(path: Path) -> sqlite3.Connection:
        db = real_connect(path)
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    with monkeypatch.context() as patch:
        patch.setattr(os, "write", write)
        patch.setattr(indexfile, "_connect", connect)
        yield


def test_a_full_disk_answers_reads_and_refuses_writes_with_exit_2(
    mh: Memhub, app: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    top, _ = app
    edit_shared("alpha shared body", "zebra " + "grows the index " * 4000)
    before = snapshot()
    with full_disk(monkeypatch):
        search = mh("memory", "search", "zebra", "--json", cwd=top)
        wrote = mh("memory", "add", "--kind", "fact", "--title", "t", "--body", "b", "--yes",
                   cwd=top)  # fmt: skip
    assert found(search) == {"Alpha shared"}
    assert any("disk is full" in w for w in search.json()["warnings"]), search.out
    assert wrote.code == 2, wrote.err
    assert "No space left on device" in wrote.err and "free space" in wrote.err
    assert snapshot() == before
    assert found(mh("memory", "search", "zebra", "--json", cwd=top)) == {"Alpha shared"}


# --- the index -------------------------------------------------------------------------------


def fts_dropped() -> None:
    db = sqlite3.connect(index())
    db.execute("DROP TABLE fts")
    db.commit()
    db.close()


def garbage() -> None:
    index().write_bytes(b"not an index " * 500)


def a_folder() -> None:
    index().unlink()
    (index() / "inside").mkdir(parents=True)


def a_fifo() -> None:
    index().unlink()
    os.mkfifo(index())


def a_link_out() -> None:
    target = index().with_name("elsewhere.sqlite")
    index().rename(target)
    index().symlink_to(target)


@pytest.mark.parametrize("damage", [fts_dropped, garbage, a_folder, a_fifo, a_link_out])
def test_a_broken_index_is_made_again_and_every_command_answers(
    mh: Memhub, app: tuple[Path, str], damage: object
) -> None:
    """Before: a dropped FTS table made every command exit 70, `--rebuild` included."""
    top, _ = app
    assert callable(damage)
    damage()
    before = snapshot()
    run = in_child if damage is a_fifo else mh  # a child: a hang fails, never blocks
    search = run("memory", "search", "alpha", "--json", cwd=top)
    assert found(search) == {"Alpha lives in the project", "Alpha shared"}
    assert snapshot() == before
    add(mh, top, "Beta", "beta body")
    rebuilt = mh("memory", "index", "--rebuild", "--json", cwd=top)
    assert rebuilt.code == 0 and rebuilt.data["indexed"] == 3, rebuilt.err
    assert found(mh("memory", "search", "beta", "--json", cwd=top)) == {"Beta"}


def damage_fts_pages() -> None:
    """Overwrite the FTS data's first page: the file opens, a query of it fails."""
    db = sqlite3.connect(index())
    (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'fts_data'").fetchone()
    (size,) = db.execute("PRAGMA page_size").fetchone()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with open(index(), "r+b") as handle:
        handle.seek((root - 1) * size)
        handle.write(b"\xff" * size)


def test_damage_inside_the_index_is_healed_by_the_read_that_meets_it(
    mh: Memhub, app: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of the FTS data overwritten (before: exit 70 on every search). The search
    that meets it, whether it checks the files first or trusts them (a second search
    within the trust window), moves the file aside and answers from the files."""
    top, _ = app
    monkeypatch.setenv("MEMHUB_MEMORY_TRUST_SECONDS", "30")  # the CLI's default: trusting
    alphas = {"Alpha lives in the project", "Alpha shared"}
    before = snapshot()
    for _ in range(2):
        assert found(mh("memory", "search", "alpha", "--json", cwd=top)) == alphas
        assert found(mh("memory", "search", "alpha", "--json", cwd=top)) == alphas
        damage_fts_pages()
    listed = mh("memory", "list", "--json", cwd=top)
    assert listed.code == 0 and len(listed.data["records"]) == 2
    assert index().with_name("index.sqlite.bad").is_file()
    rebuilt = mh("memory", "index", "--rebuild", "--json", cwd=top)
    assert rebuilt.code == 0 and rebuilt.data["indexed"] == 2, rebuilt.err
    assert snapshot() == before


def test_an_index_damaged_beyond_healing_names_the_file_and_the_fix(
    mh: Memhub, app: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the index cannot be moved aside either, the read says which file and that
    `--rebuild` repairs it (exit 4: a source that could not be read), never 70."""
    top, _ = app
    damage_fts_pages()

    def refuse(path: Path) -> None:
        raise OSError(errno.EBUSY, "Device or resource busy", str(path))

    monkeypatch.setattr(indexfile, "discard", refuse)
    ran = mh("memory", "search", "alpha", cwd=top)
    assert ran.code == 4, ran.err
    assert f"the search index {index()} is damaged" in ran.err
    assert "memhub memory index --rebuild" in ran.err
