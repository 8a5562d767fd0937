"""The spec ownership hook (`workflow.spec_owner`): after an edit/write to a path a spec owns
(on Codex, which reports no after-tool event for an `apply_patch`, before it), name the owning
spec (once per spec per session); before a shell call that pushes or opens a
PR, name the specs whose code changed on the branch (against the default branch) without a
spec edit. A repository without a spec directory costs a few `stat` calls."""

from __future__ import annotations

import os

from .hookdata import edited_paths, session_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..dispatch import Output
    from ..events import Event
    from .specs import SpecSet

GIT_TIMEOUT_S = 2.0
MAX_DEPTH = 64  # folders climbed looking for the checkout's root
_DEFAULTS = ("main", "master", "trunk", "develop")


def repo_root(folder: str) -> str | None:
    """The nearest folder at or above `folder` holding `.git` (a folder, or a worktree's
    file), without running git."""
    current = os.path.abspath(folder)
    for _ in range(MAX_DEPTH):
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return None


def _specs_of(root: str | None) -> SpecSet | None:
    """The specs of the checkout at `root`; None when it has no spec directory or no
    active spec (the common case stops at one `stat`)."""
    if root is None:
        return None
    from .specs import load_specs, spec_dir

    directory = spec_dir(root)
    if not os.path.isdir(directory):
        return None
    found = load_specs(root, directory)
    return found if found.active() else None


def run(event: Event, out: Output) -> None:
    """after_tool on edit: name the owning spec (before_tool on a host that sends no
    after-tool event for an edit); before_tool on shell: the push reminder."""
    from ..events import EDIT_BEFORE_ONLY

    if event.tool_class == "edit" and (
        event.name == "after_tool"
        or (event.name == "before_tool" and event.host in EDIT_BEFORE_ONLY)
    ):
        after_edit(event, out)
    elif event.name == "before_tool" and event.tool_class == "shell":
        before_push(event, out)


def after_edit(event: Event, out: Output) -> None:
    if event.failed is True:
        return
    for full in edited_paths(event):  # inside the session's folder: path fields or a patch's
        root = repo_root(os.path.dirname(full))
        specs = _specs_of(root)
        if specs is None or root is None:
            continue
        from .specs import owning_specs

        owners = owning_specs(root, full, specs)
        state = _state_path(out.home, event)
        named = _named(state)
        fresh = [spec for spec in owners if f"{root}\t{spec.path}" not in named]
        if not fresh:
            continue
        from .skillnames import skill_prefix
        from .spectexts import edit_reminder

        where = os.path.relpath(full, root).replace(os.sep, "/")
        out.context(edit_reminder(fresh, where, skill_prefix(event.host)))
        _remember(state, named | {f"{root}\t{spec.path}" for spec in fresh})


def before_push(event: Event, out: Output) -> None:
    from .specs import before_push as pushes
    from .specs import unreviewed_specs

    if not pushes(event.command):
        return
    root = repo_root(event.cwd or os.getcwd())
    specs = _specs_of(root)
    if specs is None or root is None:
        return
    changed = branch_changes(root)
    if not changed:
        return
    from .skillnames import skill_prefix
    from .spectexts import push_reminder

    text = push_reminder(unreviewed_specs(changed, (), specs), skill_prefix(event.host))
    if text:
        out.context(text)


def _git(root: str, *args: str) -> bytes | None:
    """The stdout of a successful `git -C root ARGS`, else None."""
    from ..memory.gitcheckout import git_env, run_git

    result = run_git(["git", "-C", root, *args], git_env(), GIT_TIMEOUT_S)
    return result[1] if result is not None and result[0] == 0 else None


def default_branch(root: str) -> str | None:
    """The branch a PR from here would target: origin's HEAD, else the first local
    `main`, `master`, `trunk` or `develop`."""
    remote = _git(root, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD")
    if remote and remote.strip():
        return remote.decode("utf-8", "replace").strip()
    for name in _DEFAULTS:
        if _git(root, "rev-parse", "--verify", "-q", f"refs/heads/{name}") is not None:
            return name
    return None


def branch_changes(root: str) -> list[str]:
    """The repo-relative paths the branch's commits changed since it left the default
    branch; [] when there is none or git cannot say."""
    base = default_branch(root)
    if base is None:
        return []
    listed = _git(root, "diff", "--name-only", "-z", f"{base}...HEAD")
    if not listed:
        return []
    return [p for p in listed.decode("utf-8", "replace").split("\0") if p]


def _state_path(home: str, event: Event) -> str:
    return os.path.join(home, "hooks", "specs", session_key(event))


def _named(path: str) -> set[str]:
    """The (root, spec) pairs already named this session."""
    try:
        with open(path, encoding="utf-8") as handle:
            return {line for line in handle.read(1 << 20).split("\n") if line}
    except (OSError, UnicodeDecodeError):
        return set()


def _remember(path: str, named: set[str]) -> None:
    temp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write("".join(f"{line}\n" for line in sorted(named)))
        os.replace(temp, path)
    except OSError:
        pass  # the spec may be named once more
