"""What every verb shares: exit codes, the common options, and how output is printed."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from memhub.compiler.cli.envelope import (  # noqa: F401 (verbs import them from here)
    emit_json,
    envelope,
    replied,
    reset_replies,
    send,
)
from memhub.compiler.cli.exitcodes import (  # noqa: F401 (every verb imports them here)
    EXIT_CHANGES,
    EXIT_CODES,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_STALE,
    EXIT_UNEXPECTED,
)

if TYPE_CHECKING:
    from memhub.compiler.build import Build

hub_argument = click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON document (see `memhub --help`)."
)
verbose_option = click.option(
    "-v", "--verbose", is_flag=True, help="List every path, the unchanged ones too."
)


def host_option(command: Any) -> Any:
    """`--host H` (repeatable): the bundle hosts a build covers."""
    from memhub.compiler.hosts import ADAPTERS

    return click.option(
        "--host",
        "hosts",
        multiple=True,
        type=click.Choice(list(ADAPTERS)),
        help="Build only this host (repeatable). Default: the hub's `hosts`.",
    )(command)


def scope_option(help: str, default: str | None = "user") -> Any:
    """`--scope user|project`, as every install-side command spells it."""
    return click.option(
        "--scope",
        type=click.Choice(["user", "project"]),
        default=default,
        show_default=default is not None,
        help=help,
    )


def project_option(
    help: str = "The checkout for --scope project (default: the current folder).",
) -> Any:
    return click.option(
        "--project", "project", type=click.Path(path_type=Path, file_okay=False), help=help
    )


def install_options(command: Any) -> Any:
    """--scope, --project, --hosts, --adopt and --json, as plan, apply and uninstall take them."""
    options = [
        scope_option("Install into your home (user) or a checkout (project)."),
        project_option(),
        click.option(
            "--hosts",
            "hosts",
            help="Comma-separated hosts (default: the hub's `hosts:` whose CLI is on PATH).",
        ),
        click.option(
            "--adopt",
            is_flag=True,
            help="Take over entries of the same name that memhub does not own.",
        ),
        json_option,
    ]
    for option in reversed(options):
        command = option(command)
    return command


force_option = click.option(
    "--force",
    is_flag=True,
    help="Overwrite entries memhub owns that were edited by hand since it wrote them "
    "(plan shows them as `conflict`; `memhub undo` brings the edits back).",
)


color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the output (auto: on a terminal, unless NO_COLOR is set).",
)


def use_color(choice: str, stream: Any = None) -> bool:
    """Whether to colour: --color always/never as given; auto colours a terminal unless
    NO_COLOR is set to anything but "" (no-color.org: an explicit flag still wins)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    return bool((stream or sys.stdout).isatty())


def reply(
    data: Any,
    *,
    exit_code: int = EXIT_OK,
    warnings: Iterable[str] = (),
    errors: Iterable[Mapping[str, Any]] = (),
) -> int:
    """Print the running verb's envelope (see `envelope`) and return its exit code."""
    ctx = click.get_current_context(silent=True)
    path = ctx.command_path.split(" ", 1) if ctx is not None else []
    command = path[1] if len(path) > 1 else ""
    return send(command, data, exit_code=exit_code, warnings=warnings, errors=errors)


def error_record(kind: str, message: str) -> dict[str, Any]:
    """An `errors` item for a failure that is not a MemhubError (same keys as its to_json)."""
    return {"error": kind, "message": message, "problems": []}


def compile_hub(hub_path: Path, hosts: Sequence[str]) -> Build:
    """Load and build a hub (imported on use: only the verbs that build need the loader)."""
    from memhub.compiler import build as building
    from memhub.hubspec import load

    return building.build(load(hub_path), hosts or None)
