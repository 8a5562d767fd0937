"""What this branch touches, from git: the files and the subjects the session brief reads.

The files: `git diff --name-only --merge-base <default branch>` (the branch's commits and the
uncommitted changes to tracked files) plus the paths of the last `LOG_COMMITS` commits. The
default branch is origin's HEAD, else `main`, else `master` (remote first). The subjects (and
the branch's own name) are where `PR #N` and `ENG-N` identifiers come from. Every call goes
through `gitcheckout.run_git` (posix_spawn, a timeout); a git that fails or hangs gives
nothing rather than a stuck session start. Stdlib only.
"""

from __future__ import annotations

from .gitcheckout import git_env, run_git

__all__ = ["Branch", "branch_of", "parse_log"]

LOG_COMMITS = 20
MAX_FILES = 400  # a huge refactor branch still gives a brief, built from its first paths
TIMEOUT_S = 1.0  # per git call: the session start must not wait on a slow filesystem
_DEFAULTS = (
    "refs/remotes/origin/HEAD",
    "refs/remotes/origin/main",
    "refs/heads/main",
    "refs/remotes/origin/master",
    "refs/heads/master",
)


class Branch:
    """The branch a session starts on: its name, the files it touches, its commit subjects."""

    __slots__ = ("files", "name", "subjects")

    def __init__(
        self, name: str = "", files: list[str] | None = None, subjects: list[str] | None = None
    ) -> None:
        self.name = name
        self.files: list[str] = list(files or [])
        self.subjects: list[str] = list(subjects or [])


def _git(toplevel: str, *args: str) -> str | None:
    done = run_git(["git", "--no-pager", "-C", toplevel, *args], git_env(), TIMEOUT_S)
    if done is None or done[0] != 0:
        return None
    return done[1].decode("utf-8", "replace")


def _default_ref(toplevel: str) -> str | None:
    """The default branch's ref (`origin/HEAD`'s target first), or None."""
    listed = _git(toplevel, "for-each-ref", "--format=%(refname)%09%(symref)", *_DEFAULTS)
    if not listed:
        return None
    refs: dict[str, str] = {}
    for line in listed.splitlines():
        ref, _, target = line.partition("\t")
        refs[ref] = target
    head = refs.get("refs/remotes/origin/HEAD")
    if head:
        return head
    return next((ref for ref in _DEFAULTS[1:] if ref in refs), None)


def parse_log(text: str) -> tuple[str, list[str], list[str]]:
    """(branch name, subjects, paths) of `git log --name-only --format=%x1e%D%x1f%s` output."""
    name, subjects, paths = "", [], []
    for number, entry in enumerate(text.split("\x1e")[1:]):
        head, _, rest = entry.partition("\n")
        decorations, _, subject = head.partition("\x1f")
        if number == 0:
            for ref in decorations.split(", "):
                if ref.startswith("HEAD -> "):
                    name = ref[len("HEAD -> ") :]
        subjects.append(subject)
        paths += [line for line in rest.splitlines() if line.strip()]
    return name, subjects, paths


def branch_of(toplevel: str) -> Branch:
    """The files this checkout's branch touches, its name and its last commits' subjects."""
    log = _git(
        toplevel, "log", f"-{LOG_COMMITS}", "--name-only", "--no-renames", "--format=%x1e%D%x1f%s"
    )
    name, subjects, logged = parse_log(log or "")
    default = _default_ref(toplevel)
    diff = _git(toplevel, "diff", "--name-only", "--no-renames", "--merge-base", default or "HEAD")
    if diff is None and default:  # git before 2.30 has no --merge-base
        diff = _git(toplevel, "diff", "--name-only", "--no-renames", f"{default}...HEAD")
    changed = [line for line in (diff or "").splitlines() if line.strip()]
    files = list(dict.fromkeys(changed + logged))[:MAX_FILES]
    return Branch(name, files, subjects)
