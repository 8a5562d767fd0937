"""A records folder's listing: the stat of every record file, and nothing per file beyond it."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

from memhub.runtime.memory import catalog, layout, listing, scan, scanwindow
from memhub.runtime.memory.index import MemoryIndex

from .svchelp import put, record

OLD = 1_600_000_000_000_000_000  # mtimes well in the past: a fingerprint proves them


def many(folder: Path, count: int) -> None:
    """`count` small files named like records, settled in the past (no parsing needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        path = folder / f"r-{n:05d}.md"
        path.write_bytes(b"x")
        os.utime(path, ns=(OLD, OLD))
    os.utime(folder, ns=(OLD, OLD))


def test_the_listing_is_what_a_plain_scandir_and_lstat_give(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    many(folder, 5)
    (folder / ".r-tmp.md").write_bytes(b"hidden temp")
    (folder / "notes.txt").write_bytes(b"not markdown")
    found, digest = listing.list_folder(folder)
    expected = {}
    for entry in os.scandir(folder):
        if entry.name.endswith(".md") and not entry.name.startswith("."):
            info = os.lstat(entry.path)
            expected[entry.path] = (info.st_mtime_ns, info.st_size, info.st_ino)
    assert dict(found.items()) == expected and len(found) == 5
    assert str(folder / "r-00001.md") in found and str(folder / "notes.txt") not in found
    assert digest == scanwindow.record_names(folder)  # the same digest without a stat
    assert len(listing.list_folder(tmp_path / "missing")[0]) == 0


def test_the_names_digest_sees_an_add_a_rename_and_a_replace_not_an_edit_in_place(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "records"
    many(folder, 3)
    first = scanwindow.record_names(folder)
    (folder / "r-00001.md").write_bytes(b"edited in place")
    assert scanwindow.record_names(folder) == first  # the stat of each file shows this one
    (folder / "r-00001.md").rename(folder / "r-00009.md")
    renamed = scanwindow.record_names(folder)
    assert renamed != first
    (folder / "new.md").write_bytes(b"y")
    (folder / "new.md").replace(folder / "r-00009.md")  # a save by rename: a new inode
    assert scanwindow.record_names(folder) not in (first, renamed)


def test_an_unchanged_folder_is_checked_without_a_path_per_file(tmp_path: Path) -> None:
    """Peak memory of checking an unchanged folder of 2,000 files deep in the file system:
    a name and a stat per file, no full path string per file (at 100k files those paths
    were most of the check's memory and a good part of its time), no Python int per stat."""
    home = tmp_path.joinpath(*["deep-folder"] * 30) / "home"
    root = layout.memory_root(home)
    for n in range(2000):
        os.utime(put(home, record(f"r-{n:05d}")), ns=(OLD, OLD))
    folder = layout.records_folders(root, [("shared", None)])[0][2]
    os.utime(folder, ns=(OLD, OLD))
    with MemoryIndex(tmp_path / "i.sqlite") as index:
        scan.Scanner(root, index).refresh([("shared", None)])
        fresh = scan.Scanner(root, index)  # the next process: nothing in memory
        tracemalloc.start()
        try:
            assert fresh.refresh([("shared", None)]).changes == 0
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    per_file = peak / 2000
    assert per_file < len(str(folder)), per_file  # each path alone is longer than that
    # a name and three machine integers per file; a tuple of Python ints made it 202 bytes
    assert per_file < 180, per_file


def test_counting_by_kind_reads_the_kinds_index_in_order_without_sorting(tmp_path: Path) -> None:
    """`memory index` counts every record of its scopes by status and kind: SQLite VM steps
    per record stay at what walking the docs_kinds index costs (one query over both scopes
    sorted every entry in a temporary b-tree: ~2.7 times the steps)."""
    home = tmp_path / "home"
    root = layout.memory_root(home)
    kinds = ("fact", "lesson", "decision")
    for n in range(600):
        scope, project = ("shared", None) if n % 4 == 0 else ("project", "p-1")
        put(home, record(f"r-{n:04d}", scope, project, kind=kinds[n % 3]))
    pairs = [("shared", None), ("project", "p-1")]
    with MemoryIndex(tmp_path / "i.sqlite") as index:
        scan.Scanner(root, index).refresh(pairs)
        steps = [0]

        def step() -> int:
            steps[0] += 1
            return 0

        index.db.set_progress_handler(step, 1)
        counted = catalog.count_by_kind(index.db, pairs)
        index.db.set_progress_handler(None, 1)
    assert counted == {"active": {"fact": 200, "lesson": 200, "decision": 200}}
    assert steps[0] < 12 * 600, steps[0]  # 5,529; one query over both scopes: 13,271


def test_a_rebuilt_index_is_one_full_text_segment(tmp_path: Path) -> None:
    """`memory index --rebuild` writes its documents in batches, each an FTS5 segment; a
    term lookup (which hits hold which words) seeks every segment, so the rebuild merges
    them into one (at 100k records: 1.7 ms of a lookup down to 0.1 ms)."""
    home = tmp_path / "home"
    root = layout.memory_root(home)
    words = " ".join(f"w{n}" for n in range(50))
    for n in range(200):
        put(home, record(f"r-{n:04d}", body=f"{words} unique{n}\n"))
    with MemoryIndex(tmp_path / "i.sqlite") as index:
        # pending terms flushed every 16 KiB, not every 1 MiB: a segment per few records,
        # as 100k records make 17 of them
        index.db.execute("INSERT INTO fts (fts, rank) VALUES ('hashsize', 16384)")
        assert scan.Scanner(root, index).rebuild([("shared", None)]) == 200
        (segments,) = index.db.execute("SELECT count(DISTINCT segid) FROM fts_idx").fetchone()
    assert segments == 1


def test_a_file_gone_between_listing_and_stat_is_left_out_everywhere() -> None:
    found = listing.Listing("/m/records", ["a.md", "b.md", "c.md"])
    for mtime, size, inode in ((5, 1, 11), (0, 0, 0), (9, 3, 13)):
        found.mtimes.append(mtime)
        found.sizes.append(size)
        found.inodes.append(inode)
    found.gone.add(1)  # b.md: listed, then deleted before its stat
    assert len(found) == 2 and list(found.values()) == [(5, 1, 11), (9, 3, 13)]
    assert dict(found.items()) == {"/m/records/a.md": (5, 1, 11), "/m/records/c.md": (9, 3, 13)}
    assert "/m/records/b.md" not in found
    assert found.recent(0) == ["/m/records/a.md", "/m/records/c.md"]
    assert found.recent(6) == ["/m/records/c.md"]
