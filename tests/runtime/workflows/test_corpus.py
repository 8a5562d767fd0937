"""The labelled shell corpus (tests/data/shell_corpus/commands.jsonl, real commands from the
transcripts in the shared material, each with a hand-reviewed `pr_create` label): replayed as
if each command had succeeded and printed what `gh pr create` prints, the PR workflow never
self-links a command not labelled "self-link", and its agreement with the labels is reported."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from memhub.runtime.workflows.prs import pr_decision

from .ghoutputs import CREATE_STDOUT

CORPUS = Path(__file__).resolve().parents[2] / "data" / "shell_corpus" / "commands.jsonl"
LABELS = ("self-link", "judged", "none")


def create_label(command: object) -> str:
    """The corpus's `pr_create` dimension of a decision: a self-link, a create declined to the
    judged lane, or not a create at all."""
    decision = pr_decision("shell", command, CREATE_STDOUT, True)
    if decision.kind == "self-link":
        return "self-link"
    return "judged" if decision.reason == "create-unproven" else "none"


def _rows() -> list[dict]:
    assert CORPUS.is_file(), f"the labelled shell corpus is missing: {CORPUS}"
    return [
        json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def test_no_false_self_link_and_agreement(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows()
    confusion: Counter[tuple[str, str]] = Counter()
    false_self: list[str] = []
    for row in rows:
        label = row["pr_create"]
        assert label in LABELS, row
        got = create_label(row["command"])
        confusion[(label, got)] += 1
        if got == "self-link" and label != "self-link":
            false_self.append(row.get("id", repr(row["command"])[:80]))
    agree = sum(n for (label, got), n in confusion.items() if label == got)
    with capsys.disabled():
        print(
            f"\npr_create agreement {agree}/{len(rows)}; confusion (label, got): {dict(confusion)}"
        )
    assert not false_self, f"false self-links: {false_self}"
    labelled_self = sum(n for (label, _), n in confusion.items() if label == "self-link")
    if labelled_self:  # recall of the narrow lane, reported and kept from collapsing
        assert confusion[("self-link", "self-link")] / labelled_self >= 0.5
