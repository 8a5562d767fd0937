"""The `rules.advise` hook: rulebook rules as advisories at the moment of a call.

- `edit` rules: the file paths of an edit/write tool, before the write (after it on a host
  whose before-tool event shows the model nothing), and after a shell command, the files it
  left changed on disk: git decides the candidates (`git status`), each file's mtime decides
  whether this call touched it (at or after the time the before-tool hook saw the command).
- `bash` rules: the command, before it runs (after it where the host cannot say it before).
- `session_start` rules: a block within the budget the brief leaves them (a third of
  MEMHUB_BRIEF_TOKEN_BUDGET), from the session's directory alone.

The repo is the one the call works in: the edited file's checkout first, the session's
directory second; a path is followed only while it stays inside the session's directory.
A rule fires once per session. Fires go to the ledger under the raw session id. Books are
read only when a books folder holds one (`books_present`): a person with no rulebooks
pays a failed open per folder.
"""

from __future__ import annotations

import os
import time

from ..dispatch import CONTEXT_EVENTS, carries, log
from ..lowos import getenv
from ..workflows.hookdata import inside, named_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..dispatch import Output
    from ..events import Event
    from .book import Book
    from .fire import Fire

NAME = "rules.advise"
BRIEF_BUDGET_ENV = "MEMHUB_BRIEF_TOKEN_BUDGET"
DEFAULT_BRIEF_TOKENS = 2500
RECENT_S = 10.0  # without a before-tool mark: what changed this recently counts as touched
MAX_CANDIDATES = 200  # files git reports changed; beyond this the call is not read


def person() -> str:
    """Who the books bind: $MEMHUB_PERSON, else the login name from the environment."""
    return (getenv("MEMHUB_PERSON") or getenv("USER") or getenv("LOGNAME") or "").strip()


def session_budget_chars() -> int:
    """The session-start block's budget: a third of the brief's tokens (2:1), at 4 chars."""
    raw = getenv(BRIEF_BUDGET_ENV) or ""
    tokens = int(raw) if raw.strip().isdigit() else DEFAULT_BRIEF_TOKENS
    return tokens * 4 // 3


def when(event: Event) -> str | None:
    """What this event does: 'edit' (paths), 'bash' (the command), 'shell-edits' (files a
    command changed), 'session' (the block), or None."""
    if event.host_event not in CONTEXT_EVENTS.get(event.host, frozenset()):
        return None  # nobody would see it
    if event.name == "session_start":
        return "session"
    before = carries(event.host, "before_tool")
    edit_now = event.name == "before_tool" or (event.name == "after_tool" and not before)
    if event.tool_class == "edit" and edit_now:
        return "edit"
    if event.tool_class == "shell":
        if event.name == "before_tool":
            return "bash"
        if event.name == "after_tool":
            return "shell-edits" if before else "bash+shell-edits"
    return None


def run(event: Event, out: Output) -> None:
    """The handler: decide, render, record. Expected failures are logged, never raised."""
    from . import books_present

    mode = when(event)
    home = out.home
    if mode is None or not event.cwd or not books_present(home):
        return
    from . import store

    books = in_session(store.cached_books(home), event.cwd)
    if not books:
        return
    if mode == "bash" and event.name == "before_tool" and event.session_id:
        _mark(home, event)  # what this command's shell-edits compares file mtimes with
    who = person()
    if not could_fire(books, mode, event, who):
        return
    from . import callsite

    found, fired_event = callsite.decide(event, mode, books, who, session_budget_chars())
    if not found:
        return
    text, fires = found
    if text:
        out.context(text)
    _remember(home, event, fires, fired_event)


def could_fire(books: Sequence[Book], mode: str, event: Event, who: str) -> bool:
    """False when no rule can fire on this call, told cheaply: every rule's trigger keys
    (`directives.trigger_key`: a text each call it fires on contains) are missing from the
    call's text. Nothing is parsed and git is not asked then."""
    from ..memory import directives

    wanted = {"session": ("session_start",), "edit": ("edit",), "bash": ("bash",),
              "shell-edits": ("edit",), "bash+shell-edits": ("bash", "edit")}[mode]  # fmt: skip
    rules = [
        rule
        for book in books
        if book.binds(who)
        for rule in book.rules
        if rule.state == "active" and rule.event in wanted
    ]
    if (
        not rules
        or mode == "session"
        or ("shell-edits" in mode and any(r.event == "edit" for r in rules))
    ):
        return bool(rules)  # the session block, or files git must name first
    paths = named_paths(event) if event.tool_class == "edit" else []
    call = directives.Call(paths=paths, command=event.command or "")
    text = directives.haystack(call)
    for rule in rules:
        for kind, triggers in rule.triggers.items():
            for trigger in triggers:
                key = directives.trigger_key(kind, trigger)
                if not key or key in text:
                    return True
    return False


def in_session(books: Sequence[Book], cwd: str) -> list[Book]:
    """The books that bind in the session's directory: a project-scope hub's only inside
    its project."""
    return [b for b in books if b.within is None or inside(cwd, b.within)]


def _state_file(home: str, event: Event) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in str(event.session_id))[:200]
    return os.path.join(home, "rules", "sessions", f"{event.host}-{safe}.json")


def load_state(home: str, event: Event) -> dict:
    """This session's rule state: {fired: [[book, rule]...], mark: ns}."""
    import json

    try:
        with open(_state_file(home, event), "rb") as handle:
            data = json.loads(handle.read(1 << 20))
    except (OSError, ValueError):
        return {"fired": [], "mark": 0}
    return data if isinstance(data, dict) else {"fired": [], "mark": 0}


def save_state(home: str, event: Event, state: dict) -> None:
    import json

    path = _state_file(home, event)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.replace(tmp, path)
    except OSError as exc:
        log(home, NAME, f"session state not saved: {exc}")


def _mark_file(home: str, event: Event) -> str:
    return _state_file(home, event)[: -len(".json")] + ".mark"


def _mark(home: str, event: Event) -> None:
    """Remember when this shell command started: the mark file's mtime (no JSON written)."""
    path = _mark_file(home, event)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        os.close(fd)
        now = time.time_ns()
        os.utime(path, ns=(now, now), follow_symlinks=False)
    except OSError as exc:
        log(home, NAME, f"shell mark not saved: {exc}")


def mark_of(home: str, event: Event) -> int:
    """When the last shell command of this session started (ns), 0 when unknown."""
    try:
        return os.stat(_mark_file(home, event), follow_symlinks=False).st_mtime_ns
    except OSError:
        return 0


def _remember(home: str, event: Event, fires: Sequence[Fire], fired_event: str) -> None:
    from . import ledger

    state = load_state(home, event)
    state["fired"] = [*state.get("fired", []), *([f.rule.book, f.rule.id] for f in fires)]
    save_state(home, event, state)
    try:
        ledger.record(
            home,
            host=event.host,
            session=str(event.session_id or ""),
            event=fired_event,
            fires=fires,
            at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )
    except OSError as exc:
        log(home, NAME, f"fire not recorded: {exc}")
