"""`native.from_paths`: Markdown files and folders as import Candidates; hostile files are
notes naming the file, never exceptions, and no original is ever written."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.runtime.memory import native
from memhub.runtime.memory.native_files import MAX_FILE_BYTES
from memhub.runtime.memory.records import Record, Source, Triggers, render_record


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _by_origin(found: list) -> dict:
    return {c.origin: c for c in found}


def test_a_record_file_imports_as_itself(tmp_path: Path) -> None:
    record = Record(
        id="r-20260101000000-abcdef01",
        title="Retry the flaky upload once",
        kind="lesson",
        scope="shared",
        created="2026-01-01T00:00:00Z",
        updated="2026-01-01T00:00:00Z",
        tags=("ci",),
        source=Source(kind="agent", session="s-1"),
        status="proposed",
        triggers=Triggers(commands=("make upload",)),
        body="Upload times out on the first try.\n",
    )
    path = tmp_path / "lesson.md"
    path.write_bytes(render_record(record))
    (found,), notes = native.from_paths([path])
    assert notes == []
    draft = found.draft
    assert (draft.kind, draft.title, draft.body) == ("lesson", record.title, record.body)
    assert draft.tags == ("ci",) and draft.triggers == record.triggers
    assert draft.scope == "project"  # shared is asked for, never taken from a file
    assert draft.source.kind == "agent"  # an agent's directive still lands proposed
    assert found.origin == str(path)
    assert found.origin_revision == hashlib.sha256(path.read_bytes()).hexdigest()


def test_front_matter_supplies_kind_title_tags_and_triggers(tmp_path: Path) -> None:
    memhub_style = tmp_path / "deploy.md"
    memhub_style.write_text(
        "---\nkind: procedure\ntitle: Deploy\ntags: [ops, release]\n"
        "triggers:\n  commands: [make deploy]\n  paths: ['deploy/**']\n---\n\n1. Tag.\n2. Push.\n"
    )
    plain = tmp_path / "style.md"
    plain.write_text(
        "---\ntitle: Code style\ntags: python, style\ndescription: How we write Python\n"
        "aliases: [x]\n---\n# Ignored heading\n\nUse ruff.\n"
    )
    described = tmp_path / "described.md"
    described.write_text("---\ndescription: Tabs are forbidden\n---\nSpaces only.\n")
    found, notes = native.from_paths([tmp_path])
    assert notes == []
    by = _by_origin(found)
    deploy = by[str(memhub_style)].draft
    assert (deploy.kind, deploy.title, deploy.tags) == ("procedure", "Deploy", ("ops", "release"))
    assert deploy.triggers == Triggers(commands=("make deploy",), paths=("deploy/**",))
    assert deploy.body == "\n1. Tag.\n2. Push.\n"
    assert deploy.source == Source(kind="import", file=str(memhub_style))
    style = by[str(plain)].draft
    assert (style.kind, style.title, style.tags) == ("fact", "Code style", ("python", "style"))
    assert by[str(described)].draft.title == "Tabs are forbidden"


def test_without_front_matter_the_first_heading_or_the_file_name_is_the_title(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes").mkdir()
    headed = tmp_path / "notes" / "a.md"
    headed.write_text("Intro line.\n\n## Build   cache\n\nClear it with `make clean`.\n")
    bare = tmp_path / "notes" / "release_checklist.md"
    bare.write_text("Bump the version, then tag.\n")
    (tmp_path / "notes" / "skip.txt").write_text("not markdown")
    hidden = tmp_path / ".git"
    hidden.mkdir()
    (hidden / "x.md").write_text("# inside .git\n")
    found, notes = native.from_paths([tmp_path])
    assert notes == []
    by = _by_origin(found)
    assert set(by) == {str(headed), str(bare)}
    assert by[str(headed)].draft.title == "Build cache"
    assert by[str(headed)].draft.body == headed.read_text()
    assert by[str(bare)].draft.title == "release checklist"
    assert all(c.draft.kind == "fact" for c in found)


def test_hostile_files_are_notes_naming_the_file(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    outside = tmp_path / "secret.md"
    outside.write_text("# outside the named folder\n")
    (root / "ok.md").write_text("# fine\n")
    os.mkfifo(root / "pipe.md")
    (root / "leak.md").symlink_to(outside)
    (root / "inner.md").symlink_to(root / "ok.md")  # a link inside the folder: the same file
    (root / "linked").symlink_to(tmp_path, target_is_directory=True)
    (root / "huge.md").write_bytes(b"# big\n" + b"x" * MAX_FILE_BYTES)
    (root / "latin1.md").write_bytes(b"# caf\xe9\n")
    (root / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    (root / "alias.md").write_text("---\na: &x [1]\nb: *x\n---\nbody\n")
    (root / "badkind.md").write_text("---\nkind: rumour\n---\nbody\n")
    before = _tree(tmp_path)
    found, notes = native.from_paths([root, tmp_path / "missing.md"])
    assert [c.origin for c in found] == [str(root / "ok.md")]
    text = "\n".join(notes)
    for name in ("pipe.md", "leak.md", "linked", "huge.md", "latin1.md", "broken.md"):
        assert str(root / name) in text, (name, notes)
    assert "alias" in text and "badkind.md" in text and "missing.md" in text
    assert f"{root / 'latin1.md'}:1: not UTF-8" in text
    assert _tree(tmp_path) == before  # nothing written, nothing touched


def test_a_fifo_named_directly_does_not_block(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.md"
    os.mkfifo(pipe)
    found, notes = native.from_paths([pipe])
    assert found == [] and "not a regular file" in notes[0]


def test_triggers_on_a_fact_are_left_out_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "fact.md"
    path.write_text("---\ntriggers: {commands: [ls]}\n---\nA fact.\n")
    (found,), notes = native.from_paths([path])
    assert found.draft.triggers.empty()
    assert notes == [f"{path}: a fact has no triggers; its triggers were left out"]


@pytest.mark.parametrize("name", ["r.md", "a/b/r.md"])
def test_each_file_is_imported_once_however_it_is_named(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# once\n")
    found, _ = native.from_paths([tmp_path, path, tmp_path])
    assert [c.origin for c in found] == [str(path)]


def test_the_readers_import_and_run_under_python_s_i(tmp_path: Path) -> None:
    """Vendored into bundles: every reader imports with the standard library only, and a
    note without front matter needs no YAML."""
    runtime = Path(native.__file__).parent.parent
    shutil.copytree(runtime, tmp_path / "memhub_runtime", ignore=shutil.ignore_patterns("*.pyc"))
    note = tmp_path / "n.md"
    note.write_text("# Vendored\n\nbody\n")
    code = (
        "import sys; from pathlib import Path\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from memhub_runtime.memory import native, native_claude, native_codex, native_gemini\n"
        f"found, notes = native.from_paths([Path({str(note)!r})])\n"
        "print(found[0].draft.title, 'yaml' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-I", "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Vendored False"
