"""Who is asking: the memhub home, the project resolved from a git checkout, the scopes granted.

A workspace is fixed when it is opened (by the CLI for one command, by the MCP server for its
lifetime); nothing a caller passes later widens it. Stdlib only (vendored).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from . import layout, projects
from .errors import MemoryServiceError

__all__ = ["Workspace", "open_workspace"]

SCOPES = layout.SCOPES


class Workspace(NamedTuple):
    """The memory a caller may see: memhub's home, its project (or None and why), its scopes."""

    home: Path  # MEMHUB_HOME
    project_id: str | None
    project_name: str | None
    scopes: tuple[str, ...]  # a subset of ("shared", "project")
    writable: bool
    message: str = ""  # why there is no project (empty when there is one)

    @property
    def root(self) -> Path:
        """The memory folder, `$MEMHUB_HOME/memory`."""
        return layout.memory_root(self.home)

    def allowed(self) -> list[tuple[str, str | None]]:
        """The (scope, project) pairs index queries are limited to."""
        pairs: list[tuple[str, str | None]] = []
        if "project" in self.scopes and self.project_id is not None:
            pairs.append(("project", self.project_id))
        if "shared" in self.scopes:
            pairs.append(("shared", None))
        return pairs

    def grants(self, scope: str, project: str | None) -> bool:
        """Whether (scope, project) is one of `allowed()`."""
        return (scope, project) in self.allowed()


def open_workspace(
    home: Path,
    *,
    cwd: Path | None = None,
    project: str | os.PathLike[str] | None = None,
    scopes: Sequence[str] = SCOPES,
    writable: bool = True,
) -> Workspace:
    """The workspace of a caller in `cwd` (or the folder `project`), limited to `scopes`.

    The project is resolved from the folder's git checkout through the registry; a project
    reads shared records only if it enables them (`Project.shared`).
    """
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise MemoryServiceError(
            f"scope {unknown[0]!r} is unknown", "use 'shared', 'project' or both"
        )
    root = layout.memory_root(home)
    try:
        registry = projects.load_registry(layout.projects_file(root))
    except projects.RegistryError as exc:
        raise MemoryServiceError(str(exc), "fix or remove projects.json") from None
    folder = Path(project) if project is not None else (cwd or Path(os.getcwd()))
    resolution = projects.resolve(registry, folder)
    granted = [s for s in SCOPES if s in scopes]
    if resolution.project_id is None:
        return Workspace(
            Path(home),
            None,
            None,
            tuple(s for s in granted if s == "shared"),
            writable,
            resolution.message,
        )
    entry = registry.projects[resolution.project_id]
    if not entry.shared:
        granted = [s for s in granted if s != "shared"]
    return Workspace(Path(home), entry.id, entry.name, tuple(granted), writable)
