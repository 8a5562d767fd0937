"""Where an install goes: user scope (the person's home) or project scope (a checkout)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

ScopeKind = Literal["user", "project"]


@dataclass(frozen=True, slots=True)
class Scope:
    """The install scope and the environment that moves host folders (HOME, CODEX_HOME, ...)."""

    kind: ScopeKind
    home: Path
    project: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_environment(cls, kind: ScopeKind, project: Path | None = None) -> Scope:
        env = dict(os.environ)
        home = Path(env.get("HOME") or Path.home())
        if kind == "project":
            project = (project or Path.cwd()).absolute()
        return cls(kind, home, project, env)

    def env_dir(self, name: str, default: Path) -> Path:
        """A folder an environment variable may move (CLAUDE_CONFIG_DIR, CODEX_HOME)."""
        value = self.env.get(name)
        return Path(value) if value else default

    @property
    def id(self) -> str:
        """How the ownership state names this scope: `user`, or `project:<folder>`."""
        return f"project:{self.base}" if self.kind == "project" else "user"

    @property
    def base(self) -> Path:
        """The folder project-scope paths are relative to (the home folder for user scope)."""
        return self.project if self.kind == "project" and self.project else self.home
