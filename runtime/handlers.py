"""The runtime handlers a hub hook may name (`hooks[].handler`): the one registry.

`HANDLERS` maps each name to the function the hook process (`dispatch.py`) calls with the
normalised `Event` and the call's `Output`; the hub loader validates `handler:` against the
same dict, and a handler's description is its docstring's summary (`description`).
Adding a handler is one function under `@handler("<name>")`. Importing this module costs a
few function definitions (no `typing`, no `os`): the hook's hot path imports it.

A handler decides in-process and cheaply; anything slow (reading a transcript, the network)
goes to `out.detach(...)`, which the dispatcher runs in one detached child after all handlers
have decided. Capture handlers do nothing when `MEMHUB_CAPTURE=0`.
"""

from .lowos import getenv, join, read_small, size, stat_key

# typing.TYPE_CHECKING without importing typing (the hot path); annotations using these names
# are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .capture.core import FlushResult
    from .dispatch import Output
    from .events import Event

    Runner = Callable[[Event, Output], None]

# handler name -> the function the dispatcher calls; filled by `@handler` below
HANDLERS: "dict[str, Callable[[Event, Output], None]]" = {}


def handler(name: str) -> "Callable[[Runner], Runner]":
    """Register the decorated function as the runtime handler `name`."""

    def register(function: "Runner") -> "Runner":
        HANDLERS[name] = function
        return function

    return register


def description(name: str) -> str:
    """The handler's docstring summary (its first paragraph) on one line; "" under `-OO`."""
    doc = getattr(HANDLERS[name], "__doc__", None) or ""
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


# --- capture.health's memo ----------------------------------------------------------------
# The full check (`capture/health.py`) reads the backend settings, the credential and up to
# 40 session states, and imports json, re and pathlib for it: three interpreter starts, on
# every session start. When it finds nothing wrong it leaves `$MEMHUB_HOME/hooks/health`:
# what its verdict depended on (the backend variables, and inode, size and mtime of
# `capture.json`, `credentials.json` and the failure marker every failed flush replaces) and
# until when it holds (the credential's expiry, at most an hour: a failure recorded by a
# runtime that does not replace the marker is still seen within the hour). While all of that
# is unchanged the handler answers "healthy" after three `stat` calls and one small read. It
# lives here, not in its own module, because one more import is 2% of the hook's cost.

MAX_AGE_S = 3600
STAMP = "%Y-%m-%dT%H:%M:%SZ"  # the credential's `expires_at` format, compared as text


def health_memo_path(home: str) -> str:
    return join(home, "hooks", "health")


def health_inputs(home: str) -> str:
    """What the full check reads, as one line that changes when any of it does."""
    backend = (getenv("MEMHUB_BACKEND") or "").strip().lower() or "-"
    url = "url" if (getenv("MEMHUB_REMOTE_URL") or "").strip() else "-"
    key = "key" if (getenv("MEMHUB_API_KEY") or "").strip() else "-"
    files = (
        join(home, "capture.json"),
        join(home, "credentials.json"),
        join(home, "capture", "failed"),
    )
    return " ".join([backend, url, key, *(stat_key(path) for path in files)])


def health_memo_holds(home: str) -> bool:
    """True when the last full check found nothing wrong and nothing it read has changed."""
    data = read_small(health_memo_path(home), 1024)
    if not data:
        return False
    import time  # built in: no file to find (here, not at the top, for the other handlers)

    try:
        key, until = data.decode("ascii").split("\n")[:2]
    except ValueError:  # not ASCII, or one line only
        return False
    return key == health_inputs(home) and time.strftime(STAMP, time.gmtime()) < until


def health_memo(key: str, expires_at: object) -> str | None:
    """The memo for a healthy verdict taken over `key`; None when it cannot be kept."""
    import time

    until = time.strftime(STAMP, time.gmtime(time.time() + MAX_AGE_S))
    if isinstance(expires_at, str) and expires_at:
        if not expires_at.isascii() or not expires_at.isprintable():
            return None
        until = min(until, expires_at)
    return f"{key}\n{until}\n"


_OFF = ("0", "false", "off", "no")


def capture_enabled() -> bool:
    """False when `MEMHUB_CAPTURE` is 0 / false / off / no."""
    return (getenv("MEMHUB_CAPTURE") or "1").strip().lower() not in _OFF


def _flush_job(event: "Event", mode: str, marker: str | None = None) -> dict:
    return {
        "call": "handlers.flush",
        "args": [event.host, event.session_id, event.transcript_path, mode],
        "kwargs": {"cwd": event.cwd, "marker": marker},
    }


def flush(
    host: str,
    session_id: str,
    transcript_path: str | None,
    mode: str,
    *,
    cwd: str | None = None,
    marker: str | None = None,
) -> "FlushResult":
    """In the detached child: one capture flush. A failed per-turn flush drops the session's
    marker, so the next turn retries even if the transcript has not grown since."""
    from .capture import core as capture

    result = capture.flush(host, session_id, transcript_path, mode, cwd=cwd)
    if marker and getattr(result, "status", "failed") in ("failed", "busy"):
        import contextlib
        import os

        with contextlib.suppress(OSError):
            os.unlink(marker)
    return result


def _marker(out: "Output", event: "Event") -> str:
    """Where the transcript size at the last started per-turn flush of this session is kept."""
    safe = "".join(
        ch if ch.isalnum() or ch in "-_." else "_" for ch in f"{event.host}-{event.session_id}"
    )[:200]
    return join(out.home, "hooks", "turn", safe)


def _write(path: str, text: str) -> None:
    import os

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temp = f"{path}.{os.getpid()}.tmp"
        with open(temp, "w", encoding="ascii") as handle:
            handle.write(text)
        os.replace(temp, path)
    except OSError:
        pass  # a lost marker only costs one extra (deduplicated) flush


@handler("capture.turn_end")
def capture_turn_end(event: "Event", out: "Output") -> None:
    """turn_end: send what the session's transcript gained this turn (detached; skipped when
    nothing was added).

    The no-op path is one stat and one small read: when the transcript has the size it had
    when the last flush of this session started, nothing is new."""
    if not capture_enabled() or not event.session_id:
        return
    now = size(event.transcript_path)
    marker = _marker(out, event)
    if now is not None and read_small(marker) == str(now).encode("ascii"):
        return
    out.detach(
        _flush_job(event, "turn", marker),
        on_started=None if now is None else (lambda: _write(marker, str(now))),
    )


@handler("capture.session_end")
def capture_session_end(event: "Event", out: "Output") -> None:
    """session_end: re-send the whole transcript as a backstop (detached; the watermark drops
    what was already sent)."""
    if capture_enabled() and event.session_id:
        out.detach(_flush_job(event, "session_end"))


@handler("capture.commit")
def capture_commit(event: "Event", out: "Output") -> None:
    """after_tool on shell: flush the session when the command really ran `git commit`,
    `gh pr create` or `gh pr merge`."""
    if not capture_enabled() or not event.session_id or event.tool_class != "shell":
        return
    command = event.command
    if not command or event.failed:
        return
    text = command if isinstance(command, str) else " ".join(command)
    if not (("git" in text and "commit" in text) or ("gh" in text and "pr" in text)):
        return  # cannot be a milestone: the parser is not even imported
    from .shellcmd import milestones

    if milestones(command):
        out.detach(_flush_job(event, "commit"))


@handler("capture.health")
def capture_health(event: "Event", out: "Output") -> None:
    """session_start: report broken capture (expired credential, failing flushes) as the
    host's system message; silent when healthy.

    Synchronous: the async capture paths cannot tell the user anything themselves."""
    if not capture_enabled():
        return
    if health_memo_holds(out.home):  # nothing the last full check read has changed since
        return
    from .capture import core as capture

    message = capture.health()
    if message:
        out.system_message(str(message))


def _read_only_command(event: "Event") -> bool:
    """A plain shell command that is read-only at a glance (`shellglance`); an `apply_patch`
    envelope is an edit, whatever it runs."""
    command = event.command
    if not isinstance(command, str) or not command or "*** Begin Patch" in command:
        return False
    from .shellglance import read_only

    return read_only(command)


@handler("rules.advise")
def rules_advise(event: "Event", out: "Output") -> None:
    """Rulebook rules as advisories: edit rules on the files a call writes, bash rules on
    its command, session_start rules at the start; once per session.

    An edit through a shell command is seen after it, from what it left changed on disk;
    caps and budgets are spent widest book first (runtime/rules/hook.py)."""
    from .rules import active_events, books_present

    if not books_present(out.home):  # no rulebook: a few failed opens, nothing else loaded
        return
    if event.tool_class == "shell" and _read_only_command(event):
        # a read-only command writes no file (no edit rule) and, with no active bash rule in
        # any book (the books cache says, when current), nothing can fire: rules not loaded
        events = active_events(out.home)
        if events is not None and "bash" not in events:
            return
    from .rules.hook import run

    run(event, out)


@handler("recall.brief")
def recall_brief(event: "Event", out: "Output") -> None:
    """session_start: name the project's memory and where it meets this branch (counts,
    directives for the files it touches, records naming them), under one budget."""
    from .memory.brief import run

    run(event, out)


# --- PR and spec workflows (runtime/workflows/): the bodies import on call ------------------
# Each first looks at the command text, so a shell call that cannot concern it imports
# nothing (the modules behind them need `os`, which a hook process has not loaded).


def _command_has(event: "Event", *words: str) -> bool:
    command = event.command
    if command is None:
        return False
    text = command if isinstance(command, str) else " ".join(command)
    return any(word in text for word in words)


def _may_name_pr(event: "Event") -> bool:
    if event.tool_class == "shell":
        return _command_has(event, "gh", "github")
    return event.tool_class == "mcp" and "github" in (event.tool_name or "").lower()


@handler("workflow.pr_link")
def workflow_pr_link(event: "Event", out: "Output") -> None:
    """after_tool on shell and MCP: records a PR this session provably opened (`memhub
    sessions prs`); for a call naming one PR, asks to link it only if this session wrote it.

    A self-link needs a `gh pr create` whose printed URL provably came from it (or a GitHub
    MCP create); a pipeline that can hide a failed create is judged instead."""
    if _may_name_pr(event):
        from .workflows.prhooks import link

        link(event, out)


@handler("workflow.pr_babysit")
def workflow_pr_babysit(event: "Event", out: "Output") -> None:
    """after_tool on shell and MCP: after this session opened a PR, the instruction to start
    the babysit loop; silent on failure."""
    if _may_name_pr(event):
        from .workflows.prhooks import babysit

        babysit(event, out)


@handler("workflow.spec_owner")
def workflow_spec_owner(event: "Event", out: "Output") -> None:
    """after_tool on edit: names the spec owning the edited path (once per session);
    before_tool on shell: before a push or PR, names specs whose code changed unrevised."""
    if event.tool_class == "shell" and not (
        _command_has(event, "push") or (_command_has(event, "gh") and _command_has(event, "create"))
    ):
        return  # neither a push nor `gh pr create` (`--prod`, `printf`: nothing imported)
    from .workflows.spechooks import run

    run(event, out)


# handlers that act through context the model reads: a host event that shows the model
# nothing (Cursor's after-tool events, Gemini's BeforeTool) cannot carry them
NEEDS_MODEL_CONTEXT = frozenset(
    {"rules.advise", "workflow.pr_link", "workflow.pr_babysit", "workflow.spec_owner"}
)


@handler("recall.directives")
def recall_directives(event: "Event", out: "Output") -> None:
    """before_tool on edit and shell, after_tool_failure: inject the project's lessons and
    procedures whose triggers the file or (mutating) command names, once per session.

    A read-only shell command costs no lookup; the body is imported on call."""
    if event.name == "before_tool" and event.tool_class == "shell" and _read_only_command(event):
        return  # what directives_hook decides for it, without importing it
    from .memory.directives_hook import run

    run(event, out)


@handler("recall.refresh")
def recall_refresh(event: "Event", out: "Output") -> None:
    """turn_end: keep the session brief's caches current (a detached rebuild when a commit,
    a record or MEMORY.md moved their keys; nothing when they hold)."""
    from .memory.brief_refresh import run

    run(event, out)


@handler("recall.prompt")
def recall_prompt(event: "Event", out: "Output") -> None:
    """prompt_submit: at most three pointers to memory naming the prompt's file paths,
    symbols, `PR #N`, `ENG-N` or quoted errors; a prompt naming none costs nothing.

    The session's first prompt also delivers what the brief's detached child found."""
    from .memory.brief_pending import waiting
    from .memory.recall_ids import may_name

    # plain prose, no brief pending (one stat): not even the handler's module is imported
    if may_name(event.prompt) or waiting(out.home, event.host, event.session_id):
        from .memory.prompt_recall import run

        run(event, out)
