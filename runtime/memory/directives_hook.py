"""The `recall.directives` hook: lessons and procedures injected before the agent acts.

- Proactive (`before_tool` on edit/write/notebook and shell): the file paths, or the command
  when `shellmutate` says it mutates (a read-only command costs no lookup at all: the index
  is not even opened). Where a host's before-tool event cannot carry context (Gemini's
  BeforeTool) the same lookup runs on its after-tool event instead, so the text reaches the
  next model request.
- Reactive (`after_tool_failure`, or an after-tool event that failed): the failing output's
  tail, only when it looks like an error (the published plugin's reactive prefilter).

The project comes from the event's folder (`directives_project`), the directives from the
index (`directives_read`, no YAML, no service), the gate, the once-per-session rule and the
budget from `directives_answer`. The text goes to `out.context` (the dispatcher gives it to
the host as additional context) and its accounting to `injections.record`. Never raises
into the dispatcher for an expected failure; past its time it fails open and logs it.
"""

from __future__ import annotations

import time

from ..applypatch import patch_paths
from ..dispatch import CONTEXT_EVENTS, carries, log
from ..lowos import getenv

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..dispatch import Output
    from ..events import Event

__all__ = ["NAME", "failing_output", "looks_failed", "run"]

NAME = "recall.directives"
TIME_BUDGET_S = 2.0  # within dispatch.BUDGET_S: past it the text is dropped, and logged
BUDGET_ENV = "MEMHUB_DIRECTIVE_BUDGET"  # characters; the renderer's default otherwise
TOOL_CLASSES = ("edit", "shell")
OUTPUT_TAIL = 4000  # the reactive prefilter reads this much; the matcher its last 1500
# The published plugin's reactive prefilter (`[A-Z][a-zA-Z]*Error` is covered by `Error`)
ERROR_MARKS = (
    "Traceback (most recent call last)", "Error", "ERROR", "error:", "✘", "npm ERR!",
    "FAILED", "fatal:", "Exception", "command not found", "No such file or directory",
)  # fmt: skip
RESPONSE_FIELDS = ("stderr", "stdout", "output", "error", "text", "llmContent", "returnDisplay",
                   "textResultForLlm")  # fmt: skip


def mode(event: Event) -> str | None:
    """'proactive', 'reactive' or None (nothing to do for this event)."""
    if event.tool_class not in TOOL_CLASSES:
        return None
    if event.host_event not in CONTEXT_EVENTS.get(event.host, frozenset()):
        return None  # the host shows this event's context to nobody
    if event.name == "after_tool_failure" or (event.name == "after_tool" and event.failed):
        return "reactive"
    if event.name == "before_tool":
        return "proactive"
    if event.name != "after_tool":
        return None
    if not carries(event.host, "before_tool"):
        return "proactive"  # the before-tool event cannot carry it: say it on the way out
    # a host that does not say whether the call failed (Codex, a plain-text response): the
    # reactive prefilter decides from the output; a call known to have succeeded is skipped
    return "reactive" if event.failed is None else None


def _patch(event: Event) -> dict[str, Any] | None:
    """The files of a Codex `apply_patch` envelope, as its own tool or run through the shell
    (`apply_patch <<'EOF'`, which Codex reports as Bash): an edit, whatever the tool."""
    tool_input = event.tool_input
    command = event.command if event.tool_class == "shell" else None
    command = command or tool_input.get("command", tool_input.get("input"))
    if not isinstance(command, str) or "*** Begin Patch" not in command:
        return None
    paths = patch_paths(command)  # the first two: one patch rarely touches more
    return dict(zip(("file_path", "path"), paths, strict=False)) or None


def handles(event: Event) -> dict[str, Any] | None:
    """The call's identifying handles as `directives.call_of` reads them; None for none."""
    patch = _patch(event)
    if patch is not None:
        return patch
    if event.tool_class == "shell":
        return {"command": event.command} if event.command else None
    return event.tool_input or None


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        parts = [_text(value[k]) for k in RESPONSE_FIELDS if k in value]
        return "\n".join(p for p in parts if p)
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value)
    return ""


def failing_output(payload: dict[str, Any]) -> str:
    """The failed call's output as text: Claude's (and Copilot's) `error`, a `tool_response`'s
    text fields, Copilot's `toolResult` (a command that exited 1 is a successful call)."""
    parts = [_text(payload.get(k)) for k in ("error", "tool_response", "toolResult")]
    return "\n".join(p for p in parts if p)[-OUTPUT_TAIL:]


def looks_failed(output: str) -> bool:
    """The reactive prefilter: the output names an error."""
    return any(mark in output for mark in ERROR_MARKS)


def _budget(default: int) -> int:
    raw = (getenv(BUDGET_ENV) or "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else default


def run(event: Event, out: Output) -> None:
    """Recall the directives this call fires into the host's additional context."""
    started = time.monotonic()
    kind = mode(event)
    if kind is None or not event.session_id or not event.cwd:
        return
    tool_input = handles(event)
    if tool_input is None:
        return
    output: str | None = None
    if kind == "reactive" or (event.name == "after_tool" and event.failed is None):
        # after a call whose host does not say whether it failed (Codex's plain-text result),
        # the output decides; a call known to have succeeded is never read for errors (its
        # output naming "Error" is data: a grep, a log)
        found = failing_output(event.payload)
        if looks_failed(found):
            output = found
        elif kind == "reactive":
            return
    if output is None and event.tool_class == "shell" and "command" in tool_input:
        from .. import shellmutate

        if not shellmutate.is_mutating(event.command or ""):
            return  # read-only: no lookup at all
    _recall(event, out, tool_input, output, started)


def _recall(
    event: Event, out: Output, tool_input: dict[str, Any], output: str | None, started: float
) -> None:
    # on use: a call that is no candidate (a read-only command) loads none of recall
    from ..lowos import is_dir
    from . import directives_answer, directives_project, directives_state, injections

    tool, cwd = event.tool_name or event.tool_class or "", event.cwd or ""
    folder = injections.session_dir(out.home, event.host, event.session_id or "")
    handle = directives_answer.handle_of(tool_input)
    key = directives_state.handle_key(cwd, tool, handle)
    if output is None and handle and directives_state.seen(folder, key):
        return  # answered already: not even the project is resolved
    if not is_dir(folder):  # this session's first lookup: old sessions go
        injections.prune(out.home)
    from .remote_settings import configured

    remote = configured(out.home)  # the hub's memory.recall.remote: one small read
    if remote is not None:  # the server decides the project; the gate and rendering are ours
        from . import remote_recall

        got = remote_recall.answer(
            out.home, remote, tool, tool_input, cwd=cwd, session_dir=folder, output=output,
            deadline=started + TIME_BUDGET_S, account=directives_project.account(),
            session_id=remote_recall.wire_session(event.host, event.session_id or ""),
            budget=_budget(directives_answer.DEFAULT_BUDGET),
        )  # fmt: skip
    else:
        index = directives_project.index_path(out.home)
        scope = directives_project.resolve(out.home, cwd, folder)
        if not scope.allowed:
            return
        got = directives_answer.answer(
            index, scope.allowed, tool, tool_input, cwd=cwd, session_dir=folder, output=output,
            account=directives_project.account(), repo=scope.name, budget=_budget(directives_answer.DEFAULT_BUDGET),
        )  # fmt: skip
    injection = got.injection
    if not injection.text:
        return
    spent = time.monotonic() - started
    if spent > TIME_BUDGET_S:
        log(out.home, NAME, f"recall took {spent:.2f}s, over {TIME_BUDGET_S}s: not injected")
        return
    out.context(injection.text)
    directives_answer.delivered(folder, got)
    entry = {
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "handler": NAME,
        "host": event.host,
        "session": event.session_id,
        "event": event.name,
        "tool": tool,
        "reactive": output is not None,
        "ms": round(spent * 1000, 2),
        **injection.accounting(),
    }
    injections.record(folder, entry)
