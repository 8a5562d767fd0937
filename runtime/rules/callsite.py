"""What a call is to the rules: its project, its files, its command, and which rules fire.

Imported by the `rules.advise` hook only once books exist and the event can carry advice.
"""

from __future__ import annotations

import os
import time

from ..memory import directives
from ..workflows.hookdata import edited_paths
from . import fire

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..events import Event
    from ..memory.gitcheckout import Checkout
    from .book import Book

Found = "tuple[str, list[fire.Fire]] | None"


def project_of(checkout: Checkout | None) -> tuple[str, ...]:
    """The project id and name the checkout files under ((), outside a connected one)."""
    if checkout is None:
        return ()
    from ..lowos import memhub_home
    from ..memory import layout, projects

    try:
        registry = projects.load_registry(layout.projects_file(layout.memory_root(memhub_home())))
    except projects.RegistryError:
        return ()
    resolved = projects.resolve_checkout(registry, checkout)
    if resolved.project_id is None:
        return ()
    entry = registry.projects[resolved.project_id]
    return (entry.id, entry.name)


def checkout_near(path: str) -> Checkout | None:
    """The checkout of `path`'s nearest existing folder."""
    from ..memory.gitcheckout import checkout_of

    folder = path if os.path.isdir(path) else os.path.dirname(path)
    while folder and not os.path.isdir(folder):
        parent = os.path.dirname(folder)
        folder = "" if parent == folder else parent
    return checkout_of(folder) if folder else None


def touched_by_shell(checkout: Checkout, cwd: str, since_ns: int) -> list[str]:
    """Files git reports changed or new in the checkout, inside `cwd`, whose mtime is at or
    after `since_ns`: what the command just run left on disk."""
    from ..memory.gitcheckout import git_env, run_git
    from .hook import MAX_CANDIDATES, inside

    done = run_git(
        ["git", "-C", checkout.toplevel, "status", "--porcelain=v1", "-z", "--untracked-files=all"],
        git_env(),
        5.0,
    )
    if done is None or done[0] != 0:
        return []
    entries = done[1].split(b"\0")
    out: list[str] = []
    skip = False
    for entry in entries:
        if skip:  # a rename's second field: where it came from
            skip = False
            continue
        if len(entry) < 4:
            continue
        status, name = entry[:2], os.fsdecode(entry[3:])
        skip = status[:1] in (b"R", b"C")
        path = os.path.join(checkout.toplevel, name)
        try:
            changed = os.stat(path, follow_symlinks=False).st_mtime_ns >= since_ns
        except OSError:
            continue  # deleted: nothing on disk to read
        if changed and inside(path, cwd):
            out.append(path)
        if len(out) >= MAX_CANDIDATES:
            break
    return out


def decide(
    event: Event, mode: str, books: Sequence[Book], person: str, budget_chars: int
) -> tuple[tuple[str, list[fire.Fire]] | None, str]:
    """(the advice text and its fires, or None; the rule event that fired)."""
    from ..lowos import memhub_home
    from .hook import RECENT_S, load_state, mark_of

    cwd = event.cwd or ""
    state = load_state(memhub_home(), event)
    already = [
        tuple(pair) for pair in state.get("fired", []) if isinstance(pair, list) and len(pair) == 2
    ]
    if mode == "session":
        checkout = checkout_near(cwd)
        text, shown = fire.session_block(
            books, person=person, project=project_of(checkout), budget_chars=budget_chars
        )
        return ((text, shown) if shown else None), "session_start"
    found: list[fire.Fire] = []
    fired_event = "edit"
    if mode == "edit":
        paths = edited_paths(event)  # path fields, or an `apply_patch` envelope's files
        if paths:
            checkout = checkout_near(paths[0]) or checkout_near(cwd)
            found = _fires(books, "edit", directives.Call(paths=paths), person, checkout, already)
    if "bash" in mode and event.command:
        checkout = checkout_near(cwd)
        call = directives.Call(command=event.command)
        found = _fires(books, "bash", call, person, checkout, already)
        fired_event = "bash"
    if "shell-edits" in mode:
        checkout = checkout_near(cwd)
        if checkout is not None:
            mark = mark_of(memhub_home(), event) or time.time_ns() - int(RECENT_S * 1e9)
            paths = touched_by_shell(checkout, cwd, mark)
            done = already + [(f.rule.book, f.rule.id) for f in found]
            if paths:
                more = _fires(books, "edit", directives.Call(paths=paths), person, checkout, done)
                found, fired_event = found + more, fired_event if found else "edit"
    if not found:
        return None, fired_event
    return (fire.advisories(found), found), fired_event


def _fires(
    books: Sequence[Book],
    event: str,
    call: directives.Call,
    person: str,
    checkout: Checkout | None,
    already: Sequence[tuple[str, str]],
) -> list[fire.Fire]:
    repo = os.path.basename(checkout.toplevel) if checkout is not None else ""
    stop = directives.blocked(account=person, repo=repo)
    return fire.fires(
        books, event, call, person=person, project=project_of(checkout), stop=stop, already=already
    )
