"""`memhub build`: write the bundle (marketplaces, manifests, MCP configs, hooks, skills)."""

from __future__ import annotations

from pathlib import Path

import click
from memhub.compiler.cli.options import (
    EXIT_OK,
    host_option,
    hub_argument,
    json_option,
    reply,
    verbose_option,
)
from memhub.compiler.output import bundle_plan, write_build
from memhub.compiler.report import coverage_table, plan_lines, summary, warning_line


@click.command("build")
@hub_argument
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Output folder (created; this hub's files in it are replaced, other builds' kept).",
)
@host_option
@verbose_option
@json_option
def command(hub: Path, out: Path, hosts: tuple[str, ...], verbose: bool, as_json: bool) -> int:
    """Build the bundle: marketplaces, manifests, MCP configs, hooks, skills.

    Prints each path it creates, updates or deletes (-v: the unchanged ones too), how each
    component lands on each host, and a summary line.
    """
    from memhub.compiler.marketplace import MarketplaceBuild, compile_any

    result = compile_any(hub, hosts)
    changes = bundle_plan(result, out)
    write_build(result, out, changes)
    if as_json:
        data = {
            "out": str(out),
            "hosts": list(result.hosts),
            "files": [
                {
                    "path": c.path,
                    "status": c.kind,
                    "owners": list(c.target.owners) if c.target else [],
                }
                for c in changes.changes
            ],
            "summary": changes.counts(),
            "coverage": [r.to_json() for r in result.coverage],
        }
        return reply(data, warnings=[warning_line(r) for r in result.warnings])
    if isinstance(result, MarketplaceBuild):
        label = f"marketplace {result.name} ({len(result.builds)} plugin(s) built)"
    else:
        label = result.hub.plugin.name
    listed = plan_lines(changes, show_unchanged=verbose)
    click.echo(listed + ("\n" if listed else ""), nl=False)
    click.echo(coverage_table(result.coverage), nl=False)
    click.echo(
        f"\nbuilt {label} for {', '.join(result.hosts)} into {out}: "
        f"{len(result.artifacts)} files ({summary(changes)}), "
        f"{len(result.warnings)} warning(s)"
    )
    return EXIT_OK
