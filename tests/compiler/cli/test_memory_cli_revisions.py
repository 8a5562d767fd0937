"""Revisions over the CLI: a stale --revision exits 3 naming the record, an edit made in the
file itself invalidates the old revision, a malformed record is reported and left byte for
byte, and 8 concurrent writer processes lose no add and no update."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.runtime.memory.records import revision

from tests.compiler.cli.memkit import (
    Memhub,
    add,
    connected,
    memhub_process,
    record_files,
    revision_of,
    spawn,
)


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


def test_a_stale_revision_exits_3_naming_the_record(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    rid = add(mh, top, "Version one")
    old = revision_of(mh, top, rid)
    assert mh("memory", "edit", rid, "--revision", old, "--title", "Version two", "--yes",
              cwd=top).code == 0  # fmt: skip
    [path] = record_files(pid)
    after = path.read_bytes()
    for args in (
        ("memory", "edit", rid, "--revision", old, "--title", "Version three", "--yes"),
        ("memory", "rm", rid, "--revision", old, "--yes"),
        ("memory", "edit", rid, "--revision", "0" * 64, "--body", "x", "--yes"),
    ):
        ran = mh(*args, cwd=top)
        assert ran.code == 3, ran.err
        assert rid in ran.err and "revision" in ran.err
        assert path.read_bytes() == after
    as_json = mh("memory", "rm", rid, "--revision", old, "--yes", "--json", cwd=top).json()
    assert as_json["exit_code"] == 3 and as_json["errors"][0]["error"] == "StaleRevision"


def test_an_edit_made_in_the_file_invalidates_the_old_revision(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    rid = add(mh, top, "Edited by hand", "before")
    old = revision_of(mh, top, rid)
    [path] = record_files(pid)
    path.write_bytes(path.read_bytes().replace(b"before", b"changed in an editor"))
    by_hand = path.read_bytes()
    ran = mh("memory", "edit", rid, "--revision", old, "--body", "mine", "--yes", cwd=top)
    assert ran.code == 3 and rid in ran.err
    assert path.read_bytes() == by_hand
    fresh = revision_of(mh, top, rid)
    assert fresh == revision(by_hand) != old
    assert mh("memory", "search", "editor", "--json", cwd=top).data["hits"][0]["id"] == rid
    assert mh("memory", "edit", rid, "--revision", fresh, "--body", "mine", "--yes",
              cwd=top).code == 0  # fmt: skip


def test_a_malformed_record_is_reported_and_left_alone(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    good = add(mh, top, "A good record")
    bad = record_files(pid)[0].with_name("r-20260101000000-0badf00d.md")
    text = b'---\nmemhub: 1\nid: "r-20260101000000-0badf00d"\ntitle: [unclosed\nkind: fact\n---\nbody\n'
    bad.write_bytes(text)
    ran = mh("memory", "list", cwd=top)
    assert ran.code == 0, ran.err
    assert good in ran.out
    assert f"{bad}:" in ran.err  # file:line
    listed = mh("memory", "list", "--json", cwd=top)
    assert [r["id"] for r in listed.data["records"]] == [good]
    assert any(str(bad) in p for p in listed.data["problems"])
    assert mh("memory", "index", "--rebuild", cwd=top).code == 0
    assert mh("memory", "search", "unclosed", cwd=top).code == 0
    assert bad.read_bytes() == text


def test_a_markdown_file_without_the_marker_is_never_rewritten(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    add(mh, top, "A record")
    notes = record_files(pid)[0].with_name("my-notes.md")
    notes.write_bytes(b"# My notes\n\nnot a record\n")
    assert mh("memory", "list", cwd=top).code == 0
    assert mh("memory", "index", "--rebuild", cwd=top).code == 0
    assert notes.read_bytes() == b"# My notes\n\nnot a record\n"


def test_eight_concurrent_writers_lose_nothing(mh: Memhub, tmp_path: Path) -> None:
    """5 adds and 3 edits of one record from one revision, as 8 processes at once: every add
    lands, exactly one edit wins, the others exit 3 and the record holds the winner's body."""
    top, pid = connected(mh, tmp_path / "app")
    target = add(mh, top, "Contended", "original")
    rev = revision_of(mh, top, target)
    adds = [
        spawn("memory", "add", "--kind", "fact", "--title", f"Parallel fact {i}",
              "--body", f"body {i}", "--yes", "--json", cwd=top)
        for i in range(5)
    ]  # fmt: skip
    edits = [
        spawn("memory", "edit", target, "--revision", rev, "--body", f"edit {i}", "--yes", cwd=top)
        for i in range(3)
    ]
    add_codes = []
    for child in adds:
        _out, err = child.communicate(timeout=180)
        add_codes.append((child.returncode, err))
    edit_results = []
    for i, child in enumerate(edits):
        _out, err = child.communicate(timeout=180)
        edit_results.append((child.returncode, i, err))
    assert all(code == 0 for code, _ in add_codes), add_codes
    assert sorted(code for code, _, _ in edit_results) == [0, 3, 3], edit_results
    assert all(target in err for code, _, err in edit_results if code == 3)
    [winner] = [i for code, i, _ in edit_results if code == 0]
    listed = memhub_process("memory", "list", "--json", cwd=top).data["records"]
    titles = {r["title"] for r in listed}
    assert titles == {"Contended", *(f"Parallel fact {i}" for i in range(5))}
    assert len(record_files(pid)) == 6
    body = memhub_process("memory", "get", target, "--json", cwd=top).data["body"]
    assert body.strip() == f"edit {winner}"
