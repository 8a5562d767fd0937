"""The server's directive recall (`MemoryService.recall`, the `recall_directives` tool):
directive triggers against a tool call (paths, commands, identifiers, errors), read from the
real index through the hook's candidate cache, matcher and precision gate (`directives`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.memory.records import Record, Triggers

from .svchelp import Memory, make_memory, put, record


def lesson(rid: str, status: str = "active", **triggers: tuple[str, ...]) -> Record:
    return record(rid, kind="lesson", status=status, triggers=Triggers(**triggers))


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    return make_memory(tmp_path)


def fired(
    m: Memory, args: Mapping[str, Any], output: str | None = None, **kw: Any
) -> list[tuple[str, str]]:
    """(id, trigger) of what the server recalls for a shell or edit call."""
    tool = "Bash" if "command" in args else "Edit"
    items = m.service().recall(tool=tool, args=dict(args), output=output, **kw)
    return [(item["id"], item["match"]) for item in items]


def test_paths_match_globs_against_every_trailing_part(memory: Memory) -> None:
    put(memory.home, lesson("r-1", paths=("billing/**/*.py",)))
    put(memory.home, lesson("r-2", paths=("*.lock",)))
    put(memory.home, lesson("r-3", paths=("Makefile",)))
    put(memory.home, lesson("r-4", paths=("src/**/*.py",)))
    assert fired(memory, {"file_path": "/repo/billing/a/b.py"}) == [("r-1", "billing/**/*.py")]
    assert fired(memory, {"file_path": "/repo/billing/b.py"}) == [("r-1", "billing/**/*.py")]
    assert fired(memory, {"file_path": "/repo/lib/b.py"}) == []
    assert fired(memory, {"file_path": "a/uv.lock"}) == [("r-2", "*.lock")]
    # the gate: a glob fires only through a literal word of four characters or more
    assert fired(memory, {"file_path": "/r/src/b.py"}) == []
    # a literal path is found in the command too (the hook's matcher: `cat Makefile` names it)
    assert fired(memory, {"command": "cat Makefile"}) == [("r-3", "Makefile")]


def test_commands_match_as_a_word_prefix_of_a_segment(memory: Memory) -> None:
    put(memory.home, lesson("r-1", commands=("git push",)))
    assert fired(memory, {"command": "git push -f origin"}) == [("r-1", "git push")]
    assert fired(memory, {"command": "cd x && git  push"}) == [("r-1", "git push")]
    assert fired(memory, {"command": "git pushy"}) == []
    assert fired(memory, {"command": "echo git push"}) == []


def test_identifiers_match_on_alphanumeric_boundaries(memory: Memory) -> None:
    put(memory.home, lesson("r-1", identifiers=("user",)))
    assert fired(memory, {"command": "grep user_id x"}) == [("r-1", "user")]
    assert fired(memory, {"file_path": "/r/models/user.py"}) == [("r-1", "user")]
    # only the call's handles are matched (paths, command, output), not an edit's new text
    assert fired(memory, {"file_path": "/r/a.py", "new_string": "def user(): ..."}) == []
    assert fired(memory, {"command": "grep username"}) == []


def test_errors_match_a_substring_of_the_output(memory: Memory) -> None:
    put(memory.home, lesson("r-1", errors=("ModuleNotFoundError",)))
    assert fired(memory, {"command": "pytest"}, "E  modulenotfounderror: x") == [
        ("r-1", "ModuleNotFoundError")
    ]
    assert fired(memory, {"command": "pytest"}) == []


def test_recall_keeps_two_longest_matches_and_skips_fired_and_proposed(memory: Memory) -> None:
    for rec in (
        lesson("r-a", commands=("git",)),
        lesson("r-b", commands=("git push",)),
        lesson("r-c", commands=("git push -f",)),
        lesson("r-d", "proposed", commands=("git push -f origin",)),
        record("r-e", kind="procedure"),  # no triggers: never fires
    ):
        put(memory.home, rec)
    args = {"command": "git push -f origin"}
    assert [rid for rid, _ in fired(memory, args)] == ["r-c", "r-b"]
    # `git` is three characters: the precision gate never lets it fire
    assert [rid for rid, _ in fired(memory, args, already_fired=["r-c"])] == ["r-b"]
    assert fired(memory, {"command": "git status"}) == []


def test_service_recall_returns_only_active_directives_in_scope(memory: Memory) -> None:
    m = memory
    put(m.home, lesson("r-mine", commands=("make deploy",)))  # shared
    theirs = record(
        "r-theirs", "project", m.other_pid, kind="lesson",
        triggers=Triggers(commands=("make deploy",)),
    )  # fmt: skip
    put(m.home, theirs)
    items = m.service().recall(tool="Bash", args={"command": "make deploy"})
    assert [i["id"] for i in items] == ["r-mine"]
    item = items[0]
    assert set(item) >= {"id", "type", "content", "triggers", "as_of", "seen"}
    assert item["type"] == "lesson" and item["triggers"] == ["make deploy"]
    assert m.service().recall(tool="Bash", args={"command": "make"}, already_fired=()) == []


def test_an_edited_or_retired_directive_is_seen_at_once(memory: Memory) -> None:
    """The candidate cache is derived: a record rewritten or demoted since it was built
    answers as the file now says, in the same long-running service."""
    m = memory
    put(m.home, lesson("r-1", commands=("make deploy",)))
    service = m.service()
    assert [i["id"] for i in service.recall(tool="Bash", args={"command": "make deploy"})] == [
        "r-1"
    ]
    put(m.home, lesson("r-1", commands=("make release",)))
    assert service.recall(tool="Bash", args={"command": "make deploy"}) == []
    assert [i["match"] for i in service.recall(tool="Bash", args={"command": "make release"})] == [
        "make release"
    ]
    put(m.home, lesson("r-1", "proposed", commands=("make release",)))  # sent back for review
    assert service.recall(tool="Bash", args={"command": "make release"}) == []


def test_the_gate_blocks_the_account_and_the_repo_names(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    put(memory.home, lesson("r-a", identifiers=("payments",)))
    put(memory.home, lesson("r-b", identifiers=("jane",)))
    args = {"command": "rm -rf /home/jane/payments/build"}
    monkeypatch.setenv("HOME", "/home/someone")
    assert sorted(rid for rid, _ in fired(memory, args)) == ["r-a", "r-b"]
    monkeypatch.setenv("HOME", "/home/jane")
    assert fired(memory, args, repo="payments-api") == []
