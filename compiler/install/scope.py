"""Where an install goes: user scope (the person's home) or project scope (a checkout)."""

from __future__ import annotations

import os
import shlex
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from memhub.hubspec.errors import MemhubError

ScopeKind = Literal["user", "project"]
SCOPE_KINDS: tuple[ScopeKind, ...] = ("user", "project")

# The console script every installed hook runs; the launcher is its sibling.
HOOK_SCRIPT = "memhub-hook"


def installation_scripts() -> Path | None:
    """The folder holding the console scripts of the memhub that is running now.

    Hooks and launchers run without the shell of the person who applied them (and often
    without the venv's bin on PATH), so installs name these scripts by absolute path. Where
    pip put them depends on how this memhub was installed: the interpreter's scripts folder
    (a venv, a system or pipx install), the user scheme's (`pip install --user`), or beside
    the `memhub` script that was started. The first of these holding `memhub-hook` wins;
    None when none does (a source tree run without installing).
    """
    candidates = [sysconfig.get_path("scripts")]
    if sysconfig.get_preferred_scheme("user") in sysconfig.get_scheme_names():
        candidates.append(sysconfig.get_path("scripts", sysconfig.get_preferred_scheme("user")))
    if sys.argv and sys.argv[0]:
        candidates.append(os.path.dirname(os.path.abspath(sys.argv[0])))
    for folder in candidates:
        if folder and os.path.isfile(os.path.join(folder, HOOK_SCRIPT)):
            return Path(folder)
    return None


def installation_hook() -> tuple[str, str] | None:
    """(interpreter, runtime hook.py) of the memhub running now, both absolute; None when
    either is unknown (an embedded interpreter, a runtime not on disk)."""
    python = sys.executable
    if not python or not os.path.isabs(python):
        return None
    import memhub.runtime

    script = os.path.join(os.path.dirname(os.path.abspath(memhub.runtime.__file__)), "hook.py")
    return (python, script) if os.path.isfile(script) else None


class ScopeError(MemhubError):
    """The environment names a host folder memhub cannot place."""

    exit_code = 2


def scope_kind(value: str) -> ScopeKind:
    """`--scope`'s text as a ScopeKind (click's choice list has already refused others)."""
    for kind in SCOPE_KINDS:
        if value == kind:
            return kind
    raise ScopeError(f"unknown scope {value!r}. Fix: use --scope user or --scope project")


@dataclass(frozen=True, slots=True)
class Scope:
    """The install scope and the environment that moves host folders (HOME, CODEX_HOME, ...)."""

    kind: ScopeKind
    home: Path
    project: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    # This installation's console scripts (installation_scripts); None: name them bare.
    scripts: Path | None = None
    # This installation's interpreter and runtime hook.py (installation_hook); None: hooks
    # run the `memhub-hook` console script.
    hook: tuple[str, str] | None = None

    @classmethod
    def from_environment(cls, kind: ScopeKind, project: Path | None = None) -> Scope:
        env = dict(os.environ)
        home = Path(env.get("HOME") or Path.home())
        if kind == "project":
            project = (project or Path.cwd()).absolute()
        return cls(kind, home, project, env, installation_scripts(), installation_hook())

    def script(self, name: str) -> str:
        """How a host file names console script `name`: its absolute path when known."""
        return os.fspath(self.scripts / name) if self.scripts is not None else name

    def script_command(self, name: str) -> str:
        """`script(name)` as the first word of a shell command (quoted when it must be)."""
        return shlex.quote(self.script(name))

    def hook_entry(self) -> str:
        """The first words of an installed hook's command: this installation's interpreter
        with `-S` on its runtime's hook.py, both by absolute path. The `memhub-hook` console
        script costs about three times as much (site, `re`, the `memhub` package), and a bare
        `python3` may be a version manager's shim (pyenv's costs 6.9x the real binary)."""
        if self.hook is None:
            return self.script_command(HOOK_SCRIPT)
        python, script = self.hook
        return f"{shlex.quote(python)} -S {shlex.quote(script)}"

    def env_dir(self, name: str, default: Path) -> Path:
        """A folder an environment variable may move (CLAUDE_CONFIG_DIR, CODEX_HOME).

        Empty is unset, as both hosts read it. A relative value is refused: the host
        resolves it against whatever folder it is started in, so no single folder is the
        one it reads, and memhub would write where the host later does not look."""
        value = self.env.get(name)
        if not value:
            return default
        path = Path(value)
        if not path.is_absolute():
            raise ScopeError(
                f"{name}={value!r} is a relative path: the host resolves it against the "
                f"folder it is started in, so memhub cannot know which folder it reads. "
                f'Fix: export {name} as an absolute path (for example {name}="$PWD/{value}"), '
                f"or unset it (nothing was written)"
            )
        return path

    @property
    def id(self) -> str:
        """How the ownership state names this scope: `user`, or `project:<folder>`."""
        return f"project:{self.base}" if self.kind == "project" else "user"

    @property
    def base(self) -> Path:
        """The folder project-scope paths are relative to (the home folder for user scope)."""
        return self.project if self.kind == "project" and self.project else self.home
