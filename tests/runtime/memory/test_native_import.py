"""The native readers' candidates through the service: previewed, written, bound to their
sources (a re-import of an unchanged source is skipped, of a changed one a conflict), and an
agent's directive still lands proposed; the originals are never written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.runtime.memory import native
from memhub.runtime.memory.errors import ImportConflict
from memhub.runtime.memory.records import Record, Source, Triggers, render_record

from .svchelp import Memory, make_memory


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    return make_memory(tmp_path)


def _titles(mem: Memory) -> dict[str, str]:
    return {e.record.title: e.record.status for e in mem.service().list()}


def test_files_import_once_and_a_changed_source_is_a_conflict(mem: Memory, tmp_path: Path) -> None:
    notes_dir = tmp_path / "notes"
    notes_dir.mkdir()
    (notes_dir / "deploy.md").write_text("# Deploy with make deploy\n\nThen tag.\n")
    (notes_dir / "style.md").write_text("---\ntitle: Use ruff\ntags: [python]\n---\nAlways.\n")
    found, notes = native.from_paths([notes_dir])
    assert notes == []
    service = mem.service()
    plan = service.plan_import(found)
    assert [c.action for c in plan.changes if c.action == "create"] == ["create", "create"]
    service.apply(plan)
    assert _titles(mem) == {"Deploy with make deploy": "active", "Use ruff": "active"}

    again, _ = native.from_paths([notes_dir])
    plan = mem.service().plan_import(again)
    assert plan.empty() and any("imported already" in n for n in plan.notes), plan.notes

    (notes_dir / "style.md").write_text("---\ntitle: Use ruff\n---\nAlways, and black never.\n")
    changed, _ = native.from_paths([notes_dir])
    with pytest.raises(ImportConflict):
        mem.service().plan_import(changed)


def test_an_agents_directive_in_a_record_file_lands_proposed(mem: Memory, tmp_path: Path) -> None:
    record = Record(
        id="r-20260101000000-0badc0de",
        title="Always run migrations first",
        kind="procedure",
        scope="shared",
        created="2026-01-01T00:00:00Z",
        updated="2026-01-01T00:00:00Z",
        source=Source(kind="agent"),
        triggers=Triggers(commands=("make migrate",)),
        body="Run them before the tests.\n",
    )
    path = tmp_path / "directive.md"
    path.write_bytes(render_record(record))
    found, _ = native.from_paths([path])
    service = mem.service()
    service.apply(service.plan_import(found))
    (entry,) = mem.service().list()
    assert (entry.record.status, entry.record.scope) == ("proposed", "project")
    assert path.read_bytes() == render_record(record)


def test_gemini_memories_import_into_the_project(mem: Memory, tmp_path: Path) -> None:
    home = tmp_path / "gemini-home"
    dot = home / ".gemini"
    dot.mkdir(parents=True)
    text = "# Rules\n\n## Gemini Added Memories\n- I prefer pytest\n- CI runs on Linux only\n"
    (dot / "GEMINI.md").write_text(text)
    (dot / "projects.json").write_text(json.dumps({"projects": {str(mem.app.resolve()): "app"}}))
    found, notes = native.discover("gemini", cwd=mem.app, env={"GEMINI_CLI_HOME": str(home)})
    assert notes == [] and len(found) == 2
    service = mem.service()
    service.apply(service.plan_import(found))
    assert _titles(mem) == {"I prefer pytest": "active", "CI runs on Linux only": "active"}
    assert (dot / "GEMINI.md").read_text() == text
    found, _ = native.discover("gemini", cwd=mem.app, env={"GEMINI_CLI_HOME": str(home)})
    assert mem.service().plan_import(found).empty()
