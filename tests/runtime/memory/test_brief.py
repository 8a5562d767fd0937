"""recall.brief and recall.prompt as the hook runs them: memory, git, the served list."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.runtime import handlers
from memhub.runtime.dispatch import Output
from memhub.runtime.events import normalise
from memhub.runtime.memory import brief_read, directives_state, layout, recall_scope, served
from memhub.runtime.memory import projects as P
from memhub.runtime.memory.brief_render import TRIMMED
from memhub.runtime.memory.prompt_recall import MAX_CHARS
from memhub.runtime.memory.records import Triggers

from .svchelp import Memory, make_memory, put, record

ROOT = Path(__file__).resolve().parents[3]


def git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "-C", str(repo), *ident, *args], check=True, capture_output=True)


def commit(repo: Path, path: str, message: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"# {message}\ndef parse_bindings():\n    pass\n", encoding="utf-8")
    git(repo, "add", path)
    git(repo, "commit", "-qm", message)


def indexed(m: Memory) -> None:
    with m.service() as svc:
        svc.refresh_index()


@pytest.fixture
def m(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Memory:
    monkeypatch.setenv("HOME", str(tmp_path / "jane"))
    monkeypatch.delenv("MEMHUB_BRIEF_TOKEN_BUDGET", raising=False)
    # the brief's content, worked out in the hook: the detached child's path is
    # test_brief_child.py's
    monkeypatch.setenv("MEMHUB_BRIEF_POINTERS", "0")
    mem = make_memory(tmp_path)
    commit(mem.app, "README.md", "init")
    git(mem.app, "branch", "-M", "main")
    git(mem.app, "checkout", "-qb", "feature/ENG-42-models")
    commit(mem.app, "app/models.py", "models: a field (PR #7)")
    return mem


def start(m: Memory, session: str = "s-1", host: str = "claude", cwd: Path | None = None):
    event = normalise(host, "SessionStart", {"session_id": session, "cwd": str(cwd or m.app)})
    out = Output(str(m.home))
    handlers.HANDLERS["recall.brief"](event, out)
    return out


def prompt(m: Memory, text: str, session: str = "s-1", host: str = "claude") -> Output:
    name = {"claude": "UserPromptSubmit", "gemini": "BeforeAgent", "cursor": "beforeSubmitPrompt"}
    payload = {"session_id": session, "cwd": str(m.app), "prompt": text}
    out = Output(str(m.home))
    handlers.HANDLERS["recall.prompt"](normalise(host, name[host], payload), out)
    return out


def lesson(rid: str, pid: str, path: str) -> object:
    return record(
        rid, "project", pid, kind="lesson", title=f"Lesson {rid}", triggers=Triggers(paths=(path,))
    )


def test_the_brief_names_the_memory_and_where_it_meets_the_branch(m: Memory) -> None:
    put(m.home, lesson("r-models", m.pid, "app/models.py"))
    put(m.home, lesson("r-unrelated", m.pid, "deploy/terraform.tf"))
    put(m.home, record("r-fact", "project", m.pid, body="app/models.py holds the schema.\n"))
    put(m.home, record("r-ticket", body="ENG-42 tracks the models work.\n"))
    put(m.home, record("r-pr", "project", m.pid, body="Reviewed in PR #7.\n"))
    put(m.home, record("r-theirs", "project", m.other_pid, body="app/models.py elsewhere\n"))
    indexed(m)
    out = start(m)
    (text,) = out.contexts
    assert "**app**" in text and m.pid in text
    assert "### Map\n3 facts, 2 lessons" in text  # r-theirs is another project's
    apply = text.split("### Apply", 1)[1].split("###", 1)[0]
    assert "Lesson r-models" in apply and "r-unrelated" not in apply
    recall = text.split("### Recall & Consult", 1)[1]
    for rid in ("r-fact", "r-ticket", "r-pr"):
        assert f"`{rid}`" in recall
    assert "r-theirs" not in text and "r-models" not in recall  # shown once, under Apply
    assert out.messages and m.pid in out.messages[0]


def test_at_most_five_apply_and_five_recall(m: Memory) -> None:
    for i in range(8):
        put(m.home, lesson(f"r-l{i}", m.pid, "app/models.py"))
        put(m.home, record(f"r-f{i}", "project", m.pid, body="see app/models.py\n"))
    indexed(m)
    (text,) = start(m).contexts
    apply = text.split("### Apply", 1)[1].split("###", 1)[0]
    recall = text.split("### Recall & Consult", 1)[1]
    assert apply.count("\n- ") == 5 and recall.count("\n- ") == 5


def test_silent_without_memory(m: Memory, tmp_path: Path) -> None:
    assert start(m).contexts == [] and start(m).messages == []  # no index yet
    indexed(m)  # an index, but nothing in this project's scopes
    put(m.home, record("r-theirs", "project", m.other_pid))
    indexed(m)
    out = start(m)
    assert out.contexts == [] and out.messages == []
    assert not (m.home / "hooks" / "recall" / "announced").exists()
    elsewhere = Output(str(tmp_path / "nohome"))
    event = normalise("claude", "SessionStart", {"session_id": "s", "cwd": str(m.app)})
    handlers.HANDLERS["recall.brief"](event, elsewhere)
    assert elsewhere.contexts == [] and elsewhere.messages == []


def test_a_system_message_only_when_the_memory_changed(m: Memory) -> None:
    put(m.home, record("r-fact", "project", m.pid))
    indexed(m)
    assert len(start(m, "s-1").messages) == 1
    again = start(m, "s-2")
    assert again.messages == [] and len(again.contexts) == 1
    path = layout.projects_file(layout.memory_root(m.home))
    P.save_registry(path, P.set_shared(P.load_registry(path), m.pid, False))
    assert len(start(m, "s-3").messages) == 1  # the scopes it resolves to changed
    assert start(m, "s-4").messages == []


def test_the_budget_cuts_recall_first_and_says_so(
    m: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    put(m.home, lesson("r-models", m.pid, "app/models.py"))
    for i in range(5):
        put(m.home, record(f"r-f{i}", "project", m.pid, body="see app/models.py " + "z" * 200))
    indexed(m)
    apply_only = 0
    for tokens in range(60, 400, 8):  # from the least that holds the Map
        monkeypatch.setenv("MEMHUB_BRIEF_TOKEN_BUDGET", str(tokens))
        (text,) = start(m, f"s-{tokens}").contexts
        chars = tokens * 4
        assert len(text) <= chars - chars // 3 and "### Map" in text
        if "### Recall" in text:
            assert "Lesson r-models" in text  # Apply is cut only once Recall is gone
        if "r-f" not in text or "r-f4" not in text or "Lesson" not in text:
            assert text.endswith(TRIMMED), text
        apply_only += "Lesson r-models" in text and "### Recall" not in text
    assert apply_only


def test_the_served_list_is_shared_with_prompts_and_directive_recall(m: Memory) -> None:
    put(m.home, lesson("r-models", m.pid, "app/models.py"))
    put(m.home, record("r-fact", "project", m.pid, body="app/models.py holds the schema.\n"))
    put(m.home, record("r-late", "project", m.pid, body="parse_bindings lives in app/x.py\n"))
    indexed(m)
    start(m, "s-1")
    folder = served.folder(str(m.home), "claude", "s-1")
    assert {"r-models", "r-fact"} <= set(directives_state.already_fired(folder))
    assert prompt(m, "look at app/models.py", "s-1").contexts == []  # shown by the brief
    out = prompt(m, "look at app/models.py", "s-other")
    assert "r-fact" in out.contexts[0]  # another session: not shown there yet
    first = prompt(m, "where is parse_bindings from?", "s-1")
    assert "r-late" in first.contexts[0]
    assert prompt(m, "where is parse_bindings from?", "s-1").contexts == []  # once


def test_prompt_pointers_at_most_three_in_600_characters(m: Memory) -> None:
    for i in range(6):
        put(m.home, record(f"r-f{i}", "project", m.pid, title="T" * 300, body="app/models.py\n"))
    indexed(m)
    (text,) = prompt(m, "why does app/models.py break?").contexts
    assert len(text) <= MAX_CHARS and text.count("\n- ") == 3


def test_a_symbol_counts_only_when_the_repository_holds_it(m: Memory) -> None:
    put(m.home, record("r-sym", "project", m.pid, body="parse_bindings and no_such_symbol\n"))
    indexed(m)
    assert prompt(m, "what about no_such_symbol?").contexts == []
    assert "r-sym" in prompt(m, "what about parse_bindings?").contexts[0]


def test_a_prompt_naming_nothing_opens_nothing(m: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    put(m.home, record("r-fact", "project", m.pid, body="the tests fail\n"))
    indexed(m)

    def boom(*_: object, **__: object) -> None:
        raise AssertionError("opened")

    monkeypatch.setattr(recall_scope, "resolve", boom)
    monkeypatch.setattr(brief_read, "connect", boom)
    out = prompt(m, "please fix the tests, they fail. I don't know why.")
    assert out.contexts == [] and out.messages == []
    assert not (m.home / "recall").exists() and not (m.home / "hooks" / "recall").exists()


def test_a_prompt_naming_nothing_imports_nothing(m: Memory, tmp_path: Path) -> None:
    """In a fresh process: the hook answers a plain prompt with no memory module beyond the
    extractor and the pending-brief check (one stat) loaded, no SQLite, no git."""
    put(m.home, record("r-fact", "project", m.pid))
    indexed(m)
    payload = json.dumps({"session_id": "s", "cwd": str(m.app), "prompt": "fix the tests"})
    code = (
        "import io, sys\n"
        "from memhub.runtime import dispatch\n"
        "out = io.StringIO()\n"
        f"dispatch.run(['claude', 'UserPromptSubmit', 'recall.prompt'], io.StringIO({payload!r}),"
        " out)\n"
        "print(out.getvalue().strip())\n"
        "mods = sorted(m for m in sys.modules if m.startswith('memhub.runtime.memory.'))\n"
        "print(mods, '_sqlite3' in sys.modules, 'subprocess' in sys.modules)\n"
    )
    env = {**os.environ, "MEMHUB_HOME": str(m.home)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    answer, modules = done.stdout.strip().splitlines()
    assert answer == "{}"
    assert modules == (
        "['memhub.runtime.memory.brief_pending', 'memhub.runtime.memory.recall_ids'] False False"
    )


def test_cursor_prompts_get_no_pointers_and_mark_nothing(m: Memory) -> None:
    put(m.home, record("r-fact", "project", m.pid, body="app/models.py\n"))
    indexed(m)
    assert prompt(m, "look at app/models.py", host="cursor").contexts == []
    assert prompt(m, "look at app/models.py", host="claude").contexts  # not marked shown


def test_gemini_before_agent_gets_pointers(m: Memory) -> None:
    put(m.home, record("r-fact", "project", m.pid, body="app/models.py\n"))
    indexed(m)
    assert "r-fact" in prompt(m, "look at app/models.py", host="gemini").contexts[0]


def test_a_checkout_nobody_connected_sees_shared_memory_only(m: Memory, tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    subprocess.run(["git", "init", "-q", str(loose)], check=True)
    put(m.home, record("r-shared", body="shared knowledge\n"))
    put(m.home, record("r-mine", "project", m.pid))
    indexed(m)
    out = start(m, cwd=loose)
    (text,) = out.contexts
    assert "shared memory only" in text and "1 fact" in text and "r-mine" not in text


def test_the_quick_registry_read_agrees_with_the_registry(
    m: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """recall_scope reads projects.json itself when it is plainly well formed; every other
    case goes to projects.py, which decides (and refuses a malformed file)."""
    put(m.home, record("r-fact", "project", m.pid))
    indexed(m)
    scope = recall_scope.resolve(str(m.home), str(m.app))
    assert scope is not None and scope.project_id == m.pid and scope.project_name == "app"
    assert scope.allowed == [("project", m.pid), ("shared", None)]
    path = layout.projects_file(layout.memory_root(m.home))
    P.save_registry(path, P.disconnect(P.load_registry(path), m.pid))
    scope = recall_scope.resolve(str(m.home), str(m.app))
    assert scope is not None and scope.project_id is None  # disconnected: shared only
    path.write_text('{"version": 1, "projects": {"p-1": 5}}')
    with pytest.raises(P.RegistryError):
        recall_scope.resolve(str(m.home), str(m.app))


def test_every_injection_is_counted_in_the_session_folder(m: Memory) -> None:
    put(m.home, lesson("r-models", m.pid, "app/models.py"))
    put(m.home, record("r-fact", "project", m.pid, body="app/models.py holds the schema.\n"))
    put(m.home, record("r-deploy", "project", m.pid, body="docs/deploy.md says tag first.\n"))
    indexed(m)
    (brief,) = start(m, "s-1").contexts
    (pointer,) = prompt(m, "what does docs/deploy.md say?", "s-1").contexts
    folder = Path(served.folder(str(m.home), "claude", "s-1"))
    assert folder.parent == m.home / "recall"  # beside directive recall's state
    lines = [json.loads(line) for line in (folder / served.INJECTIONS).read_text().splitlines()]
    assert [e["handler"] for e in lines] == ["recall.brief", "recall.prompt"]
    first, second = lines
    assert (first["chars"], first["tokens"]) == (len(brief), -(-len(brief) // 4))
    assert [f["id"] for f in first["fired"]] == ["r-models"] and first["shown"] == ["r-fact"]
    assert first["fired"][0]["trigger"] == "app/models.py" and first["event"] == "session_start"
    assert second["chars"] == len(pointer) and second["shown"] == ["r-deploy"]
