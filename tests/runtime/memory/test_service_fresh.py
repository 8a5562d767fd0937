"""Reads right after a write cost what reads cost: a file written a moment ago is compared by
its bytes and its folder by its names, once, instead of being rescanned until its stat is old
enough to trust (issue 22: one search after `memory add` made 33 full rescans)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.memory import scan, scanwindow
from memhub.runtime.memory.plans import Draft
from memhub.runtime.memory.service import MemoryService
from memhub.runtime.memory.workspace import open_workspace

from .svchelp import Memory, make_memory, put, record

RECORDS = 50


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    return make_memory(tmp_path)


class Walks:
    """Every full listing of a records folder (a stat per file) and the files it stat'ed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.folders: list[str] = []
        self.files = 0
        real = scan._listing

        def counted(folder: Path, gentle: bool = False) -> Any:
            found = real(folder, gentle)
            self.folders.append(folder.name)
            self.files += len(found[0] if isinstance(found, tuple) else found)
            return found

        monkeypatch.setattr(scan, "_listing", counted)


def written(mem: Memory) -> str:
    """A memory of RECORDS records, then one more added through the service (`memory add`
    in one process); the new record's id."""
    for n in range(RECORDS):
        put(mem.home, record(f"r-{n:04d}", "project", mem.pid, title=f"note number {n}"))
    with mem.service(window=30) as writer:
        writer.refresh_index()
        plan = writer.plan_add(Draft(kind="fact", title="Zebra crossing", body="Look twice."))
        writer.apply(plan)
    return plan.changes[0].record_id


def test_a_search_right_after_a_write_walks_no_folder(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = written(mem)
    walks = Walks(monkeypatch)
    with mem.service(window=30) as reader:  # the next command: `memory search zebra`
        assert [hit.id for hit in reader.search("zebra")] == [new]
        assert [e.record.id for e in reader.list(limit=1)] == [new]
        assert reader.get(new).record.body == "Look twice.\n"
    assert (walks.folders, walks.files) == ([], 0)


def test_a_search_right_after_a_write_reads_the_new_file_once(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    new = written(mem)
    reads: list[str] = []
    real = scanwindow.holds
    monkeypatch.setattr(
        scanwindow, "holds", lambda path, *a: reads.append(Path(path).stem) or real(path, *a)
    )
    with mem.service(window=30) as reader:
        assert [hit.id for hit in reader.search("zebra")] == [new]
    assert reads == [new]  # its stat is too recent to prove anything: its bytes do


def test_a_file_replaced_within_the_racy_moment_is_still_noticed(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder's stat can be the same after another save in the same clock tick: its
    names and inodes are not, so the read checks the folder in full."""
    new = written(mem)
    path = next((mem.home / "memory" / "projects").glob(f"*/records/{new}.md"))
    folder = path.parent
    seen = scanwindow.folder_mark(folder)
    temp = folder / ".swap.md.tmp"
    temp.write_bytes(path.read_bytes().replace(b"Zebra crossing", b"Zebra stripes"))
    temp.replace(path)  # save by rename, as editors do
    real = scanwindow.folder_mark
    monkeypatch.setattr(  # a coarse clock: the folder's stat is what the check saw
        scanwindow, "folder_mark", lambda f: seen if f == folder else real(f)
    )
    walks = Walks(monkeypatch)
    with mem.service(window=30) as reader:
        assert [hit.title for hit in reader.search("zebra")] == ["Zebra stripes"]
    assert walks.folders == ["records"]  # the project's folder, once


def test_threads_sharing_a_server_service_walk_a_folder_once(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's reader threads each read through their own connection, and trust what
    one of them checked: a new thread's first search walks nothing."""
    import threading

    put(mem.home, record("r-zebra", "project", mem.pid, title="Zebra crossing"))
    # server mode; the watcher's first walk is an hour off
    service = MemoryService(open_workspace(mem.home, cwd=mem.app), recheck=3600.0)
    walks = Walks(monkeypatch)
    found: dict[str, list[str]] = {}

    def search(name: str) -> None:
        found[name] = [hit.id for hit in service.search("zebra")]
        service.release()

    try:
        for name in ("first", "second"):
            thread = threading.Thread(target=search, args=(name,))
            thread.start()
            thread.join()
    finally:
        service.close()
    assert found == {"first": ["r-zebra"], "second": ["r-zebra"]}
    assert sorted(walks.folders) == ["records", "records"]  # the first thread: both scopes
