"""`memhub memory index` brings the index up to date with every record file at once, an edit
made in place included, and checks an unchanged memory without loading what it does not need:
no cached file rows, no MEMORY.md overview, one stat per file."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from memhub.runtime.memory import catalog, scan

from tests.compiler.cli.memkit import Memhub, add, connected, home, record_files


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


def settled(mh: Memhub, top: Path) -> None:
    """Date every file and folder of the memory 10 s back and read once (a full check): the
    trust window then holds however fast the test ran."""
    past = time.time() - 10
    for path in (home() / "memory").rglob("*"):
        if "index.sqlite" not in path.name:
            os.utime(path, (past, past), follow_symlinks=False)
    assert mh("memory", "list", cwd=top).code == 0


def test_an_edit_in_place_is_indexed_and_counted_at_once(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    add(mh, top, "Deploy notes", "Roll out on Tuesdays.")
    add(mh, top, "Other notes", "Nothing else.")
    settled(mh, top)
    assert mh("memory", "search", "quokka", "--json", cwd=top).data["hits"] == []
    path = next(p for p in record_files(pid) if b"Deploy notes" in p.read_bytes())
    with open(path, "ab") as handle:  # in place: the folder's own stat does not change
        handle.write(b"Mind the quokka on the staging host.\n")
    indexed = mh("memory", "index", "--json", cwd=top)
    assert indexed.code == 0, indexed.err
    assert indexed.data["refreshed"] == 1 and indexed.data["counts"] == {"fact": 2}
    hits = mh("memory", "search", "quokka", "--json", cwd=top).data["hits"]
    assert [hit["title"] for hit in hits] == ["Deploy notes"]


def test_an_unchanged_memory_is_checked_with_a_stat_per_file_and_nothing_more(
    mh: Memhub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top, _ = connected(mh, tmp_path / "app")
    for n in range(12):
        add(mh, top, f"Note {n}", f"body {n}", *(["--scope", "shared"] if n % 3 == 0 else []))
    settled(mh, top)
    listed: list[int] = []
    real = scan._listing

    def counted(folder: Path, gentle: bool = False) -> tuple[dict[str, tuple[int, int, int]], str]:
        found = real(folder, gentle)
        listed.append(len(found[0]))
        return found

    def refused(*_: object, **__: object) -> None:
        pytest.fail("an unchanged memory loaded more than it checks")

    monkeypatch.setattr(scan, "_listing", counted)
    monkeypatch.setattr(scan.Scanner, "_cached", refused)  # every file's cached row
    monkeypatch.setattr(catalog, "lines", refused)  # the MEMORY.md overview of every record
    ran = mh("memory", "index", "--json", cwd=top)
    assert ran.code == 0, ran.err
    assert ran.data["refreshed"] == 0 and ran.data["counts"] == {"fact": 12}
    assert sorted(listed) == [4, 8]  # each folder listed once: one stat per record file


def test_right_after_a_write_the_files_just_written_are_read_not_every_cached_row(
    mh: Memhub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder's fingerprint is what the write's own refresh saw, but too recent for the
    stats to prove it: the new file's bytes are compared once, no cached row is loaded."""
    top, _ = connected(mh, tmp_path / "app")
    for n in range(6):
        add(mh, top, f"Note {n}", f"body {n}")
    settled(mh, top)
    add(mh, top, "Fresh note", "written a moment ago")

    def refused(*_: object, **__: object) -> None:
        pytest.fail("every cached row loaded to check one new file")

    monkeypatch.setattr(scan.Scanner, "_cached", refused)
    ran = mh("memory", "index", "--json", cwd=top)
    assert ran.code == 0, ran.err
    assert ran.data["refreshed"] == 0 and ran.data["counts"] == {"fact": 7}
