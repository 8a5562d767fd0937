"""`memhub diff`: what `build --out AGAINST` or `apply --scope` would change, as a content diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli import installrun
from memhub.compiler.cli.options import (
    EXIT_CHANGES,
    EXIT_OK,
    color_option,
    error_record,
    hub_argument,
    json_option,
    project_option,
    reply,
    scope_option,
    use_color,
)
from memhub.compiler.report import summary, warning_line


def bundle_hosts(value: str | None) -> tuple[str, ...]:
    """`--hosts a,b` (or one host) for a bundle diff, checked against the bundle hosts."""
    from memhub.compiler.hosts import ADAPTERS

    hosts = tuple(h.strip() for h in (value or "").split(",") if h.strip())
    unknown = [h for h in hosts if h not in ADAPTERS]
    if unknown:
        raise click.BadParameter(
            f"unknown host {', '.join(unknown)}; use some of: {', '.join(ADAPTERS)}",
            param_hint="--hosts",
        )
    return hosts


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
@click.option(
    "--hosts",
    "hosts",
    metavar="HOST[,HOST...]",
    help="Hosts, comma-separated, or one (default: with --against the hub's `hosts`; with "
    "--scope the hub's `hosts:` whose CLI is on PATH).",
)
@click.option(
    "--exit-code",
    "exit_code",
    is_flag=True,
    help="Exit 1 when there are changes, 0 when none (2 on error).",
)
@color_option
@json_option
def command(
    hub: Path,
    against: Path | None,
    scope: str | None,
    project: Path | None,
    hosts: str | None,
    exit_code: bool,
    color: str,
    as_json: bool,
) -> int:
    """Show, as a content diff, what `build --out AGAINST` or `apply --scope` would change.

    Unified diffs for text, key-path changes for JSON and TOML. Writes nothing. With
    --scope it also shows the conflicts, warnings and caveats `memhub plan` shows.
    """
    if (against is None) == (scope is None):
        raise click.UsageError("give exactly one of --against DIR (bundle) or --scope (install)")
    colored = use_color(color)
    if against is not None:
        from memhub.compiler.marketplace import compile_any
        from memhub.compiler.output import bundle_plan

        result = compile_any(hub, bundle_hosts(hosts))
        warnings = [warning_line(r) for r in result.warnings]
        return _show(bundle_plan(result, against), warnings, exit_code, colored, as_json)
    assert scope is not None  # checked above: exactly one of --against and --scope

    def full() -> tuple[int, Any, Any]:
        from memhub.compiler.cli.planview import print_notes

        changes, install, hub_model = installrun.install_diff_plan(hub, scope, project, hosts)
        if not as_json:
            print_notes(install, err=True)
        conflicts = [error_record("Conflict", c) for c in install.conflicts]
        code = _show(changes, install.warnings, exit_code, colored, as_json, conflicts)
        return code, install, hub_model

    if as_json:
        return full()[0]
    args = (hub, scope, project, hosts, False)
    # the memo replays what was printed: keyed by whether it was coloured, not by --color
    return installrun.remembered(f"diff:{colored}:{exit_code}", *args, full)


def _show(
    changes: Any,
    warnings: Any,
    exit_code: bool,
    colored: bool,
    as_json: bool,
    errors: list[dict[str, Any]] | None = None,
) -> int:
    from memhub.compiler import diff as diffing

    code = EXIT_CHANGES if exit_code and changes.pending else EXIT_OK
    if as_json:
        data = diffing.plan_json(changes)
        return reply(data, exit_code=code, warnings=warnings, errors=errors or ())
    click.echo(diffing.render(changes, color=colored), nl=False, color=colored)
    click.echo(f"{summary(changes)}", err=True)
    return code
