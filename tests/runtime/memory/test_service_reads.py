"""MemoryService reads: list, get, search, overview, over files that change behind its back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memhub.runtime.backends.local import LocalStore
from memhub.runtime.memory import frontmatter, layout
from memhub.runtime.memory.errors import NotFound
from memhub.runtime.memory.records import Source, render_record
from memhub.runtime.memory.service import MemoryService, index_path
from memhub.runtime.memory.workspace import open_workspace

from .svchelp import Memory, make_memory, put, record


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    m = make_memory(tmp_path)
    put(m.home, record("r-mine", "project", m.pid, title="deploy with fabric", tags=("ops",)))
    put(m.home, record("r-shared", title="shared fabric notes", kind="preference"))
    put(m.home, record("r-theirs", "project", m.other_pid, title="fabric secret of client"))
    return m


def ids(items: list) -> list[str]:  # type: ignore[type-arg]
    return sorted(getattr(item, "id", None) or item.record.id for item in items)


def test_list_shows_the_project_and_shared_records_only(mem: Memory) -> None:
    svc = mem.service()
    assert ids(svc.list()) == ["r-mine", "r-shared"]
    assert ids(svc.list(scope="project")) == ["r-mine"]
    assert ids(svc.list(scope="shared")) == ["r-shared"]
    assert ids(svc.list(kinds=("preference",))) == ["r-shared"]
    assert ids(svc.list(tags=("OPS",))) == ["r-mine"]
    assert len(svc.list(limit=1)) == 1
    entry = svc.get("r-mine")
    assert entry.record.title == "deploy with fabric"
    assert entry.revision and entry.path.name == "r-mine.md"


def test_superseded_and_proposed_filters(mem: Memory) -> None:
    put(mem.home, record("r-old", "project", mem.pid, status="superseded", superseded_by="r-mine"))
    put(mem.home, record("r-prop", "project", mem.pid, kind="lesson", status="proposed"))
    svc = mem.service()
    assert ids(svc.list(scope="project")) == ["r-mine", "r-prop"]
    assert ids(svc.list(scope="project", include_proposed=False)) == ["r-mine"]
    assert "r-old" in ids(svc.list(include_superseded=True))
    assert svc.get("r-old").record.status == "superseded"  # get finds it by id
    assert ids(svc.search("title", scope="project")) == ["r-prop"]
    assert "r-old" in ids(svc.search("title", include_superseded=True))


def test_search_is_scoped_and_names_its_source(mem: Memory) -> None:
    hits = mem.service().search("fabric")
    assert ids(hits) == ["r-mine", "r-shared"]
    assert {h.source for h in hits} == {"record"} and all(h.revision for h in hits)
    # any text is a query: its operators are words, so only the relaxed query finds
    # "fabric", in this project's and the shared records, never the other project's secret
    odd = mem.service().search('fabric" OR (secret* -x:')
    assert ids(odd) == ["r-mine", "r-shared"] and {h.match for h in odd} == {"relaxed"}
    assert odd.unmatched == ("secret",) and odd.ignored == ("OR", "x")


def test_a_question_in_a_sentence_finds_the_record_with_its_words(mem: Memory) -> None:
    """Issue 22: every word ANDed, "When did Calvin first travel to Tokyo?" found nothing."""
    calvin = record("r-calvin", "project", mem.pid, title="Calvin's trip",
                    body="Calvin flew to Tokyo in March 2023.\n")  # fmt: skip
    put(mem.home, calvin)
    put(mem.home, record("r-dana", "project", mem.pid, body="Dana flew to Kyoto.\n"))
    hits = mem.service().search("When did Calvin first travel to Tokyo?")
    assert [h.id for h in hits] == ["r-calvin"] and hits[0].match == "relaxed"
    assert hits[0].matched_terms == ("Calvin", "Tokyo")
    assert hits.unmatched == ("first", "travel") and hits.ignored == ("When", "did", "to")
    sessions = mem.service().search("When did Calvin travel?", kinds=("session",))
    assert list(sessions) == [] and sessions.unmatched == ("Calvin", "travel")


def test_another_projects_id_reads_exactly_like_an_absent_one(mem: Memory) -> None:
    svc = mem.service()
    with pytest.raises(NotFound) as theirs:
        svc.get("r-theirs")
    with pytest.raises(NotFound) as absent:
        svc.get("r-nothing")
    assert str(theirs.value).replace("r-theirs", "ID") == str(absent.value).replace(
        "r-nothing", "ID"
    )
    assert mem.other_pid not in str(theirs.value) and "secret" not in str(theirs.value)


ADVERSARIAL_IDS = [
    "r-theirs",
    "../r-theirs",
    f"../../projects/{'{other}'}/records/r-theirs",
    "/etc/passwd",
    "",
    "R-THEIRS",
    "r-theirs.md",
    "r-theirs\x00",
    "x" * 10_000,
    "..",
    "\ud800",
]


def test_adversarial_reads_never_leak(mem: Memory) -> None:
    """Every attempt below gets nothing of the other project: counted."""
    svc = mem.service()
    attempts = 0
    for rid in ADVERSARIAL_IDS:
        rid = rid.replace("{other}", mem.other_pid)
        attempts += 1
        with pytest.raises(NotFound) as error:
            svc.get(rid)
        # the message echoes what the caller typed, and adds nothing of the other project
        assert mem.other_pid not in str(error.value).replace(rid[:60], "")
    for scope in ("other", "projects", mem.other_pid, "../project", "PROJECT", ""):
        attempts += 2
        assert svc.list(scope=scope) == [] and svc.search("fabric", scope=scope) == []
    for query in ("secret", "client", mem.other_pid, "r-theirs"):
        attempts += 1
        assert svc.search(query) == []
    attempts += 1
    assert "r-theirs" not in str(svc.overview())
    for cwd in (mem.other / "..", Path("/")):
        attempts += 1
        outside = mem.service(cwd=cwd)
        assert "r-theirs" not in ids(outside.list()) + ids(outside.search("fabric"))
    assert attempts == 30


def test_a_project_without_shared_sees_no_shared_record(mem: Memory) -> None:
    from memhub.runtime.memory import projects as P

    path = layout.projects_file(layout.memory_root(mem.home))
    P.save_registry(path, P.set_shared(P.load_registry(path), mem.pid, False))
    svc = mem.service()
    assert ids(svc.list()) == ["r-mine"] and ids(svc.search("fabric")) == ["r-mine"]
    with pytest.raises(NotFound):
        svc.get("r-shared")


def test_reads_notice_edits_made_in_the_files(mem: Memory) -> None:
    svc = mem.service()
    assert ids(svc.search("fabric")) == ["r-mine", "r-shared"]
    path = put(mem.home, record("r-mine", "project", mem.pid, title="deploy with ansible"))
    assert ids(svc.search("ansible")) == ["r-mine"]
    assert ids(svc.search("fabric")) == ["r-shared"]
    os.unlink(path)
    assert ids(svc.list()) == ["r-shared"]
    put(mem.home, record("r-new", "project", mem.pid, title="brand new"))
    assert ids(svc.search("brand")) == ["r-new"]


def test_a_same_size_edit_in_the_same_tick_is_still_noticed(mem: Memory) -> None:
    svc = mem.service()
    path = put(mem.home, record("r-tick", "project", mem.pid, title="alpha"))
    assert ids(svc.search("alpha")) == ["r-tick"]
    info = path.stat()
    path.write_bytes(path.read_bytes().replace(b"alpha", b"gamma"))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # same size, same mtime
    assert ids(svc.search("gamma")) == ["r-tick"]


def test_malformed_records_are_reported_and_left_byte_identical(mem: Memory) -> None:
    folder = layout.project_records(layout.memory_root(mem.home), mem.pid)
    bad = folder / "r-bad.md"
    data = b"---\nmemhub: 1\nid: r-bad\ntitle: [unclosed\n---\nbody\n"
    bad.write_bytes(data)
    wrong = folder / "r-wrong.md"
    wrong.write_bytes(render_record(record("r-elsewhere", "project", mem.pid)))
    svc = mem.service()
    assert ids(svc.list()) == ["r-mine", "r-shared"]
    notes = "\n".join(svc.notes)
    assert f"{bad}:" in notes and "YAML" in notes
    assert f"{wrong}:1: id r-elsewhere is not the file's name" in notes
    assert bad.read_bytes() == data


def test_a_markdown_file_that_is_no_record_is_left_alone(mem: Memory) -> None:
    folder = layout.project_records(layout.memory_root(mem.home), mem.pid)
    note = folder / "my-notes.md"
    note.write_text("# My notes\n\nfabric is great\n")
    svc = mem.service()
    assert ids(svc.search("fabric")) == ["r-mine", "r-shared"]
    assert any("not a memhub record" in n and str(note) in n for n in svc.notes)
    assert note.read_text() == "# My notes\n\nfabric is great\n"


def test_a_deleted_or_corrupt_index_is_rebuilt_on_the_next_read(mem: Memory) -> None:
    svc = mem.service()
    assert ids(svc.search("fabric")) == ["r-mine", "r-shared"]
    index_path(mem.home).unlink()
    assert ids(svc.search("fabric")) == ["r-mine", "r-shared"]  # the same service
    svc.close()
    index_path(mem.home).write_bytes(b"not a database at all" * 100)
    assert ids(mem.service().search("fabric")) == ["r-mine", "r-shared"]


def test_rebuild_counts_only_the_callers_records(mem: Memory) -> None:
    assert mem.service().rebuild_index() == 2
    assert ids(mem.service().list()) == ["r-mine", "r-shared"]
    other = MemoryService(open_workspace(mem.home, cwd=mem.other))
    assert ids(other.list()) == ["r-shared", "r-theirs"]


def test_search_on_an_unchanged_memory_parses_no_yaml(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = mem.service()
    assert ids(svc.search("fabric")) == ["r-mine", "r-shared"]

    def no_yaml(*_: object) -> None:
        raise AssertionError("YAML parsed on an unchanged memory")

    monkeypatch.setattr(frontmatter, "load", no_yaml)
    assert ids(svc.search("fabric")) == ["r-mine", "r-shared"]
    assert ids(mem.service().search("fabric")) == ["r-mine", "r-shared"]  # a new process too
    assert ids(mem.service().list()) == ["r-mine", "r-shared"]
    assert mem.service().get("r-mine").record.tags == ("ops",)


def test_overview_counts_only_the_callers_scopes(mem: Memory) -> None:
    put(mem.home, record("r-prop", "project", mem.pid, kind="lesson", status="proposed"))
    view = mem.service().overview()
    assert view["project"] == {"id": mem.pid, "name": "app"}
    assert view["counts"] == {"fact": 1, "preference": 1} and view["proposed"] == 1
    assert "r-mine" in view["memory_md"] and "r-theirs" not in view["memory_md"]
    assert mem.service(cwd=mem.home.parent).overview()["project"] is None


def test_with_recheck_a_watcher_catches_in_place_edits(mem: Memory) -> None:
    import time

    with MemoryService(open_workspace(mem.home, cwd=mem.app), recheck=0.05) as svc:
        assert ids(svc.search("fabric")) == ["r-mine", "r-shared"]
        put(mem.home, record("r-added", "project", mem.pid, title="fabric too"))  # a new file
        assert "r-added" in ids(svc.search("fabric"))  # the folder changed: listed at once
        path = layout.project_records(layout.memory_root(mem.home), mem.pid) / "r-mine.md"
        folder = path.parent.stat().st_mtime_ns
        with open(path, "r+b") as handle:  # in place, as some editors save
            data = handle.read().replace(b"deploy with fabric", b"deploy with puppet")
            handle.seek(0)
            handle.write(data)
            handle.truncate()
        assert path.parent.stat().st_mtime_ns == folder
        watcher = svc._watcher
        assert watcher is not None
        start = watcher.walks
        deadline = time.monotonic() + 30
        while watcher.walks < start + 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ids(svc.search("puppet")) == ["r-mine"]
    assert svc._watcher is None


def _capture(home: Path, cid: str, cwd: Path, text: str, host: str = "claude") -> None:
    with LocalStore(home / "store.sqlite") as store:
        store.import_conversation(
            {"conversation_id": cid, "session_id": cid, "host": host, "cwd": str(cwd)},
            [
                {"id": f"{cid}-1", "kind": "message", "role": "user", "text": text},
                {"id": f"{cid}-2", "kind": "message", "role": "assistant", "text": "ok " + text},
                {"id": f"{cid}-3", "kind": "tool_result", "role": "tool", "text": "zebra"},
            ],
        )


def test_sessions_are_searched_within_their_project(mem: Memory, tmp_path: Path) -> None:
    (mem.app / "sub").mkdir()
    _capture(mem.home, "c-mine", mem.app / "sub", "how do we migrate the database")
    _capture(mem.home, "c-theirs", mem.other, "migrate the secret database")
    plain = tmp_path / "plain"
    plain.mkdir()
    _capture(mem.home, "c-nowhere", plain, "migrate nowhere database")
    svc = mem.service()
    hits = svc.search("migrate database", kinds=("session",))
    assert [(h.id, h.source, h.host, h.revision) for h in hits] == [
        ("c-mine", "session", "claude", None)
    ]
    assert svc.search("migrate database") == []  # records only by default
    assert svc.search("zebra", kinds=("session",)) == []  # tool output is not indexed
    both = svc.search("migrate", sources=("record", "session"))
    assert ids(both) == ["c-mine"]
    _capture(mem.home, "c-mine", mem.app, "and then rollback")  # the session grows
    assert ids(svc.search("rollback", kinds=("session",))) == ["c-mine"]
    theirs = MemoryService(open_workspace(mem.home, cwd=mem.other))
    assert ids(theirs.search("migrate", kinds=("session",))) == ["c-theirs"]


def test_a_record_source_kind_round_trips_through_the_index(mem: Memory) -> None:
    put(mem.home, record("r-src", "project", mem.pid, source=Source(kind="agent", session="s1")))
    assert mem.service().get("r-src").record.source == Source(kind="agent", session="s1")


def test_links_and_fifos_in_a_records_folder_are_reported_not_followed(
    mem: Memory, tmp_path: Path
) -> None:
    folder = layout.project_records(layout.memory_root(mem.home), mem.pid)
    target = tmp_path / "elsewhere.md"
    target.write_bytes(render_record(record("r-link", "project", mem.pid, title="leaked text")))
    (folder / "r-link.md").symlink_to(target)
    os.mkfifo(folder / "r-fifo.md")
    svc = mem.service()
    assert svc.search("leaked") == [] and ids(svc.list()) == ["r-mine", "r-shared"]
    notes = "\n".join(svc.notes)
    assert "r-link.md: a link" in notes and "r-fifo.md: not a regular file" in notes


def test_a_full_refresh_checks_trusted_folders_too(mem: Memory) -> None:
    with MemoryService(open_workspace(mem.home, cwd=mem.app), recheck=3600) as svc:
        assert ids(svc.search("fabric")) == ["r-mine", "r-shared"]
        path = layout.project_records(layout.memory_root(mem.home), mem.pid) / "r-mine.md"
        with open(path, "r+b") as handle:  # in place: the folder's stat stays
            data = handle.read().replace(b"deploy with fabric", b"deploy with chef!!")
            handle.seek(0)
            handle.write(data)
        assert svc.refresh_index(full=True) == 1
        assert ids(svc.search("chef")) == ["r-mine"]


def test_a_session_folder_is_resolved_once_per_registry_state(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memhub.runtime.memory import projects

    plain = tmp_path / "plain"
    plain.mkdir()
    calls: list[str] = []
    real = projects.resolve

    def counting(registry: projects.Registry, cwd: str) -> projects.Resolution:
        calls.append(str(cwd))
        return real(registry, cwd)

    svc = mem.service()  # (opening it resolves the caller's own folder)
    monkeypatch.setattr(projects, "resolve", counting)
    for n in range(3):  # the session grows; its folder is resolved the first time only
        _capture(mem.home, "c-plain", plain, f"turn {n}")
        _capture(mem.home, "c-mine", mem.app, f"turn {n}")
        assert ids(svc.search("turn", kinds=("session",))) == ["c-mine"]
    assert sorted(calls) == sorted([str(plain), str(mem.app)])
