"""`memhub memory import`: Markdown files and folders (their own front matter supplies kind,
title and tags), a host's native memory (--native), previewed, originals untouched, a re-import
skipped, a changed source a conflict (exit 3)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.compiler.cli.memkit import Memhub, connected, record_files


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


DECISION = b"---\nkind: decision\ntitle: Use uv\ntags: [py]\n---\nuv, not pip.\n"


def test_import_a_file_with_front_matter(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    note = tmp_path / "dec.md"
    note.write_bytes(DECISION)
    preview = mh("memory", "import", str(note), cwd=top)
    assert preview.code == 1 and "not confirmed" in preview.err and record_files(pid) == []
    done = mh("memory", "import", str(note), "--yes", "--json", cwd=top)
    assert done.code == 0, done.err
    assert done.data["candidates"] == 1 and done.data["written"] is True
    [rid] = [c["record_id"] for c in done.data["plan"]["changes"] if c["action"] == "create"]
    got = mh("memory", "get", rid, "--json", cwd=top).data
    assert (got["kind"], got["title"], got["tags"]) == ("decision", "Use uv", ["py"])
    assert got["source"]["kind"] == "import" and got["body"].strip() == "uv, not pip."
    assert note.read_bytes() == DECISION
    again = mh("memory", "import", str(note), "--yes", cwd=top)
    assert again.code == 0 and "nothing to write" in again.out
    assert len(record_files(pid)) == 1
    note.write_bytes(DECISION + b"And pin it.\n")
    conflict = mh("memory", "import", str(note), "--yes", cwd=top)
    assert conflict.code == 3 and rid in conflict.err
    assert len(record_files(pid)) == 1


def test_import_a_folder_skips_what_is_not_markdown(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_bytes(DECISION)
    (docs / "sub" / "b.md").write_text("---\nkind: fact\ntitle: Staging is PG16\n---\nyes\n")
    (docs / "image.png").write_bytes(b"\x89PNG\r\n")
    ran = mh("memory", "import", str(docs), "--yes", "--json", cwd=top)
    assert ran.code == 0, ran.err
    titles = {r["title"] for r in mh("memory", "list", "--json", cwd=top).data["records"]}
    assert titles == {"Use uv", "Staging is PG16"}
    assert len(record_files(pid)) == 2


def test_import_usage_errors(mh: Memhub, tmp_path: Path) -> None:
    top, _ = connected(mh, tmp_path / "app")
    neither = mh("memory", "import", cwd=top)
    assert neither.code == 2 and "--native" in neither.err
    both = mh("memory", "import", "x.md", "--native", "claude", cwd=top)
    assert both.code == 2
    missing = mh("memory", "import", str(tmp_path / "none.md"), cwd=top)
    assert missing.code == 2 and "no such file" in missing.err
    assert mh("memory", "import", "--native", "cursor", cwd=top).code == 2


def test_import_outside_a_project_files_nothing(mh: Memhub, tmp_path: Path) -> None:
    note = tmp_path / "dec.md"
    note.write_bytes(DECISION)
    plain = tmp_path / "plain"
    plain.mkdir()
    ran = mh("memory", "import", str(note), "--yes", cwd=plain)
    assert ran.code == 1, ran.err
    assert record_files("*") == []


def test_import_native_claude_memory(mh: Memhub, tmp_path: Path) -> None:
    top, pid = connected(mh, tmp_path / "app")
    slug = re.sub(r"[^a-zA-Z0-9]", "-", str(top.resolve()))
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / slug / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("# Memory\n\n- The staging database is Postgres 16\n")
    nothing = mh("memory", "import", "--native", "codex", cwd=top)
    assert nothing.code == 0 and record_files(pid) == []
    ran = mh("memory", "import", "--native", "claude", "--yes", "--json", cwd=top)
    assert ran.code == 0, ran.err
    assert ran.data["candidates"] == 1
    hits = mh("memory", "search", "staging postgres", "--json", cwd=top).data["hits"]
    assert len(hits) == 1 and hits[0]["scope"] == "project"
    assert (folder / "MEMORY.md").read_text().endswith("Postgres 16\n")


def test_hostile_files_in_an_imported_folder_are_named_and_skipped(
    mh: Memhub, tmp_path: Path
) -> None:
    top, pid = connected(mh, tmp_path / "app")
    docs = tmp_path / "docs"
    docs.mkdir()
    os.mkfifo(docs / "pipe.md")
    (docs / "out.md").symlink_to("/etc/passwd")
    (docs / "loop").symlink_to(docs)
    (docs / "big.md").write_bytes(b"a" * (2 << 20))
    (docs / "ok.md").write_bytes(DECISION)
    ran = mh("memory", "import", str(docs), "--yes", "--json", cwd=top)
    assert ran.code == 0, ran.err
    for name in ("pipe.md", "out.md", "loop", "big.md"):
        assert name in ran.err
    assert ran.data["candidates"] == 1
    assert [r["title"] for r in mh("memory", "list", "--json", cwd=top).data["records"]] == [
        "Use uv"
    ]
    assert len(record_files(pid)) == 1
