"""The retrieval benchmark's committed question set stays valid (bench/retrieval/check_set.py),
and the validation catches each kind of damage it claims to."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from memhub.runtime.memory.kinds import KINDS

SET = Path(__file__).resolve().parents[2] / "bench" / "retrieval"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_set", SET / "check_set.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check_set = _load()


def test_the_committed_set_is_valid() -> None:
    report = check_set.validate(SET)
    assert report.problems == []
    assert report.counts["notes"] >= 260
    assert report.counts["questions_dev.jsonl"]["questions"] >= 150
    assert report.counts["questions_test.jsonl"]["questions"] >= 420
    for name in ("questions_dev.jsonl", "questions_test.jsonl"):
        assert set(report.counts[name]["categories"]) == set(check_set.CATEGORIES)


def test_the_kinds_are_memhubs_own() -> None:
    assert tuple(check_set.KINDS) == tuple(KINDS)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for name in ("notes.jsonl", "questions_dev.jsonl", "questions_test.jsonl"):
        shutil.copy(SET / name, tmp_path / name)
    return tmp_path


def test_each_kind_of_damage_is_reported(copy: Path) -> None:
    notes, dev, test = (
        _rows(copy / n) for n in ("notes.jsonl", "questions_dev.jsonl", "questions_test.jsonl")
    )
    notes.append(dict(notes[0]))  # a duplicate note id
    notes[1]["kind"] = "memo"
    notes[2]["body"] = "too short"
    dev[0]["answers"] = ["no-such-note"]
    dev[1]["id"] = dev[2]["id"]
    dev[3]["question"] = dev[4]["question"]
    dev[5]["category"] = "trivia"
    test[0]["answers"] = [dev[6]["answers"][0]]  # a dev note answers a test question
    test[1]["answers"] = []
    _write(copy / "notes.jsonl", notes)
    _write(copy / "questions_dev.jsonl", dev)
    _write(copy / "questions_test.jsonl", test[:400])
    problems = "\n".join(check_set.validate(copy).problems)
    for expected in (
        f"duplicate note id {notes[0]['id']}",
        "kind 'memo'",
        "body has 2 words",
        "answer 'no-such-note' is not a note id",
        f"duplicate question id {dev[2]['id']}",
        "the same question is asked twice",
        "category 'trivia'",
        f"dev and test share answer notes: {dev[6]['answers'][0]}",
        "no answer note",
        "400 test, fewer than 420",
    ):
        assert expected in problems


def test_a_converted_set_may_hold_unanswered_questions(tmp_path: Path) -> None:
    note = {"id": "locomo-c00-s01", "kind": "fact", "title": "t", "body": "b", "tags": []}
    questions = [
        {"id": "q1", "question": "When?", "answers": ["locomo-c00-s01"], "category": "temporal"},
        {"id": "q2", "question": "Who?", "answers": [], "category": "open-domain"},
    ]
    _write(tmp_path / "notes.jsonl", [note])
    _write(tmp_path / "questions.jsonl", questions)
    report = check_set.validate(tmp_path, converted=True)
    assert report.problems == []
    assert report.counts["questions.jsonl"]["unanswered"] == 1
