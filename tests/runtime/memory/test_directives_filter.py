"""directives_filter: a call no trigger key can be in is refused before SQLite is opened."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.runtime.memory import directives_filter as F
from memhub.runtime.memory import directives_read as R
from memhub.runtime.memory.directives import call_of

from .test_directives_read import STOP, bulk_index, lesson, many

SHARED: list[tuple[str, str | None]] = [("shared", None), ("project", "app")]


def recall(index: Path, tool_input: dict[str, object]) -> list[str]:
    return [h.directive.id for h in R.recall(index, SHARED, call_of(tool_input), STOP)]


def test_the_filter_refuses_calls_without_a_candidate_and_never_a_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index.sqlite"
    bulk_index(index, [*many(2000), lesson("r-rf", commands=("rm -rf",))])
    assert recall(index, {"command": "deploy-svc4 --prod"}) == ["r-00004"]  # builds both
    assert F.stamp_of(str(index)) == R._stamp(str(index))
    connects: list[str] = []
    real = R._connect
    monkeypatch.setattr(R, "_connect", lambda path: connects.append(path) or real(path))
    assert recall(index, {"command": "touch notes/today.txt"}) == []
    assert connects == []  # refused by the filter: SQLite was not opened
    # every directive still fires through it (no false refusal), a short key included
    for i in (0, 777, 1999):
        assert recall(index, {"file_path": f"/r/services/svc{i}/handlers/x.py"}) == [f"r-{i:05d}"]
    assert recall(index, {"command": "rm -rf build"}) == ["r-rf"]
    assert len(connects) == 4


def test_a_filter_for_another_index_state_answers_nothing(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    bulk_index(index, [lesson("r-a", commands=("helm upgrade",))])
    assert recall(index, {"command": "helm upgrade x"}) == ["r-a"]
    text = "touch nothing"
    windows = R._windows(text)
    assert F.excludes(str(index), R._stamp(str(index)), text, windows)
    assert not F.excludes(str(index), "another state", text, windows)
    (tmp_path / F.FILE).write_bytes(b"garbage")
    assert not F.excludes(str(index), R._stamp(str(index)), text, windows)
    assert recall(index, {"command": "helm upgrade y"}) == ["r-a"]  # the cache still answers
