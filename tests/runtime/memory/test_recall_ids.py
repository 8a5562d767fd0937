"""recall_ids: which identifiers a prompt names, and whether a document names one exactly."""

from __future__ import annotations

import pytest
from memhub.runtime.memory.recall_ids import Ident, extract, may_name, names, relative


def kinds(text: str) -> list[tuple[str, str]]:
    return [(i.kind, i.text) for i in extract(text)]


def test_paths_prs_tickets_errors_and_symbols() -> None:
    got = kinds(
        'fix "TypeError: x is not defined" in runtime/handlers.py, see PR #12 and ENG-42;'
        " `parse_bindings` and MemoryIndex too, plus https://github.com/o/r/pull/77"
    )
    assert ("path", "runtime/handlers.py") in got
    assert ("pr", "PR #12") in got and ("pr", "PR #77") in got
    assert ("ticket", "ENG-42") in got
    assert ("error", "TypeError: x is not defined") in got
    assert ("symbol", "parse_bindings") in got and ("symbol", "MemoryIndex") in got
    assert not [t for k, t in got if k == "path" and "github.com" in t]  # a URL is no path


@pytest.mark.parametrize(
    "text",
    [
        "please fix the failing tests",
        "I don't know why it breaks. Can you look?",
        "make it faster, then commit",
        "",
        "A well-known bug, e.g. the usual one.",
    ],
)
def test_prose_names_nothing(text: str) -> None:
    assert extract(text) == []


@pytest.mark.parametrize(
    "text",
    ["please fix the failing tests", "I don't know why. Can you look?", "well-known, really"],
)
def test_the_fast_path_refuses_prose_without_parsing(text: str) -> None:
    assert may_name(text) is False


def test_not_tickets_and_not_errors() -> None:
    assert kinds("UTF-8 and SHA-256 only") == []
    assert kinds('he said "hello there friend"') == []  # quoted, but no error
    assert kinds("a `GOOD` word") == []  # an all-caps word in backticks is no symbol here


def test_single_quotes_after_a_space_only() -> None:
    assert ("error", "permission denied here") in kinds("it says 'permission denied here'.")
    assert kinds("don't won't can't") == []


def test_names_is_exact_on_token_boundaries() -> None:
    path = Ident("path", "app/models.py")
    assert names("see app/models.py.", path)
    assert names("in /repo/app/models.py today", path)
    assert not names("see oldapp/models.py", path)
    assert not names("see app/models.pyc", path)
    assert not names("see app/models.py/x", path)
    pr = Ident("pr", "PR #12")
    assert names("merged in pr #12", pr) and names("https://github.com/o/r/pull/12", pr)
    assert not names("PR #123", pr)
    ticket = Ident("ticket", "ENG-42")
    assert names("(ENG-42)", ticket) and not names("ENG-421", ticket)
    assert not names("XENG-42", ticket)
    symbol = Ident("symbol", "parse_bindings")
    assert names("call parse_bindings()", symbol) and not names("parse_bindings_v2", symbol)
    assert names("got TYPEERROR: X", Ident("error", "TypeError: x"))


def test_relative_inside_the_checkout_only() -> None:
    assert relative("/repo/app/x.py", "/repo") == "app/x.py"
    assert relative("/other/app/x.py", "/repo") == "/other/app/x.py"
    assert relative("app/x.py", "/repo") == "app/x.py"


def test_at_most_the_limit_each_once() -> None:
    text = " ".join(f"src/m{i}.py src/m{i}.py" for i in range(40))
    got = extract(text)
    assert len(got) == 12 and len(set(got)) == 12


@pytest.mark.parametrize(
    ("text", "prs", "keys"),
    [
        ("fix (PR #12) and pr#3, pull request # 9", ["12", "3", "9"], []),
        ("APR #4 and #5 alone; /pull/6/files and /pull/7x", ["6"], []),
        ("ENG-42: x, (OPS-7), ENG-42-3, eng-2, UTF-8, a-ENG-9, _ENG-8", [], ["ENG-42", "OPS-7"]),
        ("A1-5 and 1A-5 and ABCDEFGHIJK-1", [], ["A1-5"]),
    ],
)
def test_prs_and_tickets_without_re(text: str, prs: list[str], keys: list[str]) -> None:
    from memhub.runtime.memory.recall_ids import pr_numbers, tickets

    assert pr_numbers(text) == prs
    assert tickets(text) == keys


def test_only_some_kinds() -> None:
    text = "ENG-1 and PR #2 in app/x.py"
    assert [i.text for i in extract(text, kinds=("pr", "ticket"))] == ["PR #2", "ENG-1"]
    assert [i.text for i in extract(text, kinds=("path",))] == ["app/x.py"]
