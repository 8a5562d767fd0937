"""The scanner, the catalog and the session indexer as units."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.runtime.memory import catalog, layout, recordfile, scan, sessions
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
    assert recordfile.read_record_file(path, "project", "p-1")[1].id == "r-1"
    with pytest.raises(RecordError, match="scope does not match"):
        recordfile.read_record_file(path, "project", "p-2")
    with pytest.raises(RecordError, match="scope does not match"):
        recordfile.read_record_file(path, "shared", None)
    other = tmp_path / "r-2.md"
    other.write_bytes(path.read_bytes())
    with pytest.raises(RecordError, match="file's name"):
        recordfile.read_record_file(other, "project", "p-1")
    plain = tmp_path / "plain.md"
    plain.write_text("---\ntitle: mine\n---\ntext\n")
    with pytest.raises(recordfile.NotARecord):
        recordfile.read_record_file(plain, "shared", None)
    with pytest.raises(FileNotFoundError):
        recordfile.read_record_file(tmp_path / "absent.md", "shared", None)


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


def test_a_yaml_error_after_nel_characters_names_a_line_of_the_file() -> None:
    """YAML counts NEL (and U+2028/9) as line breaks; reports count newlines, as editors do."""
    from memhub.runtime.memory.records import parse_record

    text = '---\nmemhub: 1\nid: r-1\ntitle: "x\x85\x85\x85\x85\nkind: fact\n---\nbody\n'
    with pytest.raises(RecordError) as error:
        parse_record(text.encode(), "f.md")
    assert error.value.line is not None and 1 <= error.value.line <= text.count("\n")


def test_an_unchanged_folder_is_trusted_by_its_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    home = tmp_path / "home"
    root = layout.memory_root(home)
    paths = [put(home, record(f"r-{n}")) for n in range(3)]
    old = 1_600_000_000_000_000_000  # mtimes well in the past: not racy
    for path in paths:
        os.utime(path, ns=(old, old))
    os.utime(paths[0].parent, ns=(old, old))
    with MemoryIndex(tmp_path / "i.sqlite") as index:
        assert scan.Scanner(root, index).refresh([("shared", None)]).changes == 3
        fresh = scan.Scanner(root, index)  # another process: nothing in memory
        monkeypatch.setattr(fresh, "_cached", lambda pair: pytest.fail("rows loaded"))
        assert fresh.refresh([("shared", None)]).changes == 0
        monkeypatch.undo()
        paths[1].write_bytes(render_record(record("r-1", title="changed")))
        again = scan.Scanner(root, index)
        assert again.refresh([("shared", None)]).changes == 1
        assert [s.record.title for s in catalog.select(index.db, [("shared", None)])].count(
            "changed"
        ) == 1


def test_a_file_changed_between_reading_and_committing_is_left_for_the_next_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    root = layout.memory_root(home)
    path = put(home, record("r-1", title="first"))
    with MemoryIndex(tmp_path / "i.sqlite") as index:
        scanner = scan.Scanner(root, index)
        real = scan.Scanner._examine

        def examine_then_edit(self, *args):  # type: ignore[no-untyped-def]
            found = real(self, *args)
            path.write_bytes(render_record(record("r-1", title="second")))  # an editor, now
            return found

        monkeypatch.setattr(scan.Scanner, "_examine", examine_then_edit)
        scanner.refresh([("shared", None)])
        assert catalog.select(index.db, [("shared", None)]) == []  # "first" never committed
        monkeypatch.undo()
        scanner.refresh([("shared", None)])
        titles = [s.record.title for s in catalog.select(index.db, [("shared", None)])]
        assert titles == ["second"]


def test_updates_find_documents_by_path_through_an_index(tmp_path: Path) -> None:
    home = tmp_path / "home"
    put(home, record("r-1"))
    with MemoryIndex(tmp_path / "i.sqlite") as index:
        scan.Scanner(layout.memory_root(home), index).refresh([("shared", None)])
        plan = " ".join(
            str(row[-1])
            for row in index.db.execute(
                "EXPLAIN QUERY PLAN SELECT rowid FROM docs WHERE path = ?", ("x",)
            )
        )
        assert "docs_path" in plan  # not a scan of every document per changed file
