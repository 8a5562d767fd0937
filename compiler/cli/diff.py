"""`memhub diff`: what `build --out AGAINST` or `apply --scope` would change, as a content diff."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli import installrun
from memhub.compiler.cli.options import (
    EXIT_CHANGES,
    EXIT_OK,
    compile_hub,
    emit_json,
    host_option,
    hub_argument,
    json_option,
    project_option,
    scope_option,
)
from memhub.compiler.plan import plan
from memhub.compiler.report import summary


@click.command("diff")
@hub_argument
@click.option(
    "--against",
    "against",
    type=click.Path(path_type=Path),
    help="Bundle: a folder holding a previous build (or nothing yet).",
)
@scope_option("Install: diff the host files `memhub apply --scope` would change.", default=None)
@project_option()
@click.option("--hosts", "install_hosts", help="Install hosts, comma-separated (default: on PATH).")
@host_option
@click.option(
    "--exit-code",
    "exit_code",
    is_flag=True,
    help="Exit 1 when there are changes, 0 when none (2 on error).",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the diff (auto: only on a terminal).",
)
@json_option
def command(
    hub: Path,
    against: Path | None,
    scope: str | None,
    project: Path | None,
    install_hosts: str | None,
    hosts: tuple[str, ...],
    exit_code: bool,
    color: str,
    as_json: bool,
) -> int:
    """Show, as a content diff, what `build --out AGAINST` or `apply --scope` would change.

    Unified diffs for text, key-path changes for JSON and TOML. Writes nothing.
    """
    from memhub.compiler import diff as diffing

    if (against is None) == (scope is None):
        raise click.UsageError("give exactly one of --against DIR (bundle) or --scope (install)")

    def show(changes: Any) -> int:
        if as_json:
            emit_json(diffing.plan_json(changes))
        else:
            use_color = color == "always" or (color == "auto" and sys.stdout.isatty())
            click.echo(diffing.render(changes, color=use_color), nl=False, color=use_color)
            click.echo(f"{summary(changes)}", err=True)
        return EXIT_CHANGES if exit_code and changes.pending else EXIT_OK

    if against is not None:
        return show(plan(compile_hub(hub, hosts).artifacts, against))
    assert scope is not None  # checked above: exactly one of --against and --scope

    def full() -> tuple[int, Any, Any]:
        changes, install, hub_model = installrun.install_diff_plan(
            hub, scope, project, install_hosts
        )
        return show(changes), install, hub_model

    if as_json:
        return full()[0]
    args = (hub, scope, project, install_hosts, False)
    return installrun.remembered(f"diff:{color}:{exit_code}", *args, full)
