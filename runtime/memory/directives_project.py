"""Which memory a recall hook reads: the project of the event's folder, memoized per session.

Resolving runs git (`gitcheckout`) and reads the registry (`workspace.open_workspace`): a few
milliseconds and `json`, `re` and `pathlib` imported. A session works in one folder, so the
answer is kept in the session's folder (`project.memo`, four lines) and reused while the
folder asked about and the registry file (inode, size, mtime) are what they were. Stdlib.
"""

from __future__ import annotations

from ..lowos import OS, getenv, join, makedirs, stat_key

__all__ = ["INDEX", "Scope", "account", "index_path", "resolve"]

INDEX = "index.sqlite"  # layout.INDEX_FILE (layout imports pathlib and re)
MEMO = "project.memo"


class Scope:
    """What recall may read: the (scope, project) pairs and the project's name ("" if none)."""

    __slots__ = ("allowed", "name")

    def __init__(self, allowed: list[tuple[str, str | None]], name: str) -> None:
        self.allowed, self.name = allowed, name


def account() -> str:
    """The user's account name, as the gate blocks it: the home folder's name."""
    home = getenv("HOME") or getenv("USERPROFILE") or ""
    return home.replace("\\", "/").rstrip("/").rpartition("/")[2]


def index_path(home: str) -> str:
    """The derived search index recall reads."""
    return join(home, "memory", INDEX)


def _registry(home: str) -> str:
    return join(home, "memory", "projects.json")


def _encode(cwd: str, key: str, scope: Scope) -> str:
    pairs = " ".join(f"{s}:{p or ''}" for s, p in scope.allowed)
    return "\n".join(x.replace("\n", " ") for x in (cwd, key, scope.name, pairs)) + "\n"


def _decode(text: str, cwd: str, key: str) -> Scope | None:
    lines = text.split("\n")
    if len(lines) < 4 or lines[0] != cwd.replace("\n", " ") or lines[1] != key:
        return None
    allowed: list[tuple[str, str | None]] = []
    for pair in lines[3].split():
        scope, _, project = pair.partition(":")
        allowed.append((scope, project or None))
    return Scope(allowed, lines[2])


def _fresh(home: str, cwd: str) -> Scope:
    from pathlib import Path

    from .errors import MemoryServiceError
    from .workspace import open_workspace

    # A hung git is cut by the hook's watchdog (dispatch.BUDGET_S), which answers empty.
    try:
        ws = open_workspace(Path(home), cwd=Path(cwd), writable=False)
    except MemoryServiceError:
        return Scope([], "")  # a broken registry: no recall (the CLI says why)
    return Scope(ws.allowed(), ws.project_name or "")


def resolve(home: str, cwd: str, session_dir: str | None) -> Scope:
    """The memory a call in `cwd` may read (memoized in `session_dir` when one is given)."""
    key = stat_key(_registry(home))
    memo = join(session_dir, MEMO) if session_dir else ""
    if memo:
        try:
            with open(memo, encoding="utf-8", errors="replace") as f:
                found = _decode(f.read(), cwd, key)
            if found is not None:
                return found
        except OSError:
            pass
    scope = _fresh(home, cwd)
    if memo:
        try:
            makedirs(session_dir or ".")
            tmp = f"{memo}.{OS.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(_encode(cwd, key, scope))
            OS.replace(tmp, memo)
        except OSError:
            pass
    return scope
