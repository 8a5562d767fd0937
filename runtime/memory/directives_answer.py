"""One directive recall for a hook handler: handle cache, session state, read, render.

    answer = directives_answer.answer(index, allowed, tool, tool_input, cwd=..., session_dir=...)
    if answer.injection.text: emit it, then directives_answer.delivered(session_dir, answer)

Proactive (no `output`): a handle (file path or command) already answered this session is
not looked up again. Reactive (`output` given, after a failure): always looked up, never
cached. Directives fired this session are never fired again; they are marked fired only once
the handler says the text was delivered. Stdlib only.
"""

from __future__ import annotations

from . import directives, directives_read, directives_state
from .directives_render import DEFAULT_BUDGET, Injection, render

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = ["Answer", "answer", "delivered", "empty", "handle_of", "opening"]


def empty() -> Injection:
    """No directive: nothing to say (a new one each time: its lists are the caller's)."""
    return Injection("", [], False, 0)


class Answer:
    """What recall answered: the injection (text + accounting), the handle key, and why not."""

    __slots__ = ("handle", "injection", "skipped")

    def __init__(self, injection: Injection, handle: str, skipped: str = "") -> None:
        self.injection, self.handle, self.skipped = injection, handle, skipped


def handle_of(tool_input: Mapping[str, Any]) -> str:
    """The call's identifying handle: its file path(s) or its command."""
    call = directives.call_of(tool_input)
    return "\n".join(call.paths) or call.raw_command


def opening(
    tool: str, tool_input: Mapping[str, Any], cwd: str, session_dir: str | os.PathLike[str],
    reactive: bool,
) -> tuple[str, Answer | None]:  # fmt: skip
    """(the call's handle key, the empty answer when there is nothing to look up: no handle,
    or a proactive call whose handle this session already answered). Local and remote alike."""
    handle = handle_of(tool_input)
    if not handle:
        return "", Answer(empty(), "", "no handle")
    key = directives_state.handle_key(cwd, tool, handle)
    if not reactive and directives_state.seen(session_dir, key):
        return key, Answer(empty(), key, "handle already answered")
    return key, None


def answer(
    index: str | os.PathLike[str],
    allowed: Sequence[tuple[str, str | None]],
    tool: str,
    tool_input: Mapping[str, Any],
    *,
    cwd: str,
    session_dir: str | os.PathLike[str],
    output: str | None = None,
    account: str = "",
    repo: str = "",
    budget: int = DEFAULT_BUDGET,
) -> Answer:
    """The directives this call fires, rendered within `budget` characters."""
    reactive = output is not None
    key, skip = opening(tool, tool_input, cwd, session_dir, reactive)
    if skip is not None:
        return skip
    call = directives.call_of(tool_input, output)
    stop = directives.blocked(account, repo)
    fired = directives_state.already_fired(session_dir)
    hits = directives_read.recall(index, allowed, call, stop, fired)
    if not reactive:
        directives_state.remember(session_dir, key)
    return Answer(render(hits, budget, reactive=reactive), key)


def delivered(session_dir: str | os.PathLike[str], done: Answer) -> None:
    """Mark the answer's directives fired: the text reached the agent."""
    if done.injection.fired:
        directives_state.mark_fired(session_dir, done.injection.ids())
