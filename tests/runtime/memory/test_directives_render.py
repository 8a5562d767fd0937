"""directives_render: the published plugin's text, the budget cut, the accounting."""

from __future__ import annotations

from memhub.runtime.memory.directives import Directive, Hit
from memhub.runtime.memory.directives_render import HEADER, NOTE, TRIMMED, render


def hit(rid: str, body: str = "", kind: str = "lesson", seen: int = 3) -> Hit:
    d = Directive(
        rid, kind, f"Title of {rid}", body, {"paths": ("alembic/versions/*.py",)},
        "2026-03-04T05:06:07Z", seen,
    )  # fmt: skip
    return Hit(d, "alembic/versions/*.py", "alembic/versions/.py")


def test_renders_header_type_content_trigger_as_of_and_seen() -> None:
    out = render([hit("r-a", "Add a new revision\ninstead."), hit("r-b", kind="procedure")])
    lines = out.text.splitlines()
    assert lines[:2] == [HEADER, NOTE]
    assert lines[2] == (
        "- **[LESSON]** Title of r-a Add a new revision instead."
        "  _(fired on: alembic/versions/*.py; as of 2026-03-04; seen 3×)_"
    )
    assert lines[3].startswith("- **[PROCEDURE]** Title of r-b")
    assert not out.cut and out.left_out == 0
    assert out.ids() == ["r-a", "r-b"]


def test_nothing_fired_renders_nothing() -> None:
    out = render([])
    assert out.text == "" and out.chars == 0 and out.tokens == 0 and out.fired == []


def test_accounting_counts_chars_and_tokens_and_says_why() -> None:
    out = render([hit("r-a", "x" * 10)])
    acc = out.accounting()
    assert acc["chars"] == len(out.text) and acc["tokens"] == -(-len(out.text) // 4)
    assert acc["fired"] == [
        {
            "id": "r-a",
            "kind": "lesson",
            "trigger": "alembic/versions/*.py",
            "matched": "alembic/versions/.py",
            "cut": False,
        }
    ]
    assert acc["cut"] is False and acc["left_out"] == 0


def test_a_long_directive_is_cut_to_the_budget_and_says_so() -> None:
    out = render([hit("r-a", "word " * 1000)], budget=600)
    assert out.chars <= 600
    assert TRIMMED in out.text and out.text.endswith("seen 3×)_")  # the tail is kept
    assert out.cut and out.fired[0]["cut"] and out.ids() == ["r-a"]


def test_a_directive_that_cannot_fit_is_named_as_left_out_never_dropped_silently() -> None:
    first, second = hit("r-a", "word " * 60), hit("r-b", "word " * 60)
    out = render([first, second], budget=len(render([first]).text) + 90)
    assert out.ids() == ["r-a"] and out.left_out == 1 and out.cut
    assert out.text.endswith("_(1 more directive left out to fit the budget)_")
    assert out.chars <= len(render([first]).text) + 90


def test_a_budget_too_small_for_any_directive_still_says_so() -> None:
    out = render([hit("r-a", "word " * 60)], budget=120)
    assert out.fired == [] and out.left_out == 1 and out.cut
    assert "left out" in out.text and out.chars <= 120


def test_the_reactive_note_differs() -> None:
    assert "failure" in render([hit("r-a")], reactive=True).text.splitlines()[1]
