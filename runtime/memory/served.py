"""The one served list of a session: what recall already showed the agent, whichever handler.

The session brief (`recall.brief`), prompt pointers (`recall.prompt`) and directive recall
(`recall.directives`) share one folder per session, `$MEMHUB_HOME/recall/<host>-<id>/`,
and its `directives.state` (directives_state.py): an id marked fired there, a directive, a
record or a captured session, is shown by none of them again this session. Each injection is
also counted there, one JSON line in `injections.jsonl` (what `memhub recall stats` reads).
Stdlib only; no `os` import at module level (the hook's hot path reaches this).
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ..events import Event

__all__ = ["INJECTIONS", "account", "carries_context", "entry", "folder", "mark", "shown"]

FOLDER = "recall"
INJECTIONS = "injections.jsonl"
MAX_NAME = 200
MAX_LINE = 16_000


def folder(home: str, host: str, session_id: str) -> str:
    """The session's recall folder (its name made of safe characters only)."""
    import os

    name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in f"{host}-{session_id}")
    return os.path.join(home, FOLDER, name[:MAX_NAME])


def shown(session_dir: str) -> set[str]:
    """The ids recall showed this session (any handler)."""
    from . import directives_state

    return set(directives_state.already_fired(session_dir))


def mark(session_dir: str, ids: list[str]) -> None:
    """Record `ids` as shown this session; a failure to write costs only a repeat."""
    if not ids:
        return
    from . import directives_state

    try:  # noqa: SIM105 (contextlib costs the hook ~3 ms to import)
        directives_state.mark_fired(session_dir, ids)
    except OSError:
        pass


def carries_context(event: Event) -> bool:
    """Whether the model gets this event's additional context (dispatch.render's rule): what
    recall shows on any other event is not shown, so it is neither worked out nor marked."""
    from ..dispatch import CONTEXT_EVENTS

    if event.host == "cursor":
        return event.host_event == "sessionStart"  # rendered as `additional_context`
    return event.host_event in CONTEXT_EVENTS.get(event.host, ())


def account(session_dir: str, entry: Mapping[str, Any]) -> None:
    """Append one injection's accounting (handler, event, chars, tokens, what fired) to the
    session's `injections.jsonl`; a full or read-only disk loses only the count."""
    import os

    from ..events import dumps  # the hook's JSON encoder: no `json` import

    line = dumps(dict(entry))
    if len(line) > MAX_LINE:
        line = dumps({k: v for k, v in entry.items() if k not in ("fired", "shown")})
    try:
        os.makedirs(session_dir, exist_ok=True)
        path = os.path.join(session_dir, INJECTIONS)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def entry(handler: str, event: Event, text: str, started: float, **more: Any) -> dict[str, Any]:
    """One injection's accounting: when, who, where, how much (tokens at 4 characters)."""
    import time

    return {
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "handler": handler,
        "host": event.host,
        "session": event.session_id,
        "event": event.name,
        "ms": round((time.monotonic() - started) * 1000, 2),
        "chars": len(text),
        "tokens": -(-len(text) // 4),
        **more,
    }
