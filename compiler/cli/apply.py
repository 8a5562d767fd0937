"""`memhub apply`: merge the hub's entries into each host's user or project files, safely."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli import installrun
from memhub.compiler.cli.options import (
    EXIT_OK,
    force_option,
    install_options,
    reply,
    verbose_option,
)
from memhub.compiler.cli.plan import counts, print_plan
from memhub.compiler.cli.replay import apply_command


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

    def full() -> tuple[int, Any, Any]:
        from memhub.compiler.install.engine import apply_install

        make_plan, hub_model = installrun.planner(
            hub, scope, project, hosts, adopt, saved_plan=plan_file
        )
        done = apply_install(installrun.home(), make_plan, saved=saved, force=force)
        return report(done, hub_model), done, hub_model

    def report(done: Any, hub_model: Any) -> int:
        from memhub.compiler.hosts import INSTALLERS  # not needed by a replayed no-op

        steps = [
            (host, step)
            for host in done.hosts
            for step in INSTALLERS[host].after_install_steps(hub_model, done.scope)
        ]
        if as_json:
            return reply(applied_data(done, steps), warnings=done.warnings)
        print_plan(done, verbose=verbose, what="apply")
        click.echo(f"\napplied: {len(done.pending)} change(s); `memhub undo` reverts them")
        for host, step in steps:
            click.echo(f"next ({host}): {step}")
        return EXIT_OK

    if saved is not None or as_json:
        return full()[0]
    from memhub.compiler.safewrite.lock import operation_lock

    with operation_lock(installrun.home()):  # no other apply is half way through what we check
        # the next apply after this one is a no-op: it is remembered now, printing what
        # `report` prints for the plan once applied
        command = apply_command(verbose)
        return installrun.remembered(command, hub, scope, project, hosts, adopt, full, report)


def applied_data(done: Any, steps: list[tuple[str, str]]) -> dict[str, Any]:
    """What `apply --json` reports: what changed where, and what is left to do by hand."""
    return {
        "scope": done.scope.kind,
        "project": str(done.scope.project) if done.scope.project else None,
        "hosts": list(done.hosts),
        "applied": [{"path": c.path, "kind": c.kind} for c in done.pending],
        "counts": counts(done),
        "caveats": [r.to_json() for r in done.coverage if r.status != "mapped"],
        "next": [{"host": host, "step": step} for host, step in steps],
        "undo": "memhub undo" if done.pending else None,
    }
