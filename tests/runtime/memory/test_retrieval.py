"""The query planner: strict first, then relaxed over the content words; what each hit holds,
and which terms found nothing. Scopes hold for both queries."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.runtime.memory import retrieval
from memhub.runtime.memory.index import IndexDoc, MemoryIndex

MINE = [("project", "p1"), ("shared", None)]


def doc(doc_id: str, title: str, body: str, scope: str = "project", **kw: object) -> IndexDoc:
    project = kw.pop("project", "p1" if scope == "project" else None)
    fields: dict[str, object] = {
        "kind": "fact", "tags": (), "status": "active", "path": f"/m/{doc_id}.md",
        "revision": "r1", "updated": "2026-01-01T00:00:00Z", "source": "record",
    }  # fmt: skip
    fields.update(kw)
    return IndexDoc(id=doc_id, scope=scope, project=project, title=title, body=body, **fields)  # type: ignore[arg-type]


NOTES = [
    doc("calvin-tokyo", "Calvin's trip to Japan", "Calvin flew to Tokyo in March 2023 for a week."),
    doc("calvin-job", "Calvin's new job", "Calvin started at the bakery on Elm Street."),
    doc("dana-kyoto", "Dana in Kyoto", "Dana travelled to Kyoto by train, her first trip there."),
    doc("tokyo-food", "Ramen places", "The best ramen in Tokyo is near Shinjuku station."),
    doc("shared-travel", "Travel policy", "Book travel two weeks ahead.", scope="shared"),
    doc("first-day", "First day checklist", "Your first week: laptop, badge, travel card."),
    doc("expenses", "Travel expenses", "File travel expenses within the first month."),
    doc("marathon", "Mei's first marathon", "Mei ran her first marathon in Lisbon."),
    doc("theirs", "Calvin in Tokyo", "Calvin travel Tokyo first.", project="p2"),
    doc("sess", "Calvin Tokyo chat", "Calvin first travel Tokyo", source="session"),
]


@pytest.fixture
def index(tmp_path: Path):
    with MemoryIndex(tmp_path / "index.sqlite") as opened:
        opened.rebuild(NOTES)
        yield opened


def ids(answer: retrieval.Answer) -> list[str]:
    return [hit.doc.id for hit in answer.hits]


def test_a_question_in_a_sentence_finds_the_note_with_its_words(index: MemoryIndex) -> None:
    question = "When did Calvin first travel to Tokyo?"
    assert index.search(question, MINE) == []  # every word ANDed: nothing holds "did"
    answer = retrieval.search(index, question, MINE, limit=5)
    assert ids(answer)[0] == "calvin-tokyo"
    top = answer.hits[0]
    assert top.match == "relaxed" and set(top.matched) == {"Calvin", "Tokyo"}
    assert "theirs" not in ids(answer) and "sess" not in ids(answer)  # scopes, sources hold
    assert answer.ignored == ("When", "did", "to")
    assert answer.unmatched == ()  # "first" and "travel" are in dana-kyoto and the policy


def test_the_plan_drops_stop_words_and_trims_punctuation() -> None:
    asked = retrieval.plan("When did Calvin's team first travel to TOKYO?? tokyo title:x-ray")
    assert asked.terms == (
        "When", "did", "Calvin's", "team", "first", "travel", "to", "TOKYO", "title:x-ray"
    )  # fmt: skip
    assert asked.content == ("Calvin", "team", "first", "travel", "TOKYO", "title", "ray")
    assert asked.ignored == ("When", "did", "s", "to", "x")  # stop words, single letters
    assert retrieval.plan("what is it?") == retrieval.Plan(
        ("what", "is", "it"), (), ("what", "is", "it")
    )
    assert retrieval.plan("") == retrieval.plan("?! --") == retrieval.Plan((), (), ())


def test_strict_hits_stay_on_top_of_better_scored_relaxed_ones(index: MemoryIndex) -> None:
    index.rebuild(
        [
            doc("both", "Notes", "filler " * 300 + "the ramen shop near the station"),
            doc("ramen", "Ramen ramen ramen", "ramen ramen ramen ramen"),
            doc("station", "Station", "station"),
        ]
    )
    answer = retrieval.search(index, "ramen station", MINE)
    assert ids(answer) == ["both", "ramen", "station"]
    assert [hit.match for hit in answer.hits] == ["strict", "relaxed", "relaxed"]
    assert answer.hits[0].matched == ("ramen", "station")
    assert answer.hits[1].matched == ("ramen",) and answer.hits[2].matched == ("station",)
    assert answer.hits[1].score > answer.hits[0].score  # bm25 alone would have put it first
    assert ids(retrieval.search(index, "ramen station", MINE, limit=1)) == ["both"]


def test_an_empty_answer_names_the_terms_that_found_nothing(index: MemoryIndex) -> None:
    none = retrieval.search(index, "Where is the quokka of Zanzibar?", MINE)
    assert none.hits == [] and none.unmatched == ("quokka", "Zanzibar")
    assert none.ignored == ("Where", "is", "the", "of")
    some = retrieval.search(index, "Calvin Zanzibar", MINE)
    assert {hit.match for hit in some.hits} == {"relaxed"} and some.unmatched == ("Zanzibar",)
    # a word only another project's note holds is not "found": neither returned nor counted
    theirs = retrieval.search(index, "Shinjuku Calvin", [("project", "p2")])
    assert ids(theirs) == ["theirs"] and theirs.unmatched == ("Shinjuku",)
    one = retrieval.search(index, "zebra", MINE)
    assert one.hits == [] and one.unmatched == ("zebra",)


def test_a_query_of_stop_words_only_runs_strict(index: MemoryIndex) -> None:
    index.rebuild([doc("what", "What it is", "what it is")])
    found = retrieval.search(index, "what is it", MINE)
    assert ids(found) == ["what"] and found.hits[0].match == "strict"
    assert found.ignored == ("what", "is", "it") and found.unmatched == ()
    empty = retrieval.search(index, "who are they?", MINE)
    assert empty.hits == [] and empty.unmatched == ("who", "are", "they")


def test_common_words_rank_relaxed_hits_without_finding_any(
    index: MemoryIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the floor, a word most records hold would make the relaxed query rank them all:
    it ranks only the hits a rarer word finds."""
    monkeypatch.setattr(retrieval, "COMMON_FLOOR", 4)
    index.rebuild(
        [doc(f"deploy-{n}", f"Deploy note {n}", "deploy the service") for n in range(8)]
        + [
            doc("canary-deploy", "Canary", "deploy a canary first"),
            doc("canary", "Birds", "a canary sings"),
            doc("both", "Deploy service", "deploy service rollback"),
        ]
    )
    answer = retrieval.search(index, "How do we deploy the canary safely?", MINE)
    assert ids(answer) == ["canary-deploy", "canary"]  # "deploy" ranked, never found alone
    assert answer.hits[0].matched == ("deploy", "canary") and answer.unmatched == ("safely",)
    every = retrieval.search(index, "which service to deploy?", MINE)  # all common: two of them
    assert len(ids(every)) == 9 and ids(every)[0] == "both"
    assert {h.match for h in every.hits} == {"relaxed"} and every.unmatched == ()
    # a rare word no record holds finds nothing: two of the common words still do
    gone = retrieval.search(index, "How do we deploy the service with zeppelins?", MINE)
    assert len(ids(gone)) == 9 and gone.unmatched == ("zeppelins",)
    monkeypatch.setattr(retrieval, "COMMON_FLOOR", 2)  # all three common, no record holds all
    two = retrieval.search(index, "deploy service canary", MINE)
    assert len(ids(two)) == 10 and "canary" not in ids(two)  # two of the words, never one
    monkeypatch.setattr(retrieval, "COMMON_FLOOR", 1000)  # a small memory: nothing is common
    assert len(ids(retrieval.search(index, "How do we deploy the canary safely?", MINE))) == 11


@pytest.mark.parametrize(
    "query",
    ['Calvin" OR "x', "NOT Calvin", "Calvin*", "title:Calvin", "NEAR(Calvin Tokyo)", "(Calvin",
     "Calvin AND", "-Calvin", "^Calvin", "{Calvin}", "scopekey:k1 Calvin", '"""'],
)  # fmt: skip
def test_operators_and_punctuation_are_words_never_syntax(index: MemoryIndex, query: str) -> None:
    answer = retrieval.search(index, query, MINE)
    assert "theirs" not in ids(answer) and "sess" not in ids(answer)
    if query != '"""':
        assert "calvin-tokyo" in ids(answer) and "calvin-job" in ids(answer)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.one_of(
        st.text(max_size=120),
        st.lists(st.sampled_from(["Calvin", "Tokyo", "the", "did", "OR", '"', "*", "travel", "x"]),
                 max_size=8).map(" ".join),
    ),
    limit=st.integers(min_value=1, max_value=8),
    grant=st.sampled_from([MINE, [("project", "p1")], [("shared", None)], [("project", "p2")]]),
)  # fmt: skip
def test_any_text_answers_within_scope_strict_first(
    index: MemoryIndex, text: str, limit: int, grant: list
) -> None:
    answer = retrieval.search(index, text, grant, limit=limit)
    allowed = {(scope, project or "") for scope, project in grant}
    assert all((h.doc.scope, h.doc.project or "") in allowed for h in answer.hits)
    assert all(h.doc.source == "record" for h in answer.hits)
    assert len(answer.hits) <= limit and len(set(ids(answer))) == len(answer.hits)
    matches = [hit.match for hit in answer.hits]
    assert matches == sorted(matches, key=lambda m: m != "strict")  # strict hits are a prefix
    words = set(retrieval.plan(text).content)
    assert all(set(h.matched) <= set(answer.terms) | words for h in answer.hits)
    assert all(h.matched for h in answer.hits if h.match == "relaxed")
    assert set(answer.unmatched) <= set(answer.terms) | words
    assert not set(answer.unmatched) & {t for h in answer.hits for t in h.matched}
    assert words or not any(h.match == "relaxed" for h in answer.hits)
