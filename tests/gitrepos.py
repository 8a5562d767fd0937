"""Real git repositories for tests: a repository, a commit, a second worktree."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memhub.runtime.memory.gitcheckout import git_env


def git(*args: str, cwd: Path) -> None:
    """Run git in `cwd` with a clean environment and a throwaway identity."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        env=git_env(),
        check=True,
        capture_output=True,
    )


def repo(path: Path, *, commit: bool = False) -> Path:
    """A fresh git repository at `path` (with one empty commit when a worktree needs it)."""
    path.mkdir(parents=True)
    git("init", "-q", cwd=path)
    if commit:
        git("commit", "-q", "--allow-empty", "-m", "first", cwd=path)
    return path


def worktree(main: Path, at: Path) -> Path:
    """A second worktree of `main` at `at`."""
    git("worktree", "add", "-q", "-b", at.name, str(at), cwd=main)
    return at
