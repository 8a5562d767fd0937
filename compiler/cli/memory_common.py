"""What every `memhub memory` and `memhub project` command shares: the memhub home, the
options, the service, and the group that turns the memory layer's errors into the CLI's.

Module level imports click and options only: `memhub memory search` and `list` start with
what every verb already pays, and the service (stdlib) is imported when a command runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from memhub.compiler.cli.memory_search import memhub_home
from memhub.compiler.cli.options import EXIT_INVALID
from memhub.hubspec.errors import MemhubError

if TYPE_CHECKING:
    from memhub.runtime.memory.errors import MemoryServiceError
    from memhub.runtime.memory.service import MemoryService


class MemoryCommandError(MemhubError):
    """A memory or registry failure, as the error boundary prints it: what, where, the fix."""

    def __init__(self, kind: str, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.kind = kind
        self.exit_code = exit_code

    def to_json(self) -> dict[str, object]:
        return {"error": self.kind, "message": str(self), "problems": []}


class InputError(MemhubError):
    """An argument the command cannot use: what, and how to fix it (exit 2)."""

    exit_code = EXIT_INVALID


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
    refused = disk_error(exc)
    if refused is not None:
        return MemoryCommandError(type(refused).__name__, str(refused), refused.exit_code)
    return None


def disk_error(exc: BaseException) -> MemoryServiceError | None:
    """The memory error for what the disk refused (memhub's folder read-only or full, the
    index damaged), or None for anything else."""
    import sqlite3

    from memhub.runtime.memory import indexfile
    from memhub.runtime.memory.errors import IndexDamaged, Unwritable

    if isinstance(exc, OSError) and indexfile.unwritable(exc):
        return Unwritable.from_os(exc, memhub_home())
    if isinstance(exc, sqlite3.DatabaseError):
        index = memhub_home() / "memory" / "index.sqlite"
        if indexfile.unwritable(exc):
            return Unwritable(index, str(exc), full="full" in str(exc))
        if indexfile.corrupt(exc):
            return IndexDamaged(index, str(exc))
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

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for arg in args:
            _check_utf8(arg)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            error = translated(exc)
            if error is None:
                raise
            raise error from exc


def _check_utf8(arg: str) -> None:
    """Refuse an argument that is not UTF-8 (Python hands such bytes over as lone
    surrogates): it could name nothing in a UTF-8 memory and cannot be written into one."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        raw = arg.encode("utf-8", "surrogateescape")
        raise InputError(
            f"argument {raw!r} is not UTF-8 text. Fix: pass it in UTF-8 (or use --file "
            "with a UTF-8 file)"
        ) from None


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
    service = MemoryService(workspace)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(service.close)  # the index connection, once the command is done
    return service
