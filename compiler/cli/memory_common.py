"""What every `memhub memory` and `memhub project` command shares: the memhub home, the
workspace and service, the options, turning the memory layer's errors into the CLI's, and
previewing a plan before it is written.

Module level imports click and options only: `memhub memory search` and `list` start with
what every verb already pays, and the service (stdlib) is imported when a command runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from memhub.compiler.cli.options import EXIT_CHANGES, EXIT_INVALID, EXIT_OK, reply
from memhub.hubspec.errors import MemhubError

if TYPE_CHECKING:
    from memhub.runtime.memory.plans import MemoryPlan
    from memhub.runtime.memory.service import MemoryService
    from memhub.runtime.memory.workspace import Workspace

NOT_CONFIRMED = "not confirmed: nothing written"


class MemoryCommandError(MemhubError):
    """A memory or registry failure, as the error boundary prints it: what, where, the fix."""

    def __init__(self, kind: str, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.kind = kind
        self.exit_code = exit_code

    def to_json(self) -> dict[str, object]:
        return {"error": self.kind, "message": str(self), "problems": []}


def translated(exc: BaseException) -> MemoryCommandError | None:
    """The CLI error for a failure of the memory layer, or None for anything else."""
    from memhub.runtime.memory.errors import MemoryServiceError
    from memhub.runtime.memory.frontmatter import RecordError
    from memhub.runtime.memory.layout import UnknownScope, UnsafeName
    from memhub.runtime.memory.projects import RegistryError

    if isinstance(exc, MemoryServiceError):
        return MemoryCommandError(type(exc).__name__, str(exc), exc.exit_code)
    if isinstance(exc, RecordError | UnsafeName | UnknownScope | RegistryError):
        return MemoryCommandError(type(exc).__name__, str(exc), EXIT_INVALID)
    return None


class MemoryGroup(click.Group):
    """A group whose subcommands are imported on first use ("module:attribute" under
    memhub.compiler.cli), and whose memory-layer errors reach the one error boundary
    (cli/main.py) as MemhubErrors: a message and an exit code, never a traceback."""

    def __init__(self, *args: Any, lazy: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            import importlib

            module, attribute = self.lazy[cmd_name].split(":")
            found = getattr(importlib.import_module(f"memhub.compiler.cli.{module}"), attribute)
            self.add_command(found, cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            error = translated(exc)
            if error is None:
                raise
            raise error from exc


def memhub_home() -> Path:
    """MEMHUB_HOME, else ~/.memhub (as compiler/install/state.py reads it, without its imports)."""
    configured = os.environ.get("MEMHUB_HOME")
    return (
        Path(configured) if configured else Path(os.environ.get("HOME") or Path.home()) / ".memhub"
    )


def apply_options(options: list[Any]) -> Callable[[Any], Any]:
    """A decorator applying click options in the order listed."""

    def decorate(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


PROJECT_HELP = (
    "A folder inside the project's git checkout (default: the working directory's). "
    "Example: --project ~/src/app"
)
project_option = click.option(
    "--project",
    "project",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help=PROJECT_HELP,
)
scope_option = click.option(
    "--scope",
    type=click.Choice(["shared", "project"]),
    help="Only this scope: `shared` (every project that enables it) or `project` "
    "(the current project's). Default: both.",
)


def kind_option(choices: tuple[str, ...], extra: str = "") -> Any:
    """`--kind K` (repeatable), one of `choices`."""
    return click.option(
        "--kind",
        "kinds",
        multiple=True,
        type=click.Choice(choices),
        metavar="KIND",
        help=f"Only records of this kind (repeatable): {', '.join(choices)}.{extra} "
        "Example: --kind lesson --kind procedure",
    )


tag_option = click.option(
    "--tag",
    "tags",
    multiple=True,
    metavar="TAG",
    help="Only records carrying this tag (repeatable; all must match). Example: --tag db",
)
yes_option = click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Write without asking. Without it the plan is shown; on a terminal you are asked, "
    "elsewhere nothing is written (exit 1).",
)
json_option = click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON document {command, ok, exit_code, data, warnings, errors}.",
)


def open_service(
    project: Path | None, *, scopes: tuple[str, ...] = ("shared", "project"), writable: bool = True
) -> MemoryService:
    """The service over the workspace of `project` (default: the working directory)."""
    from memhub.runtime.memory.service import MemoryService
    from memhub.runtime.memory.workspace import open_workspace

    workspace = open_workspace(
        memhub_home(),
        project=project.resolve() if project is not None else None,
        scopes=scopes,
        writable=writable,
    )
    return MemoryService(workspace)


def project_json(workspace: Workspace) -> dict[str, Any] | None:
    """{id, name} of the workspace's project, or None."""
    if workspace.project_id is None:
        return None
    return {"id": workspace.project_id, "name": workspace.project_name}


def show_plan(plan: MemoryPlan) -> None:
    """The plan as a person reads it: the diff, one line per change, then the notes."""
    diff = plan.diff()
    if diff:
        click.echo(diff, nl=not diff.endswith("\n"))
    for change in plan.changes:
        where = change.scope if change.project is None else f"{change.scope} {change.project}"
        click.echo(f"{change.action:<7} {change.record_id} ({where}): {change.summary}")
    for note in plan.notes:
        click.echo(f"note: {note}", err=True)


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
        return _not_confirmed(data, as_json)
    result = service.apply(plan)
    data.update(written=True, result=_jsonable(result))
    if as_json:
        return reply(data)
    changed = result.get("changed", []) if isinstance(result, dict) else []
    click.echo(
        f"wrote {len(changed)} file{'s' if len(changed) != 1 else ''} (run {result.get('run')})"
    )
    return EXIT_OK


def _not_confirmed(data: dict[str, Any], as_json: bool) -> int:
    hint = "pass --yes to write it"
    if as_json:
        from memhub.compiler.cli.options import error_record

        record = error_record("NotConfirmed", f"{NOT_CONFIRMED}: {hint}")
        return reply(data, exit_code=EXIT_CHANGES, errors=[record])
    click.echo(f"memhub: {NOT_CONFIRMED}: {hint}", err=True)
    return EXIT_CHANGES


def _jsonable(value: Any) -> Any:
    """Paths as strings, tuples as lists: what the JSON envelope can hold."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value


jsonable = _jsonable


def record_json(entry: Any) -> dict[str, Any]:
    """A stored record (service.Entry) as JSON: every front matter field, body, path, revision."""
    r = entry.record
    source = {
        key: value
        for key, value in (
            ("kind", r.source.kind),
            ("session", r.source.session),
            ("record", r.source.record),
            ("file", r.source.file),
            ("import", r.source.imported),
        )
        if value is not None
    }
    triggers = {
        "paths": list(r.triggers.paths),
        "commands": list(r.triggers.commands),
        "identifiers": list(r.triggers.identifiers),
        "errors": list(r.triggers.errors),
    }
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


def problems_of(service: Any) -> list[str]:
    """What the service noticed while reading (malformed record files: file:line, why)."""
    found = getattr(service, "problems", None)
    if callable(found):
        found = found()
    return [str(p) for p in found or ()]
