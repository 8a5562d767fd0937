"""Where a session starts, from the files git keeps, without running git: the brief's cache keys.

`checkout(cwd)` finds the checkout the way git's discovery does (the nearest `.git` folder or
`gitdir:` file above the folder, never at or above the temporary folder, which `git_env` makes
git's ceiling) and answers None whenever it cannot be sure (`UNSURE`): the caller asks git
then (`gitcheckout.checkout_of`). `branch_key(where)` is one line that changes whenever what
`brief_git.branch_of` reads may have: HEAD and the ref it names, packed refs, the default
branch's refs, the checkout's index file (staging, commits, checkouts and `git status` all
rewrite it). Stat calls and small reads only; stdlib only.
"""

from __future__ import annotations

import os

from ..lowos import stat_key

__all__ = ["UNSURE", "Where", "branch_key", "checkout"]

UNSURE = None  # the walk could not decide: ask git
MAX_DEPTH = 64
# config (lower case, blanks removed) the walk cannot follow: git decides then
_UNSURE_CONFIG = ("worktree", "bare=true", "bare=1", "bare=yes", "bare=on", "include")
_DEFAULT_REFS = (
    "refs/remotes/origin/HEAD",
    "refs/remotes/origin/main",
    "refs/heads/main",
    "refs/remotes/origin/master",
    "refs/heads/master",
)


class Where:
    """A checkout as its files say: top level, its own git folder, the shared one."""

    __slots__ = ("common_dir", "git_dir", "toplevel")

    def __init__(self, toplevel: str, git_dir: str, common_dir: str) -> None:
        self.toplevel, self.git_dir, self.common_dir = toplevel, git_dir, common_dir

    def __repr__(self) -> str:
        return f"Where({self.toplevel!r}, {self.git_dir!r}, {self.common_dir!r})"


def _read(path: str, limit: int = 4096) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return None


def _git_dir(dot_git: str, info: os.stat_result) -> str | None:
    """The git folder a `.git` entry stands for (itself, or what its `gitdir:` line names)."""
    if (info.st_mode & 0o170000) == 0o040000:
        return dot_git
    text = _read(dot_git)
    if not text or not text.startswith("gitdir: ") or "\n" in text:
        return None
    return os.path.join(os.path.dirname(dot_git), text[len("gitdir: ") :])


def _common(git_dir: str) -> str:
    named = _read(os.path.join(git_dir, "commondir"))
    return os.path.join(git_dir, named) if named else git_dir


def checkout(cwd: str, ceiling: str | None = None) -> Where | bool | None:
    """The checkout holding `cwd`: a `Where`, False (certainly none), or UNSURE (None)."""
    if ceiling is None:
        from .gitcheckout import _tempdir

        ceiling = _tempdir()
    folder = os.path.realpath(cwd)
    if not os.path.isdir(folder):
        return False
    under = folder == ceiling or folder.startswith(ceiling.rstrip("/") + "/")
    device = None
    for _ in range(MAX_DEPTH):
        if under and folder == ceiling:
            return False  # git does not walk up into its ceiling
        if os.path.basename(folder) == ".git":
            return UNSURE  # inside a git folder: git says there is no work tree
        dot_git = os.path.join(folder, ".git")
        try:
            info = os.stat(folder)
            found = os.lstat(dot_git) if os.path.lexists(dot_git) else None
        except OSError:
            return UNSURE
        if device is not None and info.st_dev != device:
            return UNSURE  # git stops at a mount boundary; let it say where
        device = info.st_dev
        if found is not None:
            return _where(folder, dot_git)
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
    return UNSURE


def _where(folder: str, dot_git: str) -> Where | None:
    try:
        info = os.stat(dot_git)
    except OSError:
        return UNSURE
    git_dir = _git_dir(dot_git, info)
    if git_dir is None or not os.path.isfile(os.path.join(git_dir, "HEAD")):
        return UNSURE
    if hasattr(os, "geteuid") and os.stat(git_dir).st_uid != os.geteuid():
        return UNSURE  # git's safe.directory rule may refuse it
    common = os.path.realpath(_common(git_dir))
    if os.path.exists(os.path.join(common, "reftable")):
        return UNSURE
    config = "".join((_read(os.path.join(common, "config"), 1 << 16) or "").lower().split())
    if any(word in config for word in _UNSURE_CONFIG):
        return UNSURE  # core.worktree, core.bare, includes: what git's config says decides
    return Where(folder, os.path.realpath(git_dir), common)


def head(where: Where) -> str:
    """HEAD's text: `ref: refs/heads/<branch>` or a commit id ("" when unreadable)."""
    return _read(os.path.join(where.git_dir, "HEAD")) or ""


def branch_key(where: Where) -> str:
    """What the branch's files, name and subjects depend on, as one line."""
    text = head(where)
    parts = [text]
    if text.startswith("ref: "):
        ref = text[len("ref: ") :]
        parts.append(_read(os.path.join(where.common_dir, *ref.split("/"))) or "-")
    parts.append(stat_key(os.path.join(where.common_dir, "packed-refs")))
    parts += [stat_key(os.path.join(where.common_dir, *r.split("/"))) for r in _DEFAULT_REFS]
    parts.append(stat_key(os.path.join(where.git_dir, "index")))
    return "|".join(p.replace("\n", " ") for p in parts)
