"""directives_read: the active directives of the caller's scopes, from the index, prefiltered."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from memhub.runtime.memory import directives_read as R
from memhub.runtime.memory import scan
from memhub.runtime.memory.catalog import fields_json
from memhub.runtime.memory.directives import blocked, call_of
from memhub.runtime.memory.index import MemoryIndex
from memhub.runtime.memory.recordfile import record_doc
from memhub.runtime.memory.records import Record, Triggers
from memhub.runtime.memory.service import index_path

from .svchelp import make_memory, put, record

STOP = blocked(account="jane", repo="acme")
ROOT = Path(__file__).resolve().parents[3]


def lesson(rid: str, scope: str = "shared", project: str | None = None, **kw: object) -> Record:
    status = str(kw.pop("status", "active"))
    superseded = {"superseded_by": "r-new"} if status == "superseded" else {}
    return record(
        rid, scope, project, kind="lesson", status=status, triggers=Triggers(**kw), **superseded
    )  # type: ignore[arg-type]


def bulk_index(path: Path, records: list[Record]) -> None:
    """An index holding `records` as a scan would leave it, without writing 10k files."""
    with MemoryIndex(path) as index:
        docs = [record_doc(r, f"/m/{r.scope}/{r.project or ''}/{r.id}.md", r.id) for r in records]
        index.rebuild(docs)
        scan._make_table(index.db)
        index.db.executemany(
            "INSERT INTO scan_files (path, scope, project, mtime_ns, size, inode, checked_ns,"
            " revision, state, line, message, fix, fields, content)"
            " VALUES (?, ?, ?, 0, 0, 0, 0, ?, 'record', NULL, '', '', ?, '')",
            [(d.path, d.scope, d.project or "", d.revision, fields_json(r))
             for d, r in zip(docs, records, strict=True)],
        )  # fmt: skip


def ids(
    index: Path, allowed: list[tuple[str, str | None]], tool_input: dict[str, object]
) -> list[str]:
    return [h.directive.id for h in R.recall(index, allowed, call_of(tool_input), STOP)]


def test_reads_active_directives_of_the_callers_scopes_only(tmp_path: Path) -> None:
    m = make_memory(tmp_path)
    put(m.home, lesson("r-shared", commands=("make deploy",)))
    put(m.home, lesson("r-mine", "project", m.pid, commands=("make deploy",)))
    put(m.home, lesson("r-theirs", "project", m.other_pid, commands=("make deploy",)))
    put(m.home, lesson("r-draft", status="proposed", commands=("make deploy",)))
    put(m.home, lesson("r-old", status="superseded", commands=("make deploy",)))
    with m.service() as svc:
        svc.refresh_index()
        allowed = svc.workspace.allowed()
    index = index_path(m.home)
    got = ids(index, allowed, {"command": "make deploy"})
    assert sorted(got) == ["r-mine", "r-shared"]
    assert ids(index, [("project", m.pid)], {"command": "make deploy"}) == ["r-mine"]
    assert ids(index, [], {"command": "make deploy"}) == []
    assert ids(index, allowed, {"command": "make test"}) == []


def test_the_cache_follows_every_change_to_the_index(tmp_path: Path) -> None:
    m = make_memory(tmp_path)
    put(m.home, lesson("r-a", commands=("terraform apply",)))
    with m.service() as svc:
        svc.refresh_index()
        index, allowed = index_path(m.home), svc.workspace.allowed()
        assert ids(index, allowed, {"command": "terraform apply"}) == ["r-a"]
        assert (index.parent / R.CACHE_FILE).exists()
        put(m.home, lesson("r-a", commands=("terraform destroy",)))  # edited in place
        put(m.home, lesson("r-b", identifiers=("tfstate",)))
        svc.refresh_index()
    assert ids(index, allowed, {"command": "terraform apply"}) == []
    assert ids(index, allowed, {"command": "terraform destroy"}) == ["r-a"]
    assert ids(index, allowed, {"command": "rm prod.tfstate"}) == ["r-b"]


def test_a_read_that_changes_no_record_keeps_the_cache(tmp_path: Path) -> None:
    """The scanner writes its bookkeeping on every read: that is no reason to rebuild."""
    m = make_memory(tmp_path)
    put(m.home, lesson("r-a", commands=("terraform apply",)))
    with m.service() as svc:
        svc.refresh_index()
        index, allowed = index_path(m.home), svc.workspace.allowed()
        assert ids(index, allowed, {"command": "terraform apply"}) == ["r-a"]
        built, stamp = (index.parent / R.CACHE_FILE).stat().st_ino, R._stamp(str(index))
        svc.refresh_index(full=True)
        svc.list()
    assert R._stamp(str(index)) != stamp  # the index files did change
    assert ids(index, allowed, {"command": "terraform apply"}) == ["r-a"]
    assert (index.parent / R.CACHE_FILE).stat().st_ino == built


def test_a_rebuilt_index_with_new_row_numbers_still_answers_right(tmp_path: Path) -> None:
    m = make_memory(tmp_path)
    for n in range(5):
        put(m.home, lesson(f"r-{n}", identifiers=(f"Widget{n}Factory",)))
    with m.service() as svc:
        svc.refresh_index()
        index, allowed = index_path(m.home), svc.workspace.allowed()
        assert ids(index, allowed, {"command": "grep Widget3Factory"}) == ["r-3"]
        svc.rebuild_index()
    assert ids(index, allowed, {"command": "grep Widget3Factory"}) == ["r-3"]
    assert ids(index, allowed, {"command": "grep Widget1Factory"}) == ["r-1"]


def test_a_broken_or_unwritable_cache_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    bulk_index(index, [lesson("r-a", paths=("alembic/versions/*.py",))])
    (tmp_path / R.CACHE_FILE).write_bytes(b"\x00garbage")
    allowed: list[tuple[str, str | None]] = [("shared", None)]
    assert ids(index, allowed, {"file_path": "/r/alembic/versions/1.py"}) == ["r-a"]
    (tmp_path / R.CACHE_FILE).unlink()
    (tmp_path / R.CACHE_FILE).mkdir()  # cannot be written: recall still answers
    assert ids(index, allowed, {"file_path": "/r/alembic/versions/1.py"}) == ["r-a"]


def test_no_index_is_no_directive(tmp_path: Path) -> None:
    assert ids(tmp_path / "index.sqlite", [("shared", None)], {"command": "git push"}) == []
    assert not (tmp_path / "index.sqlite").exists()


def test_an_index_another_process_is_still_creating_is_no_directive(tmp_path: Path) -> None:
    """The file exists before its tables do (a scan in another process, e.g. the brief's
    detached child, has opened it but not committed its schema): no directive, no error."""
    import sqlite3

    index = tmp_path / "index.sqlite"
    sqlite3.connect(index).execute("CREATE TABLE other (x)").connection.commit()
    assert ids(index, [("shared", None)], {"command": "git push origin main"}) == []
    index.write_bytes(b"")  # created, not yet written
    assert ids(index, [("shared", None)], {"command": "git push origin main"}) == []


def test_a_call_naming_no_key_reads_no_record(tmp_path: Path, monkeypatch: object) -> None:
    index = tmp_path / "index.sqlite"
    bulk_index(index, [lesson("r-a", commands=("kubectl apply",))])
    allowed: list[tuple[str, str | None]] = [("shared", None)]
    assert ids(index, allowed, {"command": "kubectl apply -f x"}) == ["r-a"]  # cache built
    read: list[object] = []
    real = R._directives
    monkeypatch.setattr(R, "_directives", lambda db, rows: read.append(rows) or real(db, rows))  # type: ignore[attr-defined]
    assert ids(index, allowed, {"command": "rm -rf build"}) == []
    assert ids(index, [("project", "app")], {"command": "kubectl apply -f x"}) == []
    assert read == []
    assert ids(index, allowed, {"command": "kubectl apply -f x"}) == ["r-a"]
    assert len(read) == 1


def many(n: int) -> list[Record]:
    """`n` realistic directives: each names its own module, command and error."""
    out = []
    for i in range(n):
        out.append(
            lesson(
                f"r-{i:05d}",
                "project" if i % 2 else "shared",
                "app" if i % 2 else None,
                paths=(f"services/svc{i}/handlers/*.py", f"docs/runbook_{i}.md"),
                commands=(f"deploy-svc{i} --prod",),
                identifiers=(f"Svc{i}Client",),
                errors=(f"E{i:05d} quota exceeded",),
            )
        )
    return out


def _per_call(index: Path, inputs: list[dict[str, object]], rounds: int) -> list[float]:
    allowed: list[tuple[str, str | None]] = [("project", "app"), ("shared", None)]
    times = []
    for _ in range(rounds):
        for tool_input in inputs:
            start = time.process_time()
            R.recall(index, allowed, call_of(tool_input), STOP)
            times.append(time.process_time() - start)
    return times


def test_ten_thousand_directives_cost_little_more_than_ten(tmp_path: Path) -> None:
    (tmp_path / "big").mkdir()
    (tmp_path / "small").mkdir()
    big, small = tmp_path / "big" / "index.sqlite", tmp_path / "small" / "index.sqlite"
    bulk_index(big, many(10_000))
    bulk_index(small, many(10))
    inputs: list[dict[str, object]] = [
        {"file_path": "/r/services/svc7/handlers/api.py"},  # fires in both
        {"command": "deploy-svc3 --prod"},
        {"command": "rm -rf build/ && make"},  # fires in neither
    ]
    assert ids(big, [("shared", None), ("project", "app")], inputs[0]) == ["r-00007"]
    _per_call(big, inputs, 1)  # build both caches
    _per_call(small, inputs, 1)
    big_t, small_t = [], []
    for _ in range(5):  # interleaved rounds: both sides see the same machine load
        big_t += _per_call(big, inputs, 4)
        small_t += _per_call(small, inputs, 4)
    ratio = statistics.median(big_t) / max(statistics.median(small_t), 1e-6)
    print(f"10k vs 10 directives: CPU-time ratio {ratio:.2f}")
    assert ratio < 3, ratio  # without the key cache it is ~100x (every record decoded)


def test_a_bare_interpreter_imports_and_answers_with_no_heavy_module(tmp_path: Path) -> None:
    """Bundles vendor runtime/ as memhub_runtime and a hook runs it under -S -I: importing the
    recall modules loads none of the heavy modules, nor does a recall on a current cache."""
    index = tmp_path / "index.sqlite"
    bulk_index(index, [lesson("r-a", commands=("helm upgrade",), paths=("charts/**/*.yaml",))])
    shutil.copytree(ROOT / "runtime", tmp_path / "memhub_runtime")
    code = (
        f"import sys; sys.path.append({str(tmp_path)!r}); "
        "heavy = {'typing', 'pathlib', 're', 'json', 'sqlite3', 'datetime', 'tempfile'}; "
        "from memhub_runtime.memory import directives as D, directives_read as R; "
        "from memhub_runtime.memory import directives_answer, directives_render; "
        "before = sorted(heavy & set(sys.modules)); "
        f"hits = R.recall({str(index)!r}, [('shared', None)], "
        "D.call_of({'command': 'helm upgrade web ./chart'}), D.blocked()); "
        "print(before, [h.directive.id for h in hits], sorted(heavy & set(sys.modules)))"
    )
    outs = [
        subprocess.run(
            [sys.executable, "-S", "-I", "-c", code], capture_output=True, text=True, check=False
        )
        for _ in range(2)  # the first builds the cache (and decodes JSON), the second reads it
    ]
    assert all(p.returncode == 0 for p in outs), [p.stderr for p in outs]
    assert outs[0].stdout.startswith("[] ['r-a']")
    assert outs[1].stdout.strip() == "[] ['r-a'] []", outs[1].stdout
