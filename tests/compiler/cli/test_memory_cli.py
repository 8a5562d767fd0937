"""`memhub memory` through the real CLI: each command and option, preview before write."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.runtime.memory.records import revision

from tests.compiler.cli.memkit import Memhub, add, connected, record_files, revision_of


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


@pytest.fixture
def app(mh: Memhub, tmp_path: Path) -> tuple[Path, str]:
    return connected(mh, tmp_path / "app")


def test_add_previews_and_writes_only_with_yes(mh: Memhub, app: tuple[Path, str]) -> None:
    top, pid = app
    args = ("memory", "add", "--kind", "fact", "--title", "CI uses Python 3.12", "--body", "b")
    preview = mh(*args, cwd=top)
    assert preview.code == 1 and "not confirmed" in preview.err and "--yes" in preview.err
    assert "+title:" in preview.out or "CI uses Python 3.12" in preview.out
    assert record_files(pid) == []
    as_json = mh(*args, "--json", cwd=top)
    assert as_json.code == 1 and as_json.json()["errors"][0]["error"] == "NotConfirmed"
    assert (
        as_json.data["written"] is False
        and as_json.data["plan"]["changes"][0]["action"] == "create"
    )
    assert record_files(pid) == []
    wrote = mh(*args, "--yes", cwd=top)
    assert wrote.code == 0, wrote.err
    [path] = record_files(pid)
    assert "CI uses Python 3.12" in path.read_text()


def test_list_get_and_their_filters(mh: Memhub, app: tuple[Path, str]) -> None:
    top, pid = app
    fact = add(mh, top, "Staging is Postgres 16", "", "--tag", "db")
    decision = add(mh, top, "We use alembic", "", "--kind", "decision", "--tag", "db")
    lesson = add(
        mh, top, "Migrate first", "", "--kind", "lesson", "--trigger", "cmd:alembic upgrade"
    )
    listed = mh("memory", "list", "--json", cwd=top).data
    assert {r["id"] for r in listed["records"]} == {fact, decision, lesson}
    assert listed["project"]["id"] == pid
    kinds = mh("memory", "list", "--kind", "decision", "--kind", "lesson", "--json", cwd=top)
    assert {r["id"] for r in kinds.data["records"]} == {decision, lesson}
    tagged = mh("memory", "list", "--tag", "db", "--json", cwd=top).data["records"]
    assert {r["id"] for r in tagged} == {fact, decision}
    assert len(mh("memory", "list", "--limit", "1", "--json", cwd=top).data["records"]) == 1
    text = mh("memory", "list", cwd=top)
    assert text.code == 0 and fact in text.out and "Staging is Postgres 16" in text.out
    got = mh("memory", "get", lesson, "--json", cwd=top).data
    assert got["triggers"]["commands"] == ["alembic upgrade"] and got["kind"] == "lesson"
    assert got["revision"] == revision(Path(got["path"]).read_bytes())
    raw = mh("memory", "get", lesson, cwd=top)
    assert raw.code == 0 and raw.out == Path(got["path"]).read_text()


def test_search_names_each_hit_and_filters(mh: Memhub, app: tuple[Path, str]) -> None:
    top, _ = app
    one = add(mh, top, "Connection refused on port 5432", "the db was down", "--tag", "db")
    add(mh, top, "Deploys go through Argo", "gitops")
    hits = mh("memory", "search", "refused", "--json", cwd=top).data["hits"]
    assert [h["id"] for h in hits] == [one]
    assert hits[0]["source"] == "record" and hits[0]["scope"] == "project"
    text = mh("memory", "search", "refused", cwd=top)
    assert one in text.out and "(project, fact)" in text.out
    assert mh("memory", "search", "refused", "--tag", "nope", "--json", cwd=top).data["hits"] == []
    assert (
        mh("memory", "search", "refused", "--kind", "lesson", "--json", cwd=top).data["hits"] == []
    )
    assert (hits[0]["match"], hits[0]["matched_terms"]) == ("strict", ["refused"])
    # a question: strict finds nothing, the relaxed query finds the record with its words
    asked = mh("memory", "search", "Why was the connection refused?", "--json", cwd=top).data
    assert [h["id"] for h in asked["hits"]] == [one] and asked["hits"][0]["match"] == "relaxed"
    assert asked["hits"][0]["matched_terms"] == ["connection", "refused"]
    assert asked["ignored_terms"] == ["Why", "was", "the"] and asked["unmatched_terms"] == []
    shown = mh("memory", "search", "Why was the connection refused?", cwd=top).out
    assert "relaxed: holds connection, refused" in shown
    none = mh("memory", "search", "Where is the zebra?", cwd=top).out
    assert "no matches: nothing holds zebra" in none and "Where, is, the" in none
    sessions = mh("memory", "search", "refused", "--kind", "session", "--json", cwd=top)
    assert sessions.code == 0 and all(h["source"] == "session" for h in sessions.data["hits"])


def test_shared_scope_is_explicit_and_seen_by_projects(
    mh: Memhub, app: tuple[Path, str], tmp_path: Path
) -> None:
    top, pid = app
    shared = add(mh, top, "Team style: black", "", "--scope", "shared")
    assert [p.stem for p in record_files(None)] == [shared] and record_files(pid) == []
    other, _ = connected(mh, tmp_path / "other")
    assert shared in {r["id"] for r in mh("memory", "list", "--json", cwd=other).data["records"]}
    only = mh("memory", "list", "--scope", "project", "--json", cwd=other).data["records"]
    assert only == []
    off, _ = connected(mh, tmp_path / "private")
    mh("project", "connect", "--no-shared", cwd=off)
    assert mh("memory", "list", "--json", cwd=off).data["records"] == []
    assert "--shared" in mh("memory", "list", "--scope", "shared", cwd=off).err
    assert mh("memory", "get", shared, cwd=off).code == 1


def test_edit_rm_and_their_revisions(mh: Memhub, app: tuple[Path, str]) -> None:
    top, pid = app
    rid = add(mh, top, "Old title", "old body")
    rev = revision_of(mh, top, rid)
    edited = mh("memory", "edit", rid, "--revision", rev, "--title", "New title", "--yes", cwd=top)
    assert edited.code == 0, edited.err
    got = mh("memory", "get", rid, "--json", cwd=top).data
    assert got["title"] == "New title" and got["body"].strip() == "old body"
    nothing = mh("memory", "edit", rid, "--revision", got["revision"], cwd=top)
    assert nothing.code == 2 and "nothing to change" in nothing.err
    gone = mh("memory", "rm", rid, "--revision", got["revision"], cwd=top)
    assert gone.code == 1 and record_files(pid)  # previewed, not confirmed
    removed = mh("memory", "rm", rid, "--revision", got["revision"], "--yes", cwd=top)
    assert removed.code == 0, removed.err
    assert record_files(pid) == []
    assert mh("memory", "get", rid, cwd=top).code == 1


def test_edit_body_from_a_file_and_stdin(
    mh: Memhub, app: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top, _ = app
    rid = add(mh, top, "A note")
    note = tmp_path / "note.md"
    note.write_text("from a file\n")
    rev = revision_of(mh, top, rid)
    assert (
        mh("memory", "edit", rid, "--revision", rev, "--file", str(note), "--yes", cwd=top).code
        == 0
    )
    assert mh("memory", "get", rid, "--json", cwd=top).data["body"] == "from a file\n"
    refused = mh(
        "memory", "add", "--kind", "fact", "--title", "t", "--file", str(tmp_path), cwd=top
    )
    assert refused.code == 2 and "a folder" in refused.err


def test_duplicates_need_force(mh: Memhub, app: tuple[Path, str]) -> None:
    top, pid = app
    first = add(mh, top, "Same thing", "same body")
    args = (
        "memory",
        "add",
        "--kind",
        "fact",
        "--title",
        "Same thing",
        "--body",
        "same body",
        "--yes",
    )
    dup = mh(*args, cwd=top)
    assert dup.code == 1 and first in dup.err and "--force" in dup.err
    assert len(record_files(pid)) == 1
    assert mh(*args, "--force", cwd=top).code == 0
    assert len(record_files(pid)) == 2


def test_supersedes_and_all(mh: Memhub, app: tuple[Path, str]) -> None:
    top, _ = app
    old = add(mh, top, "Python 3.11 in CI")
    new = add(mh, top, "Python 3.12 in CI", "", "--supersedes", old)
    ids = {r["id"] for r in mh("memory", "list", "--json", cwd=top).data["records"]}
    assert ids == {new}
    every = mh("memory", "list", "--all", "--json", cwd=top).data["records"]
    assert {r["id"]: r["status"] for r in every} == {new: "active", old: "superseded"}


def test_artifacts_by_name(mh: Memhub, app: tuple[Path, str]) -> None:
    top, _ = app
    v1 = add(mh, top, "Runbook", "v1", "--kind", "artifact", "--name", "runbook")
    v2 = add(mh, top, "Runbook", "v2", "--kind", "artifact", "--name", "runbook")
    assert [r["id"] for r in mh("memory", "list", "--json", cwd=top).data["records"]] == [v2]
    assert mh("memory", "get", v1, "--json", cwd=top).data["superseded_by"] == v2


def test_index_refresh_and_rebuild(mh: Memhub, app: tuple[Path, str]) -> None:
    top, _ = app
    add(mh, top, "One")
    add(mh, top, "Two", "", "--kind", "decision")
    rebuilt = mh("memory", "index", "--rebuild", "--json", cwd=top)
    assert rebuilt.code == 0, rebuilt.err
    assert rebuilt.data["rebuilt"] is True and rebuilt.data["indexed"] >= 2
    assert rebuilt.data["counts"] == {"fact": 1, "decision": 1}
    text = mh("memory", "index", cwd=top)
    assert text.code == 0 and "1 decision" in text.out and "1 fact" in text.out


def test_a_deleted_index_is_rebuilt_by_the_next_read(mh: Memhub, app: tuple[Path, str]) -> None:
    top, _ = app
    rid = add(mh, top, "Remember the milk")
    from tests.compiler.cli.memkit import home

    for index in (home() / "memory").rglob("*.sqlite*"):
        index.unlink()
    for index in (home() / "memory").rglob("*.db*"):
        index.unlink()
    hits = mh("memory", "search", "milk", "--json", cwd=top).data["hits"]
    assert [h["id"] for h in hits] == [rid]


def test_export_copies_into_a_folder(mh: Memhub, app: tuple[Path, str]) -> None:
    top, _ = app
    rid = add(mh, top, "Exported fact")
    dest = top / "docs" / "memory"
    preview = mh("memory", "export", rid, "--to", str(dest), cwd=top)
    assert preview.code == 1 and not dest.exists()
    done = mh("memory", "export", rid, "--to", str(dest), "--yes", "--json", cwd=top)
    assert done.code == 0, done.err
    [copied] = list(dest.glob("*.md"))
    assert "Exported fact" in copied.read_text()


def test_accept_activates_a_proposed_directive(mh: Memhub, app: tuple[Path, str]) -> None:
    top, pid = app
    rid = add(mh, top, "Run make", "", "--kind", "procedure", "--trigger", "cmd:make")
    # a person's directive is active at once; an agent's lands proposed (edited here by hand)
    [path] = record_files(pid)
    path.write_text(path.read_text().replace("kind: user", "kind: agent").replace(
        "status: active", "status: proposed"))  # fmt: skip
    listed = mh("memory", "list", "--json", cwd=top).data["records"]
    assert listed[0]["status"] == "proposed"
    assert mh("memory", "accept", rid, cwd=top).code == 1  # not confirmed
    accepted = mh("memory", "accept", rid, "--yes", cwd=top)
    assert accepted.code == 0, accepted.err
    assert mh("memory", "get", rid, "--json", cwd=top).data["status"] == "active"


@pytest.mark.parametrize(("answer", "code"), [("y\n", 0), ("n\n", 1), ("\n", 1)])
def test_on_a_terminal_it_asks(mh: Memhub, app: tuple[Path, str], answer: str, code: int) -> None:
    import os
    import subprocess
    import sys

    top, pid = app
    master, slave = os.openpty()
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "memhub.compiler.cli.main", "memory", "add", "--kind", "fact",
             "--title", "Asked on a terminal", "--body", "b"],
            cwd=top, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        os.write(master, answer.encode())
        _out, err = child.communicate(timeout=120)
    finally:
        os.close(master)
        os.close(slave)
    assert child.returncode == code, err
    assert "Write 1 change? [y/N]" in err
    assert len(record_files(pid)) == (1 if code == 0 else 0)


def _capture(cid: str, cwd: Path, text: str, host: str = "claude") -> None:
    """A session in the local capture store, as the capture hooks leave it."""
    from memhub.runtime.backends.local import LocalStore

    from tests.compiler.cli.memkit import home

    with LocalStore(home() / "store.sqlite") as store:
        store.import_conversation(
            {"conversation_id": cid, "session_id": cid, "host": host, "cwd": str(cwd)},
            [
                {"id": f"{cid}-1", "kind": "message", "role": "user", "text": text},
                {"id": f"{cid}-2", "kind": "message", "role": "assistant", "text": "ok"},
            ],
        )


def test_search_sessions_names_each_session_and_its_host(
    mh: Memhub, app: tuple[Path, str], tmp_path: Path
) -> None:
    top, _ = app
    other, _ = connected(mh, tmp_path / "other")
    _capture("c-mine", top, "how do we migrate the database", host="codex")
    _capture("c-theirs", other, "migrate the secret database")
    add(mh, top, "Migrate the database with alembic")
    ran = mh("memory", "search", "migrate database", "--kind", "session", "--json", cwd=top)
    assert [(h["source"], h["id"], h["host"]) for h in ran.data["hits"]] == [
        ("session", "c-mine", "codex")
    ]
    text = mh("memory", "search", "migrate database", "--kind", "session", cwd=top)
    assert "session c-mine (codex)" in text.out and "c-theirs" not in text.out
    records = mh("memory", "search", "migrate database", "--json", cwd=top).data["hits"]
    assert [h["source"] for h in records] == ["record"]
    mixed = mh("memory", "search", "migrate", "--kind", "session", "--kind", "fact", cwd=top)
    assert mixed.code == 2 and "sessions only" in mixed.err


def test_memhub_undo_reverts_a_memory_write(mh: Memhub, app: tuple[Path, str]) -> None:
    top, pid = app
    kept = add(mh, top, "Kept fact")
    undone = add(mh, top, "Regretted fact", "pomegranate")
    assert mh("memory", "search", "pomegranate", "--json", cwd=top).data["hits"]
    ran = mh("undo", cwd=top)
    assert ran.code == 0, ran.err
    assert [p.stem for p in record_files(pid)] == [kept]
    assert mh("memory", "search", "pomegranate", "--json", cwd=top).data["hits"] == []
    assert mh("memory", "get", undone, cwd=top).code == 1


def test_control_characters_in_records_never_reach_the_terminal_raw(
    mh: Memhub, app: tuple[Path, str], tmp_path: Path
) -> None:
    top, pid = app
    rid = add(mh, top, "Plain title", "needle")
    [path] = record_files(pid)
    path.write_text(path.read_text().replace("Plain title", "Evil \\u001b[2J title"))
    assert "\x1b" in mh("memory", "get", rid, "--json", cwd=top).data["title"]  # data is data
    for args in (("memory", "list"), ("memory", "search", "needle")):
        ran = mh(*args, cwd=top)
        assert ran.code == 0 and "\x1b" not in ran.out and "Evil \\x1b[2J title" in ran.out
    note = tmp_path / "evil.md"
    note.write_text("---\nkind: fact\ntitle: x\n---\nbody \x1b]0;pwned\x07 text\n")
    preview = mh("memory", "import", str(note), cwd=top)
    assert "\x1b" not in preview.out and "\x07" not in preview.out


def test_edit_replaces_and_clears_tags_and_triggers(mh: Memhub, app: tuple[Path, str]) -> None:
    top, _ = app
    rid = add(mh, top, "Lint first", "", "--kind", "lesson", "--tag", "ci", "--tag", "lint",
              "--trigger", "cmd:ruff check")  # fmt: skip

    def edit(*args: str) -> dict[str, object]:
        rev = revision_of(mh, top, rid)
        ran = mh("memory", "edit", rid, "--revision", rev, *args, "--yes", cwd=top)
        assert ran.code == 0, ran.err
        return dict(mh("memory", "get", rid, "--json", cwd=top).data)

    got = edit("--tag", "py", "--trigger", "path:**/*.py", "--trigger", "FooError raised")
    assert got["tags"] == ["py"]
    assert got["triggers"] == {"paths": ["**/*.py"], "commands": [], "identifiers": [],
                               "errors": ["FooError raised"]}  # fmt: skip
    got = edit("--clear-tags", "--clear-triggers")
    assert got["tags"] == [] and got["triggers"] == {
        "paths": [], "commands": [], "identifiers": [], "errors": []
    }  # fmt: skip


def test_the_preview_ends_with_its_counts(mh: Memhub, app: tuple[Path, str]) -> None:
    top, _ = app
    ran = mh("memory", "add", "--kind", "fact", "--title", "Counted", "--body", "b", cwd=top)
    assert ran.out.rstrip().splitlines()[-1] == (
        "plan: 1 create, 0 update, 0 delete, 0 skip (+ 1 derived MEMORY.md)"
    )
