"""bench/retrieval/locomo.py turns LoCoMo's file into notes and questions the way
basic-memory's benchmark does: a note per session, the sessions named by the evidence ids as
the answer, category 5 out of the headline. A small hand-written file in LoCoMo's shape."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "retrieval"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


locomo = _load("locomo")
check_set = _load("check_set")

SAMPLE = [
    {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_10_date_time": "1:00 pm on 2 June, 2023",
            "session_10": [{"speaker": "Ben", "dia_id": "D10:1", "text": "Back from Oslo."}],
            "session_2_date_time": "9:00 am on 1 May, 2023",
            "session_2": [
                {"speaker": "Ana", "dia_id": "D2:1", "text": "I adopted a cat!"},
                {"speaker": "Ben", "dia_id": "D2:2", "text": "  ", "blip_caption": "a cat"},
                {"speaker": "Ben", "dia_id": "D2:3", "text": "What is its name?"},
            ],
            "session_3_date_time": "2:00 pm on 9 May, 2023",  # a date without a session
        },
        "qa": [
            {"question": "When did Ana adopt a cat?", "evidence": ["D2:1"], "category": 2},
            {"question": "Where was Ben?", "evidence": ["D10:1; D2:3"], "category": 1},
            {"question": "Odd ids?", "evidence": ["D:11:26", "D3:1", 7], "category": 3},
            {"question": "Both?", "evidence": ["D2:3", "D10:1", "D2:1"], "category": 4},
            {"question": "Trick?", "evidence": ["D2:1"], "category": 5, "adversarial_answer": "x"},
        ],
    },
    {"conversation": {"session_1": [{"speaker": "Cy", "text": "Hi"}]}, "qa": []},
]


def test_one_note_per_session_in_numeric_order() -> None:
    notes, _ = locomo.convert(SAMPLE)
    assert [n["id"] for n in notes] == ["locomo-c00-s02", "locomo-c00-s10", "locomo-c01-s01"]
    assert notes[0]["title"] == "locomo-c00-s02"
    assert notes[0]["body"] == (
        "## Conversation\n- **Ana:** I adopted a cat!\n- **Ben:** What is its name?"
    )
    assert {n["kind"] for n in notes} == {"fact"}


def test_evidence_names_the_answer_sessions() -> None:
    _, questions = locomo.convert(SAMPLE)
    answers = {q["question"]: q["answers"] for q in questions}
    assert answers["When did Ana adopt a cat?"] == ["locomo-c00-s02"]
    assert answers["Where was Ben?"] == ["locomo-c00-s10"]  # only the first id of "D10:1; D2:3"
    assert answers["Odd ids?"] == []  # malformed, a session without turns, not a string
    assert answers["Both?"] == ["locomo-c00-s02", "locomo-c00-s10"]


def test_adversarial_questions_only_on_request() -> None:
    _, headline = locomo.convert(SAMPLE)
    assert [q["id"] for q in headline] == [f"locomo-c00-q000{i}" for i in range(4)]
    assert [q["category"] for q in headline] == [
        "multi-hop",
        "single-hop",
        "temporal",
        "open-domain",
    ]
    _, everything = locomo.convert(SAMPLE, adversarial=True)
    assert everything[-1]["id"] == "locomo-c00-q0004"
    assert (everything[-1]["category"], everything[-1]["expected_answer"]) == ("adversarial", "x")


def test_the_command_writes_a_set_that_validates(tmp_path: Path) -> None:
    dataset = tmp_path / "locomo10.json"
    dataset.write_text(json.dumps(SAMPLE), encoding="utf-8")
    assert locomo.main([str(dataset), str(tmp_path / "out")]) == 0
    report = check_set.validate(tmp_path / "out", converted=True)
    assert report.problems == []
    assert (report.counts["notes"], report.counts["questions.jsonl"]["unanswered"]) == (3, 1)


@pytest.mark.parametrize("content", ["{not json", '{"conversation": {}}', "[1, 2]"])
def test_a_file_that_is_not_locomo_is_refused(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "locomo10.json"
    dataset.write_text(content, encoding="utf-8")
    assert locomo.main([str(dataset), str(tmp_path / "out")]) == 2
    assert str(dataset) in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
