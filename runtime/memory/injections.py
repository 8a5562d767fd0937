"""Recall's accounting: what each handler injected into a session, and where its state lives.

Every recall handler keeps its per-session state under one folder per session,
`$MEMHUB_HOME/recall/<host>-<session id>/` (`session_dir`), and appends one line per
injection to `injections.jsonl` there (`record`): the handler, the host event, the
characters and estimated tokens (chars / 4) it injected, and what fired and why. A session
folder with no such file looked up and injected nothing. `memhub recall stats` reads them
back (`sessions`). A session's first lookup removes the folders of sessions untouched for
seven days (`prune`). Writing imports no `json` (the hook's own encoder); reading may.
Stdlib.
"""

from __future__ import annotations

from ..lowos import OS, is_dir, join, listdir, makedirs

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path); no
# `os` either (lowos: a hook process has not imported it, ~1 ms of a 10 ms start)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

__all__ = ["FILE", "FOLDER", "KEEP_S", "prune", "record", "session_dir", "sessions"]

FOLDER = "recall"
FILE = "injections.jsonl"
MAX_LINE = 16_000  # one injection's line; a longer one is cut to its numbers
KEEP_S = 7 * 86400  # a session folder untouched this long is removed (the plugin's 7 days)


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:200]


def session_dir(home: str, host: str, session_id: str) -> str:
    """The folder of one session's recall state and accounting."""
    return join(home, FOLDER, _safe(f"{host}-{session_id}"))


def prune(home: str, keep_s: float = KEEP_S) -> int:
    """Remove the session folders not written for `keep_s` seconds (called when a session
    starts its folder); how many. Never raises."""
    import os
    import shutil
    import time

    root, cutoff, gone = os.path.join(home, FOLDER), time.time() - keep_s, 0
    try:
        entries = list(os.scandir(root))
    except OSError:
        return 0
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry.path)
                gone += 1
        except OSError:
            continue
    return gone


def record(folder: str, entry: Mapping[str, Any], drop: tuple[str, ...] = ("fired",)) -> None:
    """Append one injection's accounting (one JSON line) to the session's file; never raises
    on a full or read-only disk (the injection itself already happened). A line over
    MAX_LINE loses its `drop` keys (the lists) and says so."""
    from ..events import dumps  # the hook's JSON encoder: no `json` import

    line = dumps(dict(entry))
    if len(line) > MAX_LINE:
        line = dumps({k: v for k, v in entry.items() if k not in drop} | {"truncated": True})
    try:
        makedirs(folder)
        fd = OS.open(join(folder, FILE), OS.O_WRONLY | OS.O_APPEND | OS.O_CREAT, 0o600)
        try:
            OS.write(fd, (line + "\n").encode("utf-8", "replace"))
        finally:
            OS.close(fd)
    except OSError:
        pass


def _entries(path: str) -> list[dict[str, Any]]:
    import json

    out: list[dict[str, Any]] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash mid-write
        if isinstance(item, dict):
            out.append(item)
    return out


def sessions(home: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Every session folder's name and its injections (oldest first), by name."""
    root = join(home, FOLDER)
    for name in sorted(listdir(root)):
        folder = join(root, name)
        if is_dir(folder):
            yield name, _entries(join(folder, FILE))
