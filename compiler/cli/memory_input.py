"""What `memhub memory add` and `edit` read from their arguments: triggers typed by a prefix or
inferred from their text, and a body from --body or --file (stdin with `-`), refused when it is
not a regular file of bounded size in UTF-8. Pure but for reading the file."""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memhub.compiler.cli.memory_common import InputError
from memhub.runtime.memory.records import MAX_BODY_BYTES  # why this size: see records.py

__all__ = ["MAX_BODY_BYTES", "TRIGGER_HELP", "InputError", "parse_trigger", "parse_triggers"]

PREFIXES = {
    "path": "paths",
    "paths": "paths",
    "glob": "paths",
    "cmd": "commands",
    "command": "commands",
    "id": "identifiers",
    "ident": "identifiers",
    "identifier": "identifiers",
    "error": "errors",
    "err": "errors",
}
TRIGGER_HELP = (
    "When a lesson or procedure fires (repeatable). Type it with a prefix: "
    "`path:src/**/*.py` (a path or glob), `cmd:alembic upgrade` (a command), "
    '`id:FooBar` (an identifier), `error:"connection refused"` (text of an error). '
    "Without one it is inferred: a glob or a text with `/` or a file extension is a path; "
    "error words (error, failed, refused, denied, cannot, timeout, FooError, ...) make an "
    "error; one "
    "CamelCase, snake_case or dotted word is an identifier; anything else is a command."
)
_ERROR_WORDS = re.compile(
    r"\b(error|exception|traceback|failed|failure|fatal|refused|denied|cannot|can't|"
    r"unable|timeout|timed out|not found|no such|panic)\b|[a-z](Error|Exception)\b",
    re.IGNORECASE,
)
_PATHLIKE = re.compile(r"[*?\[/]|^[\w.-]*\.[A-Za-z0-9]{1,8}$|^\.")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def _unquoted(text: str) -> str:
    """`"connection refused"` -> `connection refused` (a shell may leave the quotes in)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def infer_kind(text: str) -> str:
    """The trigger list an unprefixed trigger belongs to (see TRIGGER_HELP)."""
    if _ERROR_WORDS.search(text):
        return "errors"
    if " " not in text and _PATHLIKE.search(text):
        return "paths"
    if _IDENTIFIER.fullmatch(text) and (
        "_" in text or "." in text or re.search(r"[a-z][A-Z]|^[A-Z][a-z]+[A-Z]", text)
    ):
        return "identifiers"
    return "commands"


def parse_trigger(raw: str) -> tuple[str, str]:
    """(trigger list, text) of one --trigger value; InputError when it is empty."""
    text = raw.strip()
    head, sep, rest = text.partition(":")
    if sep and head.lower() in PREFIXES:
        kind, value = PREFIXES[head.lower()], _unquoted(rest.strip())
    else:
        value = _unquoted(text)
        kind = infer_kind(value)
    if not value.strip():
        raise InputError(
            f"--trigger {raw!r} is empty. Fix: give it a text, e.g. --trigger 'path:src/**/*.py'"
        )
    return kind, value


def parse_triggers(values: Sequence[str]) -> Any:
    """The records.Triggers of every --trigger value, in order, each once."""
    from memhub.runtime.memory.records import Triggers

    found: dict[str, list[str]] = {"paths": [], "commands": [], "identifiers": [], "errors": []}
    for raw in values:
        kind, value = parse_trigger(raw)
        if value not in found[kind]:
            found[kind].append(value)
    return Triggers(**{kind: tuple(items) for kind, items in found.items()})


def read_body(body: str | None, file: str | None, *, required: bool) -> str | None:
    """The text of --body or --file (`-`: stdin); None when neither was given and not required."""
    if body is not None and file is not None:
        raise InputError("--body and --file both given. Fix: pass one of them")
    if body is not None:
        return body
    if file is None:
        if required:
            raise InputError("no body. Fix: pass --body TEXT or --file F (`--file -` reads stdin)")
        return None
    if file == "-":
        return _decoded(sys.stdin.buffer.read(MAX_BODY_BYTES + 1), "stdin")
    return _decoded(_read_regular(Path(file)), file)


def _read_regular(path: Path) -> bytes:
    """The bytes of a regular file under the size limit; a FIFO, a folder or a device is
    refused before a byte is read (O_NONBLOCK: opening a FIFO never waits for a writer)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise InputError(
            f"--file {path}: cannot be read ({exc.strerror}). Fix: name a file"
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise InputError(f"--file {path}: {what}. Fix: name a regular file, or `-` for stdin")
        if info.st_size > MAX_BODY_BYTES:
            raise _too_big(str(path), f"{info.st_size:,} bytes")
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(MAX_BODY_BYTES + 1)
    finally:
        os.close(fd)


def _too_big(where: str, size: str) -> InputError:
    return InputError(
        f"--file {where}: {size}, over the {MAX_BODY_BYTES:,}-byte ({MAX_BODY_BYTES // 1024}"
        " KiB) limit of a record body. Fix: split it into several records, or keep the"
        " document in the repository and save its path and a summary"
    )


def _decoded(data: bytes, where: str) -> str:
    if len(data) > MAX_BODY_BYTES:
        raise _too_big(where, f"more than {MAX_BODY_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"--file {where}: not UTF-8 (byte {exc.start}). Fix: convert it to UTF-8"
        ) from None
