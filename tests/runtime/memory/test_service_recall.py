"""recall: directive triggers against a tool call (paths, commands, identifiers, errors),
through the hook's matcher and precision gate (`directives`)."""

from __future__ import annotations

from pathlib import Path

from memhub.runtime.memory.recall import match, recall
from memhub.runtime.memory.records import Record, Triggers

from .svchelp import make_memory, put, record


def lesson(rid: str, status: str = "active", **triggers: tuple[str, ...]) -> Record:
    return record(rid, kind="lesson", status=status, triggers=Triggers(**triggers))


def test_paths_match_globs_against_every_trailing_part() -> None:
    r = lesson("r-1", paths=("billing/**/*.py",))
    assert match(r, {"file_path": "/repo/billing/a/b.py"}, None) == "billing/**/*.py"
    assert match(r, {"file_path": "/repo/billing/b.py"}, None) == "billing/**/*.py"  # ** = none
    assert match(r, {"file_path": "/repo/lib/b.py"}, None) is None
    assert match(lesson("r-2", paths=("*.lock",)), {"path": "a/uv.lock"}, None) == "*.lock"
    # the gate: a glob fires only through a literal word of four characters or more
    assert match(lesson("r-4", paths=("src/**/*.py",)), {"file_path": "/r/src/b.py"}, None) is None
    # a literal path is found in the command too (the hook's matcher: `cat Makefile` names it)
    r = lesson("r-3", paths=("Makefile",))
    assert match(r, {"command": "cat Makefile"}, None) == "Makefile"


def test_commands_match_as_a_word_prefix_of_a_segment() -> None:
    r = lesson("r-1", commands=("git push",))
    assert match(r, {"command": "git push -f origin"}, None) == "git push"
    assert match(r, {"command": "cd x && git  push"}, None) == "git push"
    assert match(r, {"command": "git pushy"}, None) is None
    assert match(r, {"command": "echo git push"}, None) is None


def test_identifiers_match_on_alphanumeric_boundaries() -> None:
    r = lesson("r-1", identifiers=("user",))
    assert match(r, {"command": "grep user_id x"}, None) == "user"
    assert match(r, {"file_path": "/r/models/user.py"}, None) == "user"
    # only the call's handles are matched (paths, command, output), not an edit's new text
    assert match(r, {"new_string": "def user(): ..."}, None) is None
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
    # `git` is three characters: the precision gate never lets it fire
    assert [r.id for r, _ in recall(records, args, already_fired=["r-c"])] == ["r-b"]
    assert [r.id for r, _ in recall(records, {"command": "git status"})] == []


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


def test_the_gate_blocks_the_account_and_the_repo_names() -> None:
    records = [lesson("r-a", identifiers=("payments",)), lesson("r-b", identifiers=("jane",))]
    args = {"command": "rm -rf /home/jane/payments/build"}
    assert [r.id for r, _ in recall(records, args)] == ["r-a", "r-b"]
    assert [r.id for r, _ in recall(records, args, account="jane", repo="payments-api")] == []
