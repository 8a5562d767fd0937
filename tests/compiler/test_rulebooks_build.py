"""A hub's `rulebooks:` in its bundles and installs: the files the runtime reads, where a host
cannot fire them (the coverage table), and an install's books through plan, diff and undo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.hubspec import load
from memhub.runtime import rules
from memhub.runtime.rules import store

from tests.compiler.installkit import run
from tests.gitrepos import repo
from tests.hubs import REPO, built

TEAM = REPO / "examples" / "team-memory"
BOOK = "team-migrations"
HEAD = """version: 1
plugin: {name: demo, version: 0.1.0, description: A demo.}
marketplace: {name: demo-market, owner: {name: Ann}}
hosts: [claude, codex, gemini, cursor, agent-plugins]
rulebooks:
  - name: Ops
    members: [ana]
    rules:
      - {id: start, event: session_start, text: On-call is the ops channel.}
      - {id: deploy, event: bash, triggers: {commands: [make deploy]}, text: Deploys go through CI.}
"""


def _write_bundle(tmp_path: Path, name: str = "team-memory") -> Path:
    result = built(name)
    for artifact in result.artifacts:
        target = tmp_path / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
    return tmp_path


def test_every_bundle_that_runs_hooks_carries_the_book_the_runtime_reads(tmp_path: Path) -> None:
    result = built("team-memory")
    paths = [a.path for a in result.artifacts if f"/{rules.BUNDLED}/" in a.path]
    assert paths == [
        f"gemini/team-memory/{rules.BUNDLED}/{BOOK}.json",
        f"plugins/team-memory/{rules.BUNDLED}/{BOOK}.json",
    ]
    bundle = _write_bundle(tmp_path / "bundle")
    folder = bundle / "plugins" / "team-memory" / rules.BUNDLED
    assert store.book_file("h", BOOK).endswith(f"/{BOOK}.json")  # the store's own file name
    (book,) = [store.book_of(json.loads(p.read_text())) for p in folder.iterdir()]
    assert [r.id for r in book.rules] == ["migration-check"] and book.members is None


def test_the_bundles_own_hook_fires_the_hubs_rule(tmp_path: Path) -> None:
    bundle = _write_bundle(tmp_path / "bundle")
    top = repo(tmp_path / "app")
    payload = {"session_id": "s-1", "hook_event_name": "PreToolUse", "cwd": str(top),
               "transcript_path": str(top / "t.jsonl"), "tool_name": "Write",
               "tool_input": {"file_path": str(top / "migrations" / "0002_add.py")}}  # fmt: skip
    hook = bundle / "plugins" / "team-memory" / "memhub_runtime" / "hook.py"
    done = subprocess.run(
        [sys.executable, "-S", str(hook), "claude", "PreToolUse", "rules.advise"],
        input=json.dumps(payload).encode(), capture_output=True, timeout=60, check=False,
        env={**os.environ, "MEMHUB_HOME": str(tmp_path / "mh"), "MEMHUB_PERSON": "ana"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"[memhub rule · {BOOK} · migration-check]" in context
    assert "make migration-check" in context


def _rows(hub_dir: Path) -> dict[str, tuple[str, str]]:
    return {
        row.host: (row.status, row.reason)
        for row in build(load(hub_dir)).coverage
        if row.component == "rulebook"
    }


def test_the_coverage_table_says_where_a_book_cannot_fire(tmp_path: Path) -> None:
    (tmp_path / "hub.yaml").write_text(HEAD, "utf-8")
    rows = _rows(tmp_path)
    assert set(rows) == {"claude", "codex", "gemini", "cursor", "agent-plugins"}
    assert all(status == "unsupported" for status, _ in rows.values())
    assert "the hub binds no rules.advise hook for bash, session_start rules" in rows["claude"][1]
    # bound at session start only: its bash rule cannot fire anywhere
    hooks = "hooks:\n  - {id: rules-start, event: session_start, handler: rules.advise}\n"
    (tmp_path / "hub.yaml").write_text(HEAD + hooks, "utf-8")
    rows = _rows(tmp_path)
    assert rows["claude"][0] == "caveat" and "its bash rules do not fire" in rows["claude"][1]
    assert "binds no rules.advise hook for bash rules" in rows["claude"][1]
    # Cursor's sessionStart reaches the model (additional_context): like the others here
    assert rows["cursor"][0] == "caveat" and "its bash rules do not fire" in rows["cursor"][1]
    # bound on every event: mapped where the host shows the model the hook's output
    hooks += "  - {id: rules-tool, event: after_tool, tools: [shell], handler: rules.advise}\n"
    (tmp_path / "hub.yaml").write_text(HEAD + hooks, "utf-8")
    rows = _rows(tmp_path)
    assert [h for h, (status, _) in rows.items() if status == "mapped"] == [
        "claude", "codex", "gemini"
    ]  # fmt: skip
    # Cursor's tool events show the model nothing: its bash rule still cannot fire there
    assert rows["cursor"][0] == "caveat" and "cannot reach the model there" in rows["cursor"][1]
    assert rows["agent-plugins"][0] == "unsupported"


def test_a_bundle_that_vendors_no_runtime_says_its_books_are_not_read(tmp_path: Path) -> None:
    hooks = "hooks:\n  - {id: rules-start, event: session_start, handler: rules.advise}\n"
    (tmp_path / "hub.yaml").write_text(HEAD + hooks + "runtime: {vendor: never}\n", "utf-8")
    result = build(load(tmp_path))
    assert not [a for a in result.artifacts if rules.BUNDLED in a.path]
    rows = [r for r in result.coverage if r.component == "rulebook" and r.host == "claude"]
    assert rows[0].status == "unsupported" and "vendor: never" in rows[0].reason


def _installed(home: Path, folder: str = "team-memory") -> Path:
    return Path(rules.hub_books_dir(str(home / ".memhub"))) / folder


def test_apply_installs_the_books_diff_shows_them_undo_and_uninstall_take_them_back(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "diff", str(TEAM), "--scope", "user", "--hosts", "claude,codex")
    assert code in (0, 1), err
    assert ".memhub/rules/hub/team-memory/ (folder)" in out and f"+{BOOK}.json" in out
    code, _, err = run(capsys, "apply", str(TEAM), "--hosts", "claude,codex")
    assert code == 0, err
    folder = _installed(home)
    assert sorted(p.name for p in folder.iterdir()) == [f"{BOOK}.json"]
    books, problems = store.load_books(str(home / ".memhub"))
    assert problems == [] and [(b.name, b.origin) for b in books] == [(BOOK, "hub team-memory")]
    code, out, err = run(capsys, "apply", str(TEAM), "--hosts", "claude,codex")
    assert code == 0 and "0 create, 0 update, 0 delete" in out + err
    code, _, err = run(capsys, "undo")
    assert code == 0, err
    assert not folder.exists()
    code, _, err = run(capsys, "apply", str(TEAM), "--hosts", "claude,codex")
    assert code == 0 and folder.is_dir(), err
    code, _, err = run(capsys, "uninstall", str(TEAM), "--hosts", "claude,codex")
    assert code == 0, err
    assert not folder.exists()


def test_a_project_scope_install_marks_its_books_with_the_project(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    project = repo(tmp_path / "proj")
    monkeypatch.chdir(project)
    code, _, err = run(capsys, "apply", str(TEAM), "--hosts", "claude", "--scope", "project")
    assert code == 0, err
    (folder,) = Path(rules.hub_books_dir(str(home / ".memhub"))).iterdir()
    assert folder.name.startswith("team-memory@")
    assert (folder / rules.PROJECT_MARK).read_text() == f"{project}\n"
    (book,) = store.load_books(str(home / ".memhub"))[0]
    assert book.within == str(project)


def _doctor(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict]:
    _code, out, err = run(capsys, "doctor", str(TEAM), "--hosts", "codex", *args, "--json")
    assert out, err
    return json.loads(out)["data"]["checks"]


def test_doctor_checks_the_installed_books_as_memhubs_own_place(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    code, _, err = run(capsys, "apply", str(TEAM), "--hosts", "codex")
    assert code == 0, err
    checks = [c for c in _doctor(capsys) if str(_installed(home)) in c["target"]]
    assert {(c["name"], c["status"]) for c in checks} == {
        ("rulebook", "ok"), ("drift", "ok"), ("hub", "ok")
    }, checks  # fmt: skip
    (_installed(home) / f"{BOOK}.json").write_text("{not json")
    failed = [c for c in _doctor(capsys) if c["status"] == "fail" and c["name"] == "rulebook"]
    assert failed and "the runtime cannot read it" in failed[0]["detail"], failed
    # the folder of every hub's books moved behind a link: the runtime reads none of them
    hubs = _installed(home).parent
    hubs.rename(tmp_path / "moved")
    hubs.symlink_to(tmp_path / "moved", target_is_directory=True)
    failed = [c for c in _doctor(capsys) if c["status"] == "fail" and c["name"] == "rulebook"]
    assert failed and "is a link" in failed[0]["detail"], failed
    hubs.unlink()
    (tmp_path / "moved").rename(hubs)
    # a project-scope install's books belong to that scope, not to the user's
    project = repo(tmp_path / "proj")
    monkeypatch.chdir(project)
    code, _, err = run(capsys, "apply", str(TEAM), "--hosts", "codex", "--scope", "project")
    assert code == 0, err
    user = [c["target"] for c in _doctor(capsys) if "@" in c["target"]]
    assert user == [], user
    mine = [c for c in _doctor(capsys, "--scope", "project") if "team-memory@" in c["target"]]
    assert {(c["name"], c["status"]) for c in mine} >= {("rulebook", "ok"), ("hub", "ok")}, mine
