"""The one JSON document every verb prints with --json, printed without click (a plain
apply and a plain `memory search` run before click is imported, or without it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from memhub.compiler.cli.echo import echo
from memhub.compiler.cli.exitcodes import EXIT_OK
from memhub.compiler.formats import jsondump


class _Replies:
    """Whether this run printed its JSON envelope (the error boundary prints one if not)."""

    sent = False


def reset_replies() -> None:
    _Replies.sent = False


def replied() -> bool:
    return _Replies.sent


def emit_json(data: Any) -> None:
    echo(jsondump.dumps(data, indent=2, ensure_ascii=False))


def envelope(
    command: str,
    data: Any,
    exit_code: int = EXIT_OK,
    warnings: Iterable[str] = (),
    errors: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The one JSON document every verb prints with --json.

    `command` is the verb (`capture list` for a subcommand); `ok` is `exit_code == 0`;
    `data` is the verb's own record; `warnings` are one-line messages; `errors` are
    `{"error", "message", "problems"}` records (a MemhubError's to_json)."""
    return {
        "command": command,
        "ok": exit_code == EXIT_OK,
        "exit_code": exit_code,
        "data": data,
        "warnings": list(warnings),
        "errors": [dict(e) for e in errors],
    }


def send(
    command: str,
    data: Any,
    *,
    exit_code: int = EXIT_OK,
    warnings: Iterable[str] = (),
    errors: Iterable[Mapping[str, Any]] = (),
) -> int:
    """Print `command`'s envelope, remember that it was printed, return the exit code."""
    emit_json(envelope(command, data, exit_code, warnings, errors))
    _Replies.sent = True
    return exit_code
