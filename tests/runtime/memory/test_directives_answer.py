"""directives_answer: once per session, handles answered once, reactive never cached."""

from __future__ import annotations

from pathlib import Path

from memhub.runtime.memory import directives_state as S
from memhub.runtime.memory.directives_answer import Answer, answer, delivered, handle_of
from memhub.runtime.memory.directives_render import HEADER

from .test_directives_read import bulk_index, lesson

SHARED: list[tuple[str, str | None]] = [("shared", None)]


def setup(tmp_path: Path) -> Path:
    index = tmp_path / "index.sqlite"
    bulk_index(
        index,
        [
            lesson("r-mig", paths=("alembic/versions/*.py",)),
            lesson("r-helm", commands=("helm upgrade",)),
            lesson("r-quota", errors=("exceeded quota",)),
            lesson("r-acme", identifiers=("acme",)),
        ],
    )
    return index


def ask(index: Path, tmp_path: Path, tool_input: dict[str, object], **kw: object) -> Answer:
    return answer(index, SHARED, "Edit", tool_input, cwd="/r", session_dir=tmp_path / "s", **kw)  # type: ignore[arg-type]


def test_a_directive_fires_once_per_session(tmp_path: Path) -> None:
    index = setup(tmp_path)
    first = ask(index, tmp_path, {"file_path": "/r/alembic/versions/1.py"})
    assert first.injection.text.startswith(HEADER) and first.injection.ids() == ["r-mig"]
    delivered(tmp_path / "s", first)
    again = ask(index, tmp_path, {"file_path": "/r/alembic/versions/2.py"})  # a new handle
    assert again.injection.text == "" and again.skipped == ""


def test_a_handle_already_answered_is_not_looked_up_again(tmp_path: Path) -> None:
    index = setup(tmp_path)
    first = ask(index, tmp_path, {"file_path": "/r/alembic/versions/1.py"})
    assert first.injection.ids() == ["r-mig"]  # not delivered: not marked fired
    again = ask(index, tmp_path, {"file_path": "/r/alembic/versions/1.py"})
    assert again.skipped == "handle already answered" and again.injection.text == ""
    assert S.seen(tmp_path / "s", first.handle)


def test_reactive_recall_is_never_cached_and_sees_the_output(tmp_path: Path) -> None:
    index = setup(tmp_path)
    tool_input = {"command": "terraform apply"}
    for _ in range(2):
        got = ask(index, tmp_path, tool_input, output="Error: exceeded quota for project")
        assert got.injection.ids() == ["r-quota"] and "failure" in got.injection.text
    assert not S.seen(tmp_path / "s", got.handle)


def test_the_repo_name_is_gated_and_no_handle_costs_nothing(tmp_path: Path) -> None:
    index = setup(tmp_path)
    assert ask(index, tmp_path, {"command": "grep -r acme ."}).injection.ids() == ["r-acme"]
    gated = ask(index, tmp_path, {"command": "grep -rn acme src"}, repo="acme")
    assert gated.injection.ids() == []
    assert ask(index, tmp_path, {"query": "x"}).skipped == "no handle"
    assert handle_of({"file_path": "/a", "command": "x"}) == "/a"
