"""Validate the retrieval benchmark's question set and print its counts per category.

The committed set (this folder): `notes.jsonl` (one note per line: id, kind, title, body,
tags), `questions_dev.jsonl` and `questions_test.jsonl` (one question per line: id, question,
answers = the ids of every note that holds the answer, category). Checks: every field has its
type; note ids are unique kebab-case of at most 60 characters; kinds are memhub record kinds;
bodies hold 40-400 words; question ids are unique across both files; every answer names a
note; no question text appears twice; dev and test never share an answer note (tuning on dev
tells nothing about test); both ASCII-only and non-ASCII text occur; and the minimum counts
(260 notes, 150 dev and 420 test questions) hold.

`--converted DIR` checks a converted public set instead (`locomo.py` writes `notes.jsonl` and
`questions.jsonl`): the same shapes, without the counts, the word limits and the category
list; a question with no answer note, or asked twice, is counted, not refused (LoCoMo has both;
basic-memory's benchmark keeps them, and scores the unanswered ones 0).

    python bench/retrieval/check_set.py [DIR] [--json]
    python bench/retrieval/check_set.py --converted /tmp/locomo-set
Exit status: 0 valid, 1 invalid (each problem printed as `file:line: message`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KINDS = ("fact", "preference", "decision", "lesson", "procedure", "artifact")  # kinds.KINDS
CATEGORIES = (
    "single-hop",
    "multi-hop",
    "temporal",
    "paraphrase",
    "identifier",
    "negation-free-keyword",
)
MINIMUM = {"notes": 260, "dev": 150, "test": 420}
WORDS = (40, 400)
_NOTE_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
NOTE_ID_MAX = 60


class Report:
    """Problems found (`file:line: message`) and the counts the summary prints."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.counts: dict[str, Any] = {}

    def bad(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")


def read_jsonl(path: Path, report: Report) -> list[tuple[str, dict[str, Any]]]:
    """Each line's object with its `file:line`; a line that is not a JSON object is a problem."""
    rows: list[tuple[str, dict[str, Any]]] = []
    if not path.is_file():
        report.bad(str(path), "missing")
        return rows
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            report.bad(where, f"not JSON ({exc.msg})")
            continue
        if not isinstance(row, dict):
            report.bad(where, "not a JSON object")
            continue
        rows.append((where, row))
    return rows


def check_notes(
    rows: list[tuple[str, dict[str, Any]]], report: Report, strict: bool
) -> dict[str, str]:
    """The notes by id (-> their text, for the ASCII check); problems go to `report`."""
    notes: dict[str, str] = {}
    for where, note in rows:
        nid, kind, title, body, tags = (
            note.get(k) for k in ("id", "kind", "title", "body", "tags")
        )
        if not isinstance(nid, str) or len(nid) > NOTE_ID_MAX or not _NOTE_ID.fullmatch(nid):
            report.bad(where, f"id {nid!r} is not kebab-case of 1-{NOTE_ID_MAX} characters")
            continue
        if nid in notes:
            report.bad(where, f"duplicate note id {nid}")
        if kind not in KINDS:
            report.bad(where, f"{nid}: kind {kind!r} is not one of {', '.join(KINDS)}")
        if not isinstance(title, str) or not title.strip():
            report.bad(where, f"{nid}: empty title")
        if not isinstance(body, str) or not body.strip():
            report.bad(where, f"{nid}: empty body")
        elif strict and not WORDS[0] <= len(body.split()) <= WORDS[1]:
            report.bad(
                where, f"{nid}: body has {len(body.split())} words, not {WORDS[0]}-{WORDS[1]}"
            )
        if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
            report.bad(where, f"{nid}: tags must be a list of non-empty strings")
        notes[nid] = f"{title}\n{body}"
    return notes


def check_questions(
    name: str,
    rows: list[tuple[str, dict[str, Any]]],
    notes: dict[str, str],
    report: Report,
    seen: dict[str, set[str]],
    strict: bool,
) -> set[str]:
    """The note ids this file's answers name; ids and texts seen so far are in `seen`."""
    answered: set[str] = set()
    categories: Counter[str] = Counter()
    unanswered = repeated = 0
    for where, q in rows:
        qid, text, answers, category = (q.get(k) for k in ("id", "question", "answers", "category"))
        if not isinstance(qid, str) or not qid:
            report.bad(where, "question without an id")
        elif qid in seen["ids"]:
            report.bad(where, f"duplicate question id {qid}")
        else:
            seen["ids"].add(qid)
        if not isinstance(text, str) or not text.strip():
            report.bad(where, f"{qid}: empty question")
        elif text.strip().lower() in seen["texts"]:
            repeated += 1
            if strict:  # LoCoMo itself repeats some questions; only our own set must not
                report.bad(where, f"{qid}: the same question is asked twice: {text!r}")
        else:
            seen["texts"].add(text.strip().lower())
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            report.bad(where, f"{qid}: answers must be a list of note ids")
            continue
        if not answers:
            unanswered += 1
            if strict:
                report.bad(where, f"{qid}: no answer note")
        if len(set(answers)) != len(answers):
            report.bad(where, f"{qid}: an answer note is listed twice")
        for note in answers:
            if note not in notes:
                report.bad(where, f"{qid}: answer {note!r} is not a note id")
        answered.update(answers)
        if strict and category not in CATEGORIES:
            report.bad(where, f"{qid}: category {category!r} is not one of {', '.join(CATEGORIES)}")
        categories[str(category)] += 1
    report.counts[name] = {
        "questions": len(rows),
        "unanswered": unanswered,
        "repeated": repeated,
        "categories": dict(sorted(categories.items())),
    }
    return answered


def validate(folder: Path = HERE, converted: bool = False) -> Report:
    """Check the set in `folder` (see the module docstring); the report says what is wrong."""
    report = Report()
    strict = not converted
    notes = check_notes(read_jsonl(folder / "notes.jsonl", report), report, strict)
    report.counts["notes"] = len(notes)
    files = ("questions.jsonl",) if converted else ("questions_dev.jsonl", "questions_test.jsonl")
    seen: dict[str, set[str]] = {"ids": set(), "texts": set()}
    answered = {
        name.removesuffix(".jsonl").removeprefix("questions_"): check_questions(
            name, read_jsonl(folder / name, report), notes, report, seen, strict
        )
        for name in files
    }
    if strict:
        _check_split(folder, report, notes, answered)
    return report


def _check_split(
    folder: Path, report: Report, notes: dict[str, str], answered: dict[str, set[str]]
) -> None:
    """The committed set's extra rules: minimum counts, held-out test, both kinds of text."""
    counts = {
        "notes": len(notes),
        "dev": report.counts["questions_dev.jsonl"]["questions"],
        "test": report.counts["questions_test.jsonl"]["questions"],
    }
    for what, least in MINIMUM.items():
        if counts[what] < least:
            report.bad(str(folder), f"{counts[what]} {what}, fewer than {least}")
    shared = sorted(answered["dev"] & answered["test"])
    if shared:
        report.bad(str(folder), f"dev and test share answer notes: {', '.join(shared)}")
    texts = list(notes.values())
    if all(t.isascii() for t in texts) or not any(t.isascii() for t in texts):
        report.bad(str(folder), "the notes need both ASCII-only and non-ASCII text")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=HERE)
    parser.add_argument("--converted", action="store_true", help="a converted public set")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args(argv)
    report = validate(args.folder, converted=args.converted)
    for problem in report.problems:
        print(problem, file=sys.stderr)
    if args.json:
        print(json.dumps({"valid": not report.problems, **report.counts}, indent=2))
    else:
        print(f"notes: {report.counts['notes']}")
        for name, figures in report.counts.items():
            if name != "notes":
                cats = ", ".join(f"{c} {n}" for c, n in figures["categories"].items())
                print(f"{name}: {figures['questions']} questions ({cats})")
        print("valid" if not report.problems else f"{len(report.problems)} problem(s)")
    return 0 if not report.problems else 1


if __name__ == "__main__":
    sys.exit(main())
