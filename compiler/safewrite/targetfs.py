"""What a host target is on disk, decided in one place before memhub reads or writes it.

Every command that reads or writes a host's file or folder (plan, diff, apply, uninstall,
doctor, undo, restore, import) goes through here. A target is a regular file, a folder
(a skill), or absent; anything else is refused with exit 2, naming the path and a fix,
before anything blocks or is written:

- a FIFO, socket or device is never opened for its content (reading a FIFO blocks until a
  writer comes, which is forever), and a file is opened non-blocking and checked with
  fstat, so one swapped in after the check cannot block either;
- a symbolic link loop, or a file where the path needs a folder (`~/.claude` a file,
  `CODEX_HOME` naming a file);
- a dangling link, for writing: writing through it would create the file, and any folders
  it lacks, wherever the link points (for reading it is simply absent);
- at project scope, a path whose resolved location leaves the project (`AGENTS.md ->
  ~/.bashrc`, `.claude/skills -> ~/.ssh`);
- for writing: a target that is read-only by its mode bits, or owned by another user. The
  mode bits decide, not `os.access`: root may write anything, and replacing a file as
  another user silently changes its owner.

Links that stay allowed (a user-scope `~/.claude.json -> ~/dotfiles/claude.json` kept by
stow or chezmoi, a link inside the project) are written through, and the link is kept.
"""

from __future__ import annotations

import errno
import os
import pwd
import stat
from pathlib import Path

from memhub.hubspec.errors import MemhubError

__all__ = [
    "TargetError",
    "check",
    "contain",
    "examine",
    "locate",
    "read_file",
    "read_text",
    "require_writable",
    "writable",
]

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class TargetError(MemhubError):
    """A target is not something memhub may read or write; nothing was written."""

    exit_code = 2


# -- what the path names ------------------------------------------------------------------

Folders = dict[str, str]
"""Real paths of folders already resolved in one plan (many targets share a folder)."""


def _kind_name(mode: int) -> str | None:
    """What a special file is, None for a regular file, folder or link."""
    return next((name for test, name in _KINDS if test(mode)), None)


def _special(path: Path, mode: int) -> TargetError:
    what = _kind_name(mode) or f"a special file (mode {mode:o})"
    return TargetError(
        f"{path}: is {what}, not a regular file; memhub neither reads nor replaces it. "
        f"Fix: remove it (`rm {path}`) and run this again, or leave this host out with --hosts"
    )


def _loop(path: Path) -> TargetError:
    """The error for a link loop, named at the first path on the way that loops."""
    looping = next((p for p in (*reversed(path.parents), path) if _loops(p)), path)
    return TargetError(
        f"{looping}: is a symbolic link loop (it never reaches a file or folder). "
        f"Fix: remove the link (`rm {looping}`) or point it at a real one"
    )


def _loops(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as err:
        return err.errno == errno.ELOOP
    return False


def _file_in_the_way(path: Path) -> TargetError:
    """The error for a path one of whose folders is a file (`~/.claude` a file)."""
    blocker = next(
        (p for p in reversed(path.parents) if os.path.exists(p) and not os.path.isdir(p)),
        path.parent,
    )
    return TargetError(
        f"{blocker}: is a file where memhub needs a folder (for {path}). Fix: move the file "
        "away, or, when a variable such as CODEX_HOME or CLAUDE_CONFIG_DIR names it, point "
        "that variable at a folder"
    )


# A `Folders` key for a missing path known to have no dangling link on its way: real
# paths never hold a NUL, so these keys never meet one.
_CLEAR = "\0clear\0"


def _dangling_link(path: str, folders: Folders | None = None) -> Path | None:
    """The link on `path`'s way that points at nothing, None when there is none.
    `folders` remembers, for one plan or run, the folders found to have none."""
    probe, walked = path, []
    while not os.path.lexists(probe):
        parent = os.path.dirname(probe)
        if parent == probe or (folders is not None and _CLEAR + parent in folders):
            probe = ""
            break
        walked.append(parent)
        probe = parent
    if probe and os.path.islink(probe) and not os.path.exists(probe):
        return Path(probe)
    if folders is not None:
        folders.update((_CLEAR + folder, "") for folder in walked)
    return None


def _stat(
    path: Path | str, *, dangling_ok: bool, folders: Folders | None = None
) -> os.stat_result | None:
    """What `path` names, links followed; None when absent. Refuses loops, a file where a
    folder is needed and (unless `dangling_ok`) a dangling link on the way."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        link = None if dangling_ok else _dangling_link(os.fspath(path), folders)
        if link is not None:
            raise TargetError(
                f"{link}: is a link to {os.readlink(link)}, which does not exist; memhub never "
                "writes through a dangling link. Fix: remove the link, or create what it "
                "points at"
            ) from None
        return None
    except NotADirectoryError:
        raise _file_in_the_way(Path(path)) from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _loop(Path(path)) from None
        raise TargetError(
            f"{path}: cannot be examined ({err.strerror}). Fix: check its permissions"
        ) from None


def _leaving_link(path: Path, root: Path, top: Path) -> Path:
    """The first link between `root` and `path` whose target lies outside `top`."""
    probe = root
    for part in path.relative_to(root).parts:
        probe = probe / part
        if os.path.islink(probe) and not Path(os.path.realpath(probe)).is_relative_to(top):
            return probe
    return path


def _realpath(named: str, folders: Folders | None) -> str:
    """`os.path.realpath(named)` (an absolute path), its folder resolved once per plan.
    Strings, not Paths: a plan of a thousand skills calls this thousands of times."""
    if folders is None:
        return os.path.realpath(named)
    known = folders.get(named)
    if known is not None:
        return known
    if os.path.islink(named):
        return os.path.realpath(named)
    parent, name = os.path.split(named)
    real = folders.get(parent)
    if real is None:
        real = folders[parent] = os.path.realpath(parent)
    return os.path.join(real, name)


def _under(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or inside it (both absolute and normalised)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def contain(path: Path | str, within: Path, folders: Folders | None = None) -> Path:
    """`path`'s real location; a path inside `within` (the project) must resolve inside it
    too, else TargetError naming the link that leaves. Paths outside `within` pass."""
    return Path(_contain(os.path.abspath(path), within, folders))


def _contain(named: str, within: Path, folders: Folders | None) -> str:
    """`contain` for an absolute path, as a string."""
    real = _realpath(named, folders)
    root = os.path.abspath(within)
    if not _under(named, root):
        return real  # not a project file (memhub's own records): nothing to contain
    top = _realpath(root, folders)
    if folders is not None:
        folders[root] = top  # the project root is the same folder for every target
    if _under(real, top):
        return real
    link = _leaving_link(Path(named), Path(root), Path(top))
    points = os.readlink(link) if os.path.islink(link) else real
    raise TargetError(
        f"{link}: is a link to {points}, which leaves the project {root} "
        f"(it resolves to {real}); at project scope memhub neither reads nor writes "
        "through it. "
        "Fix: replace the link with a real file or folder inside the project, or remove it"
    )


def locate(
    path: Path | str,
    *,
    folder: bool = False,
    within: Path | None = None,
    folders: Folders | None = None,
) -> tuple[Path, os.stat_result | None]:
    """Where a write to `path` lands (links resolved) and what is there now (None: absent).

    Refuses (TargetError) everything the module docstring lists except the read-only and
    ownership checks, which `require_writable` makes once a write is certain (a target
    that would not change may be read-only). `folder`: the target is a folder (a skill),
    not a file. `within`: the project root at project scope. `folders`: as for `check`
    (a run writing a thousand skills resolves `~/.claude/skills` once).
    """
    named = os.path.abspath(path)
    info = _stat(named, dangling_ok=False, folders=folders)
    if within is not None:
        real = contain(named, within, folders)
    else:
        real = Path(_realpath(named, folders))
    _check_kind(named, info, folder)
    return real, info


def check(
    path: Path | str,
    *,
    folder: bool = False,
    within: Path | None = None,
    folders: Folders | None = None,
) -> os.stat_result | None:
    """`locate`'s refusals without computing where a write would land, for planning: a
    plan of a thousand skills checks thousands of targets. `folders`: resolved folders
    cached for this one plan (`~/.claude/skills` is resolved once, not a thousand times).
    Returns what is there (None: absent), for `writable`."""
    named = os.path.abspath(path)
    info = _stat(named, dangling_ok=False, folders=folders)
    if within is not None:
        _contain(named, within, folders)
    _check_kind(named, info, folder)
    return info


def _check_kind(named: str, info: os.stat_result | None, folder: bool) -> None:
    """Refuse a target of the wrong kind: a folder for a file, a file for a folder, or a
    FIFO, socket or device."""
    if info is None:
        return
    if stat.S_ISDIR(info.st_mode) if folder else stat.S_ISREG(info.st_mode):
        return
    if stat.S_ISDIR(info.st_mode):
        raise TargetError(
            f"{named}: is a folder where memhub writes a file. Fix: move the folder away "
            "(memhub creates the file), or leave this host out with --hosts"
        )
    if stat.S_ISREG(info.st_mode):
        raise TargetError(
            f"{named}: is a file where memhub manages a folder. Fix: move the file away "
            "(memhub creates the folder), or leave this host out with --hosts"
        )
    raise _special(Path(named), info.st_mode)


def examine(path: Path | str) -> os.stat_result | None:
    """What `path` names for reading (links followed): None when absent or a dangling link;
    refuses a link loop and a file where a folder is needed."""
    return _stat(path, dangling_ok=True)


def require_writable(path: Path) -> None:
    """Refuse to replace or remove a target that is read-only or another user's."""
    writable(path, _stat(path, dangling_ok=True))


def writable(path: Path, info: os.stat_result | None) -> None:
    """`require_writable` on what a stat of `path` just found (None: absent)."""
    if info is None:
        return
    me = os.geteuid()
    if info.st_uid != me:
        owner, you = _user(info.st_uid), _user(me)
        raise TargetError(
            f"{path}: is owned by {owner}, not by you ({you}); replacing it would make it "
            f"yours. Fix: run memhub as {owner}, or take the file over with "
            f"`chown {you} {path}`"
        )
    if not info.st_mode & stat.S_IWUSR:
        mode = stat.S_IMODE(info.st_mode)
        raise TargetError(
            f"{path}: is read-only (mode {mode:04o}); memhub does not replace it. "
            f"Fix: `chmod u+w {path}` if memhub may change it, or leave this host out "
            "with --hosts"
        )


def _user(uid: int) -> str:
    """A user's name, else `uid N`."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


# -- reading ------------------------------------------------------------------------------


def read_file(path: Path | str) -> tuple[bytes | None, int | None]:
    """A target file's bytes and permission bits; (None, None) when absent or a dangling
    link. Never blocks: special files are refused before and after opening."""
    named = Path(path)
    info = _stat(named, dangling_ok=True)
    if info is None:
        return None, None
    if stat.S_ISDIR(info.st_mode):
        raise TargetError(
            f"{named}: is a folder where memhub reads a file. Fix: move the folder away, or "
            "leave this host out with --hosts"
        )
    if not stat.S_ISREG(info.st_mode):
        raise _special(named, info.st_mode)
    try:
        fd = os.open(named, os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC)
    except FileNotFoundError:
        return None, None
    except OSError as err:
        raise TargetError(
            f"{named}: cannot be read ({err.strerror}). Fix: check its permissions"
        ) from None
    with open(fd, "rb") as handle:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):  # swapped for something else since the stat
            raise _special(named, opened.st_mode)
        return handle.read(), stat.S_IMODE(opened.st_mode)


def read_text(path: Path | str) -> str | None:
    """A target file's UTF-8 text (newlines as they are), None when absent."""
    data, _ = read_file(path)
    return None if data is None else data.decode("utf-8")
