"""memhub's one operation lock, `home/lock`: a file lock, reentrant within a process."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import filelock
from memhub.compiler.safewrite.durable import make_private_dir
from memhub.compiler.safewrite.errors import LockTimeoutError
from memhub.compiler.safewrite.store import lock_path


class _Hold:
    """This process's hold on one lock file: a thread lock, the file lock, a depth."""

    def __init__(self, path: Path) -> None:
        self.pid = os.getpid()
        self.gate = threading.RLock()
        self.file = filelock.FileLock(str(path), mode=0o600, thread_local=False)
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
            try:
                hold.file.acquire(timeout=left)
            except filelock.Timeout:
                raise LockTimeoutError(lock_file, _lock_holder(lock_file), timeout) from None
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
