"""A one-shot read's trust window: unchanged folders are not walked, returned files always are.

The CLI's reads trust a records folder whose own stat is what the last full check saw (for
MEMHUB_MEMORY_TRUST_SECONDS, default 30): a file added, removed or renamed (an editor's
save-by-rename) changes the folder and is noticed at once; a file a read returns is checked
by its stat and, when changed, the index is brought up to date and the read made again; an
in-place edit of a file the read does not return shows once the window has passed.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from memhub.runtime.memory import service as S
from memhub.runtime.memory.records import render_record

from .svchelp import Memory, make_memory, put, record


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    return make_memory(tmp_path)


def ids(found: object) -> list[str]:
    return sorted(getattr(item, "id", None) or item.record.id for item in found)  # type: ignore[attr-defined]


def age_checks(mem: Memory, seconds: float) -> None:
    """Make every saved full check `seconds` older, as if that much time had passed."""
    db = sqlite3.connect(S.index_path(mem.home))
    rows = db.execute("SELECT key, value FROM scan_meta WHERE key LIKE 'seen:%'").fetchall()
    assert rows, "a full check saves the folder it saw"
    for key, value in rows:
        mark, _, checked = value.rpartition(" ")
        db.execute(
            "UPDATE scan_meta SET value = ? WHERE key = ?",
            (f"{mark} {int(checked) - int(seconds * 1e9)}", key),
        )
    db.commit()
    db.close()


def in_place(path: Path, data: bytes) -> None:
    """Rewrite a file in place (the folder's own stat does not change)."""
    with open(path, "r+b") as handle:
        handle.truncate(0)
        handle.write(data)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # a later tick


def settled(mem: Memory) -> None:
    """A full check made long enough after the last write that its stats are trusted."""
    mem.service().refresh_index(full=True)
    age_checks(mem, 0)  # keep the check itself; only the racy rule needs the files older
    for folder in (mem.home / "memory").rglob("records"):
        for path in folder.iterdir():
            st = os.stat(path)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 10_000_000_000))
        st = os.stat(folder)
        os.utime(folder, ns=(st.st_atime_ns, st.st_mtime_ns - 10_000_000_000))
    mem.service().refresh_index(full=True)


def test_an_unchanged_folder_is_not_walked_within_the_window(mem: Memory) -> None:
    put(mem.home, record("r-a", "project", mem.pid, title="alpha fabric"))
    put(mem.home, record("r-b", "project", mem.pid, title="beta fabric"))
    settled(mem)
    other = put(mem.home, record("r-b", "project", mem.pid, title="beta fabric"))
    in_place(other, render_record(record("r-b", "project", mem.pid, title="beta ansible")))
    svc = mem.service(window=30)
    assert ids(svc.search("ansible")) == []  # an in-place edit of a file not returned: not yet
    age_checks(mem, 31)
    assert ids(mem.service(window=30).search("ansible")) == ["r-b"]  # the window has passed


def test_a_returned_file_edited_in_place_is_read_again(mem: Memory) -> None:
    path = put(mem.home, record("r-a", "project", mem.pid, title="alpha fabric"))
    settled(mem)
    in_place(path, render_record(record("r-a", "project", mem.pid, title="alpha ansible")))
    svc = mem.service(window=30)
    assert ids(svc.search("fabric")) == []  # the hit was stale: re-indexed, searched again
    assert ids(svc.search("ansible")) == ["r-a"]
    assert svc.get("r-a").record.title == "alpha ansible"
    assert [e.record.title for e in svc.list()] == ["alpha ansible"]


def test_added_removed_and_renamed_files_are_noticed_at_once(mem: Memory) -> None:
    path = put(mem.home, record("r-a", "project", mem.pid, title="alpha fabric"))
    settled(mem)
    put(mem.home, record("r-new", "project", mem.pid, title="brand new"))
    assert ids(mem.service(window=30).search("brand")) == ["r-new"]
    settled(mem)
    temp = path.with_name(".r-a.md.tmp")
    temp.write_bytes(render_record(record("r-a", "project", mem.pid, title="alpha renamed")))
    os.replace(temp, path)  # how editors and memhub itself save
    assert ids(mem.service(window=30).search("renamed")) == ["r-a"]
    os.unlink(path)
    assert ids(mem.service(window=30).list()) == ["r-new"]


def test_a_zero_window_checks_every_file(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    put(mem.home, record("r-b", "project", mem.pid, title="beta fabric"))
    settled(mem)
    other = put(mem.home, record("r-b", "project", mem.pid, title="beta fabric"))
    in_place(other, render_record(record("r-b", "project", mem.pid, title="beta ansible")))
    monkeypatch.setenv(S.TRUST_ENV, "0")
    assert S.trust_window() == 0
    assert ids(mem.service(window=None).search("ansible")) == ["r-b"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", 30.0), ("5", 5.0), ("0", 0.0), ("-1", 30.0), ("nan", 30.0), ("soon", 30.0)],
)
def test_the_window_comes_from_the_environment(
    raw: str, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(S.TRUST_ENV, raw)
    assert S.trust_window() == expected
