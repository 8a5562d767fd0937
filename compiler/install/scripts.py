"""Warnings about console scripts an install names bare (memhub run from a source tree)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memhub.compiler.hosts.hooks import HOOK_EXECUTABLE
from memhub.compiler.hosts.launcher import LAUNCHER_EXECUTABLE
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.memory import SERVER_COMMAND


def bare_script_warnings(entries: Iterable[Entry], scope: Scope) -> list[str]:
    """One warning per console script the entries name bare, with the files naming it.

    A memhub started from a source tree that pip never installed has no `memhub-hook`
    beside its interpreter (Scope.scripts is None), so hooks and launched servers name the
    script bare; a host runs them with its own PATH, which need not hold one, and then every
    hook and launched server fails to start. Saying so beats writing it silently."""
    if scope.scripts is not None:
        return []
    found: dict[str, set[str]] = {}
    for entry in entries:
        if entry.format in ("json", "toml"):
            for name in _bare_scripts(entry.value):
                found.setdefault(name, set()).add(entry.target)
    here = Path(sys.executable).parent
    return [
        f"{', '.join(sorted(found[name]))}: {_RUN_BY[name]} `{name}` by bare "
        f"name, because this memhub is not installed (no `{name}` script beside its "
        f"interpreter in {here}); a host whose PATH lacks `{name}` cannot run them. Fix: "
        f"install memhub with pip (`pip install .` in its source tree) so its scripts exist, "
        f"then apply again"
        for name in sorted(found)
    ]


_RUN_BY = {
    HOOK_EXECUTABLE: "hooks run",
    LAUNCHER_EXECUTABLE: "servers started through memhub's launcher run",
    SERVER_COMMAND: "the memory server (`memory:`) runs",
}


def _bare_scripts(value: Any) -> Iterable[str]:
    """The console scripts a value names bare as a command (a hook's command line, a
    server's `command`): strings that are the script's name or start with it and a space."""
    if isinstance(value, str):
        word = value.split(" ", 1)[0]
        if word in _RUN_BY:
            yield word
    elif isinstance(value, dict):
        for item in value.values():
            yield from _bare_scripts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _bare_scripts(item)
