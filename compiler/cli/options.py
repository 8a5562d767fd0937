"""What every verb shares: exit codes, the common options, and how output is printed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from memhub.compiler.build import Build

# The exit codes of every verb; `memhub --help` lists them.
EXIT_OK = 0  # done; nothing found
EXIT_CHANGES = 1  # changes found (diff --exit-code), a check failed, or nothing confirmed
EXIT_INVALID = 2  # invalid input or usage
EXIT_STALE = 3  # a target or input changed since it was read or planned; nothing written
EXIT_INCOMPLETE = 4  # some sources could not be read (sessions)
EXIT_UNEXPECTED = 70  # a memhub bug: a crash log is written
EXIT_INTERRUPTED = 130  # interrupted (Ctrl-C)

hub_argument = click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


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


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def compile_hub(hub_path: Path, hosts: Sequence[str]) -> Build:
    """Load and build a hub (imported on use: only the verbs that build need the loader)."""
    from memhub.compiler import build as building
    from memhub.hubspec import load

    return building.build(load(hub_path), hosts or None)
