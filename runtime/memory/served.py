"""The one served list of a session: what recall already showed the agent, whichever handler.

The session brief (`recall.brief`), prompt pointers (`recall.prompt`) and directive recall
(`recall.directives`) share one folder per session, `$MEMHUB_HOME/hooks/recall/<host>-<id>/`,
and its `directives.state` (directives_state.py): an id marked fired there, a directive, a
record or a captured session, is shown by none of them again this session. Stdlib only; no
`os` import at module level (the hook's hot path reaches this through its handlers).
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..events import Event

__all__ = ["carries_context", "folder", "mark", "shown"]

MAX_NAME = 200


def folder(home: str, host: str, session_id: str) -> str:
    """The session's recall folder (its name made of safe characters only)."""
    name = "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "-_.") else "_"
        for ch in f"{host}-{session_id}"
    )[:MAX_NAME]
    if name.strip(".") == "":
        name = "_"
    sep = "\\" if "\\" in home and "/" not in home else "/"
    return sep.join((home.rstrip("/\\"), "hooks", "recall", name))


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
