"""The scanner, the catalog and the session indexer as units."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.runtime.memory import catalog, layout, scan, sessions
from memhub.runtime.memory.frontmatter import RecordError
from memhub.runtime.memory.index import MemoryIndex
from memhub.runtime.memory.records import Source, Triggers, render_record

from .svchelp import put, record


def test_fields_json_round_trips_every_field() -> None:
    r = record(
        "r-1", "project", "p-1", kind="lesson", tags=("a", "b"), status="proposed",
        source=Source(kind="agent", session="s", record="x"),
        triggers=Triggers(paths=("*.py",), errors=("boom",)), supersedes="r-0",
    )  # fmt: skip
    assert catalog.record_from(catalog.fields_json(r), r.body) == r


def test_read_record_file_checks_name_scope_and_marker(tmp_path: Path) -> None:
    path = tmp_path / "r-1.md"
    path.write_bytes(render_record(record("r-1", "project", "p-1")))
    assert scan.read_record_file(path, "project", "p-1")[1].id == "r-1"
    with pytest.raises(RecordError, match="scope does not match"):
        scan.read_record_file(path, "project", "p-2")
    with pytest.raises(RecordError, match="scope does not match"):
        scan.read_record_file(path, "shared", None)
    other = tmp_path / "r-2.md"
    other.write_bytes(path.read_bytes())
    with pytest.raises(RecordError, match="file's name"):
        scan.read_record_file(other, "project", "p-1")
    plain = tmp_path / "plain.md"
    plain.write_text("---\ntitle: mine\n---\ntext\n")
    with pytest.raises(scan.NotARecord):
        scan.read_record_file(plain, "shared", None)
    with pytest.raises(FileNotFoundError):
        scan.read_record_file(tmp_path / "absent.md", "shared", None)


def test_all_pairs_and_scope_folders_skip_unsafe_names(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    for name in ("p-1", "Bad Name", ".hidden"):
        (root / "projects" / name).mkdir(parents=True)
    assert sorted(scan.all_pairs(root), key=str) == sorted(
        [("shared", None), ("project", "p-1")], key=str
    )
    assert scan.scope_folders(root, [("project", "../x"), ("nope", None)]) == []


def test_scanner_refresh_counts_changes_and_rebuild_starts_over(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = layout.memory_root(home)
    for n in range(3):
        put(home, record(f"r-{n}"))
    with MemoryIndex(tmp_path / "i.sqlite") as index:
        scanner = scan.Scanner(root, index)
        assert scanner.refresh([("shared", None)]).changes == 3
        assert scanner.refresh([("shared", None)]).changes == 0
        (layout.shared_records(root) / "r-1.md").unlink()
        assert scanner.refresh([("shared", None)]).changes == 1
        assert scanner.rebuild([("shared", None)]) == 2
        found = catalog.select(index.db, [("shared", None)])
        assert sorted(s.record.id for s in found) == ["r-0", "r-2"]
        assert catalog.select(index.db, [("project", "p-x")]) == []
        assert catalog.count_by_kind(index.db, [("shared", None)]) == {"active": {"fact": 2}}


def test_session_body_keeps_user_and_assistant_text_only() -> None:
    records = [
        {"kind": "message", "role": "user", "text": "question"},
        {"kind": "message", "role": "assistant", "text": "answer"},
        {"kind": "message", "role": "system", "text": "system prompt"},
        {"kind": "tool_result", "role": "tool", "text": "output"},
        {"kind": "message", "role": "user", "text": None},
    ]
    assert sessions.session_body(records) == "question\n\nanswer"


def test_refresh_sessions_without_a_store_indexes_nothing(tmp_path: Path) -> None:
    with MemoryIndex(tmp_path / "i.sqlite") as index:
        assert sessions.refresh_sessions(tmp_path / "home", index) == 0
        assert index.revisions(sources=("session",)) == {}
