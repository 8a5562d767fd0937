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


def _ref_files(common_dir: str) -> str | None:
    """`_default_ref` from the repository's files (a loose or packed ref), without running
    git; None when they cannot say (reftable, unreadable): git is asked then."""
    import os

    if os.path.exists(os.path.join(common_dir, "reftable")):
        return None
    try:
        with open(os.path.join(common_dir, *_DEFAULTS[0].split("/")), encoding="utf-8") as f:
            head = f.read(4096).strip()
        if head.startswith("ref: refs/"):
            return head[len("ref: ") :]
    except (OSError, UnicodeDecodeError):
        pass
    try:
        with open(os.path.join(common_dir, "packed-refs"), "rb") as f:
            packed = {line.partition(b" ")[2].strip() for line in f.read(1 << 20).splitlines()}
    except OSError:
        packed = set()
    for ref in _DEFAULTS[1:]:
        if os.path.isfile(os.path.join(common_dir, *ref.split("/"))) or ref.encode() in packed:
            return ref
    return ""  # no default branch


def _default_ref(toplevel: str, common_dir: str | None = None) -> str | None:
    """The default branch's ref (`origin/HEAD`'s target first), or None."""
    if common_dir:
        found = _ref_files(common_dir)
        if found is not None:
            return found or None
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


def _diff(toplevel: str, default: str | None) -> str | None:
    diff = _git(toplevel, "diff", "--name-only", "--no-renames", "--merge-base", default or "HEAD")
    if diff is None and default:  # git before 2.30 has no --merge-base
        diff = _git(toplevel, "diff", "--name-only", "--no-renames", f"{default}...HEAD")
    return diff


def branch_of(toplevel: str, common_dir: str | None = None) -> Branch:
    """The files this checkout's branch touches, its name and its last commits' subjects
    (`common_dir`: the repository's, to find the default branch without running git).

    The diff runs in a second thread while the log runs here: the two gits overlap."""
    import _thread  # the C core of threading: no import cost beyond itself

    default = _default_ref(toplevel, common_dir)
    done = _thread.allocate_lock()
    done.acquire()
    box: list[str | None] = [None]

    def diff() -> None:
        try:
            box[0] = _diff(toplevel, default)
        finally:
            done.release()

    _thread.start_new_thread(diff, ())
    log = _git(
        toplevel, "log", f"-{LOG_COMMITS}", "--name-only", "--no-renames", "--format=%x1e%D%x1f%s"
    )
    done.acquire(timeout=2 * TIMEOUT_S + 1)
    name, subjects, logged = parse_log(log or "")
    changed = [line for line in (box[0] or "").splitlines() if line.strip()]
    files = list(dict.fromkeys(changed + logged))[:MAX_FILES]
    return Branch(name, files, subjects)
