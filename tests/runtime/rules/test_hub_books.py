"""Books a hub declares (a bundle's, an install's) read beside the books held in memory."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memhub.runtime import rules
from memhub.runtime.memory.directives import Call
from memhub.runtime.rules import fire, store

from tests.gitrepos import repo
from tests.runtime.rules.test_rules import ORG, TEAM
from tests.runtime.rules.test_rules_hook import claude, context, hook

RUNTIME = Path(__file__).resolve().parents[3] / "runtime"
HUB_BOOK = {
    "name": "migrations",
    "members": "all",
    "rules": [{"id": "check", "event": "edit", "triggers": {"paths": ["migrations/*"]},
               "text": "Run the migration check before you commit."}],
}  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "memhub-home"
    monkeypatch.setenv("MEMHUB_HOME", str(path))
    return path


def put(folder: Path, book: dict, name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name or book['name']}.json"
    path.write_text(json.dumps(book))
    return path


def hub_folder(home: Path, plugin: str = "team") -> Path:
    return Path(rules.hub_books_dir(str(home))) / plugin


def memory_folder(home: Path) -> Path:
    return Path(rules.books_dir(str(home)))


def test_hub_and_memory_books_load_together_with_their_origin(home: Path) -> None:
    put(hub_folder(home), ORG)
    put(memory_folder(home), TEAM)
    books, problems = store.load_books(str(home))
    assert problems == []
    assert [(b.name, b.origin) for b in books] == [("org", "hub team"), ("payments", "memory")]
    call = Call(paths=["/repo/db/migrations/0042_ledger_entries.py"])
    project = ("p-000000000001",)
    found = fire.fires(books, "edit", call, person="ana", project=project)
    # both fire, the hub's book (everyone) first
    assert [(f.rule.book, f.rule.id) for f in found] == [
        ("org", "migrations"),
        ("payments", "ledger"),
    ]


def test_a_memory_book_of_a_hub_books_name_is_reported_and_the_hubs_used(home: Path) -> None:
    put(hub_folder(home), ORG)
    mine = put(memory_folder(home), {**TEAM, "name": "ORG"}, "org")
    books, problems = store.load_books(str(home))
    assert [(b.name, b.origin) for b in books] == [("org", "hub team")]
    assert problems == [(str(mine), f"book 'ORG' is also {hub_folder(home) / 'org.json'} "
                                    "(hub team), which is used")]  # fmt: skip


def test_rules_add_refuses_to_write_into_a_hub_book(home: Path) -> None:
    put(hub_folder(home), HUB_BOOK)
    rule = {"id": "mine", "event": "bash", "triggers": {"commands": ["make"]}, "text": "x"}
    with pytest.raises(store.RuleError) as caught:
        store.add_rule(str(home), "Migrations", rule, None)
    message = str(caught.value)
    assert "belongs to hub team" in message and "apply the hub again" in message
    assert "--book migrations-mine" in message
    assert not list(memory_folder(home).glob("*.json"))


def test_a_link_where_a_books_folder_is_is_not_followed(tmp_path: Path, home: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    put(elsewhere, ORG)
    home.mkdir()
    (home / "rules").mkdir()
    memory_folder(home).symlink_to(elsewhere, target_is_directory=True)
    books, problems = store.load_books(str(home))
    assert books == [] and problems[0][1].startswith("is a link")
    assert not rules.books_present(str(home))
    with pytest.raises(store.RuleError, match="is a link"):
        store.add_rule(str(home), "org", {"id": "x", "event": "session_start", "text": "x"}, None)
    hubs = Path(rules.hub_books_dir(str(home)))
    hubs.mkdir()
    (hubs / "team").symlink_to(elsewhere, target_is_directory=True)
    assert store.load_books(str(home))[0] == []
    # a link where the folder of every hub's books is: reported, not followed
    (hubs / "team").unlink()
    hubs.rmdir()
    linked = tmp_path / "linked-hubs"
    put(linked / "team", ORG)
    hubs.symlink_to(linked, target_is_directory=True)
    books, problems = store.load_books(str(home))
    assert (
        books == []
        and (str(hubs), "is a link: hubs' books are read only from a real folder") in problems
    )
    assert not rules.books_present(str(home))


def test_a_book_named_to_climb_out_is_only_a_name(home: Path) -> None:
    put(hub_folder(home), {**HUB_BOOK, "name": "../../escape"}, "escape")
    (book,) = store.load_books(str(home))[0]
    assert book.name == "../../escape"  # shown and recorded as text, never a path
    rule = {"id": "x", "event": "session_start", "text": "x"}
    with pytest.raises(store.RuleError, match="cannot be a file name"):
        store.add_rule(str(home), "../escape", rule, None)
    assert not (home / "rules" / "escape.json").exists()


def test_a_fifo_or_a_huge_file_is_skipped_and_never_hangs_the_hook(
    tmp_path: Path, home: Path
) -> None:
    folder = hub_folder(home)
    put(folder, HUB_BOOK)
    os.mkfifo(folder / "a-fifo.json")
    os.mkfifo(Path(rules.hub_books_dir(str(home))) / "fifo-where-a-folder-is")
    huge = {**ORG, "name": "huge", "rules": [
        {"id": f"r{i}", "event": "bash", "triggers": {"commands": [f"cmd{i}"]}, "text": "t" * 1900}
        for i in range(600)]}  # fmt: skip
    put(folder, huge)
    books, problems = store.load_books(str(home))
    assert [b.name for b in books] == ["migrations"]
    assert sorted(Path(p).name for p, _ in problems) == ["a-fifo.json", "huge.json"]
    top = repo(tmp_path / "app")
    edit = {"tool_name": "Write", "tool_input": {"file_path": str(top / "migrations/1.py")}}
    started = time.monotonic()
    answer = hook("claude", "PreToolUse", claude("PreToolUse", top, **edit), home)
    assert time.monotonic() - started < 30
    assert "Run the migration check" in context(answer)


def test_the_cache_follows_a_hub_folder_too(home: Path) -> None:
    path = put(hub_folder(home), HUB_BOOK)
    put(memory_folder(home), TEAM)
    past = time.time() - 30
    for file in (path, memory_folder(home) / "payments.json"):
        os.utime(file, (past, past))
    assert [b.name for b in store.cached_books(str(home))] == ["migrations", "payments"]
    assert Path(store._cache_file(str(home))).is_file()
    cached = store.cached_books(str(home))
    assert [b.origin for b in cached] == ["hub team", "memory"]
    edited = json.loads(path.read_text())
    edited["rules"][0]["text"] = "Changed by a new apply."
    path.write_text(json.dumps(edited))
    assert store.cached_books(str(home))[0].rules[0].text == "Changed by a new apply."
    shutil.rmtree(hub_folder(home))
    assert [b.name for b in store.cached_books(str(home))] == ["payments"]


def test_a_project_scope_hub_binds_only_inside_its_project(tmp_path: Path, home: Path) -> None:
    inside, outside = repo(tmp_path / "app"), repo(tmp_path / "other")
    folder = hub_folder(home, "team@0123456789ab")
    put(folder, HUB_BOOK)
    edit = {"tool_name": "Write", "tool_input": {"file_path": "migrations/1.py"}}
    # no project mark: the folder's books bind nowhere
    assert store.load_books(str(home))[0] == []
    assert hook("claude", "PreToolUse", claude("PreToolUse", inside, **edit), home) == {}
    (folder / rules.PROJECT_MARK).write_text(str(inside) + "\n")
    (book,) = store.load_books(str(home))[0]
    assert (book.origin, book.within) == ("hub team", str(inside))
    payload = {**claude("PreToolUse", outside, **edit), "session_id": "s-out"}
    assert hook("claude", "PreToolUse", payload, home) == {}
    fired = hook("claude", "PreToolUse", claude("PreToolUse", inside, **edit), home)
    assert "Run the migration check" in context(fired)


def test_a_bundle_reads_the_books_beside_its_runtime_without_importing_os(
    tmp_path: Path, home: Path
) -> None:
    plugin = tmp_path / "bundle" / "team-memory"
    shutil.copytree(
        RUNTIME, plugin / "memhub_runtime", ignore=shutil.ignore_patterns("__pycache__")
    )
    put(plugin / rules.BUNDLED, HUB_BOOK)
    top = repo(tmp_path / "app")
    edit = {"tool_name": "Write", "tool_input": {"file_path": str(top / "migrations/1.py")}}
    done = subprocess.run(
        [sys.executable, "-S", str(plugin / "memhub_runtime" / "hook.py"), "claude",
         "PreToolUse", "rules.advise"],
        input=json.dumps(claude("PreToolUse", top, **edit)).encode(), capture_output=True,
        env={**os.environ, "MEMHUB_HOME": str(home), "MEMHUB_PERSON": "ana"}, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "[memhub rule · migrations · check]" in context(json.loads(done.stdout))
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(plugin)!r})\n"
        "from memhub_runtime import rules\n"
        f"print(rules.books_present({str(home)!r}), rules.book_folders({str(home)!r})[0][0],"
        " 'os' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-S", "-I", "-c", code], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "hub", "team-memory", "(bundle)", "False"]


def test_books_present_sees_every_folder(home: Path) -> None:
    assert not rules.books_present(str(home))
    put(hub_folder(home), HUB_BOOK)
    assert rules.books_present(str(home))
    shutil.rmtree(hub_folder(home))
    put(memory_folder(home), TEAM)
    assert rules.books_present(str(home))


def test_two_bundles_keep_a_cache_each(tmp_path: Path, home: Path) -> None:
    """Two plugins' runtimes see different books (each its own bundle's): one cache each,
    so neither rewrites the other's on every call."""
    put(memory_folder(home), TEAM)
    past = time.time() - 30
    os.utime(memory_folder(home) / "payments.json", (past, past))
    caches = set()
    for plugin in ("one", "two"):
        root = tmp_path / "bundle" / plugin
        shutil.copytree(
            RUNTIME, root / "memhub_runtime", ignore=shutil.ignore_patterns("__pycache__")
        )
        put(root / rules.BUNDLED, {**HUB_BOOK, "name": f"book-{plugin}"})
        os.utime(root / rules.BUNDLED / f"book-{plugin}.json", (past, past))
        code = (
            "import sys\n"
            f"sys.path.insert(0, {str(root)!r})\n"
            "from memhub_runtime.rules import store\n"
            f"print(sorted(b.name for b in store.cached_books({str(home)!r})),"
            f" store._cache_file({str(home)!r}))\n"
        )
        done = subprocess.run([sys.executable, "-S", "-I", "-c", code], capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        names, cache = done.stdout.rsplit(" ", 1)
        assert names == f"['book-{plugin}', 'payments']"
        caches.add(cache.strip())
    assert len(caches) == 2 and all(Path(c).is_file() for c in caches)
