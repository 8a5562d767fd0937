"""`memhub doctor`: the CLI over compiler/doctor (checks that each host loads what memhub applied)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click
from memhub.compiler.cli.hostchoice import HostChoice, choose_hosts
from memhub.compiler.cli.options import EXIT_CHANGES as EXIT_FAILED
from memhub.compiler.cli.options import (
    EXIT_OK,
    error_record,
    json_option,
    project_option,
    reply,
    scope_option,
)
from memhub.compiler.hosts import INSTALLERS
from memhub.hubspec.errors import MemhubError

if TYPE_CHECKING:
    from memhub.compiler.install.scope import Scope
    from memhub.compiler.install.state import State
    from memhub.hubspec.model import Hub

HUB_FILE = "hub.yaml"
CHOOSES = "--hosts chooses"  # how every host line ends (hostchoice.choose_hosts)


@click.command("doctor")
@click.argument("hub", required=False, type=click.Path(path_type=Path))
@scope_option("Check the install in your home (user) or in a checkout (project).")
@project_option(
    "The checkout for --scope project, and for the duplicate-server check "
    "(default: the current folder)."
)
@click.option(
    "--hosts",
    "hosts",
    help="Comma-separated hosts (default: those memhub applied something to; with HUB, "
    "also the hub's `hosts:` whose CLI is on PATH, as for plan and apply).",
)
@json_option
def command(
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
    from memhub.compiler.doctor.checks import run_doctor
    from memhub.compiler.doctor.records import summary
    from memhub.compiler.doctor.render import render
    from memhub.compiler.install.scope import Scope
    from memhub.compiler.install.state import State, memhub_home

    if hub is None and Path(HUB_FILE).is_file():
        hub = Path(".")
    from memhub.hubspec import load

    hub_model = load(hub) if hub is not None else None
    user = Scope.from_environment("user")
    in_project = Scope.from_environment("project", project)
    chosen, other = (user, in_project) if scope == "user" else (in_project, user)
    state = State.load(memhub_home())
    choice = _choose_hosts(hosts, state, chosen, hub_model)
    picked = choice.hosts
    if picked:
        click.echo(choice.line(), err=True)
    checks = run_doctor(state, picked, chosen, other, hub=hub_model)
    counts = summary(checks)
    code = EXIT_FAILED if counts["fail"] else EXIT_OK
    if as_json:
        document = {
            "scope": chosen.kind,
            "project": str(chosen.project) if chosen.project else None,
            "hub": str(Path(hub_model.root).absolute()) if hub_model else None,
            "hosts": list(picked),
            "checks": [c.to_json() for c in checks],
            "summary": counts,
        }
        warned = [
            f"{c.host}: {c.name}: {c.target}: {c.detail}" for c in checks if c.status == "warn"
        ]
        failed = [
            error_record("CheckFailed", f"{c.host}: {c.name}: {c.target}: {c.detail}")
            for c in checks
            if c.status == "fail"
        ]
        return reply(document, exit_code=code, warnings=warned, errors=failed)
    if not picked:
        click.echo(f"memhub has applied nothing in {chosen.kind} scope: nothing to check")
    else:
        what = f"hub {hub_model.root}" if hub_model else "what memhub applied"
        click.echo(f"memhub doctor: {what}, {chosen.kind} scope\n")
        click.echo(render(checks, picked, home=os.environ.get("HOME", "")), nl=False)
    return code


def _choose_hosts(value: str | None, state: State, scope: Scope, hub: Hub | None) -> HostChoice:
    """The hosts to check, and why: `--hosts` as named; else where memhub applied something
    (of this hub, when given); with a hub, also the hosts plan and apply would choose for it
    (its `hosts:` whose CLI is on PATH), so doctor tells what applying it has left to do."""
    if value:
        return choose_hosts(value)
    applied = _applied_hosts(state, scope, hub)
    if hub is None:
        why = f"where memhub applied something in {scope.kind} scope; {CHOOSES}"
        return HostChoice(applied, why)
    try:
        wanted = choose_hosts(None, hub.hosts, str(Path(hub.root, HUB_FILE)))
    except MemhubError:
        if not applied:
            raise  # as plan says it: none of the hub's hosts is installed here
        why = f"where this hub is applied; no CLI of its `hosts:` is on PATH; {CHOOSES}"
        return HostChoice(applied, why)
    extra = [h for h in applied if h not in wanted.hosts]
    if not extra:
        return wanted
    hosts = tuple(h for h in INSTALLERS if h in wanted.hosts or h in extra)
    why = wanted.why.removesuffix(f"; {CHOOSES}")
    return HostChoice(hosts, f"{why}; and where this hub is applied: {', '.join(extra)}; {CHOOSES}")


def _applied_hosts(state: State, scope: Scope, hub: Hub | None) -> tuple[str, ...]:
    """The install hosts that own something in this scope (of this hub, when given)."""
    from memhub.compiler.doctor.places import owned_in_scope, places

    read = {h: places(h, scope) for h in INSTALLERS}
    from memhub.compiler.install.state import Owner

    owner = Owner.of_hub(hub) if hub is not None else None
    owned = owned_in_scope(state, scope.kind, read, scope.home, hub=owner)
    found = {h for entries in owned.values() for o in entries.values() for h in o.host.split(",")}
    return tuple(h for h in INSTALLERS if h in found)
