"""Which git checkout a folder belongs to: its top level and the repository its worktrees share."""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass

GIT_TIMEOUT = 5.0  # seconds; a hung git (network filesystem, huge repo) must not hang a hook


@dataclass(frozen=True)
class Checkout:
    """A git working tree: its root, and the repository (common dir) all its worktrees share."""

    toplevel: str
    common_dir: str


def git_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a probe: no GIT_* redirection, no pager, never a prompt."""
    env = {
        k: v for k, v in (os.environ if base is None else base).items() if not k.startswith("GIT_")
    }
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_OPTIONAL_LOCKS="0",
        # A repository that happens to contain TMPDIR must not claim the scratch folders in it.
        GIT_CEILING_DIRECTORIES=_tempdir(),
    )
    return env


def _tempdir() -> str:
    """The resolved temporary folder (TMPDIR or the platform default)."""
    return os.path.realpath(tempfile.gettempdir())


def checkout_of(path: str | os.PathLike[str], *, timeout: float = GIT_TIMEOUT) -> Checkout | None:
    """The checkout holding `path`; None outside one, bare, broken, in TMPDIR, or git failed."""
    folder = os.path.realpath(os.fspath(path))
    if not os.path.isdir(folder) or folder == _tempdir():
        return None
    command = [
        "git",
        "--no-pager",
        "-C",
        folder,
        # No --path-format=absolute (git 2.31+): the common dir is relative to -C, joined below.
        "rev-parse",
        "--show-toplevel",
        "--git-common-dir",
    ]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=git_env(),
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None  # git missing, not executable, or timed out: no project rather than a hang
    if done.returncode != 0:
        return None
    return _parse(done.stdout, folder)


def _parse(stdout: bytes, folder: str) -> Checkout | None:
    """The two lines rev-parse printed, made absolute and resolved; None when either is missing."""
    # Split bytes on newlines only (str.splitlines also splits on \r and \x1c, valid in a path).
    lines = [os.fsdecode(line) for line in stdout.rstrip(b"\n").split(b"\n")]
    if len(lines) != 2 or not lines[0] or not lines[1]:
        return None  # inside a .git folder or a bare repository: no working tree
    toplevel, common = (os.path.realpath(os.path.join(folder, line)) for line in lines)
    if not os.path.isdir(toplevel) or not os.path.isdir(common):
        return None
    return Checkout(toplevel=toplevel, common_dir=common)
