"""recall: directive triggers against a tool call (paths, commands, identifiers, errors)."""

from __future__ import annotations

from pathlib import Path

from memhub.runtime.memory.recall import match, recall
from memhub.runtime.memory.records import Record, Triggers

from .svchelp import make_memory, put, record


def lesson(rid: str, status: str = "active", **triggers: tuple[str, ...]) -> Record:
    return record(rid, kind="lesson", status=status, triggers=Triggers(**triggers))


def test_paths_match_globs_against_every_trailing_part() -> None:
    r = lesson("r-1", paths=("src/**/*.py",))
    assert match(r, {"file_path": "/repo/src/a/b.py"}, None) == "src/**/*.py"
    assert match(r, {"file_path": "/repo/src/b.py"}, None) == "src/**/*.py"  # ** = no folder
    assert match(r, {"file_path": "/repo/lib/b.py"}, None) is None
    assert match(lesson("r-2", paths=("*.lock",)), {"path": "a/uv.lock"}, None) == "*.lock"
    assert match(lesson("r-3", paths=("Makefile",)), {"command": "cat Makefile"}, None) is None


def test_commands_match_as_a_word_prefix_of_a_segment() -> None:
    r = lesson("r-1", commands=("git push",))
    assert match(r, {"command": "git push -f origin"}, None) == "git push"
    assert match(r, {"command": "cd x && git  push"}, None) == "git push"
    assert match(r, {"command": "git pushy"}, None) is None
    assert match(r, {"command": "echo git push"}, None) is None


def test_identifiers_match_on_alphanumeric_boundaries() -> None:
    r = lesson("r-1", identifiers=("user",))
    assert match(r, {"command": "grep user_id x"}, None) == "user"
    assert match(r, {"new_string": "def user(): ..."}, None) == "user"
    assert match(r, {"command": "grep username"}, None) is None


def test_errors_match_a_substring_of_the_output() -> None:
    r = lesson("r-1", errors=("ModuleNotFoundError",))
    assert match(r, {"command": "pytest"}, "E  modulenotfounderror: x") == "ModuleNotFoundError"
    assert match(r, {"command": "pytest"}, None) is None


def test_recall_keeps_two_longest_matches_and_skips_fired_and_proposed() -> None:
    records = [
        lesson("r-a", commands=("git",)),
        lesson("r-b", commands=("git push",)),
        lesson("r-c", commands=("git push -f",)),
        lesson("r-d", "proposed", commands=("git push -f origin",)),
        record("r-e", kind="procedure"),  # no triggers: never fires
    ]
    args = {"command": "git push -f origin"}
    assert [r.id for r, _ in recall(records, args)] == ["r-c", "r-b"]
    assert [r.id for r, _ in recall(records, args, already_fired=["r-c"])] == ["r-b", "r-a"]


def test_service_recall_returns_only_active_directives_in_scope(tmp_path: Path) -> None:
    m = make_memory(tmp_path)
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
