"""`memhub uninstall`: remove only the entries a hub (or a plugin) owns."""

from __future__ import annotations

from pathlib import Path

import click
from memhub.compiler.cli import installrun
from memhub.compiler.cli.options import (
    EXIT_OK,
    force_option,
    install_options,
    reply,
    verbose_option,
)
from memhub.compiler.cli.planview import counts, print_plan
from memhub.hubspec import MemhubError


@click.command("uninstall")
@click.argument("hub", required=False, type=click.Path(path_type=Path))
@install_options
@click.option(
    "--plugin",
    "plugin",
    metavar="NAME",
    help="Remove what memhub installed for plugin NAME, without its hub (hosts default to all).",
)
@verbose_option
@force_option
def command(
    hub: Path | None,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    as_json: bool,
    plugin: str | None,
    verbose: bool,
    force: bool,
) -> int:
    """Remove only the entries this hub (or --plugin NAME) owns; everything else stays."""
    from memhub.compiler.install.engine import apply_install

    if plugin is not None:
        if hub is not None:
            raise click.UsageError("give a HUB or --plugin NAME, not both")
        if not plugin.strip():
            raise click.UsageError(
                "--plugin needs a plugin's name. Fix: name one of the installed plugins "
                f"({installrun.installed_plugins(None) or 'none'})"
            )
        make_plan = installrun.plugin_planner(plugin, scope, project, hosts)
    else:
        hub = hub or Path(".")
        if not (hub.is_file() or (hub / "hub.yaml").is_file()):
            raise MemhubError(
                f"{hub}: no hub here. Fix: pass the hub folder, or run `memhub uninstall "
                f"--plugin NAME` to remove what a plugin installed without its hub "
                f"(installed: {installrun.installed_plugins(None) or 'none'})"
            )
        make_plan, _ = installrun.planner(hub, scope, project, hosts, adopt, remove_all=True)
    done = apply_install(installrun.home(), make_plan, force=force)
    if as_json:
        data = {
            "scope": done.scope.kind,
            "project": str(done.scope.project) if done.scope.project else None,
            "hosts": list(done.hosts),
            "changed": [{"path": c.path, "kind": c.kind} for c in done.pending],
            "counts": counts(done),
            "undo": "memhub undo" if done.pending else None,
        }
        return reply(data, warnings=done.warnings)
    print_plan(done, verbose=verbose, what="uninstall")
    return EXIT_OK
