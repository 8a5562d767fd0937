"""apply: the operation lock, revision checks under it, one journaled run, undo and recovery."""

from __future__ import annotations

import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from memhub.runtime.memory import layout
from memhub.runtime.memory import memorymd as M
from memhub.runtime.memory.errors import MemoryServiceError, StaleRevision
from memhub.runtime.memory.plans import Draft, MemoryPlan
from memhub.runtime.memory.service import MemoryService

from .svchelp import Memory, make_memory

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    return make_memory(tmp_path)


def draft(title: str = "a fact", body: str = "its body") -> Draft:
    return Draft(kind="fact", title=title, body=body)


def md(mem: Memory) -> Path:
    return layout.memory_index_md(layout.memory_root(mem.home), "project", mem.pid)


def test_apply_writes_private_files_memory_md_and_the_index(mem: Memory) -> None:
    svc = mem.service()
    plan = svc.plan_add(draft("zebra crossing"))
    result = svc.apply(plan)
    path = plan.changes[0].path
    assert result["run"] and str(path) in result["changed"] and str(md(mem)) in result["changed"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(md(mem).stat().st_mode) == 0o600
    assert plan.changes[0].record_id in md(mem).read_text()
    assert [h.id for h in svc.search("zebra")] == [plan.changes[0].record_id]
    assert svc.apply(MemoryPlan(())) == {"run": None, "changed": [], "notes": []}


def test_an_editor_change_between_plan_and_apply_is_stale(mem: Memory) -> None:
    svc = mem.service()
    svc.apply(svc.plan_add(draft()))
    entry = svc.list()[0]
    plan = svc.plan_edit(entry.record.id, revision=entry.revision, title="planned")
    edited = entry.path.read_bytes().replace(b"its body", b"edited in vim")
    entry.path.write_bytes(edited)
    memory_md = md(mem).read_bytes()
    with pytest.raises(StaleRevision) as error:
        svc.apply(plan)
    assert entry.record.id in str(error.value) and error.value.exit_code == 3
    assert entry.path.read_bytes() == edited and md(mem).read_bytes() == memory_md
    removal = svc.plan_remove(entry.record.id, revision=None)
    entry.path.unlink()
    with pytest.raises(StaleRevision):
        svc.apply(removal)


def test_a_plan_cannot_be_pointed_elsewhere(mem: Memory, tmp_path: Path) -> None:
    from dataclasses import replace

    svc = mem.service()
    plan = svc.plan_add(draft())
    change = plan.changes[0]
    for bad in (
        replace(change, path=tmp_path / "evil.md"),
        replace(change, project=mem.other_pid),
        replace(change, record_id="../x"),
    ):
        with pytest.raises(MemoryServiceError):
            svc.apply(MemoryPlan((bad,)))
    assert not (tmp_path / "evil.md").exists()
    assert not layout.project_records(layout.memory_root(mem.home), mem.other_pid).exists()


def test_user_text_in_memory_md_survives_and_a_broken_one_is_left_alone(mem: Memory) -> None:
    svc = mem.service()
    svc.apply(svc.plan_add(draft("one")))
    path = md(mem)
    mine = b"# My memory\n\nwritten by me\n\n"
    path.write_bytes(mine + path.read_bytes().split(b"# Memory\n\n", 1)[1] + b"\nafter\n")
    svc.apply(svc.plan_add(draft("two", "second body")))
    text = path.read_bytes()
    assert text.startswith(mine) and text.endswith(b"\nafter\n") and b"two" in text
    broken = mine + M.BEGIN.encode() + b"\nno end\n"
    path.write_bytes(broken)
    plan = svc.plan_add(draft("three", "third body"))
    assert any("MEMORY.md left as it is" in note and ":5:" in note for note in plan.notes)
    result = svc.apply(plan)
    assert any("MEMORY.md left as it is" in note for note in result["notes"])
    assert path.read_bytes() == broken and len(svc.list()) == 3


def test_memhub_undo_reverts_a_memory_run(mem: Memory) -> None:
    from memhub.compiler.safewrite.undo import undo_last

    svc = mem.service()
    svc.apply(svc.plan_add(draft("first")))
    memory_md = md(mem).read_bytes()
    plan = svc.plan_add(draft("second", "other body"))
    svc.apply(plan)
    assert len(svc.list()) == 2
    undo_last(mem.home)
    assert not plan.changes[0].path.exists() and md(mem).read_bytes() == memory_md
    assert [e.record.title for e in svc.list()] == ["first"]


def test_the_memhub_undo_command_reverts_a_memory_run(mem: Memory) -> None:
    import os

    svc = mem.service()
    svc.apply(svc.plan_add(draft("kept")))
    plan = svc.plan_add(draft("undone", "other body"))
    svc.apply(plan)
    done = subprocess.run(
        [sys.executable, "-c", "from memhub.compiler.cli.main import run; run()", "undo"],
        env={**os.environ, "MEMHUB_HOME": str(mem.home)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "(memory," in done.stdout and str(plan.changes[0].path) in done.stdout
    assert [e.record.title for e in svc.list()] == ["kept"]


CRASH = """
import os, signal, sys
from pathlib import Path
from memhub.runtime.memory import writes
from memhub.runtime.memory.plans import Draft
from memhub.runtime.memory.service import MemoryService
from memhub.runtime.memory.workspace import open_workspace
svc = MemoryService(open_workspace(Path(sys.argv[1]), cwd=Path(sys.argv[2])))
existing = svc.list()[0]
plan = svc.plan_edit(existing.record.id, revision=existing.revision, title="half done")
writes.AFTER_FIRST_WRITE = lambda: os.kill(os.getpid(), signal.SIGKILL)
svc.apply(plan)
"""


def test_a_writer_killed_mid_apply_is_rolled_back_by_the_next_run(mem: Memory) -> None:
    svc = mem.service()
    svc.apply(svc.plan_add(draft("before the crash")))
    entry = svc.list()[0]
    original, memory_md = entry.path.read_bytes(), md(mem).read_bytes()
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(mem.home), str(mem.app)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -9, done.stderr
    assert entry.path.read_bytes() != original  # the killed run got as far as the record
    svc.apply(svc.plan_add(draft("after the crash", "next body")))  # recovers first
    assert entry.path.read_bytes() == original and entry.record.id in md(mem).read_text()
    assert md(mem).read_bytes() != memory_md  # the new record is listed too
    assert sorted(e.record.title for e in svc.list()) == ["after the crash", "before the crash"]


WORKER = """
import sys
from pathlib import Path
from memhub.runtime.memory.errors import StaleRevision
from memhub.runtime.memory.plans import Draft
from memhub.runtime.memory.service import MemoryService
from memhub.runtime.memory.workspace import open_workspace
home, cwd, counter, me, rounds = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
svc = MemoryService(open_workspace(home, cwd=cwd))
stale = 0
for n in range(rounds):
    svc.apply(svc.plan_add(Draft(kind="fact", title=f"worker {me} fact {n}", body=f"{me} {n}")))
    while True:
        entry = svc.get(counter)
        try:
            svc.apply(svc.plan_edit(counter, revision=entry.revision, body=entry.record.body + f"{me}-{n}\\n"))
            break
        except StaleRevision:
            stale += 1
print(stale)
"""


READER = """
import sys, time
from pathlib import Path
from memhub.runtime.memory.service import MemoryService
from memhub.runtime.memory.workspace import open_workspace
svc = MemoryService(open_workspace(Path(sys.argv[1]), cwd=Path(sys.argv[2])))
seen = 0
deadline = time.monotonic() + float(sys.argv[3])
while time.monotonic() < deadline:
    seen = max(seen, len(svc.search("worker fact")))
    svc.list(limit=5)
print(seen)
"""


def test_eight_concurrent_writers_lose_no_update(mem: Memory) -> None:
    """8 writer processes add and edit (one shared counter record, revision-checked) while
    2 readers search: every edit lands once, every refusal is a StaleRevision."""
    svc = mem.service()
    plan = svc.plan_add(draft("counter", "lines:"))
    svc.apply(plan)
    counter, writers, rounds = plan.changes[0].record_id, 8, 4
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                str(mem.home),
                str(mem.app),
                counter,
                str(w),
                str(rounds),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(mem.home), str(mem.app), "3"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [proc.communicate(timeout=600) for proc in procs]
    read = [proc.communicate(timeout=600) for proc in readers]
    assert all(proc.returncode == 0 for proc in readers), [err for _, err in read]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in results]
    body = svc.get(counter).record.body
    lines = body.splitlines()[1:]
    assert sorted(lines) == sorted(f"{w}-{n}" for w in range(writers) for n in range(rounds))
    assert len(svc.list()) == 1 + writers * rounds
    stale = sum(int(out.strip()) for out, _ in results)
    print(f"stale edits refused and retried: {stale}")
    region = md(mem).read_text()
    assert all(e.record.id in region for e in svc.list())  # MEMORY.md saw every writer


def test_a_read_only_service_refuses_apply_before_the_lock(mem: Memory) -> None:
    plan = mem.service().plan_add(draft())
    ro = MemoryService(mem.service().workspace._replace(writable=False))
    with pytest.raises(MemoryServiceError) as error:
        ro.apply(plan)
    assert error.value.exit_code == 2 and not plan.changes[0].path.exists()


def test_the_vendored_service_module_imports_without_the_write_layer(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        import shutil, sys
        shutil.copytree({str(REPO / "runtime")!r}, {str(tmp_path / "memhub_runtime")!r},
                        ignore=shutil.ignore_patterns("writes.py", "server", "__pycache__"))
        sys.path.insert(0, {str(tmp_path)!r})
        from memhub_runtime.memory.service import MemoryService
        from memhub_runtime.memory.workspace import open_workspace
        from pathlib import Path
        svc = MemoryService(open_workspace(Path({str(tmp_path / "h")!r}), cwd=Path("/")))
        print(svc.search("x"), "yaml" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-S", "-I", "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "[] False", done.stderr


def test_a_records_folder_linked_out_of_the_memory_is_not_written_through(
    mem: Memory, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = layout.project_records(layout.memory_root(mem.home), mem.pid)
    folder.parent.mkdir(parents=True)
    folder.symlink_to(elsewhere)
    svc = mem.service()
    with pytest.raises(MemoryServiceError, match="link"):
        svc.apply(svc.plan_add(draft()))
    assert list(elsewhere.iterdir()) == []
