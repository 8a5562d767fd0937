"""`memhub memory list | get | search | index`: reading the memory, through its index.

Reads never parse YAML for records the index already holds and never write a record; `index`
only rebuilds or refreshes the derived index.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from memhub.compiler.cli.memory_common import (
    apply_options,
    json_option,
    kind_option,
    open_service,
    project_option,
    scope_option,
    tag_option,
)
from memhub.compiler.cli.memory_search import SEARCH_KINDS, SearchArgs, read_warnings, run_search
from memhub.compiler.cli.memory_show import (
    one_line,
    printable,
    problems_of,
    project_json,
    record_json,
)
from memhub.compiler.cli.options import EXIT_OK, reply
from memhub.runtime.memory.records import KINDS

if TYPE_CHECKING:
    pass


_checked = read_warnings


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        click.echo(f"memhub: {warning}", err=True)


@click.command("list")
@apply_options([project_option, scope_option, kind_option(KINDS), tag_option])
@click.option("--all", "include_all", is_flag=True, help="Superseded records too.")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many (newest first).")
@json_option
def list_command(
    project: Path | None,
    scope: str | None,
    kinds: tuple[str, ...],
    tags: tuple[str, ...],
    include_all: bool,
    limit: int | None,
    as_json: bool,
) -> int:
    """The records you can see here, newest first: id, kind, scope, status, updated, title.

    Malformed record files are named (file:line and why) on stderr and skipped; they are
    never repaired. --json: `data.records` (each record's fields, path and revision, no
    body), `data.problems`, `data.project`. Example: memhub memory list --kind decision
    """
    service = open_service(project)
    warnings = _checked(service.workspace, scope)
    entries = service.list(
        scope=scope, kinds=kinds, tags=tags, include_superseded=include_all, limit=limit
    )
    problems = problems_of(service)
    if as_json:
        data = {
            "project": project_json(service.workspace),
            "records": [_row(entry) for entry in entries],
            "problems": problems,
        }
        return reply(data, warnings=[*warnings, *problems])
    _warn(warnings)
    for problem in problems:
        click.echo(f"memhub: skipped {problem}", err=True)
    if not entries:
        click.echo("no records")
        return EXIT_OK
    for entry in entries:
        r = entry.record
        status = "" if r.status == "active" else f" [{r.status}]"
        click.echo(f"{r.id}  {r.kind:<10} {r.scope:<7} {r.updated}  {one_line(r.title)}{status}")
    return EXIT_OK


def _row(entry: Any) -> dict[str, Any]:
    """A list row: the record's fields without its body."""
    row = record_json(entry)
    del row["body"]
    return row


@click.command("get")
@click.argument("record_id", metavar="ID")
@project_option
@scope_option
@json_option
def get_command(record_id: str, project: Path | None, scope: str | None, as_json: bool) -> int:
    """Print one record's file as stored (--json: its fields, body, path and revision).
    On a terminal, control characters are shown as `\\xNN`; piped, the bytes are exact.

    The revision is what `memhub memory edit` and `rm` take with --revision. An id that is
    not in the memory you can see reads "no record ID in this memory" (exit 1).
    Example: memhub memory get r-20260101120000-0a1b2c3d --json
    """
    service = open_service(project, scopes=(scope,) if scope else ("shared", "project"))
    entry = service.get(record_id)
    if as_json:
        return reply(record_json(entry))
    data = entry.path.read_bytes()
    if sys.stdout.isatty():  # a person reads it: no escape sequence from the file runs
        data = printable(data.decode("utf-8", "replace")).encode("utf-8")
    sys.stdout.flush()
    sys.stdout.buffer.write(data if data.endswith(b"\n") else data + b"\n")
    sys.stdout.buffer.flush()
    return EXIT_OK


@click.command("search")
@click.argument("query")
@apply_options(
    [
        project_option,
        scope_option,
        kind_option(SEARCH_KINDS, " `session`: captured sessions only (alone)."),
        tag_option,
    ]
)
@click.option("--all", "include_all", is_flag=True, help="Superseded records too.")
@click.option(
    "--limit", type=click.IntRange(min=1), default=20, show_default=True, help="At most N hits."
)
@json_option
def search_command(
    query: str,
    project: Path | None,
    scope: str | None,
    kinds: tuple[str, ...],
    tags: tuple[str, ...],
    include_all: bool,
    limit: int,
    as_json: bool,
) -> int:
    """Full-text search (best first) over the records you can see, or captured sessions.

    Any text is a valid query: quotes, `-`, `*`, `:`, `/` and brackets are matched as text.
    Every hit names its source: a record id and scope, or a session id and its host
    (--json: `data.hits`, each {source, id, title, kind, scope, host, snippet, score,
    revision, updated, tags}).
    A query that starts with `-` goes after `--`: memhub memory search -- "-x flag".

    \b
    Examples:
      memhub memory search "alembic upgrade" --kind procedure
      memhub memory search "connection refused" --kind session --limit 5
    """
    service = open_service(project)
    found = SearchArgs(query, project, scope, kinds, tags, include_all, limit, as_json)
    return run_search(service, found)


@click.command("index")
@click.option(
    "--rebuild", is_flag=True, help="Recreate the index from the record files alone (deleting it)."
)
@project_option
@json_option
def index_command(rebuild: bool, project: Path | None, as_json: bool) -> int:
    """Bring the search index up to date with the record files, and count what it holds.

    Every record file's stat is checked now, so an edit made in place (which reads may trust
    for MEMHUB_MEMORY_TRUST_SECONDS) is indexed at once and counted as changed; --rebuild
    throws the index away and makes it again from the files (it is derived, never the source
    of truth).
    """
    service = open_service(project)
    changed = service.rebuild_index() if rebuild else service.refresh_index(full=True)
    by_status = service.counts()
    active = dict(sorted(by_status.get("active", {}).items()))
    proposed = sum(by_status.get("proposed", {}).values())
    problems = problems_of(service)
    data = {
        "rebuilt": rebuild,
        "indexed" if rebuild else "refreshed": changed,
        "project": project_json(service.workspace),
        "counts": active,
        "proposed": proposed,
        "problems": problems,
    }
    if as_json:
        return reply(data, warnings=problems)
    for problem in problems:
        click.echo(f"memhub: skipped {problem}", err=True)
    what = f"rebuilt: {changed} documents" if rebuild else f"refreshed: {changed} changed"
    counts = ", ".join(f"{n} {kind}" for kind, n in active.items()) or "no records"
    click.echo(f"index {what}; you can see {counts} ({proposed} proposed)")
    return EXIT_OK
