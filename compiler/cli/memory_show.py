"""How the memory commands print: one-line text safe for a terminal, records as JSON, and a
plan previewed, then written with --yes or a terminal's yes (else exit 1, not confirmed)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from memhub.compiler.cli.memory_text import one_line, printable, project_json  # noqa: F401
from memhub.compiler.cli.options import EXIT_CHANGES, EXIT_OK, reply

if TYPE_CHECKING:
    from memhub.runtime.memory.plans import MemoryPlan
    from memhub.runtime.memory.service import MemoryService

NOT_CONFIRMED = "not confirmed: nothing written"


def show_plan(plan: MemoryPlan) -> None:
    """The plan as a person reads it: the diff, one line per change, then the notes."""
    diff = printable(plan.diff())
    if diff:
        click.echo(diff, nl=not diff.endswith("\n"))
    for change in plan.changes:
        where = change.scope if change.project is None else f"{change.scope} {change.project}"
        click.echo(f"{change.action:<7} {change.record_id} ({where}): {one_line(change.summary)}")
    for note in plan.notes:
        click.echo(f"note: {one_line(note)}", err=True)
    click.echo(counts_line(plan))


def counts_line(plan: MemoryPlan) -> str:
    """`plan: 1 create, 0 update, 0 delete, 2 skip (+ 1 derived MEMORY.md)`."""
    counts = {action: 0 for action in ("create", "update", "delete", "skip")}
    for change in plan.changes:
        counts[change.action] = counts.get(change.action, 0) + 1
    words = ", ".join(f"{n} {action}" for action, n in counts.items())
    derived = len(plan.derived)
    return f"plan: {words}" + (f" (+ {derived} derived MEMORY.md)" if derived else "")


def _writes(plan: MemoryPlan) -> int:
    return sum(1 for change in plan.changes if change.action != "skip")


def _confirmed(count: int) -> bool:
    """Ask on a terminal; anywhere else nothing is confirmed."""
    if not sys.stdin.isatty():
        return False
    noun = "change" if count == 1 else "changes"
    return click.confirm(f"Write {count} {noun}?", default=False, err=True)


def confirm_and_apply(
    service: MemoryService, plan: MemoryPlan, *, yes: bool, as_json: bool, extra: Any = None
) -> int:
    """Preview `plan`, then write it with --yes or a terminal's yes; else exit 1, unwritten."""
    count = _writes(plan)
    data: dict[str, Any] = {"plan": plan.to_json(), "written": False, "result": None}
    if extra:
        data.update(extra)
    if not as_json:
        show_plan(plan)
    if count == 0:
        if as_json:
            return reply(data)
        click.echo("nothing to write")
        return EXIT_OK
    if not (yes or _confirmed(count)):
        return not_confirmed(data, as_json)
    result = service.apply(plan)
    data.update(written=True, result=jsonable(result))
    if as_json:
        return reply(data)
    changed = result.get("changed", [])
    click.echo(
        f"wrote {len(changed)} file{'s' if len(changed) != 1 else ''} (run {result.get('run')};"
        " `memhub undo` reverts it)"
    )
    for note in result.get("notes", ()):
        click.echo(f"note: {one_line(str(note))}", err=True)
    return EXIT_OK


def not_confirmed(data: dict[str, Any], as_json: bool) -> int:
    hint = "pass --yes to write it"
    if as_json:
        from memhub.compiler.cli.options import error_record

        record = error_record("NotConfirmed", f"{NOT_CONFIRMED}: {hint}")
        return reply(data, exit_code=EXIT_CHANGES, errors=[record])
    click.echo(f"memhub: {NOT_CONFIRMED}: {hint}", err=True)
    return EXIT_CHANGES


def jsonable(value: Any) -> Any:
    """Paths as strings, tuples as lists: what the JSON envelope can hold."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


def record_json(entry: Any) -> dict[str, Any]:
    """A stored record (service.Entry) as JSON: every front matter field, body, path, revision."""
    from memhub.runtime.memory.records import source_fields, trigger_fields

    r = entry.record
    source, triggers = source_fields(r.source), trigger_fields(r.triggers)
    return {
        "id": r.id,
        "title": r.title,
        "kind": r.kind,
        "scope": r.scope,
        "project": r.project,
        "created": r.created,
        "updated": r.updated,
        "tags": list(r.tags),
        "source": source,
        "status": r.status,
        "supersedes": r.supersedes,
        "superseded_by": r.superseded_by,
        "name": r.name,
        "triggers": triggers,
        "body": r.body,
        "path": str(entry.path),
        "revision": entry.revision,
    }


def problems_of(service: MemoryService) -> list[str]:
    """What the service noticed while reading (malformed record files: file:line, why)."""
    return list(service.notes)
