"""What capture may read: the host's transcript folders, a transcript admitted and opened."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any


def reader_module(host: str) -> Any:
    import importlib

    return importlib.import_module(f"..transcripts.{host}", __package__)


def transcript_roots(host: str) -> list[str]:
    """The real paths of the folders where `host` keeps transcripts (the reader's roots,
    which honour the host's own override variables: CLAUDE_CONFIG_DIR, CODEX_HOME,
    GEMINI_CLI_HOME, HOME)."""
    return [os.path.realpath(root) for root in reader_module(host).roots()]


def admit(host: str, transcript_path: str | os.PathLike[str]) -> tuple[Path | None, str | None]:
    """(the transcript's real path, None) when capture may read it; (None, None) when it
    does not exist (yet); (None, why) when it is refused.

    The path comes from a hook payload, which anything can write: capture reads only a
    regular file under the host's own transcript roots, after resolving every link, so a
    payload naming `/etc/shadow`, `~/.aws/credentials` or a link to them is refused, and a
    FIFO is refused by `stat` without ever being opened (opening one would block).
    """
    real = os.path.realpath(transcript_path)
    roots = transcript_roots(host)
    if not roots:
        return None, (
            f"{transcript_path} is not under {host}'s transcript folders: none is read while "
            "the host's folder variable is a relative path (make it absolute)"
        )
    if not any(real.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
        return None, (
            f"{transcript_path} is not under {host}'s transcript folders ({', '.join(roots)})"
        )
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{transcript_path}: cannot stat ({exc.strerror})"
    if not stat.S_ISREG(info.st_mode):
        return None, f"{transcript_path} is not a regular file"
    return Path(real), None


def open_transcript(path: Path) -> Any:
    """`path` opened for reading without following a link and without blocking, checked to
    be a regular file once open (it may have been swapped since `admit` looked)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is no longer a regular file")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


# --- flushing ---------------------------------------------------------------------------------


def initial_context(reader: Any, path: Path) -> dict[str, Any]:
    maker = getattr(reader, "initial_context", None)
    context = maker(path) if maker else {}
    return json.loads(json.dumps(context))
