"""Helpers for the memory service tests: a memhub home with registered git checkouts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memhub.runtime.memory import layout
from memhub.runtime.memory import projects as P
from memhub.runtime.memory.gitcheckout import checkout_of


def git_repo(path: Path) -> Path:
    """A fresh git repository at `path`."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    return path


def connect(home: Path, folder: Path, name: str | None = None, *, shared: bool = True) -> str:
    """Register the checkout of `folder` in `home`'s registry; its project id."""
    path = layout.projects_file(layout.memory_root(home))
    found = checkout_of(folder)
    assert found is not None, folder
    registry, pid, _ = P.connect(P.load_registry(path), found, name)
    if not shared:
        registry = P.set_shared(registry, pid, False)
    P.save_registry(path, registry)
    return pid
