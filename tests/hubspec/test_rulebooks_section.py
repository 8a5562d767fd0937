"""`rulebooks:` in hub.yaml: checked like every section (file:line:col, a fix), and each book
built into the form the runtime's own reader accepts."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.hubspec import HubError, load
from memhub.runtime.rules.book import book_of

HEAD = """version: 1
plugin: {name: demo, version: 0.1.0, description: A demo.}
marketplace: {name: demo-market, owner: {name: Ann}}
hosts: [claude, codex, gemini, cursor]
"""
GOOD = """rulebooks:
  - name: migrations
    rules:
      - id: check
        event: edit
        triggers: {paths: 'migrations/*'}
        text: Run the migration check before you commit.
  - name: payments
    members: [ana, bo]
    rules:
      - id: ledger
        event: bash
        triggers: {commands: [alembic upgrade], identifiers: [ledger_entries]}
        scope: [payments-api]
        state: proposed
        text: Ledger tables are append-only.
      - id: intro
        event: session_start
        text: Payments on-call is #pay-oncall.
"""


def _hub(tmp_path: Path, tail: str) -> Path:
    (tmp_path / "hub.yaml").write_text(HEAD + tail, "utf-8")
    return tmp_path


def _problems(tmp_path: Path, tail: str) -> list[str]:
    with pytest.raises(HubError) as caught:
        load(_hub(tmp_path, tail))
    return [str(p) for p in caught.value.problems]


def test_books_load_in_the_runtimes_own_form(tmp_path: Path) -> None:
    hub = load(_hub(tmp_path, GOOD))
    first, second = hub.rulebooks
    assert (first.name, first.members, second.members) == ("migrations", None, ("ana", "bo"))
    assert first.mapping() == {
        "name": "migrations",
        "members": "all",
        "rules": [{"id": "check", "event": "edit", "text": "Run the migration check before you commit.",
                   "triggers": {"paths": ["migrations/*"]}, "scope": "all", "state": "active"}],
    }  # fmt: skip
    runtime = book_of(second.mapping())
    assert [r.id for r in runtime.rules] == ["ledger", "intro"]
    assert runtime.rules[0].scope == ("payments-api",) and runtime.rules[0].state == "proposed"
    assert second.events == frozenset({"session_start"})  # a proposed rule fires on nothing
    assert str(first.origin).endswith("hub.yaml:6:5")


BAD = [
    ("  - name: ../up\n    rules: [{id: a, event: bash, triggers: {commands: x}, text: t}]\n",
     "hub.yaml:6:11: rulebooks[0].name: '../up' is not a rulebook or rule name"),
    ("  - {name: a, rules: [{id: r, event: bash, triggers: {commands: x}, text: t}]}\n"
     "  - {name: A, rules: [{id: r, event: bash, triggers: {commands: x}, text: t}]}\n",
     "hub.yaml:7:12: rulebooks[1].name: rulebook 'A' is also rulebooks[0]"),
    ("  - {name: a, rules: [{id: r, event: bash, triggers: {commands: x}, text: t},"
     " {id: r, event: edit, triggers: {paths: y}, text: t}]}\n",
     "rulebooks[0].rules[1].id: rule id 'r' is also rules[0] of this book"),
    ("  - {name: a, rules: [{id: r, event: edit, text: t}]}\n",
     "rulebooks[0].rules[0]: an edit rule fires on nothing without a trigger"),
    ("  - {name: a, members: ana, rules: [{id: r, event: session_start, text: t}]}\n",
     "rulebooks[0].members: 'ana' is neither `all` nor a list"),
    ("  - {name: a, rules: [{id: r, event: session_start, text: t, scope: mine}]}\n",
     "rulebooks[0].rules[0].scope: 'mine' is neither `all` nor a list"),
    ("  - {name: a, rules: [{id: r, event: deploy, text: t}]}\n",
     "rulebooks[0].rules[0].event: \"deploy\" is not allowed"),
    ("  - {name: a, rules: [{id: r, event: bash, triggers: {files: x}, text: t}]}\n",
     "rulebooks[0].rules[0].triggers.files: unknown key 'files'"),
    ("  - {name: a, rules: [{id: r, event: bash, triggers: {commands: ['  ']}, text: t}]}\n",
     "rulebooks[0].rules[0].triggers.commands[0]: is blank"),
    ("  - {name: a, rules: []}\n", "rulebooks[0].rules: needs at least 1 item(s)"),
    ("  - {name: a, rules: [{id: r, event: session_start, text: 'use ghp_"
     "0123456789abcdefghijABCDEFGHIJklmnopqr'}]}\n",
     "rulebooks[0].rules[0].text: holds"),
]  # fmt: skip


@pytest.mark.parametrize(("book", "expected"), BAD, ids=range(len(BAD)))
def test_a_bad_book_is_refused_naming_where_and_how_to_fix(
    tmp_path: Path, book: str, expected: str
) -> None:
    found = _problems(tmp_path, "rulebooks:\n" + book)
    assert any(expected in p for p in found), found
    assert all("Fix:" in p or "fix" in p.lower() for p in found), found


def test_a_book_too_large_for_the_runtime_is_refused(tmp_path: Path) -> None:
    rules = "".join(
        f"      - {{id: r{i}, event: bash, triggers: {{commands: cmd{i}}}, text: {'t' * 1900}}}\n"
        for i in range(600)
    )
    found = _problems(tmp_path, f"rulebooks:\n  - name: huge\n    rules:\n{rules}")
    assert any("compiles to" in p and "more than the 1,048,576" in p for p in found), found
