"""The `memhub` command line: parse, call one library function, print, return an exit code."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from memhub.compiler.build import Build, build
from memhub.compiler.cli import capture as capture_cli
from memhub.compiler.cli import doctor as doctor_cli
from memhub.compiler.cli import import_ as import_cli
from memhub.compiler.cli import install as install_cli
from memhub.compiler.cli import restore as restore_cli
from memhub.compiler.cli import sessions as sessions_cli
from memhub.compiler.hosts import ADAPTERS
from memhub.compiler.output import write_build
from memhub.compiler.plan import plan
from memhub.compiler.report import coverage_table, plan_lines, summary
from memhub.hubspec import MemhubError

EXIT_OK, EXIT_CHANGES, EXIT_INVALID, EXIT_UNEXPECTED = 0, 1, 2, 70

hub_argument = click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
host_option = click.option(
    "--host",
    "hosts",
    multiple=True,
    type=click.Choice(list(ADAPTERS)),
    help="Build only this host (repeatable). Default: the hub's `hosts`.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _compile(hub_path: Path, hosts: Sequence[str]) -> Build:
    from memhub.hubspec import load

    return build(load(hub_path), hosts or None)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memhub", prog_name="memhub")
@click.option("--debug", is_flag=True, help="Show tracebacks for unexpected errors.")
def cli(debug: bool) -> None:
    """Compile one hub (hub.yaml) into each coding-agent host's native files.

    HUB is a hub folder or its hub.yaml (default: the current folder).
    Exit codes: 0 ok, 1 changes found (diff --exit-code), 2 invalid input,
    70 unexpected error.
    """


@cli.command("build")
@hub_argument
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="Output folder (created; replaced whole if memhub built it before).",
)
@host_option
@json_option
def build_command(hub: Path, out: Path, hosts: tuple[str, ...], as_json: bool) -> int:
    """Build the bundle: marketplaces, manifests, MCP configs, hooks, skills."""
    result = _compile(hub, hosts)
    changes = plan(result.artifacts, out)
    write_build(result, out, changes)
    if as_json:
        _emit_json(
            {
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
                "coverage": [r.to_json() for r in result.coverage],
                "warnings": [r.to_json() for r in result.warnings],
            }
        )
        return EXIT_OK
    click.echo(plan_lines(changes, show_unchanged=True), nl=False)
    click.echo()
    click.echo(coverage_table(result.coverage), nl=False)
    click.echo(
        f"\nbuilt {result.hub.plugin.name} for {', '.join(result.hosts)} into {out}: "
        f"{len(result.artifacts)} files ({summary(changes)}), "
        f"{len(result.warnings)} warning(s)"
    )
    return EXIT_OK


@cli.command("diff")
@hub_argument
@click.option(
    "--against",
    "against",
    type=click.Path(path_type=Path),
    help="Bundle: a folder holding a previous build (or nothing yet).",
)
@install_cli.scope_option(
    "Install: diff the host files `memhub apply --scope` would change.", default=None
)
@install_cli.project_option()
@click.option("--hosts", "install_hosts", help="Install hosts, comma-separated (default: on PATH).")
@host_option
@click.option(
    "--exit-code",
    "exit_code",
    is_flag=True,
    help="Exit 1 when there are changes, 0 when none (2 on error).",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the diff (auto: only on a terminal).",
)
@json_option
def diff_command(
    hub: Path,
    against: Path | None,
    scope: str | None,
    project: Path | None,
    install_hosts: str | None,
    hosts: tuple[str, ...],
    exit_code: bool,
    color: str,
    as_json: bool,
) -> int:
    """Show, as a content diff, what `build --out AGAINST` or `apply --scope` would change.

    Unified diffs for text, key-path changes for JSON and TOML. Writes nothing.
    """
    from memhub.compiler import diff as diffing

    if (against is None) == (scope is None):
        raise click.UsageError("give exactly one of --against DIR (bundle) or --scope (install)")

    def show(changes: Any) -> int:
        if as_json:
            _emit_json(diffing.plan_json(changes))
        else:
            use_color = color == "always" or (color == "auto" and sys.stdout.isatty())
            click.echo(diffing.render(changes, color=use_color), nl=False, color=use_color)
            click.echo(f"{summary(changes)}", err=True)
        return EXIT_CHANGES if exit_code and changes.pending else EXIT_OK

    if against is not None:
        return show(plan(_compile(hub, hosts).artifacts, against))
    assert scope is not None  # checked above: exactly one of --against and --scope

    def full() -> tuple[int, Any, Any]:
        changes, install, hub_model = install_cli.install_diff_plan(
            hub, scope, project, install_hosts
        )
        return show(changes), install, hub_model

    if as_json:
        return full()[0]
    args = (hub, scope, project, install_hosts, False)
    return install_cli.remembered(f"diff:{color}:{exit_code}", *args, full)


@cli.command("validate")
@hub_argument
@json_option
def validate_command(hub: Path, as_json: bool) -> int:
    """Check a hub without writing anything: exit 0 when valid, 2 when not."""
    try:
        result = _compile(hub, ())
    except MemhubError as exc:
        if as_json:
            _emit_json({"valid": False, **exc.to_json()})
        else:
            click.echo(f"memhub: {exc}", err=True)
        return EXIT_INVALID
    warnings = [r.to_json() for r in result.warnings]
    if as_json:
        _emit_json(
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


@cli.command("init")
@click.argument("directory", required=False, default=".", type=click.Path(path_type=Path))
@click.option("--name", help="Plugin name (kebab-case). Default: from the folder name.")
def init_command(directory: Path, name: str | None) -> int:
    """Create a working starter hub in DIRECTORY (never overwrites)."""
    from memhub.compiler.cli.init import init_hub  # Jinja2 and the schema: only `init` needs them

    for path in init_hub(directory, name):
        click.echo(f"create  {path}")
    click.echo(
        f"\nNext: memhub validate {directory} && memhub build {directory} --out {directory}/dist"
    )
    return EXIT_OK


@cli.command("hosts")
@json_option
def hosts_command(as_json: bool) -> int:
    """List supported hosts and how each carries logical events and tool classes."""
    data: list[dict[str, Any]] = [
        {
            "name": adapter.name,
            "title": adapter.title,
            "summary": adapter.summary,
            "events": {
                event: {
                    "host_event": support.host_event,
                    "caveat": support.caveat,
                    "unsupported": support.unsupported,
                }
                for event, support in adapter.EVENTS.items()
            },
            "tools": {k: list(v) if v else None for k, v in adapter.TOOLS.items()},
        }
        for adapter in ADAPTERS.values()
    ]
    if as_json:
        _emit_json(data)
        return EXIT_OK
    for host in data:
        click.echo(f"{host['name']}  ({host['title']}): {host['summary']}")
        for event, support in host["events"].items():
            target = support["host_event"] or f"unsupported: {support['unsupported']}"
            note = f"  ({support['caveat']})" if support["caveat"] else ""
            click.echo(f"  {event:<20} {target}{note}")
        if host["tools"]:
            tools = ", ".join(f"{k}={'|'.join(v) if v else '-'}" for k, v in host["tools"].items())
            click.echo(f"  tools: {tools}")
        click.echo()
    return EXIT_OK


install_cli.register(cli)
import_cli.register(cli)
restore_cli.register(cli)
doctor_cli.register(cli)
sessions_cli.register(cli)
capture_cli.register(cli)


def _crash_log(exc: BaseException) -> Path | None:
    home = Path(os.environ.get("MEMHUB_HOME") or Path.home() / ".memhub")
    try:
        logs = home / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(
            prefix=time.strftime("crash-%Y%m%d-%H%M%S-"), suffix=".log", dir=logs
        )
        with os.fdopen(handle, "w") as log:
            log.write(f"memhub {' '.join(sys.argv[1:])}\npython {sys.version}\n\n")
            log.write("".join(traceback.format_exception(exc)))
        return Path(name)
    except OSError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; the one place that turns errors into messages and exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    try:
        result = cli.main(args=args, prog_name="memhub", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        click.echo("memhub: interrupted", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except MemhubError as exc:
        if as_json:
            _emit_json(exc.to_json())
        click.echo(f"memhub: {exc}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("memhub: interrupted", err=True)
        return 130
    except Exception as exc:
        if "--debug" in args:
            traceback.print_exc()
        log = _crash_log(exc)
        where = f"; details in {log}" if log else ""
        click.echo(
            f"memhub: unexpected error: {type(exc).__name__}: {exc}{where}. "
            "Re-run with --debug for the traceback",
            err=True,
        )
        return EXIT_UNEXPECTED
    return result if isinstance(result, int) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
