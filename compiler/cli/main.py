"""The `memhub` command line: parse, call one library function, print, return an exit code.

Each verb lives in its own module (`cli/<verb>.py`, exposing `command`); the group imports a
verb's module only when that verb runs, so starting the CLI never loads every verb's
dependencies. Adding a verb is one module and one line in COMMANDS.
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

import click
from memhub.compiler.cli.options import EXIT_INTERRUPTED, EXIT_UNEXPECTED, emit_json
from memhub.hubspec import MemhubError

# verb -> the module under memhub.compiler.cli holding its `command`
COMMANDS = {
    "apply": "apply",
    "build": "build",
    "capture": "capture",
    "diff": "diff",
    "doctor": "doctor",
    "hosts": "hosts",
    "import": "import_",
    "init": "init",
    "login": "login",
    "plan": "plan",
    "restore": "restore",
    "sessions": "sessions",
    "undo": "undo",
    "uninstall": "uninstall",
    "validate": "validate",
}


class LazyGroup(click.Group):
    """A group whose commands are imported from their modules on first use."""

    def __init__(self, *args: object, lazy: dict[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module = importlib.import_module(f"memhub.compiler.cli.{self.lazy[cmd_name]}")
            self.add_command(module.command, cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="memhub", prog_name="memhub")
@click.option("--debug", is_flag=True, help="Show tracebacks for unexpected errors.")
def cli(debug: bool) -> None:
    """Compile one hub (hub.yaml) into each coding-agent host's native files.

    HUB is a hub folder or its hub.yaml (default: the current folder).
    Exit codes: 0 ok, 1 changes found (diff --exit-code), 2 invalid input,
    70 unexpected error.
    """


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
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except MemhubError as exc:
        if as_json:
            emit_json(exc.to_json())
        click.echo(f"memhub: {exc}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("memhub: interrupted", err=True)
        return EXIT_INTERRUPTED
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
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
