"""`memhub doctor`: the CLI over compiler/doctor.py (registered on `memhub`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .hosts import INSTALLERS
from .install_cli import project_option, scope_option

if TYPE_CHECKING:
    from memhub.hubspec.model import Hub

    from .scope import Scope
    from .state import State

EXIT_OK, EXIT_FAILED = 0, 1
HUB_FILE = "hub.yaml"


def register(cli: click.Group) -> None:
    """Add `memhub doctor` to the `memhub` group."""

    @cli.command("doctor")
    @click.argument("hub", required=False, type=click.Path(path_type=Path))
    @scope_option("Check the install in your home (user) or in a checkout (project).")
    @project_option(
        "The checkout for --scope project, and for the duplicate-server check "
        "(default: the current folder)."
    )
    @click.option(
        "--hosts",
        "hosts",
        help="Comma-separated hosts (default: those memhub applied something to).",
    )
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
    def doctor_command(
        hub: Path | None, scope: str, project: Path | None, hosts: str | None, as_json: bool
    ) -> int:
        """Check that each host will load what memhub applied. Writes nothing.

        Per host: owned entries unchanged since apply (drift) and in files that still
        parse; hooks where the host reads them and not switched off; Codex hooks trusted in
        /hooks (memhub never trusts them for you: an untrusted hook is a failure, because
        Codex skips it); each hook's command on PATH; skill folders copied, not linked, with
        valid SKILL.md names and descriptions; the same MCP server in user and project scope
        (a warning); each host whose CLI is on PATH loading its config with its own loader
        (offline, e.g. `codex mcp list --json`; a refusal fails, quoting the host). With HUB (or a hub.yaml in the current folder), also that everything the
        hub wants is applied and current.

        Exit 0 when no check fails (warnings do not fail), 1 when one does, 2 on bad usage or
        an invalid hub.
        """
        from .doctor import render, run_doctor, summary
        from .install_cli import parse_hosts
        from .scope import Scope
        from .state import State, memhub_home

        if hub is None and Path(HUB_FILE).is_file():
            hub = Path(".")
        from memhub.hubspec import load

        hub_model = load(hub) if hub is not None else None
        user = Scope.from_environment("user")
        in_project = Scope.from_environment("project", project)
        chosen, other = (user, in_project) if scope == "user" else (in_project, user)
        state = State.load(memhub_home())
        if hosts:
            picked = parse_hosts(hosts)
        else:
            picked = _applied_hosts(state, chosen, hub_model)
            if not picked and hub_model is not None:
                picked = parse_hosts(None)
        checks = run_doctor(state, picked, chosen, other, hub=hub_model)
        counts = summary(checks)
        if as_json:
            document = {
                "scope": chosen.kind,
                "project": str(chosen.project) if chosen.project else None,
                "hub": str(Path(hub_model.root).absolute()) if hub_model else None,
                "hosts": list(picked),
                "checks": [c.to_json() for c in checks],
                "summary": counts,
            }
            click.echo(json.dumps(document, indent=2, ensure_ascii=False))
        elif not picked:
            click.echo(f"memhub has applied nothing in {chosen.kind} scope: nothing to check")
        else:
            what = f"hub {hub_model.root}" if hub_model else "what memhub applied"
            click.echo(f"memhub doctor: {what}, {chosen.kind} scope\n")
            click.echo(render(checks, picked, home=os.environ.get("HOME", "")), nl=False)
        return EXIT_FAILED if counts["fail"] else EXIT_OK


def _applied_hosts(state: State, scope: Scope, hub: Hub | None) -> tuple[str, ...]:
    """The install hosts that own something in this scope (of this hub, when given)."""
    from .doctor import owned_in_scope, places

    read = {h: places(h, scope) for h in INSTALLERS}
    from .state import Owner

    owner = Owner.of_hub(hub) if hub is not None else None
    owned = owned_in_scope(state, scope.kind, read, scope.home, hub=owner)
    found = {h for entries in owned.values() for o in entries.values() for h in o.host.split(",")}
    return tuple(h for h in INSTALLERS if h in found)
