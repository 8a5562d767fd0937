"""`memhub status`: what memhub installed, where, for which plugin, and whether it is intact.

Reads the ownership state and, for each owned entry, what its target holds now (the same
digest doctor's drift check compares): `current` (as memhub wrote it), `drifted` (edited
since), `missing` (gone), or `unreadable` (the file does not parse). Writes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from memhub.compiler.cli.options import (
    EXIT_OK,
    json_option,
    project_option,
    reply,
)
from memhub.hubspec import MemhubError

if TYPE_CHECKING:
    from memhub.compiler.install.state import State

STATES = ("current", "drifted", "missing", "unreadable")


@dataclass(frozen=True, slots=True)
class Row:
    """One owned entry and what its target holds now."""

    scope: str  # `user` or `project:<folder>`
    plugin: str
    hub: str | None  # the hub's `id:`; for a state of version 1, the hub folder
    host: str
    target: str
    kind: str
    what: str
    state: str

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@click.command("status")
@click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    help="Only this scope (default: every scope memhub installed into).",
)
@project_option("The checkout for --scope project (default: the current folder).")
@click.option(
    "--hosts", "hosts", metavar="HOST[,HOST...]", help="Only these hosts, comma-separated."
)
@click.option("--plugin", "plugin", metavar="NAME", help="Only what plugin NAME installed.")
@click.option("-v", "--verbose", is_flag=True, help="List every entry, the current ones too.")
@json_option
def command(
    scope: str | None,
    project: Path | None,
    hosts: str | None,
    plugin: str | None,
    verbose: bool,
    as_json: bool,
) -> int:
    """What memhub installed: per scope, plugin and host, each entry current, drifted or missing.

    Entries that are not current are listed (-v: every entry). Exit 0 whatever it finds
    (`memhub doctor` fails on drift); --json lists every entry in `data.entries`.
    """
    from memhub.compiler.cli.hostchoice import choose_hosts
    from memhub.compiler.install.state import State, memhub_home

    scope_id = _scope_id(scope, project)
    wanted = set(choose_hosts(hosts).hosts) if hosts else None
    rows = status_rows(State.load(memhub_home()), scope_id, wanted, plugin)
    counts = Counter(row.state for row in rows)
    if as_json:
        data = {
            "entries": [row.to_json() for row in rows],
            "counts": {state: counts[state] for state in STATES},
        }
        return reply(data)
    for line in status_lines(rows, verbose):
        click.echo(line)
    return EXIT_OK


def _scope_id(scope: str | None, project: Path | None) -> str | None:
    if scope is None:
        return None
    from memhub.compiler.install.scope import Scope, scope_kind

    return Scope.from_environment(scope_kind(scope), project).id


def status_rows(
    state: State, scope_id: str | None, hosts: set[str] | None, plugin: str | None
) -> list[Row]:
    """Every owned entry (in one scope, of some hosts, of one plugin, when given), checked."""
    from memhub.compiler.install.entries import EntryKey
    from memhub.compiler.install.state import owner_plugin

    rows = []
    for target, entries in sorted(state.targets.items()):
        for key, owned in sorted(entries.items()):
            name = owner_plugin(owned.hub)
            entry = EntryKey.parse(key)
            if entry.kind == "json-default":  # a format field set once, never owned content
                continue
            if scope_id is not None and owned.scope != scope_id:
                continue
            if hosts is not None and not hosts & set(owned.host.split(",")):
                continue
            if plugin is not None and name != plugin:
                continue
            # the hub id of `plugin@id`; a version 1 owner is its hub folder's path
            hub = (owned.hub.partition("@")[2] or None) if name else owned.hub
            what = entry.name or Path(target).name
            row = Row(owned.scope, name or "?", hub, owned.host, target, entry.kind, what, "")
            rows.append(_checked(row, key, owned.digest))
    return rows


def _checked(row: Row, key: str, digest: str) -> Row:
    """`row` with its state: what the target holds now against the digest memhub wrote."""
    from memhub.compiler.install.engine import current_digest

    try:
        now = current_digest(row.target, key)
    except MemhubError:  # does not parse, or is not a file memhub reads
        return replace(row, state="unreadable")
    if now is None:
        return replace(row, state="missing")
    return replace(row, state="current" if now == digest else "drifted")


def status_lines(rows: list[Row], verbose: bool) -> Iterable[str]:
    """Per scope and plugin, a line per host with its counts, and the entries to look at."""
    if not rows:
        yield "memhub has installed nothing (or nothing that matches)"
        return
    total = Counter(row.state for row in rows)
    yield f"memhub status: {len(rows)} entries: {_counts(total)}"
    groups: dict[tuple[str, str, str | None], dict[str, list[Row]]] = {}
    for row in sorted(rows, key=lambda r: (r.scope != "user", r.scope, r.plugin, r.host)):
        groups.setdefault((row.scope, row.plugin, row.hub), {}).setdefault(row.host, []).append(row)
    for (scope, plugin, hub), by_host in groups.items():
        where = "user scope" if scope == "user" else scope.replace("project:", "project scope, ")
        of_hub = f", hub {hub[:12]}" if hub else ""
        yield ""
        yield f"{plugin} ({where}{of_hub})"
        for host, found in by_host.items():
            yield f"  {host}: {_counts(Counter(r.state for r in found))}"
            for row in found:
                if verbose or row.state != "current":
                    yield f"    {row.state:<10} {row.kind} {row.what}  {row.target}"


def _counts(counts: Counter[str]) -> str:
    return ", ".join(f"{counts[state]} {state}" for state in STATES if counts[state])
