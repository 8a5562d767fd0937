"""Helpers for the memory service tests: a memhub home with registered git checkouts."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from memhub.runtime.memory import layout
from memhub.runtime.memory import projects as P
from memhub.runtime.memory.gitcheckout import checkout_of
from memhub.runtime.memory.records import Record, Source, render_record
from memhub.runtime.memory.service import MemoryService
from memhub.runtime.memory.workspace import open_workspace


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


def record(rid: str, scope: str = "shared", project: str | None = None, **fields: object) -> Record:
    """A valid record with defaults for what a test does not care about."""
    base: dict[str, object] = {
        "id": rid,
        "title": f"title of {rid}",
        "kind": "fact",
        "scope": scope,
        "project": project,
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:00Z",
        "source": Source(kind="user"),
        "body": f"body of {rid}\n",
    }
    base.update(fields)
    return Record(**base)  # type: ignore[arg-type]


def put(home: Path, rec: Record) -> Path:
    """Write a record's file directly (as an editor or another tool would)."""
    path = layout.record_path(layout.memory_root(home), rec.scope, rec.project, rec.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(render_record(rec))
    return path


@dataclass
class Memory:
    """A home with two registered projects, `app` (the caller's) and `other`."""

    home: Path
    app: Path
    pid: str
    other: Path
    other_pid: str

    def service(self, *, window: float = 0.0, **kw: object) -> MemoryService:
        """A service in strict mode by default (every read checks every file's stat);
        `window` > 0 is the CLI's default (unchanged folders trusted that long)."""
        cwd = kw.pop("cwd", self.app)
        workspace = open_workspace(self.home, cwd=cwd, **kw)  # type: ignore[arg-type]
        return MemoryService(workspace, window=window)


def make_memory(tmp_path: Path) -> Memory:
    home = tmp_path / "home"
    app, other = git_repo(tmp_path / "app"), git_repo(tmp_path / "other")
    pid = connect(home, app, "app")
    other_pid = connect(home, other, "secret-client")
    return Memory(home, app, pid, other, other_pid)
