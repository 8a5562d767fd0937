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
from memhub.compiler.cli.options import (
    EXIT_CODES,
    EXIT_INTERRUPTED,
    EXIT_UNEXPECTED,
    emit_json,
    envelope,
    error_record,
    replied,
    reset_replies,
)
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
    "status": "status",
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


HELP = "\n".join(
    [
        "Compile one hub (hub.yaml) into each coding-agent host's native files, or apply it",
        "to the hosts' own config.",
        "",
        "HUB is a hub folder or its hub.yaml (default: the current folder). Every command",
        "takes --json: one document {command, ok, exit_code, data, warnings, errors}.",
        "NO_COLOR (set, not empty) turns colour off; --color always turns it back on.",
        "",
        "\b",
        "Exit codes:",
        *(f"  {code:>3}  {meaning}" for code, meaning in EXIT_CODES),
    ]
)


@click.group(
    cls=LazyGroup,
    lazy=COMMANDS,
    help=HELP,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="memhub", prog_name="memhub")
@click.option("--debug", is_flag=True, help="Show tracebacks for unexpected errors.")
def cli(debug: bool) -> None:
    pass


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


def _command_of(args: Sequence[str]) -> str:
    """The verb `args` run (`capture list` for a subcommand): no top-level option takes a
    value, so the first word that is not an option is the verb."""
    words = [a for a in args if not a.startswith("-")]
    if not words or words[0] not in COMMANDS:
        return ""
    if words[0] == "capture" and len(words) > 1:
        return f"capture {words[1]}"
    return words[0]


def _failed(args: Sequence[str], code: int, error: dict[str, object]) -> int:
    """With --json, the envelope of a run that failed before its verb replied."""
    if "--json" in args and not replied():
        emit_json(envelope(_command_of(args), None, code, errors=[error]))
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; the one place that turns errors into messages and exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    reset_replies()
    try:
        result = cli.main(args=args, prog_name="memhub", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except (click.Abort, KeyboardInterrupt):
        click.echo("memhub: interrupted", err=True)
        return _failed(args, EXIT_INTERRUPTED, error_record("Interrupted", "interrupted"))
    except click.ClickException as exc:
        exc.show()
        return _failed(args, exc.exit_code, error_record(type(exc).__name__, exc.format_message()))
    except MemhubError as exc:
        click.echo(f"memhub: {exc}", err=True)
        return _failed(args, exc.exit_code, exc.to_json())
    except Exception as exc:
        if "--debug" in args:
            traceback.print_exc()
        log = _crash_log(exc)
        where = f"; details in {log}" if log else ""
        message = f"unexpected error: {type(exc).__name__}: {exc}{where}"
        click.echo(f"memhub: {message}. Re-run with --debug for the traceback", err=True)
        return _failed(args, EXIT_UNEXPECTED, error_record("UnexpectedError", message))
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
