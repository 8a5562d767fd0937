"""The errors the write layer raises, each with its exit code and its fix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from memhub.hubspec.errors import MemhubError


class WriteError(MemhubError):
    """A target or one of memhub's records could not be written; the run was rolled back."""

    exit_code = 2


class LockTimeoutError(WriteError):
    """Another memhub process kept the operation lock past the timeout."""

    def __init__(self, lock_file: Path, holder: int | None, timeout: float) -> None:
        self.lock_file = lock_file
        self.holder = holder
        self.timeout = timeout
        who = f"process {holder}" if holder else "another memhub process"
        super().__init__(
            f"{lock_file}: {who} holds memhub's operation lock (waited {timeout:g} s). "
            "Fix: let that memhub command finish, then run this one again"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.lock_file, self.holder, self.timeout))


class StaleTargetError(MemhubError):
    """A target changed since memhub read or planned it; nothing was written to it."""

    exit_code = 3

    def __init__(self, message: str, path: Path | None = None) -> None:
        self.path = path
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.path))


class UndoConflictError(MemhubError):
    """Files changed after the run being undone; nothing was written."""

    exit_code = 3

    def __init__(self, run_id: str, changed: list[tuple[Path, str, str]]) -> None:
        self.run_id = run_id
        self.changed = changed
        self.paths = [path for path, _, _ in changed]
        lines = [f"  {path}: memhub wrote {want}, now {found}" for path, want, found in changed]
        count = len(changed)
        super().__init__(
            "\n".join(
                [
                    f"cannot undo run {run_id}: {count} file{'s' if count != 1 else ''} "
                    "changed after it",
                    *lines,
                    "Fix: revert those edits by hand, or run `memhub restore --originals` "
                    "(it archives the current state first)",
                ]
            )
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.run_id, self.changed))


class UnknownArchiveError(MemhubError):
    """`restore --archive ID` names no archive memhub keeps."""

    exit_code = 2


def stale(path: Path, want: str, found: str) -> StaleTargetError:
    """The error for a target whose fingerprint is not the expected one."""
    return StaleTargetError(
        f"{path}: changed since the plan was made (expected {want}, found {found}); "
        "nothing was written. Fix: run `memhub diff` again, review, and re-apply",
        path,
    )


def write_error(path: Path, err: OSError) -> WriteError:
    """The error for an OS failure while changing `path`."""
    return WriteError(
        f"{path}: cannot write ({err}). Fix: check the folder's permissions and free space; "
        "this run's changes were rolled back"
    )


T = TypeVar("T")


def load_kept(read: Callable[[], T]) -> T:
    """Read a stored copy through `read()`; a missing or altered one is a WriteError."""
    try:
        return read()
    except (OSError, ValueError) as err:
        raise WriteError(
            f"a copy memhub kept is missing or altered ({err}); nothing was restored. "
            "Fix: restore that file by hand or from your own backup"
        ) from err


def warn(message: str, *args: object) -> None:
    """Log a warning to `memhub.safewrite`; logging is imported only when there is one."""
    import logging

    logging.getLogger("memhub.safewrite").warning(message, *args)
