"""`memhub validate`: check a hub without writing anything.

Its warnings come from the bundle build: a component some host's bundle cannot carry. Each
is labelled for who it concerns: `build only` when `memhub apply` carries it into that host
anyway (or the host is bundle-only), `build and apply` when an install leaves it out too.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click
from memhub.compiler.cli.options import (
    EXIT_INVALID,
    EXIT_OK,
    hub_argument,
    json_option,
    reply,
)
from memhub.compiler.hosts import CoverageRow
from memhub.compiler.report import warning_line
from memhub.hubspec import MemhubError

if TYPE_CHECKING:
    from memhub.compiler.marketplace import MarketplaceBuild
    from memhub.hubspec.model import Hub

BUILD_ONLY, BOTH = "build only", "build and apply"


@click.command("validate")
@hub_argument
@json_option
def command(hub: Path, as_json: bool) -> int:
    """Check a hub without writing anything: exit 0 when valid, 2 when not.

    Each warning says whom it concerns: `[build only]` matters only for `memhub build`
    bundles; `[build and apply]` also for `memhub apply`.
    """
    from memhub.compiler.marketplace import MarketplaceBuild, compile_any

    try:
        result = compile_any(hub, ())
    except MemhubError as exc:
        if as_json:
            return reply({"valid": False}, exit_code=EXIT_INVALID, errors=[exc.to_json()])
        click.echo(f"memhub: {exc}", err=True)
        return EXIT_INVALID
    if isinstance(result, MarketplaceBuild):
        return _market_report(result, as_json)
    labels = concerns(result.hub, result.warnings)
    lines = [
        f"[{label}] {warning_line(row)}" for row, label in zip(result.warnings, labels, strict=True)
    ]
    if as_json:
        data = {
            "valid": True,
            "plugin": result.hub.plugin.name,
            "hosts": list(result.hosts),
            "files": len(result.artifacts),
            "unsupported": [
                {**row.to_json(), "concerns": label}
                for row, label in zip(result.warnings, labels, strict=True)
            ],
        }
        return reply(data, warnings=lines)
    for line in lines:
        click.echo(f"warning: {line}", err=True)
    both = labels.count(BOTH)
    split = f": {len(labels) - both} {BUILD_ONLY}, {both} {BOTH}" if labels else ""
    click.echo(
        f"valid: {result.hub.plugin.name} {result.hub.plugin.version} "
        f"({len(result.artifacts)} files for {', '.join(result.hosts)}, "
        f"{len(labels)} warning(s){split})"
    )
    return EXIT_OK


def _market_report(result: MarketplaceBuild, as_json: bool) -> int:
    """A marketplace hub's verdict: each plugin's warnings labelled as a plugin hub's are;
    a marketplace entry a host cannot list concerns only the bundle."""
    label_of: dict[int, str] = {}
    for built in result.builds:
        for row, label in zip(built.warnings, concerns(built.hub, built.warnings), strict=True):
            label_of[id(row)] = label
    rows = result.warnings
    labels = [label_of.get(id(row), BUILD_ONLY) for row in rows]
    lines = [f"[{label}] {warning_line(row)}" for row, label in zip(rows, labels, strict=True)]
    if as_json:
        data = {
            "valid": True,
            "marketplace": result.name,
            "plugins": [e.name for e in result.market.entries],
            "hosts": list(result.hosts),
            "files": len(result.artifacts),
            "unsupported": [
                {**row.to_json(), "concerns": label}
                for row, label in zip(rows, labels, strict=True)
            ],
        }
        return reply(data, warnings=lines)
    for line in lines:
        click.echo(f"warning: {line}", err=True)
    click.echo(
        f"valid: marketplace {result.name} ({len(result.market.entries)} plugins, "
        f"{len(result.artifacts)} files for {', '.join(result.hosts)}, {len(labels)} warning(s))"
    )
    return EXIT_OK


def concerns(hub: Hub, warnings: tuple[CoverageRow, ...]) -> list[str]:
    """Per bundle warning, whether an install into that host leaves the component out too
    (asked of the host's installer for user scope; it reads no host file)."""
    from memhub.compiler.hosts import INSTALLERS
    from memhub.compiler.install.scope import Scope

    hosts = sorted({row.host for row in warnings if row.host in INSTALLERS})
    if not hosts:
        return [BUILD_ONLY for _ in warnings]
    scope = Scope.from_environment("user")
    left_out: set[tuple[str, str, str]] = set()
    for host in hosts:
        # only the warned components: a 20,000-server hub warns of a few hundred
        warned = [row for row in warnings if row.host == host]
        try:
            _, rows = INSTALLERS[host].install_entries(_narrowed(hub, warned), scope)
            if any(row.component == "rulebook" for row in warned):  # carried by the hooks
                from memhub.compiler import rulebooks

                _, every = INSTALLERS[host].install_entries(replace(hub, skills=()), scope)
                rows = [*rows, *rulebooks.coverage_rows(hub, host, every, "{}")]
        except MemhubError:  # the install would refuse: that is apply's to say
            continue
        left_out |= {(r.host, r.component, r.id) for r in rows if r.status == "unsupported"}
    return [BOTH if (r.host, r.component, r.id) in left_out else BUILD_ONLY for r in warnings]


def _narrowed(hub: Hub, warned: list[CoverageRow]) -> Hub:
    """`hub` holding only the servers, hooks and instructions `warned` names (no skills)."""
    ids = {(row.component, row.id) for row in warned}
    return replace(
        hub,
        mcp_servers=tuple(s for s in hub.mcp_servers if ("mcp", s.name) in ids),
        hooks=tuple(h for h in hub.hooks if ("hook", h.id) in ids),
        skills=(),
        instructions=hub.instructions if any(c == "instructions" for c, _ in ids) else None,
    )
