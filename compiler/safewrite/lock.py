"""memhub's one operation lock, `home/lock`: a file lock, reentrant within a process.

The file lock is a plain `flock` (stdlib): every memhub command that writes takes it, and a
replayed no-op apply should not pay for importing a locking library (~10 ms)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from memhub.compiler.safewrite.durable import make_private_dir
from memhub.compiler.safewrite.errors import LockTimeoutError
from memhub.compiler.safewrite.store import lock_path

# flock's answers for a lock someone else holds (some filesystems say EACCES)
_HELD_ELSEWHERE = frozenset({errno.EACCES, errno.EAGAIN, errno.EWOULDBLOCK})
_POLL_S = 0.05


class _FlockFile:
    """An exclusive flock on one file, its descriptor kept open while held. The file stays
    when released, so every waiter locks the same inode."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def acquire(self, timeout: float) -> bool:
        """Take the lock, waiting up to `timeout` s (forever when negative); False on timeout."""
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.path, flags, 0o600)
        deadline = None if timeout < 0 else time.monotonic() + timeout
        try:
            while not _flocked(fd):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    os.close(fd)
                    return False
                time.sleep(_POLL_S if left is None else min(_POLL_S, left))
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


def _flocked(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in _HELD_ELSEWHERE:
            return False
        raise
    return True


class _Hold:
    """This process's hold on one lock file: a thread lock, the file lock, a depth."""

    def __init__(self, path: Path) -> None:
        self.pid = os.getpid()
        self.gate = threading.RLock()
        self.file = _FlockFile(path)
        self.depth = 0
        self.owner: int | None = None


_HOLDS: dict[str, _Hold] = {}
_HOLDS_GUARD = threading.Lock()


def canonical_home(home: Path | str) -> Path:
    """The memhub home as one canonical absolute path."""
    return Path(os.path.realpath(home))


def _hold(lock_file: Path) -> _Hold:
    """This process's hold record for `lock_file` (a fresh one after a fork)."""
    with _HOLDS_GUARD:
        hold = _HOLDS.get(str(lock_file))
        if hold is None or hold.pid != os.getpid():
            hold = _HOLDS[str(lock_file)] = _Hold(lock_file)
        return hold


def _lock_holder(lock_file: Path) -> int | None:
    """The pid holding a flock on `lock_file`, from /proc/locks (Linux); None if unknown."""
    try:
        inode = os.stat(lock_file).st_ino
        text = Path("/proc/locks").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue
        where = fields[5].split(":")
        if len(where) == 3 and where[2].isdigit() and int(where[2]) == inode:
            return int(fields[4]) if fields[4].isdigit() else None
    return None


def lock_held(home: Path) -> bool:
    """Whether this thread holds the operation lock of `home`."""
    hold = _HOLDS.get(str(lock_path(canonical_home(home))))
    return (
        hold is not None
        and hold.pid == os.getpid()
        and hold.depth > 0
        and hold.owner == threading.get_ident()
    )


@contextlib.contextmanager
def operation_lock(home: Path, timeout: float = 30.0) -> Iterator[Path]:
    """Hold memhub's one operation lock, `home/lock`; reentrant within a process."""
    home = make_private_dir(canonical_home(home))
    lock_file = lock_path(home)
    hold = _hold(lock_file)
    start = time.monotonic()
    if not hold.gate.acquire(timeout=-1 if timeout < 0 else timeout):
        raise LockTimeoutError(lock_file, os.getpid(), timeout)
    try:
        if hold.depth == 0:
            left = -1.0 if timeout < 0 else max(timeout - (time.monotonic() - start), 0.0)
            if not hold.file.acquire(timeout=left):
                raise LockTimeoutError(lock_file, _lock_holder(lock_file), timeout)
            with contextlib.suppress(OSError):
                os.chmod(lock_file, 0o600)
            hold.owner = threading.get_ident()
        hold.depth += 1
        try:
            yield lock_file
        finally:
            hold.depth -= 1
            if hold.depth == 0:
                hold.owner = None
                hold.file.release()
    finally:
        hold.gate.release()
