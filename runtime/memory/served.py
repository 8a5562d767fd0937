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


def folder(home: str, host: str, session_id: str) -> str:
    """The session's recall folder (directive recall's: injections.session_dir)."""
    from .injections import session_dir

    return session_dir(home, host, session_id)


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

    return event.host_event in CONTEXT_EVENTS.get(event.host, ())


def account(session_dir: str, entry: Mapping[str, Any]) -> None:
    """Append one injection's accounting (handler, event, chars, tokens, what fired) to the
    session's `injections.jsonl` (injections.record); a full disk loses only the count."""
    from .injections import record

    record(session_dir, entry, drop=("fired", "shown"))


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
