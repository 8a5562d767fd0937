"""`memhub rules list | add | check | fires`: the rulebooks held locally, and what fired.

Books held in memory live under `$MEMHUB_HOME/rules/books/`; a hub's `rulebooks:` come with
its bundle or its install (`$MEMHUB_HOME/rules/hub/<plugin>/`) and belong to the hub
(runtime/rules/store.py reads them all). A rule fires as an advisory at the moment of a call
(runtime/rules/fire.py). `add` previews unless `--yes`, and never writes into a hub's book.
Who you are, for a book's members, is `$MEMHUB_PERSON`, else your login name.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click
from memhub.compiler.cli.memory_common import InputError, MemoryGroup, json_option, memhub_home
from memhub.compiler.cli.memory_show import not_confirmed, one_line
from memhub.compiler.cli.options import EXIT_OK, reply
from memhub.runtime.rules import book as B
from memhub.runtime.rules import fire as F
from memhub.runtime.rules import ledger, store

PERSON_ENV = "MEMHUB_PERSON"


def person() -> str:
    """Who the books bind here: $MEMHUB_PERSON, else the login name."""
    named = os.environ.get(PERSON_ENV, "").strip()
    if named:
        return named
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def _home() -> str:
    return str(memhub_home())


def _project_names() -> tuple[str, ...]:
    """The working directory's project id and name, () outside a connected checkout."""
    from memhub.runtime.memory.workspace import open_workspace

    try:
        ws = open_workspace(memhub_home())
    except Exception:  # a broken registry: rules with a scope simply do not apply
        return ()
    return tuple(x for x in (ws.project_id, ws.project_name) if x)


def _rule_json(book: B.Book, rule: B.Rule) -> dict[str, Any]:
    return {
        "book": book.name,
        "id": rule.id,
        "event": rule.event,
        "state": rule.state,
        "scope": "all" if rule.scope is None else list(rule.scope),
        "triggers": {k: list(v) for k, v in rule.triggers.items() if v},
        "text": rule.text,
    }


def _loaded() -> tuple[list[B.Book], list[str]]:
    books, problems = store.load_books(_home())
    return books, [f"{path}: {why} (left as it is)" for path, why in problems]


@click.group("rules", cls=MemoryGroup, lazy={})
def command() -> None:
    """Team rulebooks: rules that fire as advisories when a call edits a file, runs a
    command, or a session starts.

    A person can be bound by several books; when two books match, both fire, and the
    per-call cap and session-start budget are spent on the widest book first.
    """


@command.command("list")
@json_option
def list_rules(as_json: bool) -> int:
    """The books in play here, where each comes from (a hub, or memory), whom it binds,
    and its rules."""
    books, warnings = _loaded()
    me = person()
    data = {
        "person": me,
        "books": [
            {
                "name": b.name,
                "origin": b.origin,
                "project": b.within,
                "members": "all" if b.members is None else list(b.members),
                "binds_you": b.binds(me),
                "rules": [_rule_json(b, r) for r in b.rules],
            }
            for b in books
        ],
    }
    if as_json:
        return reply(data, warnings=warnings)
    for warning in warnings:
        click.echo(f"memhub: {warning}", err=True)
    if not books:
        click.echo("no rulebooks (`memhub rules add` starts one)")
    for b in books:
        who = "everyone" if b.members is None else ", ".join(b.members)
        where = b.origin + (f", only in {b.within}" if b.within else "")
        click.echo(
            f"{one_line(b.name)}  (from {one_line(where)}; binds {one_line(who)}"
            f"{'' if b.binds(me) else '; not you'})"
        )
        for r in b.rules:
            state = "" if r.state == "active" else f" [{r.state}]"
            click.echo(f"  {one_line(r.id)}  {r.event}{state}  {one_line(r.text)[:100]}")
    return EXIT_OK


@command.command("add")
@click.option(
    "--book", "book_name", required=True, metavar="NAME", help="The rulebook (made if new)."
)
@click.option("--id", "rule_id", required=True, metavar="ID", help="The rule's id in its book.")
@click.option("--event", type=click.Choice(B.EVENTS), required=True, help="When it fires.")
@click.option("--text", required=True, help="The advisory the agent is shown.")
@click.option(
    "--path", "paths", multiple=True, metavar="GLOB", help="A file path or glob (repeatable)."
)
@click.option(
    "--command",
    "commands",
    multiple=True,
    metavar="CMD",
    help="A command's first words (repeatable).",
)
@click.option(
    "--identifier", "identifiers", multiple=True, metavar="ID", help="An identifier (repeatable)."
)
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    metavar="PROJECT",
    help="Only these projects, by id or name (default: all).",
)
@click.option(
    "--member",
    "members",
    multiple=True,
    metavar="PERSON",
    help="Whom a NEW book binds (default: only you; --member all: everyone).",
)
@click.option("--proposed", is_flag=True, help="File it proposed: it fires only once accepted.")
@click.option("--yes", "-y", is_flag=True, help="Write it (without: show what would be written).")
@json_option
def add(
    book_name: str, rule_id: str, event: str, text: str, paths: tuple[str, ...],
    commands: tuple[str, ...], identifiers: tuple[str, ...], scopes: tuple[str, ...],
    members: tuple[str, ...], proposed: bool, yes: bool, as_json: bool,
) -> int:  # fmt: skip
    """Add a rule to a book (a new book binds only you unless --member says otherwise).

    Example: memhub rules add --book payments --id ledger --event edit
    --path 'db/migrations/**' --text "Ledger tables are append-only." --yes
    """
    triggers = {k: list(v) for k, v in
                (("paths", paths), ("commands", commands), ("identifiers", identifiers)) if v}  # fmt: skip
    rule = {"id": rule_id, "event": event, "text": text, "triggers": triggers,
            "scope": list(scopes) if scopes else "all", "state": "proposed" if proposed else "active"}  # fmt: skip
    bound = None if "all" in members else list(members or [person()])
    home = _home()
    try:
        book, new = store.planned_book(home, book_name, rule, bound)
    except B.RuleError as exc:
        raise InputError(str(exc)) from None
    where = f"new book {book.name} (binds {'everyone' if bound is None else ', '.join(bound)})"
    where = where if new else f"book {book.name}"
    data = {"written": False, "new_book": new, "book": book.name,
            "rule": _rule_json(book, book.rules[-1])}  # fmt: skip
    if not as_json:
        click.echo(f"rule {rule_id} ({event}) to {where}: {one_line(text)[:100]}")
    if not yes and not (sys.stdin.isatty() and not as_json and click.confirm("Write it?")):
        return not_confirmed(data, as_json)
    try:
        book, new, _ = store.add_rule(home, book_name, rule, bound)
    except B.RuleError as exc:
        raise InputError(str(exc)) from None
    data["written"] = True
    if as_json:
        return reply(data)
    click.echo(f"added rule {rule_id} to {where}")
    return EXIT_OK


@command.command("check")
@click.argument("target")
@json_option
def check(target: str, as_json: bool) -> int:
    """Replay every rule against a file path or a command: whether and why it fires.

    Example: memhub rules check db/migrations/0042_add.py ; memhub rules check "git push -f"
    """
    books, warnings = _loaded()
    verdicts = F.explain(books, target, person=person(), project=_project_names())
    elsewhere = _elsewhere(books)
    rows = [
        {"book": r.book, "id": r.id, "event": r.event, "verdict": elsewhere.get(r.book, why)}
        for r, why in verdicts
    ]
    if as_json:
        return reply({"target": target, "rules": rows}, warnings=warnings)
    for warning in warnings:
        click.echo(f"memhub: {warning}", err=True)
    if not rows:
        click.echo("no rulebooks")
    for row in rows:
        click.echo(
            f"{one_line(row['book'])}/{one_line(row['id'])} ({row['event']}): {one_line(row['verdict'])}"
        )
    return EXIT_OK


def _elsewhere(books: list[B.Book]) -> dict[str, str]:
    """Books a project-scope install confines to a project this folder is not in: why not."""
    from memhub.runtime.rules.hook import inside

    here = os.getcwd()
    return {
        b.name: f"does not fire here: its hub was applied to {b.within} only"
        for b in books
        if b.within is not None and not inside(here, b.within)
    }


@command.command("fires")
@click.option("--session", metavar="ID", help="Only this session (its raw host id).")
@json_option
def fires(session: str | None, as_json: bool) -> int:
    """The rules that fired here, oldest first, with the session each fired in."""
    rows = list(ledger.read(_home(), session=session))
    if as_json:
        return reply({"fires": rows})
    if not rows:
        click.echo("no rule has fired")
    for row in rows:
        click.echo(
            f"{row['at']}  {row['host']} {one_line(row['session'])}  "
            f"{one_line(row['book'])}/{one_line(row['rule'])} on `{one_line(row['token'])}`"
        )
    return EXIT_OK
