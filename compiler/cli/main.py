"""The `memhub` command line: parse, call one library function, print, return an exit code.

Each verb lives in its own module (`cli/<verb>.py`, exposing `command`); the group imports a
verb's module only when that verb runs, so starting the CLI never loads every verb's
dependencies. Adding a verb is one module and one line in COMMANDS.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

# verb -> the module under memhub.compiler.cli holding its `command`
COMMANDS = {
    "apply": "apply",
    "build": "build",
    "capture": "capture",
    "diff": "diff",
    "doctor": "doctor",
    "history": "history",
    "hosts": "hosts",
    "import": "import_",
    "init": "init",
    "login": "login",
    "mcp": "mcp",
    "memory": "memory",
    "plan": "plan",
    "project": "project",
    "recall": "recall",
    "restore": "restore",
    "rules": "rules",
    "sessions": "sessions",
    "status": "status",
    "undo": "undo",
    "uninstall": "uninstall",
    "validate": "validate",
}
# verbs whose module is a click group: their JSON envelope names the subcommand too
GROUPS = ("capture", "mcp", "memory", "project", "recall", "rules")


def _group() -> Any:
    """The click group (cli/group.py), made on first use: a replayed no-op answers before
    click is imported."""
    made = globals().get("cli")
    if made is None:
        from memhub.compiler.cli.group import make_group

        made = globals()["cli"] = make_group(COMMANDS)
    return made


def __getattr__(name: str) -> Any:
    """`cli` (the click group), for `from memhub.compiler.cli.main import cli`."""
    if name == "cli":
        return _group()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _crash_log(exc: BaseException) -> Path | None:
    import tempfile
    import time
    import traceback

    home = Path(os.environ.get("MEMHUB_HOME") or Path.home() / ".memhub")
    try:
        logs = home / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(
            prefix=time.strftime("crash-%Y%m%d-%H%M%S-"), suffix=".log", dir=logs
        )
        # backslashreplace: an argument of non-UTF-8 bytes must not crash the crash log
        with os.fdopen(handle, "w", errors="backslashreplace") as log:
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
    if words[0] in GROUPS and len(words) > 1:
        return f"{words[0]} {words[1]}"
    return words[0]


def _failed(args: Sequence[str], code: int, error: dict[str, object]) -> int:
    """With --json, the envelope of a run that failed before its verb replied."""
    from memhub.compiler.cli.options import emit_json, envelope, replied

    if "--json" in args and not replied():
        emit_json(envelope(_command_of(args), None, code, errors=[error]))
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; the one place that turns errors into messages and exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        result = _run(args)
    except BrokenPipeError:  # the reader of stdout went away (`| head`): not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep the exit flush quiet
        return 0
    except (Exception, KeyboardInterrupt) as exc:
        return _reported(args, exc)
    return result if isinstance(result, int) else 0


def _run(args: list[str]) -> object:
    """A remembered no-op apply (cli/replay.py, before click is imported), else a plain
    apply or a plain `memory search` without click (cli/applyrun.py, cli/memory_search.py),
    else the verb through the click group."""
    if args[:2] == ["mcp", "serve"]:  # a host waits for its first answer: before click
        from memhub.runtime.server import frontdoor

        frontdoor.open_early(args[2:])
    if args[:2] == ["memory", "search"]:  # the read run over and over: no click either
        from memhub.compiler.cli import memory_search

        search = memory_search.parse_search(args[2:])
        if search is not None:
            return memory_search.run_plain(search)
    from memhub.compiler.cli.replay import parse_apply, replayed

    plain = parse_apply(args)
    if plain is not None:
        code = replayed(plain)
        if code is not None:
            return code
        from memhub.compiler.cli.applyrun import run_plain

        return run_plain(plain)
    from memhub.compiler.cli.options import reset_replies

    reset_replies()
    return _group().main(args=args, prog_name="memhub", standalone_mode=False)


def _reported(args: list[str], exc: BaseException) -> int:
    """The message and exit code of a run that raised `exc` (called while handling it)."""
    import traceback

    import click
    from memhub.compiler.cli.options import EXIT_INTERRUPTED, EXIT_UNEXPECTED, error_record
    from memhub.hubspec import MemhubError

    if isinstance(exc, click.exceptions.Exit):
        return exc.exit_code
    if isinstance(exc, click.Abort | KeyboardInterrupt):
        click.echo("memhub: interrupted", err=True)
        return _failed(args, EXIT_INTERRUPTED, error_record("Interrupted", "interrupted"))
    if isinstance(exc, click.ClickException):
        exc.show()
        return _failed(args, exc.exit_code, error_record(type(exc).__name__, exc.format_message()))
    if isinstance(exc, MemhubError):
        click.echo(f"memhub: {exc}", err=True)
        return _failed(args, exc.exit_code, exc.to_json())
    if "--debug" in args:
        traceback.print_exc()
    log = _crash_log(exc)
    where = f"; details in {log}" if log else ""
    message = f"unexpected error: {type(exc).__name__}: {exc}{where}"
    click.echo(f"memhub: {message}. Re-run with --debug for the traceback", err=True)
    return _failed(args, EXIT_UNEXPECTED, error_record("UnexpectedError", message))


def run() -> None:
    """The `memhub` command: `main` without the cyclic garbage collector, then exit
    without tearing the interpreter down.

    Freeing every module and object at exit cost a first apply of 200 servers about 15 ms
    of its ~170, and nothing memhub leaves needs it: every file is written, synced and
    closed before `main` returns, locks go with the process, and what the interpreter
    would still do (flush the standard streams, run atexit functions) is done here."""
    # No cyclic garbage collection in a run this short: memhub makes few cycles, and the
    # collector sweeping the heap as thousands of module objects are created cost a first
    # apply about 5% of its time. The process ends with exit_now, which frees it all.
    import gc

    gc.disable()
    exit_now(main())


def exit_now(code: int) -> NoReturn:
    """Flush stdout and stderr, run the atexit functions, and end the process with `code`."""
    import atexit
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        # a closed pipe or stream: what was left cannot go out
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    atexit._run_exitfuncs()  # logging's shutdown, finalizers: what a normal exit runs
    os._exit(code)


if __name__ == "__main__":
    run()
