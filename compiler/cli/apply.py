"""`memhub apply`: merge the hub's entries into each host's user or project files, safely."""

from __future__ import annotations

from pathlib import Path

import click
from memhub.compiler.cli import applyrun
from memhub.compiler.cli.options import force_option, install_options, verbose_option


def _refuse_options_beside_a_saved_plan(plan_file: Path) -> None:
    """A saved plan fixes what it was made for: an option given beside it would be
    silently overridden by the plan, so it is refused instead (exit 2)."""
    ctx = click.get_current_context()
    given = [
        f"--{name.replace('_', '-')}"
        for name in ("scope", "project", "hosts", "adopt")
        if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
    ]
    if given:
        raise click.UsageError(
            f"{plan_file}: a saved plan fixes its scope, project, hosts and --adopt; "
            f"{', '.join(given)} cannot change them. Fix: drop {', '.join(given)}, or "
            "make a new plan with `memhub plan --out`"
        )


@click.command("apply")
@click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
@install_options
@verbose_option
@force_option
def command(
    hub: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    as_json: bool,
    verbose: bool,
    force: bool,
) -> int:
    """Merge the hub's entries into each host's user or project files, safely.

    HUB may be a plan saved by `memhub plan --out`: it is applied only if no target and
    no hub input changed since (else exit 3). Prints what changed, then the steps only
    each host's UI can do; --json gives the same (`data.applied`, `data.next`).
    """
    saved, plan_file = None, None
    if hub.suffix == ".json" and hub.is_file():
        from memhub.compiler.install.engine import load_saved_plan

        saved, plan_file = load_saved_plan(hub), hub
        _refuse_options_beside_a_saved_plan(hub)
        hub = Path(saved["hub_path"])
        scope, hosts, adopt = saved["scope"], ",".join(saved["hosts"]), saved["adopt"]
        project = Path(saved["project"]) if saved.get("project") else None

    return applyrun.run(
        hub,
        scope,
        project,
        hosts,
        adopt,
        as_json=as_json,
        verbose=verbose,
        force=force,
        saved=saved,
        plan_file=plan_file,
    )
