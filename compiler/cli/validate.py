"""`memhub validate`: check a hub without writing anything."""

from __future__ import annotations

from pathlib import Path

import click
from memhub.compiler.cli.options import (
    EXIT_INVALID,
    EXIT_OK,
    compile_hub,
    emit_json,
    hub_argument,
    json_option,
)
from memhub.hubspec import MemhubError


@click.command("validate")
@hub_argument
@json_option
def command(hub: Path, as_json: bool) -> int:
    """Check a hub without writing anything: exit 0 when valid, 2 when not."""
    try:
        result = compile_hub(hub, ())
    except MemhubError as exc:
        if as_json:
            emit_json({"valid": False, **exc.to_json()})
        else:
            click.echo(f"memhub: {exc}", err=True)
        return EXIT_INVALID
    warnings = [r.to_json() for r in result.warnings]
    if as_json:
        emit_json(
            {
                "valid": True,
                "plugin": result.hub.plugin.name,
                "hosts": list(result.hosts),
                "files": len(result.artifacts),
                "warnings": warnings,
            }
        )
    else:
        for row in result.warnings:
            click.echo(f"warning: {row.host}: {row.component} {row.id!r}: {row.reason}", err=True)
        click.echo(
            f"valid: {result.hub.plugin.name} {result.hub.plugin.version} "
            f"({len(result.artifacts)} files for {', '.join(result.hosts)}, "
            f"{len(warnings)} warning(s))"
        )
    return EXIT_OK
