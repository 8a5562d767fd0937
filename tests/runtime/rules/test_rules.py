"""Rulebooks: reading books, which rules a call fires, widest book first, the ledger."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from memhub.runtime.memory.directives import Call, blocked
from memhub.runtime.rules import fire as F
from memhub.runtime.rules import ledger
from memhub.runtime.rules.book import RuleError, book_of, books_of

ORG = {
    "name": "org",
    "members": "all",
    "rules": [
        {"id": "migrations", "event": "edit", "triggers": {"paths": ["db/migrations/**"]},
         "text": "Every migration needs a down step."},
        {"id": "no-force", "event": "bash", "triggers": {"commands": ["git push --force"]},
         "text": "Never force-push a shared branch."},
        {"id": "hello", "event": "session_start", "text": "Tickets are ENG-N; link them."},
    ],
}  # fmt: skip
TEAM = {
    "name": "payments",
    "members": ["ana", "Bo"],
    "rules": [
        {"id": "ledger", "event": "edit", "triggers": {"paths": ["db/migrations/**"],
         "identifiers": ["ledger_entries"]}, "scope": ["p-000000000001", "payments-api"],
         "text": "Ledger tables are append-only."},
        {"id": "draft", "event": "edit", "triggers": {"paths": ["*.sql"]}, "state": "proposed",
         "text": "Not yet."},
        {"id": "intro", "event": "session_start", "text": "Payments on-call is #pay-oncall."},
    ],
}  # fmt: skip
PROJECT = ("p-000000000001", "payments-api")


def books():
    return books_of([ORG, TEAM])


def ids(found) -> list[tuple[str, str]]:
    return [(f.rule.book, f.rule.id) for f in found]


def test_both_books_fire_widest_first() -> None:
    call = Call(paths=["/repo/db/migrations/0042_ledger_entries.py"])
    found = F.fires(books(), "edit", call, person="ana", project=PROJECT)
    assert ids(found) == [("org", "migrations"), ("payments", "ledger")]
    # the cap is spent on the widest book first: org's rule is never crowded out
    assert ids(F.fires(books(), "edit", call, person="ana", project=PROJECT, cap=1)) == [
        ("org", "migrations")
    ]


def test_membership_scope_state_and_session_dedup() -> None:
    call = Call(paths=["db/migrations/1_ledger.py", "q.sql"])
    assert ids(F.fires(books(), "edit", call, person="carol", project=PROJECT)) == [
        ("org", "migrations")
    ]  # not a member of payments; the proposed *.sql rule never fires for anyone
    assert ids(F.fires(books(), "edit", call, person="BO", project=("p-000000000009",))) == [
        ("org", "migrations")
    ]  # out of the ledger rule's scope
    already = [("org", "migrations")]
    assert ids(F.fires(books(), "edit", call, person="bo", project=PROJECT, already=already)) == [
        ("payments", "ledger")
    ]


def test_bash_rules_read_the_command_not_quoted_text_or_heredocs() -> None:
    fire = lambda cmd: ids(F.fires(books(), "bash", Call(command=cmd), person="x"))  # noqa: E731
    assert fire("cd app && git push --force origin main") == [("org", "no-force")]
    assert fire("echo 'git push --force'") == []
    assert fire("cat > notes.md <<'EOF'\ngit push --force\nEOF") == []
    assert fire(["bash", "-lc", "git push --force"]) == [("org", "no-force")]


def test_the_precision_gate_applies_to_rules_too() -> None:
    book = book_of({"name": "b", "rules": [
        {"id": "r", "event": "edit", "triggers": {"identifiers": ["acme", "main"]}, "text": "t"},
    ]})  # fmt: skip
    call = Call(paths=["/src/acme/main.py"])
    assert F.fires([book], "edit", call, person="x", stop=blocked(repo="acme")) == []
    assert ids(F.fires([book], "edit", call, person="x")) == [("b", "r")]


def test_session_block_budget_and_books_in_play() -> None:
    text, shown = F.session_block(books(), person="ana", project=PROJECT, budget_chars=2000)
    assert text.startswith("Team rules for this session (books: org, payments):")
    assert ids(shown) == [("org", "hello"), ("payments", "intro")]
    assert text.index("ENG-N") < text.index("#pay-oncall")
    cut, shown = F.session_block(books(), person="ana", project=PROJECT, budget_chars=140)
    assert ids(shown) == [("org", "hello")] and cut.endswith(F.TRIMMED) and len(cut) <= 140
    alone, _ = F.session_block(books(), person="carol", budget_chars=2000)
    assert "books:" not in alone and "#pay-oncall" not in alone
    assert F.session_block(books(), person="ana", budget_chars=10) == ("", [])


def test_explain_says_why() -> None:
    verdicts = {
        (r.book, r.id): why
        for r, why in F.explain(books(), "db/migrations/7_x.py", person="ana", project=PROJECT)
    }
    assert verdicts[("org", "migrations")] == "fires on `db/migrations/`"
    assert verdicts[("org", "no-force")].startswith("does not fire: no trigger matches")
    assert verdicts[("payments", "draft")] == "does not fire: proposed (accept it first)"
    assert verdicts[("org", "hello")] == "fires at every session start in scope"
    other = dict(((r.book, r.id), w) for r, w in F.explain(books(), "x", person="zed"))
    assert other[("payments", "ledger")] == "does not fire: book 'payments' does not bind zed"


def test_render_names_book_rule_and_token() -> None:
    (found,) = F.fires(books(), "bash", Call(command="git push --force"), person="x")
    assert F.advisories([found]) == (
        "[memhub rule · org · no-force] (fired on `git push --force`)\n"
        "Never force-push a shared branch."
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"rules": []}, "name: must be a non-empty string"),
        ({"name": "b", "color": 1}, "unknown key 'color'"),
        ({"name": "b", "rules": [{"id": "r", "event": "push", "text": "t"}]}, "event must be one of"),
        ({"name": "b", "rules": [{"id": "r", "event": "edit", "text": "t"}]}, "needs a trigger"),
        ({"name": "b", "rules": [{"id": "r", "event": "edit", "text": "t",
          "triggers": {"globs": ["x"]}}]}, "unknown trigger kind 'globs'"),
        ({"name": "b", "rules": [{"id": "r", "event": "bash", "text": "t", "state": "on",
          "triggers": {"commands": ["x"]}}]}, "state must be one of"),
        ({"name": "b", "rules": [{"id": "r", "event": "session_start", "text": "x" * 2001}]},
         "longer than 2000"),
        ({"name": "b", "rules": [{"id": "r", "event": "session_start", "text": "a"},
          {"id": "r", "event": "session_start", "text": "b"}]}, "rule id 'r' is used twice"),
        ({"name": "b", "members": [""]}, "members: must be a string or a list"),
    ],
)  # fmt: skip
def test_malformed_books_are_refused_naming_the_place(raw: dict, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        book_of(raw)
    with pytest.raises(RuleError, match="used twice"):
        books_of([ORG, ORG])


def test_the_ledger_keeps_raw_ids_and_namespaces_on_the_wire(tmp_path: Path) -> None:
    (found,) = F.fires(books(), "bash", Call(command="git push --force"), person="x")
    home = str(tmp_path)
    assert ledger.record(home, host="codex", session="s-1", event="bash", fires=[found],
                         at="2026-12-01T00:00:00Z") == 1  # fmt: skip
    with open(ledger.ledger_path(home), "ab") as handle:
        handle.write(b'{"torn": ')  # a torn last line is skipped, never an error
    (item,) = ledger.read(home, session="s-1")
    assert item["session"] == "s-1" and item["rule"] == "no-force"
    assert ledger.wire_session("codex", "s-1") == "codex-s-1"
    assert ledger.wire_session("codex", "codex-s-1") == "codex-s-1"
    assert ledger.wire_session("claude", "s-1") == "s-1"
    assert oct(os.stat(ledger.ledger_path(home)).st_mode & 0o777) == "0o600"


def test_concurrent_writers_never_interleave_a_line(tmp_path: Path) -> None:
    (found,) = F.fires(books(), "bash", Call(command="git push --force"), person="x")
    home = str(tmp_path)

    def write(n: int) -> None:
        for i in range(50):
            ledger.record(home, host="claude", session=f"{n}-{i}", event="bash",
                          fires=[found] * 3, at="t")  # fmt: skip

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = Path(ledger.ledger_path(home)).read_bytes().splitlines()
    assert len(lines) == 8 * 50 * 3 and all(
        json.loads(line)["rule"] == "no-force" for line in lines
    )


def test_a_symlinked_ledger_is_refused(tmp_path: Path) -> None:
    (found,) = F.fires(books(), "bash", Call(command="git push --force"), person="x")
    target = tmp_path / "elsewhere"
    target.write_text("")
    (tmp_path / "rules").mkdir()
    os.symlink(target, ledger.ledger_path(str(tmp_path)))
    with pytest.raises(OSError):
        ledger.record(
            str(tmp_path), host="claude", session="s", event="bash", fires=[found], at="t"
        )
    assert target.read_text() == ""


def test_importing_the_rules_package_loads_nothing_heavy() -> None:
    code = (
        "import sys; before = set(sys.modules)\n"
        "import memhub.runtime.rules.fire, memhub.runtime.rules.book\n"
        "print(sorted(m for m in ('typing', 're', 'dataclasses', 'json', 'subprocess')"
        " if m in set(sys.modules) - before))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
