"""One literal-credential corpus (tests/data/credentials.yaml), run through every consumer of
the one detector: `credentials.find`, the runtime redactor, the hub loader (`memhub
validate`), `memhub import` and apply's value check. All four must agree on every case:
each secret is found, and no negative case (references, placeholders, ordinary flags and
URLs) is flagged anywhere.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
import yaml
from memhub.compiler.cli import main
from memhub.runtime import credentials
from memhub.runtime.redact import redact_text

from tests.hubs import REPO

CORPUS = REPO / "tests" / "data" / "credentials.yaml"
WHERE = {"text", "config", "command", "args", "env", "header", "url"}


@cache
def corpus() -> tuple[dict[str, Any], ...]:
    # `%%` splits each secret in the file so that it holds no token-shaped literal.
    return tuple(yaml.safe_load(CORPUS.read_text("utf-8").replace("%%", ""))["cases"])


def positives() -> list[dict[str, Any]]:
    return [c for c in corpus() if "secret" in c]


def negatives() -> list[dict[str, Any]]:
    return [c for c in corpus() if "secret" not in c]


def as_text(case: dict[str, Any]) -> str:
    """The case as one line of text, as a transcript would show it."""
    if case["where"] == "args":
        return " ".join(case["args"])
    if case["where"] == "env":
        return f"{case['key']}={case['value']}"
    if case["where"] == "header":
        return f"{case['key']}: {case['value']}"
    return case["text"]


def ids(cases: list[dict[str, Any]]) -> list[str]:
    return [c["id"] for c in cases]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# -- the corpus itself ------------------------------------------------------------------------


def test_the_corpus_is_one_shared_corpus_of_at_least_150_cases() -> None:
    cases = corpus()
    assert len(cases) >= 150
    assert len(negatives()) >= 40, "negatives keep validate from rejecting honest hubs"
    assert len(set(ids(list(cases)))) == len(cases), "ids are unique"
    for case in cases:
        assert case["where"] in WHERE, case["id"]
        if "secret" in case:
            assert case["secret"] in as_text(case), case["id"]
    assert "%%" not in CORPUS.read_text().replace("%%", ""), "only the splitting marker"


def test_the_corpus_file_holds_no_token_shaped_literal() -> None:
    raw = CORPUS.read_text("utf-8")
    kinds = {f.kind for f in credentials.find(raw)}
    assert not [k for k in kinds if k.endswith(" token") and k != "bearer token"], kinds


# -- the detector and the redactor ------------------------------------------------------------


@pytest.mark.parametrize("case", positives(), ids=ids(positives()))
def test_the_detector_finds_each_secret(case: dict[str, Any]) -> None:
    text = as_text(case)
    found = credentials.find(text)
    assert case["secret"] not in credentials.replace(text, found, "#"), found
    if case["where"] in ("env", "header"):
        assert credentials.literal_for_key(case["key"], case["value"])


@pytest.mark.parametrize("case", positives(), ids=ids(positives()))
def test_the_redactor_removes_each_secret(case: dict[str, Any]) -> None:
    out = redact_text(as_text(case))
    assert case["secret"] not in out, out
    assert "<redacted>" in out
    assert redact_text(out) == out, "redaction is idempotent"


@pytest.mark.parametrize("case", negatives(), ids=ids(negatives()))
def test_no_negative_is_flagged_or_redacted(case: dict[str, Any]) -> None:
    text = as_text(case)
    assert credentials.find(text) == []
    assert redact_text(text) == text
    if case["where"] in ("env", "header"):
        assert credentials.literal_for_key(case["key"], case["value"]) is None
