"""Convert LoCoMo (`locomo10.json`) into the retrieval set's format, to measure on public data.

LoCoMo (Maharana et al., ACL 2024; repository snap-research/LoCoMo, `data/locomo10.json`) holds
10 long conversations between two people, each split into dated sessions of dialog turns
(`D<session>:<turn>` ids), and about 2,000 questions whose `evidence` lists the dialog ids that
hold the answer. The data is not ours to commit: this script reads a copy from wherever you put
it and writes into a folder you name (never into the repository).

The conversion mirrors basic-memory's own benchmark, so figures compare with its published
ones: basicmachines-co/basic-memory-benchmarks, `src/basic_memory_benchmarks/converters/
locomo_to_corpus.py` (commit 5f9704a3795eb95ac29dc514a5fe5c9c440f6ec4; unchanged in
d00dc80dd89e0f37552e364b100e45aaef73ac00 except for the optional audit corrections) and
`scoring/retrieval.py` (commit 516be4bb761c7686a29a0b0d060a82fc1d7b65de):

* one note per session: conversations numbered in file order (`c00`..`c09`), sessions by their
  `session_<n>` key in numeric order; note id and title `locomo-c<cc>-s<nn>`; the body is
  `## Conversation` and one `- **<speaker>:** <text>` line per turn with text (image captions,
  session dates and the dataset's summaries and observations are not included, as there);
* the notes that hold the answer: the sessions named by the question's evidence ids
  (`^D(\\d+):`, so `D8:6; D9:17` counts session 8 only and a malformed `D:11:26` nothing),
  deduplicated and sorted; a question whose evidence names no session keeps an empty list and
  scores 0, as basic-memory keeps it;
* categories as basic-memory names them: 1 single-hop, 2 multi-hop, 3 temporal, 4 open-domain,
  5 adversarial (its names, not a judgement: LoCoMo's category 2 questions are mostly "When
  did ..."); its headline figure averages categories 1-4 (1,540 questions), so category 5 is
  left out unless `--adversarial`; `category_id` keeps LoCoMo's number;
* scoring (for the benchmark that reads these files): recall@k = the share of a question's
  answer notes found in the top k, MRR = 1/rank of the first answer note, both averaged over
  the questions.

Output: `notes.jsonl` ({id, kind: "fact", title, body, tags: []}) and `questions.jsonl` ({id:
`locomo-c<cc>-q<nnnn>` with the question's index in its conversation, question, answers,
category, category_id, expected_answer}).

    python bench/retrieval/locomo.py PATH/TO/locomo10.json OUT_DIR [--adversarial]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

CATEGORIES = {1: "single-hop", 2: "multi-hop", 3: "temporal", 4: "open-domain", 5: "adversarial"}
HEADLINE = (1, 2, 3, 4)
_SESSION_KEY = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D(\d+):")


class BadDataset(ValueError):
    """The file is not LoCoMo's list of conversations."""


def sessions(conversation: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    """The (number, turns) of each session, in numeric order (`session_2` before `session_10`)."""
    found = [
        (int(match.group(1)), turns)
        for key, turns in conversation.items()
        if (match := _SESSION_KEY.fullmatch(key)) and isinstance(turns, list)
    ]
    return sorted(found, key=lambda item: item[0])


def session_body(turns: list[dict[str, Any]]) -> str:
    """A session as basic-memory writes it: one `- **speaker:** text` line per turn with text."""
    lines = ["## Conversation"]
    for turn in turns:
        text = str(turn.get("text", "")).strip()
        if text:
            lines.append(f"- **{turn.get('speaker', 'unknown')}:** {text}")
    return "\n".join(lines)


def answer_notes(evidence: object, notes: dict[int, str]) -> list[str]:
    """The notes of the sessions the evidence ids name, deduplicated and sorted."""
    found: set[str] = set()
    for item in evidence if isinstance(evidence, list) else []:
        match = _EVIDENCE.match(item) if isinstance(item, str) else None
        if match and int(match.group(1)) in notes:
            found.add(notes[int(match.group(1))])
    return sorted(found)


def convert(
    dataset: list[dict[str, Any]], adversarial: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """LoCoMo's conversations -> (notes, questions) in the retrieval set's format."""
    notes: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for index, sample in enumerate(dataset):
        conv = f"locomo-c{index:02d}"
        by_session: dict[int, str] = {}
        for number, turns in sessions(sample.get("conversation", {})):
            note_id = f"{conv}-s{number:02d}"
            by_session[number] = note_id
            body = session_body(turns)
            notes.append(
                {"id": note_id, "kind": "fact", "title": note_id, "body": body, "tags": []}
            )
        for q_index, qa in enumerate(sample.get("qa", [])):
            category = int(qa.get("category", 0))
            if category not in HEADLINE and not (adversarial and category == 5):
                continue
            answer = qa.get("answer") or qa.get("adversarial_answer")
            questions.append(
                {
                    "id": f"{conv}-q{q_index:04d}",
                    "question": str(qa.get("question", "")).strip(),
                    "answers": answer_notes(qa.get("evidence"), by_session),
                    "category": CATEGORIES.get(category, f"category-{category}"),
                    "category_id": category,
                    "expected_answer": str(answer).strip() if answer else None,
                }
            )
    return notes, questions


def load(path: Path) -> list[dict[str, Any]]:
    """LoCoMo's file: a JSON list of conversations, each with `conversation` and `qa`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: JSON and UTF-8 decoding
        raise BadDataset(f"{path}: cannot read it as JSON ({exc})") from None
    if not isinstance(data, list) or not all(
        isinstance(s, dict) and isinstance(s.get("conversation"), dict) for s in data
    ):
        raise BadDataset(
            f"{path}: not LoCoMo's locomo10.json (a list of objects with a 'conversation' "
            "object); take data/locomo10.json from the snap-research/LoCoMo repository"
        )
    return data


def write(out: Path, notes: list[dict[str, Any]], questions: list[dict[str, Any]]) -> None:
    """`notes.jsonl` and `questions.jsonl` in `out` (created if missing)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("notes.jsonl", notes), ("questions.jsonl", questions)):
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (out / name).write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="LoCoMo's data/locomo10.json")
    parser.add_argument("out", type=Path, help="folder for notes.jsonl and questions.jsonl")
    parser.add_argument(
        "--adversarial", action="store_true", help="keep category 5 (not in the headline)"
    )
    args = parser.parse_args(argv)
    try:
        notes, questions = convert(load(args.dataset), adversarial=args.adversarial)
    except BadDataset as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write(args.out, notes, questions)
    unanswered = sum(not q["answers"] for q in questions)
    print(
        f"{len(notes)} notes, {len(questions)} questions "
        f"({unanswered} without an answer note) -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
