"""brief_render: three checkpoints under one budget; Recall cut first, then Apply, never the Map."""

from __future__ import annotations

from memhub.runtime.memory.brief_read import Named
from memhub.runtime.memory.brief_render import (
    DEFAULT_TOKENS,
    MAX_APPLY,
    TRIMMED,
    budget_chars,
    counts_line,
    render,
)
from memhub.runtime.memory.directives import Directive, Hit
from memhub.runtime.memory.recall_ids import Ident

HEAD = ["## 🧠 memhub memory: **app** (`p-1`; project + shared)", "How to use it."]
COUNTS = {"fact": 3, "lesson": 2, "proposed": 1, "session": 4}
MD = [f"- fact: remembered thing {i} (r-md{i})" for i in range(6)]


def hit(n: int) -> Hit:
    d = Directive(f"r-dir{n}", "lesson", f"Lesson {n}", "x" * 120, {"paths": ("app/a.py",)})
    return Hit(d, "app/a.py", "app/a.py")


def named(n: int) -> Named:
    out = Named("record", f"r-rec{n}", "fact", f"Record {n} " + "y" * 100, "2026-01-01")
    out.idents = [Ident("path", "app/a.py")]
    return out


def full(budget: int = 100_000):
    return render(
        HEAD, COUNTS, MD, [hit(i) for i in range(5)], [named(i) for i in range(5)], budget
    )


def test_everything_fits_a_large_budget() -> None:
    brief = full()
    assert not brief.cut and TRIMMED not in brief.text
    assert "### Map\n3 facts, 2 lessons · 1 proposed · 4 captured sessions" in brief.text
    assert all(line in brief.text for line in MD)
    assert brief.text.index("### Apply") < brief.text.index("### Recall & Consult")
    assert brief.shown == [f"r-dir{i}" for i in range(5)] + [f"r-rec{i}" for i in range(5)]


def test_recall_is_cut_first_then_apply_never_the_map() -> None:
    whole = len(full().text)
    budgets = range(whole + 10, 200, -37)
    seen_apply_cut_with_recall = False
    for budget in budgets:
        brief = full(budget)
        share = budget - budget // 3
        assert len(brief.text) <= share, (budget, len(brief.text))
        assert "### Map" in brief.text and COUNTS and "3 facts" in brief.text
        if brief.cut:
            assert brief.text.endswith(TRIMMED)
        recall = sum(i.startswith("r-rec") for i in brief.shown)
        apply = sum(i.startswith("r-dir") for i in brief.shown)
        if apply < MAX_APPLY:
            assert recall == 0, (budget, brief.shown)  # Apply is cut only once Recall is gone
            seen_apply_cut_with_recall = True
        if any(line not in brief.text for line in MD):
            assert apply == 0 and recall == 0  # MEMORY.md lines go last of all
    assert seen_apply_cut_with_recall


def test_split_two_to_one_with_the_rulebook_block() -> None:
    budget = 3000
    brief = render(HEAD, COUNTS, MD, [hit(0)], [], budget, rulebook="R" * 5000)
    body, _, block = brief.text.partition("\n\n" + "R")
    assert len(body) <= budget - budget // 3
    assert len("R" + block) <= budget // 3 and block.endswith(TRIMMED)


def test_a_tiny_budget_still_names_the_cut() -> None:
    brief = full(120)
    assert brief.cut and brief.text.endswith(TRIMMED) and len(brief.text) <= 80
    assert brief.shown == []


def test_budget_from_the_environment() -> None:
    assert budget_chars(None) == DEFAULT_TOKENS * 4 == budget_chars("") == budget_chars("x")
    assert budget_chars("100") == 400 and budget_chars("-5") == 0


def test_counts_line_without_records() -> None:
    assert counts_line({"session": 1}) == "no active records · 1 captured session"


def test_the_late_part_cuts_recall_first_then_apply_within_its_room() -> None:
    from memhub.runtime.memory.brief_render import apply_item, recall_item, render_late

    apply = [apply_item(hit(i)) for i in range(5)]
    recall = [recall_item(named(i)) for i in range(5)]
    whole = render_late(apply, recall, 100_000)
    assert whole is not None and not whole.cut and len(whole.shown) == 10
    assert [f["id"] for f in whole.fired] == [f"r-dir{i}" for i in range(5)]
    seen_apply_only = False
    for room in range(200, len(whole.text), 40):
        late = render_late(apply, recall, room)
        if late is None:
            continue
        assert len(late.text) <= room and late.cut and late.text.endswith(TRIMMED)
        if any(s.startswith("r-rec") for s in late.shown):
            assert len([s for s in late.shown if s.startswith("r-dir")]) == 5  # Apply whole
        else:
            seen_apply_only = True
    assert seen_apply_only
    assert render_late([], [], 1000) is None and render_late(apply, recall, 10) is None
