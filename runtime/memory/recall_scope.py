"""Which memory a hook in a folder sees: the checkout, its project, the scopes, the index.

What `workspace.open_workspace` decides (the registry's binding of the folder's git checkout;
shared records only for a project that reads them), plus what recall hooks also need: the
checkout's top level, the index file, and a signature that changes when the resolution does.
None when there is no memory at all (no index file), which costs one `stat`. Stdlib only.
"""

from __future__ import annotations

import os

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .brief_where import Where

__all__ = ["Scope", "account_name", "resolve"]


class Scope:
    """The memory one hook call sees."""

    __slots__ = ("allowed", "common_dir", "index", "project_id", "project_name", "root", "toplevel")

    def __init__(
        self,
        root: str,
        toplevel: str | None,
        project_id: str | None,
        project_name: str | None,
        allowed: list[tuple[str, str | None]],
        common_dir: str | None = None,
    ) -> None:
        self.root, self.toplevel, self.common_dir = root, toplevel, common_dir
        self.project_id, self.project_name, self.allowed = project_id, project_name, allowed
        self.index = os.path.join(root, "index.sqlite")

    @property
    def signature(self) -> str:
        """What the resolution is, as one line (the brief announces a change of it)."""
        scopes = ",".join(scope for scope, _ in self.allowed) or "-"
        return f"{self.project_id or '-'}|{self.project_name or '-'}|{scopes}"

    def md_files(self) -> list[str]:
        """The MEMORY.md of each scope seen, the project's first."""
        out = []
        for scope, project in self.allowed:
            if scope == "project" and project:
                out.append(os.path.join(self.root, "projects", project, "MEMORY.md"))
            elif scope == "shared":
                out.append(os.path.join(self.root, "shared", "MEMORY.md"))
        return out


def _allowed(pid: str, shared: bool) -> list[tuple[str, str | None]]:
    return [("project", pid), ("shared", None)] if shared else [("project", pid)]


def _quick(path: str, common_dir: str) -> tuple[str, str, bool] | None:
    """(id, name, shared) of the connected project bound to `common_dir`, read from
    projects.json with the C JSON scanner: `projects.py` costs a hook ~15 ms of imports (json,
    re, typing). None when the file is not plainly well formed around that project (missing,
    odd, a binding claimed twice, disconnected): the registry module decides then, and says
    what is wrong."""
    from ..events import loads

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not _regular(os.fstat(handle.fileno()).st_mode):
            return None
        document = loads(handle.read(MAX_REGISTRY + 1))
    if not isinstance(document, dict) or document.get("version") != 1:
        return None
    listed = document.get("projects")
    if not isinstance(listed, dict):
        return None
    found = []
    for pid, raw in listed.items():
        bindings = raw.get("bindings") if isinstance(raw, dict) else None
        if not isinstance(bindings, list):
            return None
        if any(isinstance(b, dict) and b.get("common_dir") == common_dir for b in bindings):
            found.append((pid, raw))
    if len(found) != 1:
        return None
    pid, raw = found[0]
    name, shared = raw.get("name"), raw.get("shared", True)
    plain = isinstance(name, str) and name and isinstance(shared, bool)
    if not plain or raw.get("state") != "connected" or not _project_id(pid):
        return None
    return pid, name, shared


def _project_id(pid: str) -> bool:
    digits = pid[2:]
    return (
        pid.startswith("p-") and len(digits) == 12 and all(c in "0123456789abcdef" for c in digits)
    )


def _regular(mode: int) -> bool:
    return (mode & 0o170000) == 0o100000


MAX_REGISTRY = 16 * 1024 * 1024


def resolve(home: str, cwd: str | None, found: Where | bool | None = None) -> Scope | None:
    """The memory a hook running in `cwd` sees; None without an index or a folder.
    `found`: its checkout as brief_where found it without git (a `Where`, or False for
    none); git is asked otherwise."""
    root = os.path.join(home, "memory")
    if not cwd or not os.path.isfile(os.path.join(root, "index.sqlite")):
        return None
    from .gitcheckout import Checkout, checkout_of

    registry_file = os.path.join(root, "projects.json")
    if found is False:
        checkout = None
    elif found is not None and found is not True:
        checkout = Checkout(found.toplevel, found.common_dir)
    else:
        checkout = checkout_of(cwd)
    toplevel = checkout.toplevel if checkout is not None else None
    common = checkout.common_dir if checkout is not None else None
    quick = _quick(registry_file, common) if common is not None else None
    if quick is not None:
        pid, name, shared = quick
        return Scope(root, toplevel, pid, name, _allowed(pid, shared), common)
    from . import projects

    registry = projects.load_registry(registry_file)
    resolution = projects.resolve_checkout(registry, checkout)
    if resolution.project_id is None:
        return Scope(root, toplevel, None, None, [("shared", None)], common)
    entry = registry.projects[resolution.project_id]
    return Scope(root, toplevel, entry.id, entry.name, _allowed(entry.id, entry.shared), common)


def account_name() -> str:
    """The user's account name (the last part of the home folder), for the precision gate."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return os.path.basename(home.rstrip("/\\"))
