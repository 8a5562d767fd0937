"""A hub's `rulebooks:` in its bundles and installs, and the coverage row of each book per host.

A bundle carries each book beside its vendored runtime (`<plugin>/memhub_rulebooks/<name>.json`,
the file runtime/rules/store.py reads); an install writes them as one folder per hub under
`$MEMHUB_HOME/rules/hub/` through the ordinary plan (a `tree` entry, so diff shows them and undo
and uninstall take them back). A project-scope install names its folder `<plugin>@<key>` and
marks it with the project's path: its books bind only inside that project.

Books fire only where the hub binds the `rules.advise` handler on events whose output
reaches the model: a book's row says, per host, which of its rule events (edit, bash,
session_start) no such hook carries there.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from memhub.compiler.artifact import FILE_MODE, Artifact
from memhub.compiler.digest import skill_tree_value
from memhub.compiler.hosts.base import CoverageRow, CoverageStatus
from memhub.compiler.hosts.common import SHARED, json_bytes, plugin_dir
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, Rulebook
from memhub.runtime import rules as runtime_rules

BUNDLED = runtime_rules.BUNDLED
HANDLER = "rules.advise"
COMPONENT = "rulebook"
TOOL_EVENTS = ("before_tool", "after_tool")
BIND_HINT = (
    f"bind {HANDLER} in `hooks:` on session_start and on before_tool and after_tool with "
    "tools [edit, shell]"
)


def file_name(book: Rulebook) -> str:
    """The book's file name, as runtime/rules/store.py names a book's file."""
    return f"{book.name.strip().lower()}.json"


def book_files(hub: Hub) -> tuple[tuple[str, bytes, int], ...]:
    """(file name, bytes, mode) of every book of the hub."""
    return tuple((file_name(b), json_bytes(b.mapping()), FILE_MODE) for b in hub.rulebooks)


def bundle_artifacts(hub: Hub, root: str) -> list[Artifact]:
    """The books beside the vendored runtime (none without one: nothing there reads them)."""
    if not hub.needs_runtime:
        return []
    base = f"{plugin_dir(hub, root)}/{BUNDLED}"
    return [
        Artifact(f"{base}/{name}", data, mode, (SHARED,)) for name, data, mode in book_files(hub)
    ]


def install_folder(hub: Hub, scope: Scope, home: Path) -> Path:
    """Where an install keeps the hub's books: `<home>/rules/hub/<plugin>` at user scope,
    `<plugin>@<key of the project folder>` at project scope."""
    name = hub.plugin.name
    if scope.kind == "project":
        key = hashlib.sha256(os.fsencode(scope.base)).hexdigest()[:12]
        name = f"{name}@{key}"
    return Path(runtime_rules.hub_books_dir(os.fspath(home))) / name


def install_entries(hub: Hub, scope: Scope, hosts: Sequence[str], home: Path) -> list[Entry]:
    """One `tree` entry per host (hosts share it: one folder, written once) holding exactly
    the hub's books, and at project scope the mark naming the project."""
    if not hub.rulebooks:
        return []
    files = book_files(hub)
    if scope.kind == "project":
        mark = (os.fspath(scope.base) + "\n").encode("utf-8")
        files = ((runtime_rules.PROJECT_MARK, mark, FILE_MODE), *files)
    value = skill_tree_value(files)
    target = os.fspath(install_folder(hub, scope, home))
    return [Entry(host, target, "tree", (), value, files=files) for host in hosts]


def carried(hub: Hub, host: str, rows: Iterable[CoverageRow]) -> frozenset[str]:
    """The rule events a `rules.advise` hook carries on `host`, from the hook rows of that
    host: a session_start hook carries session_start rules, a tool hook on edit tools edit
    rules, on shell tools bash rules (and only on tool classes the host has)."""
    from memhub.compiler.hosts import ADAPTERS

    live = {
        r.id for r in rows if r.host == host and r.component == "hook" and r.status != "unsupported"
    }
    tools = ADAPTERS[host].TOOLS
    events: set[str] = set()
    for hook in hub.hooks:
        if hook.handler != HANDLER or hook.id not in live:
            continue
        if hook.event == "session_start":
            events.add("session_start")
        elif hook.event in TOOL_EVENTS:
            classes = [c for c in (hook.tools or ("edit", "shell")) if tools.get(c) is not None]
            events |= {"edit"} if "edit" in classes else set()
            events |= {"bash"} if "shell" in classes else set()
    return frozenset(events)


def bound_events(hub: Hub) -> frozenset[str]:
    """The rule events some `rules.advise` hook of the hub is bound for, on any host."""
    events: set[str] = set()
    for hook in hub.hooks:
        if hook.handler == HANDLER and hook.event == "session_start":
            events.add("session_start")
        elif hook.handler == HANDLER and hook.event in TOOL_EVENTS:
            classes = hook.tools or ("edit", "shell")
            events |= {"edit"} if "edit" in classes else set()
            events |= {"bash"} if "shell" in classes else set()
    return frozenset(events)


def coverage_rows(
    hub: Hub, host: str, rows: Iterable[CoverageRow], target_of: str, runtime: bool = True
) -> list[CoverageRow]:
    """One row per book on `host`: mapped when a hook carries every event its active rules
    fire on, a caveat when some, unsupported when none. `target_of` is where the books go
    (`{}` stands for the file name); `runtime`: whether anything there reads them."""
    have = carried(hub, host, list(rows))
    bound = bound_events(hub)
    found = []
    for book in hub.rulebooks:
        target = target_of.format(file_name(book))
        wanted = book.events
        missing = sorted(wanted - have)
        status: CoverageStatus = "mapped"
        reason = ""
        if wanted and not runtime:
            status, reason = (
                "unsupported",
                (
                    "this bundle runs the installed memhub (runtime: vendor: never), which does not "
                    "read a bundle's books: vendor the runtime, or `memhub apply` the hub"
                ),
            )
        elif missing:
            status = "unsupported" if len(missing) == len(wanted) else "caveat"
            reason = _not_carried(host, missing, bound)
        found.append(CoverageRow(host, COMPONENT, book.name, status, target, reason))
    return found


def _not_carried(host: str, events: list[str], bound: frozenset[str]) -> str:
    """Why `events` rules do not fire on `host`: no hook is bound for some, and the hooks
    bound for the others cannot reach the model there."""
    unbound = [e for e in events if e not in bound]
    unseen = [e for e in events if e in bound]
    why = []
    if unbound:
        why.append(f"the hub binds no {HANDLER} hook for {', '.join(unbound)} rules ({BIND_HINT})")
    if unseen:
        why.append(
            f"the {HANDLER} hooks for {', '.join(unseen)} rules cannot reach the model there "
            "(see their hook rows)"
        )
    return f"its {', '.join(events)} rules do not fire on {host}: " + "; ".join(why)
