"""The local record of session <-> PR self-links: `$MEMHUB_HOME/sessions/prs/<host>-<id>.json`
holds one session's links ({"host", "session_id", "links": [{"url", "owner", "repo",
"number", "reason", "at", "cwd"}]}), replaced atomically on each new link. `memhub sessions
prs` reads them back. Stdlib only; writing never raises (a lost link is logged by the caller)."""

from __future__ import annotations

import contextlib
import os

from ..events import dumps, loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .prrefs import PullRequest

FOLDER = ("sessions", "prs")
MAX_LINKS = 200  # per session; the oldest are dropped past it
MAX_BYTES = 1 << 20


def folder(home: str) -> str:
    return os.path.join(home, *FOLDER)


def _read(path: str) -> dict | None:
    try:
        with open(path, "rb") as handle:
            data = loads(handle.read(MAX_BYTES))
    except OSError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("links"), list) else None


def record(
    home: str, key: str, host: str, session_id: str, pr: PullRequest, reason: str, cwd: str
) -> bool:
    """Add the link (once per PR) to the session's file; True when the file holds it."""
    import time

    path = os.path.join(folder(home), key + ".json")
    doc = _read(path) or {"host": host, "session_id": session_id, "links": []}
    links = [link for link in doc["links"] if isinstance(link, dict)]
    if any(link.get("url") == pr.url and link.get("number") == pr.number for link in links):
        return True
    links.append(
        {
            "url": pr.url,
            "owner": pr.owner,
            "repo": pr.repo,
            "number": pr.number,
            "reason": reason,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "cwd": cwd,
        }
    )
    doc["links"] = links[-MAX_LINKS:]
    return _write(path, dumps(doc) + "\n")


def _write(path: str, text: str) -> bool:
    temp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(temp, "w", encoding="ascii") as handle:
            handle.write(text)
        os.replace(temp, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        return False


def sessions(home: str) -> list[dict]:
    """Every session's link file that can be read, in file name order."""
    try:
        names = sorted(n for n in os.listdir(folder(home)) if n.endswith(".json"))
    except OSError:
        return []
    found = []
    for name in names:
        doc = _read(os.path.join(folder(home), name))
        if doc is not None and isinstance(doc.get("session_id"), str):
            found.append(doc)
    return found
