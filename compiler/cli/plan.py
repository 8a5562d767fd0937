"""`memhub plan`: what `memhub apply` would change in each host's files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli.installrun import make_install_plan
from memhub.compiler.cli.options import EXIT_INVALID, EXIT_OK, install_options


@click.command("plan")
@click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
@install_options
@click.option(
    "--out",
    "out",
    type=click.Path(path_type=Path),
    help="Save the plan (fingerprints only, no contents) for `memhub apply PLAN`.",
)
def command(
    hub: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    as_json: bool,
    out: Path | None,
) -> int:
    """Show what `memhub apply` would change in each host's files. Writes nothing else."""
    from memhub.compiler.install.engine import plan_record

    plan, _ = make_install_plan(hub, scope, project, hosts, adopt)
    if out is not None:
        record = plan_record(plan)
        record["hub_path"] = str(Path(hub).absolute())
        record["adopt"] = adopt
        out.write_text(json.dumps(record, indent=2) + "\n", "utf-8")
    print_plan(plan, as_json)
    # apply would refuse either: an entry someone else owns, or one edited by hand
    return EXIT_INVALID if plan.conflicts or plan.drifted else EXIT_OK


def print_plan(plan: Any, as_json: bool) -> None:
    from memhub.compiler.install.engine import drift_messages, plan_record, prune_order
    from memhub.compiler.report import table  # with the host adapters: not for a replay

    if as_json:
        record = plan_record(plan)
        record["conflicts"] = list(plan.conflicts)
        record["warnings"] = list(plan.warnings)
        record["coverage"] = [r.to_json() for r in plan.coverage]
        click.echo(json.dumps(record, indent=2))
        return
    # Unchanged targets are counted, not listed: a hub of a thousand skills has thousands.
    # `conflict`: an update or delete that would overwrite an entry edited by hand
    rows = [(c.word, c.path) for c in plan.changes if c.kind != "unchanged"]
    # folders memhub made for what goes, removed once empty
    rows += [("rmdir", f"{folder}/") for folder in prune_order(plan.pending)]
    if rows:
        width = max(len(k) for k, _ in rows)
        for kind, path in rows:
            click.echo(f"{kind.rjust(width)}  {path}")
    unchanged = sum(1 for c in plan.changes if c.kind == "unchanged")
    if unchanged:
        click.echo(f"{unchanged} target(s) unchanged")
    for conflict in plan.conflicts:
        click.echo(f"conflict  {conflict}", err=True)
    for line in drift_messages(plan):  # entries edited by hand that apply would overwrite
        click.echo(f"conflict  {line}", err=True)
    for warning in plan.warnings:
        click.echo(f"warning   {warning}", err=True)
    # Carried with a difference (a server started through memhub's launcher, a header a
    # host cannot send): shown by plan and apply alike, not only by build.
    for status, heading in (
        ("caveat", "installed with this caveat"),
        ("unsupported", "not installed because"),
    ):
        found = [(r.host, r.component, r.id, r.reason) for r in plan.coverage if r.status == status]
        if found:
            click.echo(table(found, ("host", "component", "id", heading)), nl=False)
