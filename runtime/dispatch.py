"""The hook process: one per host event, running every handler the hub bound to it.

    hook.py <host> <host-event> [<handler>[=<tool class>,...]]...

The compiler writes the bindings into the command itself (one dispatcher entry per host
event): `capture.commit=shell` runs `capture.commit` only for shell tools, a bare name runs
for every call of that event. The process reads the host's JSON on stdin, normalises it
(`events.normalise`), runs the bound handlers in-process, starts whatever they deferred as ONE
detached child (double fork + setsid, stdio on /dev/null), prints the answer in the host's
format and exits 0 — also on garbage input, a crashing handler or an unwritable MEMHUB_HOME.
Failures are appended to `$MEMHUB_HOME/logs/hook.log`.
"""

import sys

from .events import LOGICAL, dumps, loads, normalise
from .lowos import getenv, memhub_home

# typing.TYPE_CHECKING without importing typing, which would cost every hook call; the
# annotations that need these names are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import BinaryIO, TextIO

# Cursor events whose answer is a permission decision; memhub never denies, it observes
CURSOR_PERMISSION = frozenset(
    {"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "subagentStart"}
)
# events whose `hookSpecificOutput.additionalContext` reaches the model
CONTEXT_EVENTS = {
    "claude": frozenset(
        {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"}
    ),
    "codex": frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"}),
    "gemini": frozenset({"SessionStart", "BeforeAgent", "AfterTool"}),
    # Cursor: only sessionStart's answer reaches the model (`additional_context`, render)
    "cursor": frozenset({"sessionStart"}),
    # Copilot CLI 1.0.102: a top-level `additionalContext` (events_copilot.render)
    "copilot": frozenset(
        {"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "postToolUseFailure"}
    ),
}


def carries(host: str, logical: str) -> bool:
    """Whether the model reads what a handler says on `host`'s event for the logical event
    `logical` (`prompt_submit`, `before_tool` ...)."""
    carried = CONTEXT_EVENTS.get(host, frozenset())
    return any(n in carried for n, name in logical_events(host).items() if name == logical)


def logical_events(host: str) -> dict[str, str]:
    """`host`'s events -> logical events (Copilot's table lives beside its payloads)."""
    if host == "copilot":
        from .events_copilot import LOGICAL as COPILOT

        return COPILOT
    return LOGICAL.get(host, {})


BUDGET_S = 3.0  # the in-process part; hosts allow far more, except at session end
END_BUDGET_S = 0.8  # Claude: 1.5 s shared by every SessionEnd hook; Codex: 1 s by default
CHILD_LIMIT_S = 900  # the detached child is killed (SIGALRM) if it ever hangs this long
END_EVENTS = frozenset({"SessionEnd", "sessionEnd"})


class Output:
    """What the handlers of one call produce: user messages, model context, deferred work."""

    __slots__ = ("contexts", "home", "jobs", "messages", "started")

    def __init__(self, home: str) -> None:
        self.home = home
        self.messages: list[str] = []
        self.contexts: list[str] = []
        self.jobs: list[dict] = []
        self.started: list[Callable[[], object]] = []

    def system_message(self, text: str) -> None:
        """A message for the user (Claude, Codex, Gemini `systemMessage`)."""
        self.messages.append(text)

    def context(self, text: str) -> None:
        """Context for the model, where the host event takes it."""
        self.contexts.append(text)

    def detach(self, job: dict, on_started: "Callable[[], object] | None" = None) -> None:
        """Run `job` ({"call": "<module>.<function>", "args": [...], "kwargs": {...}}) in the
        detached child;
        `on_started()` runs in this process once the child exists."""
        self.jobs.append(job)
        if on_started is not None:
            self.started.append(on_started)


def log(home: str, where: str, message: str) -> None:
    """Append one line to `<home>/logs/hook.log`; never raises."""
    try:
        import os
        import time

        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = f"{stamp} pid={os.getpid()} {where}: {message}".replace("\n", " | ")
        folder = os.path.join(home, "logs")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(
            os.path.join(folder, "hook.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600
        )
        try:
            os.write(fd, (line[:4000] + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # logging must never break the hook
        pass


def describe(exc: BaseException) -> str:
    """`Type: message` and the frames (file:line function), never the source lines."""
    import os
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    where = " < ".join(f"{os.path.basename(f.filename)}:{f.lineno} {f.name}" for f in frames[::-1])
    return f"{type(exc).__name__}: {str(exc)[:300]} at {where}"


def parse_bindings(args: list[str]) -> list[tuple[str, frozenset[str] | None]]:
    """`name` or `name=class,class` -> (name, tool classes or None for every call)."""
    bindings = []
    for arg in args:
        name, eq, classes = arg.partition("=")
        bindings.append((name, frozenset(c for c in classes.split(",") if c) if eq else None))
    return bindings


def render(host: str, host_event: str, out: Output | None) -> str:
    """The answer in the host's format; with nothing to say, its neutral answer."""
    messages = out.messages if out else []
    contexts = out.contexts if out else []
    doc: dict = {}
    if host == "copilot":
        from .events_copilot import render as copilot

        return copilot(host_event, messages, contexts, CONTEXT_EVENTS["copilot"])
    if host == "cursor":
        if host_event in CURSOR_PERMISSION:
            doc["permission"] = "allow"
        elif host_event == "beforeSubmitPrompt":
            doc["continue"] = True
        elif host_event == "sessionStart" and (messages or contexts):
            # Cursor shows no message from sessionStart; the model gets it and can say it.
            doc["additional_context"] = "\n\n".join(messages + contexts)
        return dumps(doc)
    if messages:
        doc["systemMessage"] = "\n".join(messages)
    if contexts and host_event in CONTEXT_EVENTS.get(host, ()):
        doc["hookSpecificOutput"] = {
            "hookEventName": host_event,
            "additionalContext": "\n\n".join(contexts),
        }
    return dumps(doc)


def read_stdin(stream: "TextIO | BinaryIO | None") -> bytes:
    if stream is None:
        return b""
    try:
        if stream.isatty():
            return b""
    except (AttributeError, ValueError, OSError):
        pass
    try:
        return stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
    except (OSError, ValueError):
        return b""


def run(
    argv: list[str],
    stdin: "TextIO | BinaryIO | None" = None,
    stdout: "TextIO | None" = None,
    *,
    watchdog: bool = False,
) -> int:
    """One hook call. Always returns 0 after printing a valid answer for the host."""
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    host = argv[0] if argv else ""
    host_event = argv[1] if len(argv) > 1 else ""
    home = memhub_home()
    where = f"{host} {host_event}"
    state = {"written": False}

    def emit(text: str) -> None:
        if state["written"]:
            return
        state["written"] = True
        try:
            stdout.write(text + "\n")
            stdout.flush()
        except (OSError, ValueError):
            pass

    timer = _arm(emit, render(host, host_event, None), host_event) if watchdog else None
    answer = None
    try:
        answer = _handle(host, host_event, argv[2:], stdin, home, where)
    except BaseException as exc:
        log(home, where, describe(exc))
    finally:
        if timer is not None:
            _disarm(timer)
    emit(answer if answer is not None else render(host, host_event, None))
    return 0


def _handle(
    host: str,
    host_event: str,
    args: list[str],
    stdin: "TextIO | BinaryIO | None",
    home: str,
    where: str,
) -> str:
    payload = loads(read_stdin(stdin))
    if payload is None:
        payload = {}
    event = normalise(host, host_event, payload)
    out = Output(home)
    if event.name is not None and args:
        from .handlers import HANDLERS

        for name, classes in parse_bindings(args):
            if classes is not None and event.tool_class not in classes:
                continue
            handler = HANDLERS.get(name)
            if handler is None:
                log(home, where, f"unknown handler {name!r} (is the runtime older than the hub?)")
                continue
            try:
                handler(event, out)
            except Exception as exc:  # one handler failing leaves the others running
                log(home, f"{where} {name}", describe(exc))
    if out.jobs and detach(out.jobs, home, where):
        for callback in out.started:
            try:
                callback()
            except Exception as exc:
                log(home, where, describe(exc))
    return render(event.host, event.host_event, out)


# --- watchdog: answer and leave before the host's timeout ------------------------------------

# The signal module the timer was armed with, and the SIGALRM handler it replaced.
Timer = tuple["ModuleType", object]


def _exit(code: int) -> None:
    if sys.platform != "win32":
        import posix as os  # what `os` wraps, without importing `os`
    else:  # pragma: no cover
        import os
    os._exit(code)


def _arm(emit: "Callable[[str], None]", fallback: str, host_event: str) -> "Timer | None":
    try:
        if TYPE_CHECKING:  # `_signal` has no stubs; it is the C core of `signal`
            import signal as _signal
        else:
            import _signal  # `import signal` would pull in enum
    except ImportError:  # pragma: no cover
        return None
    if not hasattr(_signal, "setitimer"):  # pragma: no cover - Windows
        return None

    def expired(signum: int, frame: object) -> None:
        emit(fallback)
        _exit(0)

    previous = _signal.signal(_signal.SIGALRM, expired)
    budget = END_BUDGET_S if host_event in END_EVENTS else BUDGET_S
    configured = getenv("MEMHUB_HOOK_BUDGET_S")  # tests; a tighter host timeout
    if configured and configured.replace(".", "", 1).isdigit():
        budget = min(budget, max(0.05, float(configured)))
    _signal.setitimer(_signal.ITIMER_REAL, budget)
    return (_signal, previous)


def _disarm(timer: "Timer") -> None:
    signal_module, previous = timer
    signal_module.setitimer(signal_module.ITIMER_REAL, 0)
    signal_module.signal(signal_module.SIGALRM, previous)


# --- the detached child ----------------------------------------------------------------------


def detach(jobs: list[dict], home: str, where: str) -> bool:
    """Start one child running `jobs`, fully detached from the host: its own session, no
    stdin/stdout/stderr of ours (the host waits for our stdout to close, never for it)."""
    import os

    try:
        if hasattr(os, "fork"):
            return _fork(jobs, home, where)
        return _spawn(jobs)
    except Exception as exc:
        log(home, where, "could not start the detached child: " + describe(exc))
        return False


def _fork(jobs: list[dict], home: str, where: str) -> bool:
    import os

    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - contextlib would cost every hook an import
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)  # the first child leaves as soon as it has forked again
        return True
    try:  # first child: a new session, then the grandchild that does the work
        os.setsid()
        if os.fork():
            os._exit(0)
        _quiet()
        try:
            if TYPE_CHECKING:
                import signal as _signal
            else:
                import _signal

            _signal.signal(_signal.SIGALRM, _signal.SIG_DFL)
            _signal.alarm(CHILD_LIMIT_S)
        except (ImportError, AttributeError, OSError):
            pass
        run_jobs(jobs, home, where)
    except BaseException as exc:
        log(home, where + " child", describe(exc))
    finally:
        os._exit(0)


def _quiet() -> None:
    """Point stdin, stdout and stderr at /dev/null and close every other inherited fd."""
    import os

    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 1024)


def _spawn(jobs: list[dict]) -> bool:  # pragma: no cover - platforms without fork
    import os
    import subprocess

    package = __name__.rpartition(".")[0]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = (
        f"import sys; sys.path.append({root!r}); "
        f"from {package}.dispatch import child_main; child_main()"
    )
    flags = getattr(subprocess, "DETACHED_PROCESS", 0) | getattr(
        subprocess, "CREATE_NEW_PROCESS_GROUP", 0
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        creationflags=flags,
        start_new_session=not flags,
        close_fds=True,
    )
    assert child.stdin is not None  # stdin=PIPE
    child.stdin.write(dumps({"jobs": jobs, "home": memhub_home()}).encode("utf-8"))
    child.stdin.close()
    return True


def child_main() -> None:  # pragma: no cover - platforms without fork
    spec = loads(sys.stdin.buffer.read())
    if not isinstance(spec, dict):
        spec = {}
    run_jobs(spec.get("jobs") or [], spec.get("home") or memhub_home(), "child")


def run_jobs(jobs: list[dict], home: str, where: str) -> None:
    """Each job is `{"call": "<module>.<function>", "args": [...], "kwargs": {...}}`, a
    function of this package."""
    package = __name__.rpartition(".")[0]
    for job in jobs:
        call = job.get("call", "")
        try:
            module_name, _, function = call.rpartition(".")
            module = __import__(f"{package}.{module_name}", fromlist=[function])
            getattr(module, function)(*job.get("args", ()), **(job.get("kwargs") or {}))
        except BaseException as exc:
            log(home, f"{where} {call}", describe(exc))
