"""`rules.advise` through the real hook process: edit rules before a write and after a shell
command that wrote, bash rules, the session block, once per session, outside-the-session paths
ignored, and nothing read when there are no books."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memhub.runtime.rules import ledger, store

from tests.gitrepos import repo
from tests.runtime.rules.test_rules import ORG

HOOK = Path(__file__).resolve().parents[3] / "runtime" / "hook.py"
BOOK = ORG  # migrations (edit), no-force (bash), hello (session_start)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "memhub-home"
    monkeypatch.setenv("MEMHUB_HOME", str(path))
    return path


def with_book(home: Path) -> None:
    folder = Path(store.books_dir(str(home)))
    folder.mkdir(parents=True)
    (folder / "org.json").write_text(json.dumps(BOOK))


def hook(host: str, host_event: str, payload: dict, home: Path) -> dict:
    """One real hook process (the bundle's `python3 -S hook.py`), its JSON answer."""
    done = subprocess.run(
        [sys.executable, "-S", str(HOOK), host, host_event, "rules.advise"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**os.environ, "MEMHUB_HOME": str(home), "MEMHUB_PERSON": "ana"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def context(answer: dict) -> str:
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def claude(event: str, cwd: Path, **extra: object) -> dict:
    return {"session_id": "s-1", "hook_event_name": event, "cwd": str(cwd),
            "transcript_path": str(cwd / "t.jsonl"), **extra}  # fmt: skip


def test_an_edit_rule_fires_before_the_write_once_per_session(tmp_path: Path, home: Path) -> None:
    with_book(home)
    top = repo(tmp_path / "app")
    edit = {"tool_name": "Write", "tool_input": {"file_path": str(top / "db/migrations/7_a.py")}}
    first = context(hook("claude", "PreToolUse", claude("PreToolUse", top, **edit), home))
    assert "[memhub rule · org · migrations]" in first and "down step" in first
    again = hook("claude", "PreToolUse", claude("PreToolUse", top, **edit), home)
    assert context(again) == ""
    (fired,) = list(ledger.read(str(home), session="s-1"))
    assert (fired["book"], fired["rule"], fired["event"], fired["host"]) == (
        "org",
        "migrations",
        "edit",
        "claude",
    )


def test_a_path_outside_the_session_directory_is_not_followed(tmp_path: Path, home: Path) -> None:
    with_book(home)
    top, other = repo(tmp_path / "app"), repo(tmp_path / "other")
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(other / "db/migrations/1.py")}}
    assert context(hook("claude", "PreToolUse", claude("PreToolUse", top, **edit), home)) == ""
    link = top / "linked"
    link.symlink_to(other)  # a symlink inside that leaves the session's directory
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(link / "db/migrations/1.py")}}
    assert context(hook("claude", "PreToolUse", claude("PreToolUse", top, **edit), home)) == ""


def test_a_shell_command_that_writes_a_file_fires_the_edit_rule_after_it(
    tmp_path: Path, home: Path
) -> None:
    with_book(home)
    top = repo(tmp_path / "app")
    (top / "db" / "migrations").mkdir(parents=True)
    old = top / "db" / "migrations" / "0_old.py"
    old.write_text("x")  # changed before this call: git lists it, its mtime rules it out
    past = time.time() - 60
    os.utime(old, (past, past))
    command = "cat > db/migrations/9_new.py <<'EOF'\nprint(1)\nEOF"
    shell = {"tool_name": "Bash", "tool_input": {"command": command}}
    assert context(hook("claude", "PreToolUse", claude("PreToolUse", top, **shell), home)) == ""
    (top / "db" / "migrations" / "9_new.py").write_text("print(1)\n")  # what the command did
    after = hook("claude", "PostToolUse",
                 claude("PostToolUse", top, **shell, tool_response={"stdout": ""}), home)  # fmt: skip
    assert "[memhub rule · org · migrations]" in context(after)
    (fired,) = list(ledger.read(str(home)))
    assert fired["token"] == "db/migrations/" and fired["event"] == "edit"


def test_a_bash_rule_fires_on_the_command_not_on_quoted_text(tmp_path: Path, home: Path) -> None:
    with_book(home)
    top = repo(tmp_path / "app")
    quoted = {"tool_name": "Bash", "tool_input": {"command": "echo 'git push --force'"}}
    assert context(hook("claude", "PreToolUse", claude("PreToolUse", top, **quoted), home)) == ""
    real = {"tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}}
    answer = context(hook("claude", "PreToolUse", claude("PreToolUse", top, **real), home))
    assert "Never force-push" in answer


def test_the_session_block_reaches_session_start(tmp_path: Path, home: Path) -> None:
    with_book(home)
    top = repo(tmp_path / "app")
    answer = hook("claude", "SessionStart", claude("SessionStart", top, source="startup"), home)
    assert context(answer).startswith("Team rules for this session:")
    assert "ENG-N" in context(answer)


def test_codex_and_gemini_carry_it_on_their_events(tmp_path: Path, home: Path) -> None:
    with_book(home)
    top = repo(tmp_path / "app")
    shell = {"tool_name": "shell", "tool_input": {"command": ["bash", "-lc", "git push --force"]}}
    codex = hook("codex", "PreToolUse", claude("PreToolUse", top, **shell), home)
    assert "Never force-push" in context(codex)
    # Gemini's BeforeTool shows the model nothing: the rule is said on AfterTool instead
    gem = {"session_id": "g-1", "hook_event_name": "AfterTool", "cwd": str(top),
           "tool_name": "run_shell_command", "tool_input": {"command": "git push --force"},
           "tool_response": {"llmContent": "ok"}}  # fmt: skip
    assert "Never force-push" in context(hook("gemini", "AfterTool", gem, home))
    assert hook("gemini", "BeforeTool", {**gem, "hook_event_name": "BeforeTool"}, home) == {}


def test_cursor_gets_the_session_block_and_no_tool_advice(tmp_path: Path, home: Path) -> None:
    """Cursor's sessionStart answer reaches the model (`additional_context`); its tool
    events show it nothing, so no rule is spent there."""
    with_book(home)
    top = repo(tmp_path / "app")
    start = {"session_id": "c-1", "hook_event_name": "sessionStart", "cwd": str(top)}
    answer = hook("cursor", "sessionStart", start, home)
    assert str(answer.get("additional_context", "")).startswith("Team rules for this session:")
    shell = {**start, "hook_event_name": "preToolUse", "tool_name": "Shell",
             "tool_input": {"command": "git push --force"}}  # fmt: skip
    assert hook("cursor", "preToolUse", shell, home) == {"permission": "allow"}


def test_no_books_costs_one_listdir_and_writes_nothing(tmp_path: Path, home: Path) -> None:
    top = repo(tmp_path / "app")
    edit = {"tool_name": "Write", "tool_input": {"file_path": str(top / "db/migrations/1.py")}}
    assert hook("claude", "PreToolUse", claude("PreToolUse", top, **edit), home) == {}
    assert not (home / "rules").exists() and not (home / "logs").exists()
    code = (
        "import json, os, sys\n"
        "from memhub.runtime import dispatch, handlers\n"
        "from memhub.runtime.events import normalise\n"
        f"e = normalise('claude', 'PreToolUse', json.loads({json.dumps(claude('PreToolUse', top, **edit))!r}))\n"
        "handlers.HANDLERS['rules.advise'](e, dispatch.Output(os.environ['MEMHUB_HOME']))\n"
        "print(sorted(m for m in sys.modules if m.startswith('memhub.runtime.rules.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # the handler asked `books_present` and stopped


def test_a_call_no_rule_can_fire_on_parses_nothing_and_asks_no_git(
    tmp_path: Path, home: Path
) -> None:
    """With books held, a command none of their trigger keys is in is refused before the
    shell reader, git or JSON are loaded (every tool call pays this path)."""
    with_book(home)
    top = repo(tmp_path / "app")
    shell = {"tool_name": "Bash", "tool_input": {"command": "ls -la && grep -r x src"}}
    payload = claude("PreToolUse", top, **shell)
    hook("claude", "PreToolUse", payload, home)  # the cache is written once
    code = (
        "import os, sys\n"
        "from memhub.runtime import dispatch, handlers\n"
        "from memhub.runtime.events import normalise\n"
        f"e = normalise('claude', 'PreToolUse', {json.dumps(payload)!r})\n"
        "before = set(sys.modules)\n"
        "handlers.HANDLERS['rules.advise'](e, dispatch.Output(os.environ['MEMHUB_HOME']))\n"
        "heavy = ('json', 'memhub.runtime.shellcmd', 'memhub.runtime.memory.gitcheckout',"
        " 'memhub.runtime.rules.callsite', 'subprocess', 're')\n"
        "print(sorted(m for m in heavy if m in set(sys.modules) - before))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_books_cache_follows_every_change(tmp_path: Path, home: Path) -> None:
    with_book(home)
    first = store.cached_books(str(home))
    folder = Path(store.books_dir(str(home)))
    past = time.time() - 30
    os.utime(folder / "org.json", (past, past))  # old enough to be cached
    assert [b.name for b in store.cached_books(str(home))] == ["org"]
    assert Path(store._cache_file(str(home))).is_file()
    edited = json.loads((folder / "org.json").read_text())
    edited["rules"][0]["text"] = "Edited in an editor."
    (folder / "org.json").write_text(json.dumps(edited))
    (again,) = store.cached_books(str(home))
    assert again.rules[0].text == "Edited in an editor." != first[0].rules[0].text
    (folder / "org.json").unlink()
    assert store.cached_books(str(home)) == []


def _loaded_rules(top: Path, command: str) -> str:
    """The rules modules a real process loads answering one read-only PreToolUse call."""
    payload = claude("PreToolUse", top, tool_name="Bash", tool_input={"command": command})
    code = (
        "import json, os, sys\n"
        "from memhub.runtime import dispatch, handlers\n"
        "from memhub.runtime.events import normalise\n"
        f"e = normalise('claude', 'PreToolUse', json.loads({json.dumps(payload)!r}))\n"
        "handlers.HANDLERS['rules.advise'](e, dispatch.Output(os.environ['MEMHUB_HOME']))\n"
        "print(sorted(m for m in sys.modules if m.startswith('memhub.runtime.rules.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_read_only_command_loads_no_rules_when_no_book_has_a_bash_rule(
    tmp_path: Path, home: Path
) -> None:
    """`git status` writes no file (no edit rule can fire) and no book has a bash rule: once
    the books cache is current, the handler stops before importing the rule code."""
    folder = Path(store.books_dir(str(home)))
    folder.mkdir(parents=True)
    edit_only = {**BOOK, "rules": [r for r in BOOK["rules"] if r["event"] != "bash"]}
    (folder / "org.json").write_text(json.dumps(edit_only))
    os.utime(folder / "org.json", (time.time() - 10, time.time() - 10))  # not racy: cached
    top = repo(tmp_path / "app")
    assert _loaded_rules(top, "git status") != "[]"  # no cache yet: the books are read
    loaded = _loaded_rules(top, "git status")
    assert loaded == "[]", loaded  # the cache says: no bash rule
    assert _loaded_rules(top, "rm -rf build") != "[]"  # a mutating command: edit rules
    # a book with a bash rule, added later: the stale cache cannot say, the books are read
    (folder / "bash.json").write_text(json.dumps({**BOOK, "name": "bash-rules"}))
    os.utime(folder / "bash.json", (time.time() - 10, time.time() - 10))
    assert _loaded_rules(top, "git status") != "[]"
    assert _loaded_rules(top, "git status") != "[]"  # current again, and it has a bash rule


def test_a_bash_rule_still_fires_on_a_read_only_command(tmp_path: Path, home: Path) -> None:
    book = {"name": "reads", "members": "all", "rules": [
        {"id": "status", "event": "bash", "triggers": {"commands": ["git status"]},
         "text": "Prefer git status --short here."}]}  # fmt: skip
    folder = Path(store.books_dir(str(home)))
    folder.mkdir(parents=True)
    (folder / "reads.json").write_text(json.dumps(book))
    os.utime(folder / "reads.json", (time.time() - 10, time.time() - 10))
    top = repo(tmp_path / "app")
    shell = {"tool_name": "Bash", "tool_input": {"command": "git status"}}
    hook("claude", "PreToolUse", claude("PreToolUse", top, session_id="s-0", **shell), home)
    answer = hook("claude", "PreToolUse", claude("PreToolUse", top, **shell), home)
    assert "Prefer git status --short" in context(answer)


def _codex_patch(top: Path, *heads: str, event: str = "PreToolUse") -> dict:
    """A Codex call as the real CLI reports `apply_patch <<'EOF'`: Bash, the envelope as
    its command."""
    body = "".join(f"*** {head}\n+x = 1\n" for head in heads)
    command = f"apply_patch <<'EOF'\n*** Begin Patch\n{body}*** End Patch\nEOF\n"
    return claude(event, top, tool_name="Bash", tool_input={"command": command})


@pytest.mark.parametrize("head", ["Update File: db/migrations/3_b.py", "Add File: db/migrations/4.py",
                                  "Delete File: db/migrations/2_old.py"])  # fmt: skip
def test_a_codex_apply_patch_fires_the_edit_rule_on_its_files(
    tmp_path: Path, home: Path, head: str
) -> None:
    with_book(home)
    top = repo(tmp_path / "app")
    answer = context(hook("codex", "PreToolUse", _codex_patch(top, head), home))
    assert "[memhub rule · org · migrations]" in answer and "down step" in answer
    (fired,) = list(ledger.read(str(home)))
    assert (fired["rule"], fired["event"], fired["host"]) == ("migrations", "edit", "codex")
    assert hook("codex", "PreToolUse", _codex_patch(top, head), home) == {}  # once


def test_a_codex_patch_leaving_the_session_directory_is_not_followed(
    tmp_path: Path, home: Path
) -> None:
    with_book(home)
    top, other = repo(tmp_path / "app"), repo(tmp_path / "other")
    outside = f"Update File: {other / 'db/migrations/1.py'}"
    for head in (outside, "Update File: ../other/db/migrations/1.py"):
        assert context(hook("codex", "PreToolUse", _codex_patch(top, head), home)) == ""
    assert list(ledger.read(str(home))) == []
