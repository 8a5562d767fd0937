"""`memhub recall stats`: what the recall hooks injected, per session, and what it cost.

The hooks append one line per injection to `$MEMHUB_HOME/recall/<host>-<session>/
injections.jsonl` (`runtime/memory/injections.py`); this command only reads those files and,
for the directives that never fired, the active lessons and procedures of the derived index
that the working directory's project reads (its own, and the shared ones if it enables them).
"""

from __future__ import annotations

import os
from typing import Any

import click
from memhub.compiler.cli.options import EXIT_OK, json_option, reply
from memhub.hubspec import MemhubError


def _home() -> str:
    from memhub.runtime.lowos import memhub_home

    return memhub_home()


def active_directives(home: str, cwd: str) -> list[str]:
    """The active lesson and procedure ids the working directory's project may read (its
    own and, if it enables them, the shared ones): another project's never appear."""
    from memhub.runtime.memory import directives_read
    from memhub.runtime.memory.directives_project import index_path, resolve

    path = index_path(home)
    allowed = {(scope, project or "") for scope, project in resolve(home, cwd, None).allowed}
    if not allowed or not os.path.isfile(path):
        return []
    import sqlite3

    db = sqlite3.connect(directives_read._uri(path), uri=True)
    try:
        rows = db.execute(
            f"SELECT d.scope, d.project, d.id FROM docs d WHERE {directives_read._WHERE}"
        )
        return sorted({str(r) for s, p, r in rows if (s, p or "") in allowed})
    except sqlite3.Error:
        return []
    finally:
        db.close()


def report(home: str, session: str | None = None) -> dict[str, Any]:
    """The stats of every session (or only `session`: its id or folder name)."""
    from memhub.runtime.memory import injections
    from memhub.runtime.memory.recall_stats import stats

    found = list(injections.sessions(home))
    if session is not None:
        found = [
            (name, entries)
            for name, entries in found
            if name == session
            or name.endswith(f"-{session}")
            or any(e.get("session") == session for e in entries)
        ]
        if not found:
            raise MemhubError(
                f"no recall recorded for session {session!r}:"
                " `memhub recall stats` lists the sessions that have some"
            )
    return stats(found, active_directives(home, os.getcwd()))


@click.group("recall")
def command() -> None:
    """What recall (the directive, brief and prompt hooks) injected into each session."""


def _print(data: dict[str, Any]) -> None:
    spent = data["tokens_per_session"]
    click.echo(
        f"{spent['sessions']} session(s); injected tokens per session: p50 {spent['p50']}, "
        f"p95 {spent['p95']}, total {spent['total']} (chars / 4)"
    )
    for row in data["sessions"]:
        click.echo(
            f"\n{row['name']}: {row['injections']} injection(s), {row['chars']} chars,"
            f" ~{row['tokens']} tokens"
        )
        for handler, cost in sorted(row["handlers"].items()):
            click.echo(
                f"  {handler}: {cost['injections']} injection(s), {cost['chars']} chars,"
                f" ~{cost['tokens']} tokens"
            )
        for item in row["fired"]:
            cut = " (cut)" if item.get("cut") else ""
            click.echo(
                f"  fired {item['id']} on {item['trigger']!r} ({item['event']}, {item['tool']})"
                f"{cut}"
            )
    if data["top_directives"]:
        click.echo("\ntop firing directives:")
        for top in data["top_directives"]:
            click.echo(f"  {top['id']}: {top['fires']} fire(s) in {top['sessions']} session(s)")
    if data["never_fired"]:
        click.echo(f"\nnever fired ({len(data['never_fired'])}): " + ", ".join(data["never_fired"]))


@command.command("stats")
@click.option("--session", "session", help="Only this session (its id, or host-id folder name).")
@json_option
def stats_command(session: str | None, as_json: bool) -> int:
    """Per session: characters and estimated tokens each handler injected, what fired and
    why; overall: p50/p95 tokens per session, top firing directives, those that never fired."""
    data = report(_home(), session)
    if as_json:
        return reply(data)
    _print(data)
    return EXIT_OK
