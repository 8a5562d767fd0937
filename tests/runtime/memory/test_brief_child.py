"""recall.brief's caches and its detached child: cold and warm starts, the first prompt's
delivery, a killed or failing child, and the git-free checkout walk."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memhub.runtime import dispatch, handlers
from memhub.runtime.dispatch import Output
from memhub.runtime.events import normalise
from memhub.runtime.memory import (
    brief_cache,
    brief_pending,
    brief_pointers,
    brief_where,
    directives_state,
    injections,
    prompt_recall,
    served,
)
from memhub.runtime.memory.gitcheckout import checkout_of

from .svchelp import Memory, make_memory, put, record
from .test_brief import commit, git, indexed, lesson

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def m(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Memory:
    monkeypatch.setenv("HOME", str(tmp_path / "jane"))
    monkeypatch.delenv("MEMHUB_BRIEF_TOKEN_BUDGET", raising=False)
    monkeypatch.delenv("MEMHUB_BRIEF_POINTERS", raising=False)
    mem = make_memory(tmp_path)
    commit(mem.app, "README.md", "init")
    git(mem.app, "branch", "-M", "main")
    git(mem.app, "checkout", "-qb", "feature/ENG-42-models")
    commit(mem.app, "app/models.py", "models: a field (PR #7)")
    put(mem.home, lesson("r-models", mem.pid, "app/models.py"))
    put(mem.home, record("r-fact", "project", mem.pid, body="app/models.py holds the schema.\n"))
    put(mem.home, record("r-deploy", "project", mem.pid, body="docs/deploy.md: tag first.\n"))
    indexed(mem)
    return mem


def start(m: Memory, session: str, *, child: bool = True) -> Output:
    """The handler as the dispatcher runs it: then its deferred job (here, in this process,
    as the child would) and the callbacks the dispatcher runs once the child exists."""
    event = normalise("claude", "SessionStart", {"session_id": session, "cwd": str(m.app)})
    out = Output(str(m.home))
    handlers.HANDLERS["recall.brief"](event, out)
    if child and out.jobs:
        for callback in out.started:
            callback()
        dispatch.run_jobs(out.jobs, str(m.home), "test")
    return out


def prompt(m: Memory, text: str, session: str) -> Output:
    payload = {"session_id": session, "cwd": str(m.app), "prompt": text}
    out = Output(str(m.home))
    handlers.HANDLERS["recall.prompt"](normalise("claude", "UserPromptSubmit", payload), out)
    return out


def caches(m: Memory) -> list[str]:
    folder = Path(brief_cache.folder(str(m.home)))
    return sorted(p.name.split("-", 1)[0] for p in folder.glob("*")) if folder.exists() else []


def test_cold_start_has_the_map_and_the_first_prompt_the_rest(m: Memory) -> None:
    out = start(m, "s-1")
    (text,) = out.contexts
    assert "### Map\n2 facts, 1 lesson" in text and "### Apply" not in text
    assert [j["call"] for j in out.jobs] == ["memory.brief_pointers.refresh"]  # ONE job
    assert caches(m) == ["map", "ptr"]
    assert brief_pending.waiting(str(m.home), "claude", "s-1")
    first = prompt(m, "thanks, go on", "s-1")  # no identifier: the pending part alone
    (late,) = first.contexts
    assert "Lesson r-models" in late.split("### Apply", 1)[1]
    assert "`r-fact`" in late.split("### Recall & Consult", 1)[1]
    assert not brief_pending.waiting(str(m.home), "claude", "s-1")
    folder = served.folder(str(m.home), "claude", "s-1")
    assert {"r-models", "r-fact"} <= set(directives_state.already_fired(folder))
    assert prompt(m, "thanks, go on", "s-1").contexts == []  # delivered once
    assert prompt(m, "look at app/models.py", "s-1").contexts == []  # nothing twice
    lines = (Path(folder) / served.INJECTIONS).read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["handler"] for e in entries] == ["recall.brief", "recall.brief"]
    assert entries[1]["event"] == "prompt_submit" and entries[1]["shown"] == ["r-fact"]


def test_a_warm_start_shows_everything_and_leaves_nothing_pending(m: Memory) -> None:
    start(m, "s-1")
    out = start(m, "s-2")
    (text,) = out.contexts
    assert "Lesson r-models" in text.split("### Apply", 1)[1]
    assert "`r-fact`" in text.split("### Recall & Consult", 1)[1]
    assert out.jobs == [] and not brief_pending.waiting(str(m.home), "claude", "s-2")


def test_the_first_prompt_brings_its_own_pointers_after_the_rest(m: Memory) -> None:
    start(m, "s-1")
    late, pointers = prompt(m, "what does docs/deploy.md say?", "s-1").contexts
    assert "### Apply" in late and "r-deploy" not in late
    assert "r-deploy" in pointers and "r-fact" not in pointers


def test_a_new_commit_or_record_makes_the_cache_stale(m: Memory) -> None:
    start(m, "s-1")
    assert start(m, "s-2").jobs == []
    commit(m.app, "app/views.py", "views")
    stale = start(m, "s-3")
    assert stale.jobs and "Lesson r-models" in stale.contexts[0]  # the old cache, shown
    assert start(m, "s-4").jobs == []
    put(m.home, lesson("r-views", m.pid, "app/views.py"))
    indexed(m)
    fresh = start(m, "s-5")
    assert "2 lessons" in fresh.contexts[0]  # the map follows the index at once
    assert fresh.jobs and "r-views" not in fresh.contexts[0]
    assert "r-views" in prompt(m, "go on", "s-5").contexts[0]  # the child found it


def test_memory_md_and_the_registry_key_the_map(m: Memory) -> None:
    start(m, "s-1")
    md = m.home / "memory" / "projects" / m.pid / "MEMORY.md"
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text("# Shop\n- orders are immutable\n")
    assert "orders are immutable" in start(m, "s-2").contexts[0]
    from memhub.runtime.memory import layout
    from memhub.runtime.memory import projects as P

    path = layout.projects_file(layout.memory_root(m.home))
    P.save_registry(path, P.disconnect(P.load_registry(path), m.pid))
    assert start(m, "s-3").contexts == []  # shared memory only, and it holds nothing


def test_pointers_off_works_a_stale_cache_out_in_the_hook(
    m: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHUB_BRIEF_POINTERS", "0")
    out = start(m, "s-1", child=False)
    assert out.jobs == [] and "Lesson r-models" in out.contexts[0]
    assert not brief_pending.waiting(str(m.home), "claude", "s-1")
    monkeypatch.delenv("MEMHUB_BRIEF_POINTERS")
    assert start(m, "s-2", child=False).jobs == []  # the cache it wrote is current


def test_a_failing_child_leaves_the_cache_as_it_was(
    m: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    start(m, "s-1")
    commit(m.app, "app/views.py", "views")
    before = {p: p.read_bytes() for p in Path(brief_cache.folder(str(m.home))).glob("ptr-*")}

    def boom(*_: object) -> None:
        raise RuntimeError("the index went away")

    monkeypatch.setattr(brief_pointers, "pointer_source", boom)
    monkeypatch.setattr(prompt_recall, "WAIT_S", 0.05)
    out = start(m, "s-2")  # the job raises inside run_jobs: logged, not raised
    assert out.contexts and "Lesson r-models" in out.contexts[0]
    assert {p: p.read_bytes() for p in before} == before
    assert "the index went away" in (m.home / "logs" / "hook.log").read_text()
    note = Path(brief_pending.path(str(m.home), "claude", "s-2"))
    doc = json.loads(note.read_text())
    note.write_text(json.dumps({**doc, "until": time.time() - 1}))  # past waiting for it
    assert prompt(m, "go on", "s-2").contexts == [] and not note.exists()


KILLED_WRITER = """
import os, signal, sys
from memhub.runtime.memory import brief_cache, brief_pointers
real = open
class Killed:
    def __init__(self, handle): self.handle = handle
    def __enter__(self): return self
    def __exit__(self, *a): return False
    def write(self, text):
        self.handle.write(text[: len(text) // 2]); self.handle.flush()
        os.kill(os.getpid(), signal.SIGKILL)
brief_cache.open = lambda *a, **k: Killed(real(*a, **k))
brief_pointers.DEFER_S = 0
brief_pointers.refresh(*sys.argv[1:])
"""


def test_a_killed_child_leaves_no_half_written_cache(m: Memory) -> None:
    out = start(m, "s-1", child=False)
    (job,) = out.jobs
    home, cwd, path, key = job["args"]
    env = {**os.environ, "MEMHUB_HOME": str(m.home)}
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, home, cwd, path, key], env=env)
    assert done.returncode == -signal.SIGKILL
    assert not Path(path).exists()  # never half a document under the cache's name
    (temp,) = Path(path).parent.glob("*.tmp")
    assert brief_cache.load(str(temp)) is None  # what it did leave is not a document
    again = start(m, "s-2", child=False)
    assert "### Map" in again.contexts[0] and again.jobs  # answers, and asks again
    os.utime(temp, (time.time() - 3600, time.time() - 3600))
    dispatch.run_jobs(again.jobs, str(m.home), "test")
    assert brief_cache.load(path) is not None and not temp.exists()  # swept


def test_through_the_hook_process_with_a_real_detached_child(m: Memory, tmp_path: Path) -> None:
    """The vendored hook entry as a host runs it: the brief answers, the forked child fills
    the cache, and the first prompt's hook process delivers Apply and Recall."""
    hook = [sys.executable, "-S", str(ROOT / "runtime" / "hook.py"), "claude"]
    vendored = tmp_path / "vendored" / "memhub_runtime"
    vendored.parent.mkdir()
    vendored.symlink_to(ROOT / "runtime")
    hook[2] = str(vendored / "hook.py")
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "MEMHUB_HOME": str(m.home)}

    def call(event: str, handler: str, payload: dict[str, str]) -> dict:
        data = json.dumps({"session_id": "s-9", "cwd": str(m.app), **payload})
        done = subprocess.run([*hook, event, handler], input=data, capture_output=True,
                              text=True, env=env, timeout=30)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    first = call("SessionStart", "recall.brief", {})
    context = first["hookSpecificOutput"]["additionalContext"]
    assert "### Map" in context and "### Apply" not in context
    late = call("UserPromptSubmit", "recall.prompt", {"prompt": "hello"})
    text = late["hookSpecificOutput"]["additionalContext"]
    assert "Lesson r-models" in text and "`r-fact`" in text
    assert not (m.home / "logs" / "hook.log").exists()


def test_the_pending_note_is_in_the_served_folder() -> None:
    for host, sid in (("claude", "s-1"), ("codex", "a/b c"), ("gemini", "é" * 300)):
        note = brief_pending.path("/h", host, sid)
        assert os.path.dirname(note) == injections.session_dir("/h", host, sid)


def test_cursor_leaves_no_note_its_prompts_could_not_deliver(m: Memory) -> None:
    event = normalise("cursor", "sessionStart", {"session_id": "c-1", "cwd": str(m.app)})
    out = Output(str(m.home))
    handlers.HANDLERS["recall.brief"](event, out)
    for callback in out.started:
        callback()
    assert out.contexts and out.jobs
    assert not brief_pending.waiting(str(m.home), "cursor", "c-1")


def test_the_walk_agrees_with_git(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "a/b/c.txt", "one")
    (repo / "a" / "b").mkdir(parents=True, exist_ok=True)
    tree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "other", str(tree))
    plain = tmp_path / "plain"
    plain.mkdir()
    ceiling = str(tmp_path.parent)  # the pytest folder sits in TMPDIR: git's own ceiling
    for folder in (repo, repo / "a" / "b", tree, tree / "a"):
        found = brief_where.checkout(str(folder), ceiling)
        truth = checkout_of(folder)
        assert isinstance(found, brief_where.Where) and truth is not None, folder
        assert (found.toplevel, found.common_dir) == (truth.toplevel, truth.common_dir)
    assert brief_where.checkout(str(plain), ceiling) is False
    assert brief_where.checkout(str(repo / ".git"), ceiling) is brief_where.UNSURE
    git(plain, "init", "-q")
    git(plain, "config", "core.worktree", str(tmp_path))
    assert brief_where.checkout(str(plain), ceiling) is brief_where.UNSURE  # git decides
    wt = brief_where.checkout(str(tree), ceiling)
    assert isinstance(wt, brief_where.Where)
    key = brief_where.branch_key(wt)
    commit(tree, "x.txt", "moved")
    assert brief_where.branch_key(wt) != key


def turn_end(m: Memory, session: str) -> Output:
    event = normalise("claude", "Stop", {"session_id": session, "cwd": str(m.app)})
    out = Output(str(m.home))
    handlers.HANDLERS["recall.refresh"](event, out)
    return out


def test_turn_end_rewarms_what_moved_so_the_next_start_is_warm(m: Memory) -> None:
    start(m, "s-1")
    assert turn_end(m, "s-1").jobs == []  # both caches current: nothing to do
    commit(m.app, "app/views.py", "views")
    put(m.home, lesson("r-views", m.pid, "app/views.py"))
    indexed(m)
    out = turn_end(m, "s-1")
    assert [j["call"] for j in out.jobs] == ["memory.brief_pointers.rewarm"]
    dispatch.run_jobs(out.jobs, str(m.home), "test")
    assert turn_end(m, "s-1").jobs == []
    warm = start(m, "s-2", child=False)
    assert warm.jobs == [] and "2 lessons" in warm.contexts[0]
    assert "Lesson r-views" in warm.contexts[0].split("### Apply", 1)[1]


def test_turn_end_does_nothing_without_a_checkout_memory_or_the_child(
    m: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = Output(str(m.home))
    event = normalise("claude", "Stop", {"session_id": "s", "cwd": str(tmp_path)})
    handlers.HANDLERS["recall.refresh"](event, plain)
    assert plain.jobs == []
    assert turn_end(m, "s-1").jobs  # nothing cached yet: rebuild
    monkeypatch.setenv("MEMHUB_BRIEF_POINTERS", "0")
    assert turn_end(m, "s-1").jobs == []
