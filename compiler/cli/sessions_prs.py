"""`memhub sessions prs`: the pull requests each session opened, as the PR hook recorded them
(`runtime/workflows/prstore.py`, under `$MEMHUB_HOME/sessions/prs/`). Reads only."""

from __future__ import annotations

from typing import Any

import click
from memhub.compiler.cli.options import EXIT_OK, reply


def links(home: str, sessions: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every recorded self-link, oldest first, of the given sessions (all when none)."""
    from memhub.runtime.workflows import prstore

    found = []
    for doc in prstore.sessions(home):
        if sessions and doc["session_id"] not in sessions:
            continue
        for link in doc["links"]:
            if isinstance(link, dict) and isinstance(link.get("url"), str):
                found.append({"host": doc.get("host"), "session_id": doc["session_id"], **link})
    return sorted(found, key=lambda link: (str(link.get("at")), link["session_id"]))


def _label(link: dict[str, Any]) -> str:
    where = f"{link.get('owner')}/{link.get('repo')}" if link.get("owner") else ""
    return f"{where}#{link.get('number')}"


@click.command("prs")
@click.option(
    "--session",
    "session_ids",
    multiple=True,
    metavar="ID",
    help="Only the PRs of the session with this id (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="`data.links`: one object per link.")
def command(session_ids: tuple[str, ...], as_json: bool) -> int:
    """List the pull requests sessions opened (self-links the PR hook recorded).

    One line per link: the time, host, session id, the PR and its URL. A link is recorded
    only when a `gh pr create` (or a GitHub MCP create) provably printed that PR's URL.
    """
    from memhub.runtime.lowos import memhub_home

    found = links(memhub_home(), session_ids)
    if as_json:
        return reply({"links": found})
    for link in found:
        click.echo(
            f"{link.get('at')}  {link.get('host')}  {link['session_id']}  "
            f"{_label(link)}  {link['url']}"
        )
    if not found:
        click.echo("no session has opened a PR yet", err=True)
    return EXIT_OK
