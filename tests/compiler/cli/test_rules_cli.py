"""`memhub rules`: local rulebooks previewed then written, checked, and their fires listed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.runtime.memory.directives import Call
from memhub.runtime.rules import fire, ledger, store

from tests.compiler.cli.memkit import Memhub, home

ADD = ("rules", "add", "--book", "payments", "--id", "ledger", "--event", "edit",
       "--path", "db/migrations/**", "--text", "Ledger tables are append-only.")  # fmt: skip


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    monkeypatch.setenv("MEMHUB_PERSON", "ana")
    return Memhub(capsys, monkeypatch, tmp_path)


def books_folder() -> Path:
    return Path(store.books_dir(str(home())))


def test_add_previews_then_writes_a_book_that_binds_only_you(mh: Memhub) -> None:
    preview = mh(*ADD, "--json")
    assert preview.code == 1 and preview.data["written"] is False
    assert not books_folder().exists()
    written = mh(*ADD, "--yes", "--json")
    assert written.code == 0 and written.data["new_book"] is True
    (path,) = books_folder().glob("*.json")
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    listed = mh("rules", "list", "--json").data
    assert listed["books"][0]["members"] == ["ana"] and listed["books"][0]["binds_you"]
    again = mh(*ADD, "--yes")
    assert again.code == 2 and "already has a rule 'ledger'" in again.err


def test_check_says_why_and_fires_lists_the_ledger(mh: Memhub) -> None:
    mh(*ADD, "--yes")
    mh("rules", "add", "--book", "org", "--member", "all", "--id", "force", "--event", "bash",
       "--command", "git push --force", "--text", "Never force-push.", "--yes")  # fmt: skip
    rows = {
        r["id"]: r["verdict"]
        for r in mh("rules", "check", "db/migrations/1_a.py", "--json").data["rules"]
    }
    assert rows == {"ledger": "fires on `db/migrations/`",
                    "force": "does not fire: no trigger matches it as a command"}  # fmt: skip
    books, _ = store.load_books(str(home()))
    found = fire.fires(books, "bash", Call(command="git push --force"), person="bo")
    ledger.record(str(home()), host="codex", session="s1", event="bash", fires=found, at="t0")
    listed = mh("rules", "fires", "--json").data["fires"]
    assert [(f["book"], f["rule"], f["session"]) for f in listed] == [("org", "force", "s1")]
    assert mh("rules", "fires", "--session", "other", "--json").data["fires"] == []


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", "", "x" * 101])
def test_unsafe_book_names_are_refused(mh: Memhub, name: str) -> None:
    ran = mh("rules", "add", "--book", name, "--id", "a", "--event", "bash", "--command", "make",
             "--text", "t", "--yes")  # fmt: skip
    assert ran.code == 2 and not books_folder().exists()


def test_a_broken_book_file_is_reported_and_left_alone(mh: Memhub, tmp_path: Path) -> None:
    mh(*ADD, "--yes")
    broken = books_folder() / "broken.json"
    broken.write_bytes(b'{"name": "x", "rules": [{"id": 1}]}')
    (books_folder() / "link.json").symlink_to(tmp_path / "elsewhere.json")
    ran = mh("rules", "list", "--json")
    assert ran.code == 0 and [b["name"] for b in ran.data["books"]] == ["payments"]
    assert len(ran.json()["warnings"]) == 2
    assert broken.read_bytes() == b'{"name": "x", "rules": [{"id": 1}]}'


def test_eight_writers_at_once_lose_no_rule(mh: Memhub, tmp_path: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "memhub.compiler.cli.main", "rules", "add", "--book", "team",
             "--member", "all", "--id", f"r{n}", "--event", "bash", "--command", f"tool{n} run",
             "--text", f"rule {n}", "--yes"],
            cwd=tmp_path, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        for n in range(8)
    ]  # fmt: skip
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    document = json.loads((books_folder() / "team.json").read_text())
    assert sorted(r["id"] for r in document["rules"]) == [f"r{n}" for n in range(8)]


def test_a_hub_book_is_listed_with_its_origin_and_add_refuses_it(mh: Memhub) -> None:
    from memhub.runtime import rules

    folder = Path(rules.hub_books_dir(str(home()))) / "team-memory"
    folder.mkdir(parents=True)
    book = {"name": "payments", "members": "all", "rules": [
        {"id": "check", "event": "edit", "triggers": {"paths": ["migrations/*"]},
         "text": "Run the migration check."}]}  # fmt: skip
    (folder / "payments.json").write_text(json.dumps(book))
    listed = mh("rules", "list", "--json").data["books"]
    assert [(b["name"], b["origin"], b["project"]) for b in listed] == [
        ("payments", "hub team-memory", None)
    ]
    assert "payments  (from hub team-memory; binds everyone)" in mh("rules", "list").out
    refused = mh(*ADD, "--yes")
    assert refused.code == 2 and "belongs to hub team-memory" in refused.err
    assert "--book payments-mine" in refused.err
    assert not list(books_folder().glob("*.json"))


def test_check_says_a_project_scope_hubs_book_binds_only_in_its_project(
    mh: Memhub, tmp_path: Path
) -> None:
    from memhub.runtime import rules

    project = tmp_path / "proj"
    project.mkdir()
    folder = Path(rules.hub_books_dir(str(home()))) / "team-memory@0123456789ab"
    folder.mkdir(parents=True)
    (folder / rules.PROJECT_MARK).write_text(f"{project}\n")
    book = {"name": "payments", "rules": [{"id": "check", "event": "edit",
            "triggers": {"paths": ["migrations/*"]}, "text": "Run the check."}]}  # fmt: skip
    (folder / "payments.json").write_text(json.dumps(book))
    (row,) = mh("rules", "check", "migrations/1.py", "--json", cwd=tmp_path).data["rules"]
    assert row["verdict"] == f"does not fire here: its hub was applied to {project} only"
    (row,) = mh("rules", "check", "migrations/1.py", "--json", cwd=project).data["rules"]
    assert row["verdict"] == "fires on `migrations/`"
    listed = mh("rules", "list", cwd=project).out
    assert f"payments  (from hub team-memory, only in {project}; binds everyone)" in listed
