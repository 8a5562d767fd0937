"""Which git checkout a folder belongs to: its top level and the repository its worktrees share.

Every memory read and every recall hook asks this, so importing it costs next to nothing:
git runs through os.posix_spawn (importing subprocess took ~8 ms of a 45 ms search; it is
still used where posix_spawn is missing), and the temporary folder is found without
importing tempfile unless something already did.
"""

from __future__ import annotations

import os
import sys

GIT_TIMEOUT = 5.0  # seconds; a hung git (network filesystem, huge repo) must not hang a hook
_MAX_OUTPUT = 1 << 20  # rev-parse prints two paths; anything longer is not git


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple

    class Checkout(NamedTuple):
        """A git working tree: its root, and the repository all its worktrees share."""

        toplevel: str
        common_dir: str

else:

    class Checkout(tuple):
        """A git working tree: its root, and the repository (common dir) all its worktrees
        share. A plain tuple subclass, not a NamedTuple: `typing` costs a hook ~5 ms."""

        __slots__ = ()

        def __new__(cls, toplevel, common_dir):
            return tuple.__new__(cls, (toplevel, common_dir))

        toplevel = property(lambda self: self[0])
        common_dir = property(lambda self: self[1])

        def __repr__(self):
            return f"Checkout(toplevel={self[0]!r}, common_dir={self[1]!r})"


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
    """The resolved temporary folder, as tempfile.gettempdir() finds it: the first of
    $TMPDIR, $TEMP, $TMP, /tmp, /var/tmp, /usr/tmp that is a writable folder."""
    if "tempfile" not in sys.modules and os.name == "posix":
        candidates = [os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")]
        for folder in [*candidates, "/tmp", "/var/tmp", "/usr/tmp"]:
            if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
                return os.path.realpath(os.path.abspath(folder))
    import tempfile  # it decides (and caches, and may be told by a caller) elsewhere

    return os.path.realpath(tempfile.gettempdir())


def run_git(command: list[str], env: dict[str, str], timeout: float) -> tuple[int, bytes] | None:
    """(exit code, stdout) of a git command with stdin and stderr on the null device; None
    when it cannot start or runs past `timeout` seconds (it is killed)."""
    if not hasattr(os, "posix_spawnp"):
        return _run_subprocess(command, env, timeout)
    import select
    import time

    read_end, write_end = os.pipe()
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, write_end, 1),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_CLOSE, read_end),
    ]
    try:
        pid = os.posix_spawnp(command[0], command, env, file_actions=actions)
    except OSError:
        os.close(read_end)
        return None  # git missing or not executable
    finally:
        os.close(write_end)
    chunks: list[bytes] = []
    size, deadline = 0, time.monotonic() + timeout
    poller = select.poll()
    poller.register(read_end, select.POLLIN)
    try:
        while size <= _MAX_OUTPUT:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                break  # timed out
            chunk = os.read(read_end, 65536)
            if not chunk:
                _, status = os.waitpid(pid, 0)
                return os.waitstatus_to_exitcode(status), b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(read_end)
    os.kill(pid, 9)  # SIGKILL: past its time (or printing without end)
    os.waitpid(pid, 0)
    return None


def _run_subprocess(
    command: list[str], env: dict[str, str], timeout: float
) -> tuple[int, bytes] | None:
    """run_git where there is no posix_spawn (Windows)."""
    import subprocess

    try:
        done = subprocess.run(
            command,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=env,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.returncode, done.stdout


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
    done = run_git(command, git_env(), timeout)
    if done is None or done[0] != 0:
        return None  # git missing, failed or timed out: no project rather than a hang
    return _parse(done[1], folder)


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
