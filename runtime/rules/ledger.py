"""Where fires are kept: `$MEMHUB_HOME/rules/fires.jsonl`, one JSON line per fire, appended.

A fire is recorded under the session identity capture uses: the raw host session id locally
(ordering, dedup keys and per-session state key off it), and `wire_session` gives the id as it
goes to a server, namespaced per host as capture's uploads are (Claude bare, Codex and Cursor
`codex-`/`cursor-`-prefixed, Gemini `gemini-`).
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from .fire import Fire

PREFIXED = {"codex": "codex-", "cursor": "cursor-", "gemini": "gemini-"}
MAX_LINE = 8192  # a longer line is not a fire this module wrote


def ledger_path(home: str) -> str:
    return os.path.join(home, "rules", "fires.jsonl")


def wire_session(host: str, session: str) -> str:
    """The session id as it goes on the wire (and as capture stored the session)."""
    prefix = PREFIXED.get(host, "")
    return session if not prefix or session.startswith(prefix) else prefix + session


def record(
    home: str, *, host: str, session: str, event: str, fires: Iterable[Fire], at: str
) -> int:
    """Append one line per fire (one write, O_APPEND: concurrent hooks never interleave
    a line); the number recorded. An unwritable home raises OSError for the caller to log."""
    lines = [
        json.dumps(
            {
                "at": at,
                "host": host,
                "session": session,
                "event": event,
                "book": fire.rule.book,
                "rule": fire.rule.id,
                "token": fire.token,
            },
            ensure_ascii=False,
        )
        for fire in fires
    ]
    if not lines:
        return 0
    path = ledger_path(home)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        data = ("\n".join(lines) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return len(lines)


def read(home: str, *, session: str | None = None) -> Iterator[dict[str, str]]:
    """The recorded fires, oldest first (of one raw session id if given); lines that are not
    a fire (a torn last line, a hand edit) are skipped."""
    try:
        handle = open(ledger_path(home), "rb")  # noqa: SIM115 (closed below)
    except OSError:
        return
    with handle:
        for raw in handle:
            if len(raw) > MAX_LINE:
                continue
            try:
                item = json.loads(raw)
            except ValueError:
                continue
            keys = ("at", "host", "session", "event", "book", "rule", "token")
            if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in keys):
                continue
            if session is None or item["session"] == session:
                yield {k: item[k] for k in keys}
