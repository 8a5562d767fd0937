"""Which memory a hook in a folder sees: the checkout, its project, the scopes, the index.

What `workspace.open_workspace` decides (the registry's binding of the folder's git checkout;
shared records only for a project that reads them), plus what recall hooks also need: the
checkout's top level, the index file, and a signature that changes when the resolution does.
None when there is no memory at all (no index file), which costs one `stat`. Stdlib only.
"""

from __future__ import annotations

import os

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


def resolve(home: str, cwd: str | None) -> Scope | None:
    """The memory a hook running in `cwd` sees; None without an index or a folder."""
    root = os.path.join(home, "memory")
    if not cwd or not os.path.isfile(os.path.join(root, "index.sqlite")):
        return None
    from . import projects
    from .gitcheckout import checkout_of

    registry = projects.load_registry(os.path.join(root, projects.FILENAME))
    checkout = checkout_of(cwd)
    resolution = projects.resolve_checkout(registry, checkout)
    toplevel = checkout.toplevel if checkout is not None else None
    common = checkout.common_dir if checkout is not None else None
    if resolution.project_id is None:
        return Scope(root, toplevel, None, None, [("shared", None)], common)
    entry = registry.projects[resolution.project_id]
    allowed: list[tuple[str, str | None]] = [("project", entry.id)]
    if entry.shared:
        allowed.append(("shared", None))
    return Scope(root, toplevel, entry.id, entry.name, allowed, common)


def account_name() -> str:
    """The user's account name (the last part of the home folder), for the precision gate."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return os.path.basename(home.rstrip("/\\"))
