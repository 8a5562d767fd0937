"""The write layer `memhub apply` uses: one lock, atomic writes, journal, rollback, undo.

Every change goes through a `Transaction` held under `operation_lock(home)`:

1. the target's current bytes are kept: in the run's pre-image store, and, the first time
   memhub ever touches the path, in the append-only originals (journal.py);
2. the intent (path, before and after fingerprints) is appended to the run's journal and
   fsynced;
3. the new bytes go to a temp file beside the target (fsync, exact mode), the target is
   re-read (compare-and-swap), then `os.replace` and an fsync of the folder. A folder is
   built beside its target and swapped in with one `renameat2(RENAME_EXCHANGE)` on Linux.

An exception rolls back every change of the run; a crash leaves an open journal that
`recover` (run by every Transaction, undo and restore) rolls back. A change is undone only
while the target still holds what memhub wrote; anything else is left alone and reported.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import json
import logging
import os
import secrets
import shutil
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import filelock
from memhub.compiler.safewrite import journal as jr
from memhub.compiler.safewrite import targetfs
from memhub.compiler.safewrite.journal import ABSENT, Journal, Originals, Tree
from memhub.hubspec.errors import MemhubError

__all__ = [
    "ABSENT",
    "LockTimeoutError",
    "StaleTargetError",
    "Transaction",
    "UndoConflictError",
    "WriteError",
    "fingerprint",
    "lock_held",
    "operation_lock",
    "plan_restore",
    "recover",
    "restore",
    "restore_originals",
    "undo_last",
]

log = logging.getLogger("memhub.safewrite")


# -- errors -------------------------------------------------------------------------------


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


def _stale(path: Path, want: str, found: str) -> StaleTargetError:
    """The error for a target whose fingerprint is not the expected one."""
    return StaleTargetError(
        f"{path}: changed since the plan was made (expected {want}, found {found}); "
        "nothing was written. Fix: run `memhub diff` again, review, and re-apply",
        path,
    )


def _write_error(path: Path, err: OSError) -> WriteError:
    """The error for an OS failure while changing `path`."""
    return WriteError(
        f"{path}: cannot write ({err}). Fix: check the folder's permissions and free space; "
        "this run's changes were rolled back"
    )


# -- the operation lock -------------------------------------------------------------------


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


def _home(home: Path | str) -> Path:
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
    hold = _HOLDS.get(str(jr.lock_path(_home(home))))
    return (
        hold is not None
        and hold.pid == os.getpid()
        and hold.depth > 0
        and hold.owner == threading.get_ident()
    )


@contextlib.contextmanager
def operation_lock(home: Path, timeout: float = 30.0) -> Iterator[Path]:
    """Hold memhub's one operation lock, `home/lock`; reentrant within a process."""
    home = jr.make_private_dir(_home(home))
    lock_file = jr.lock_path(home)
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


# -- reading targets ----------------------------------------------------------------------


def _read_file(path: Path) -> tuple[bytes | None, int | None]:
    """A file's bytes and permission bits, (None, None) when absent; never blocks (a FIFO,
    device or folder is refused, see targetfs)."""
    return targetfs.read_file(path)


def _walk(folder: Path, *, strict: bool) -> Tree:
    """A folder's files (links as marked entries, or refused when `strict`)."""
    files: Tree = {}
    top = os.fspath(folder)
    for root, dirs, names in os.walk(top):
        for name in sorted(dirs + names):
            full = os.path.join(root, name)
            rel = os.path.relpath(full, top).replace(os.sep, "/")
            info = os.lstat(full)
            if stat.S_ISREG(info.st_mode):
                with open(full, "rb") as handle:
                    files[rel] = (handle.read(), stat.S_IMODE(info.st_mode))
            elif not stat.S_ISDIR(info.st_mode):  # a link or a special file
                if strict:
                    raise WriteError(
                        f"{full}: a link or special file inside a folder memhub replaces. "
                        "Fix: move it out of the folder"
                    )
                link = stat.S_ISLNK(info.st_mode)
                files[rel] = (os.fsencode(os.readlink(full)) if link else b"", info.st_mode)
    return files


def read_folder(path: Path) -> Tree | None:
    """A folder's files by relative path (links and special files marked), None if absent."""
    if not os.path.isdir(path) or os.path.islink(path):
        return None
    return _walk(path, strict=False)


def _read_tree(path: Path) -> tuple[Tree | None, int | None]:
    """A folder's files and the folder's own mode, (None, None) when absent."""
    info = targetfs.examine(path)
    if info is None:
        return None, None
    if not stat.S_ISDIR(info.st_mode):
        raise WriteError(f"{path}: is a file where memhub manages a folder. Fix: move it away")
    return _walk(path, strict=True), stat.S_IMODE(info.st_mode)


def fingerprint(path: Path) -> str:
    """`sha256:<hex>` of a file's bytes (or of a folder's files), `absent` when missing."""
    info = targetfs.examine(path)
    if info is None:
        return ABSENT
    if stat.S_ISDIR(info.st_mode):
        return jr.tree_digest(_walk(Path(path), strict=False))
    data, _ = _read_file(Path(path))
    return jr.file_digest(data)


def _private_folder(folder: Path) -> bool:
    """Whether the nearest existing folder grants nothing to group or others."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        return stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    except OSError:
        return False


def _missing_dirs(folder: Path) -> list[Path]:
    """The folders to create, outermost first, so that `folder` exists."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return list(reversed(missing))


def _mkdir(folder: Path, mode: int, token: str) -> None:
    """Create `folder` with exactly `mode` in one step: made aside, then renamed in."""
    temp = jr.sibling(folder, token, "mkd")
    _remove(temp)
    os.mkdir(temp, 0o700)
    os.chmod(temp, mode)
    try:
        os.rename(temp, folder)
    except OSError:
        _remove(temp)
        if not folder.is_dir():
            raise
    jr.fsync_dir(folder.parent)


def _make_dirs(folders: list[Path], mode: int, token: str) -> None:
    """Create `folders` (outermost first), each with exactly `mode`."""
    for folder in folders:
        if not folder.is_dir():
            _mkdir(folder, mode, token)


def _remove(path: Path) -> None:
    """Remove a file or folder of ours if it is there."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


# -- folder swap --------------------------------------------------------------------------


def _load_renameat2() -> Any:
    """glibc's renameat2, or None where it is missing."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _load_renameat2()
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one step; False where the system cannot."""
    if _RENAMEAT2 is None:
        return False
    if _RENAMEAT2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EPERM):
        return False
    raise OSError(code, os.strerror(code), str(a))


def _swap_in(staging: Path, target: Path, aside: Path) -> Path | None:
    """Put the folder `staging` at `target`; return where the old folder went, if any."""
    if not os.path.lexists(target):
        os.rename(staging, target)
        return None
    if _exchange(staging, target):
        return staging
    os.rename(target, aside)
    os.rename(staging, target)
    return aside


def _put_tree(target: Path, files: Tree, root_mode: int, token: str, tag: str) -> None:
    """Replace (or create) the folder `target` with `files` as one unit."""
    staging = jr.sibling(target, token, f"{tag}new")
    aside = jr.sibling(target, token, f"{tag}old")
    _remove(staging)
    dir_mode = 0o700 if _private_folder(target.parent) else 0o755
    jr.build_tree(staging, files, file_mode=None, root_mode=root_mode, dir_mode=dir_mode)
    old = _swap_in(staging, target, aside)
    jr.fsync_dir(target.parent)
    if old is not None:
        shutil.rmtree(old)


def _drop_tree(target: Path, token: str, tag: str) -> None:
    """Remove the folder `target` as one unit (renamed away, then deleted)."""
    aside = jr.sibling(target, token, f"{tag}old")
    os.rename(target, aside)
    jr.fsync_dir(target.parent)
    shutil.rmtree(aside)


def _put_file(target: Path, data: bytes, mode: int, temp: Path) -> None:
    """Replace `target` with `data` atomically (temp file, fsync, mode, rename, fsync)."""
    _remove(temp)
    jr.create_file(temp, data, mode)
    os.replace(temp, target)
    jr.fsync_dir(target.parent)


# -- transactions -------------------------------------------------------------------------

_ACTIVE: dict[str, str] = {}
"""home -> run id of the Transaction open in this process (recover skips it)."""


class Transaction:
    """One journaled run of changes under the operation lock: all of it, or none of it."""

    def __init__(
        self,
        home: Path,
        command: str = "apply",
        *,
        meta: dict[str, Any] | None = None,
        within: Path | None = None,
    ) -> None:
        """`within`: at project scope, the project; no write leaves it through a link."""
        self.home = _home(home)
        self.command = command
        self.meta = dict(meta or {})
        self.within = within
        if within is not None:  # so that undoing this run stays inside the project too
            self.meta.setdefault("within", str(within))
        self.run_id = ""
        self.changed: list[Path] = []
        self._journal: Journal | None = None
        self._originals = Originals(self.home)

    def __enter__(self) -> Transaction:
        if not lock_held(self.home):
            raise RuntimeError(f"Transaction needs operation_lock({self.home}) held")
        if str(self.home) in _ACTIVE:
            raise RuntimeError(f"a Transaction on {self.home} is already open")
        recover(self.home)
        self.run_id = jr.new_id(jr.run_ids(self.home))
        self._journal = Journal.begin(self.home, self.run_id, self.command, self.meta)
        _ACTIVE[str(self.home)] = self.run_id
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        journal = self._require_open()
        try:
            if exc is None:
                try:
                    journal.finish("committed")
                except OSError as err:
                    error = _write_error(journal.path, err)
                    self._abort(journal, error)
                    raise error from err
                except BaseException as err:
                    self._abort(journal, err)
                    raise
                _prune(self.home)
            else:
                self._abort(journal, exc)
        finally:
            _ACTIVE.pop(str(self.home), None)
            self._journal = None

    def _abort(self, journal: Journal, exc: BaseException) -> None:
        """Roll back this run once a durable record says so; otherwise leave it to `recover`."""
        self.changed = []
        if not journal.on_disk:
            return
        try:
            # Until this record is durable the journal may read `committed` (a commit record
            # whose fsync failed), and then no target may be touched.
            journal.finish("rolling_back")
        except OSError as err:
            exc.add_note(
                f"memhub: could not record the rollback of run {journal.run_id} ({err}); "
                "its files stay as its journal says until the next memhub command settles it"
            )
            return
        try:
            conflicts = _rollback(self.home, journal)
            journal.finish("rolled_back", conflicts)
        except BaseException as err:
            exc.add_note(
                f"memhub: rolling back run {journal.run_id} failed ({err}); "
                "the next memhub command finishes it"
            )
            log.warning("rollback of run %s failed: %s", journal.run_id, err)

    def _require_open(self) -> Journal:
        """The journal of this open run."""
        if self._journal is None:
            raise RuntimeError("use the Transaction inside `with`")
        return self._journal

    @property
    def _store(self) -> Path:
        """This run's pre-image store."""
        return jr.run_store(self.home, self.run_id)

    # -- files --

    def write(
        self, path: Path, content: bytes, *, expect: str | None = None, mode: int | None = None
    ) -> bool:
        """Replace `path` with `content`; refuse if it no longer matches `expect`.

        `mode` sets the permission bits; without it an existing file keeps its mode and a
        new one gets 0644 (0600 inside a private folder). False if nothing needed writing.
        """
        return self._change_file(path, lambda _: content, expect=expect, mode=mode, op="write")

    def write_merged(
        self, path: Path, merge: Callable[[bytes | None], bytes], *, retries: int = 5
    ) -> bool:
        """Compare-and-swap: write `merge(current)`, redone if the file changes underneath."""
        return self._change_file(path, merge, expect=None, mode=None, op="merge", retries=retries)

    def delete(self, path: Path, *, expect: str | None = None) -> bool:
        """Remove the file `path`; refuse if it no longer matches `expect`."""
        return self._change_file(path, lambda _: None, expect=expect, mode=None, op="delete")

    def _change_file(
        self,
        path: Path,
        compute: Callable[[bytes | None], bytes | None],
        *,
        expect: str | None,
        mode: int | None,
        op: str,
        retries: int = 5,
    ) -> bool:
        """Read, compute, journal, write beside, re-check, replace; retried on a change."""
        journal = self._require_open()
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        target, _ = targetfs.locate(path, within=self.within)
        seq, token = len(journal.entries), secrets.token_hex(4)
        temp = jr.sibling(target, token, "tmp")
        made: list[str] = []
        entry: dict[str, Any] | None = None
        for _attempt in range(retries + 1):
            current, cur_mode = _read_file(target)
            before = jr.file_digest(current)
            if expect is not None and before != expect:
                raise _stale(target, expect, before)
            new = compute(current)
            if new is not None and not isinstance(new, bytes):
                raise TypeError(f"{target}: new content must be bytes")
            new_mode = (
                mode
                if mode is not None
                else cur_mode
                if cur_mode is not None
                else 0o600
                if _private_folder(target.parent)
                else 0o644
            )
            if new == current and (new is None or new_mode == cur_mode):
                if entry is not None:  # an earlier attempt's intent: it never happened
                    self._skip(journal, entry, target)
                return False
            targetfs.require_writable(target)
            missing = _missing_dirs(target.parent) if new is not None else []
            made += [str(d) for d in missing]
            try:
                self._keep(target, data=current, mode=cur_mode, made=missing)
                entry = {
                    "seq": seq,
                    "path": str(target),
                    "kind": "file",
                    "op": op,
                    "token": token,
                    "before": before,
                    "after": jr.file_digest(new),
                    "pre": jr.digest_hex(before) if current is not None else None,
                    "mode": cur_mode,
                    "made_dirs": made,
                    "skipped": False,
                }
                journal.record(entry)
                if new is not None:
                    private = _private_folder(target.parent)
                    _make_dirs(missing, 0o700 if private else 0o755, token)
                    _remove(temp)
                    jr.create_file(temp, new, new_mode)
                # Compare-and-swap: the target must still hold what was read and merged.
                if jr.file_digest(_read_file(target)[0]) != before:
                    _remove(temp)
                    if expect is not None:
                        journal.record({**entry, "skipped": True})
                        raise _stale(target, expect, fingerprint(target))
                    continue
                if new is None:
                    os.unlink(target)
                else:
                    os.replace(temp, target)
                jr.fsync_dir(target.parent)
            except OSError as err:
                raise _write_error(target, err) from err
            self.changed.append(target)
            return True
        if entry is not None:
            self._skip(journal, entry, target)
        raise StaleTargetError(
            f"{target}: changed {retries + 1} times while memhub was writing it; nothing was "
            "written. Fix: quit the program that keeps rewriting it (for ~/.claude.json, "
            "Claude Code), then run this again",
            target,
        )

    # -- folders --

    def write_tree(
        self, path: Path, files: dict[str, tuple[bytes, int]], *, expect: str | None = None
    ) -> bool:
        """Replace the folder `path` with exactly `files` (rel path -> bytes, mode) as one unit."""
        try:
            clean = {
                jr.clean_rel(rel): (data, stat.S_IMODE(mode)) for rel, (data, mode) in files.items()
            }
        except ValueError as err:
            raise WriteError(f"{path}: {err}") from None
        return self._change_tree(path, clean, expect=expect, op="write_tree")

    def delete_tree(self, path: Path, *, expect: str | None = None) -> bool:
        """Remove the folder `path` as one unit."""
        return self._change_tree(path, None, expect=expect, op="delete_tree")

    def _change_tree(
        self,
        path: Path,
        files: Tree | None,
        *,
        expect: str | None,
        op: str,
        root_mode: int | None = None,
    ) -> bool:
        """Read, journal, build beside, re-check, swap in (or rename away) a folder."""
        journal = self._require_open()
        target, _ = targetfs.locate(path, folder=True, within=self.within)
        current, cur_mode = _read_tree(target)
        before = jr.tree_digest(current) if current is not None else ABSENT
        if expect is not None and before != expect:
            raise _stale(target, expect, before)
        if files == current and (files is None or root_mode in (None, cur_mode)):
            return False
        targetfs.require_writable(target)
        private = _private_folder(target.parent)
        new_root = (
            root_mode
            if root_mode is not None
            else cur_mode
            if cur_mode is not None
            else 0o700
            if private
            else 0o755
        )
        token = secrets.token_hex(4)
        missing = _missing_dirs(target.parent) if files is not None else []
        try:
            self._keep(target, tree=current, mode=cur_mode, made=missing)
            entry = {
                "seq": len(journal.entries),
                "path": str(target),
                "kind": "tree",
                "op": op,
                "token": token,
                "before": before,
                "after": jr.tree_digest(files) if files is not None else ABSENT,
                "pre": jr.digest_hex(before) if current is not None else None,
                "mode": cur_mode,
                "modes": {rel: m for rel, (_, m) in (current or {}).items()},
                "made_dirs": [str(d) for d in missing],
                "skipped": False,
            }
            journal.record(entry)
            _make_dirs(missing, 0o700 if private else 0o755, token)
            staging = jr.sibling(target, token, "new")
            if files is not None:
                jr.build_tree(
                    staging,
                    files,
                    file_mode=None,
                    root_mode=new_root,
                    dir_mode=0o700 if private else 0o755,
                )
            found = fingerprint(target)
            if found != before:
                _remove(staging)
                journal.record({**entry, "skipped": True})
                raise _stale(target, before, found)
            if files is None:
                _drop_tree(target, token, "")
            else:
                old = _swap_in(staging, target, jr.sibling(target, token, "old"))
                jr.fsync_dir(target.parent)
                if old is not None:
                    shutil.rmtree(old)
        except OSError as err:
            raise _write_error(target, err) from err
        self.changed.append(target)
        return True

    def _skip(self, journal: Journal, entry: dict[str, Any], target: Path) -> None:
        """Record that a journaled intent was given up before its change."""
        try:
            journal.record({**entry, "skipped": True})
        except OSError as err:
            raise _write_error(target, err) from err

    def remove_empty_dir(self, path: Path) -> bool:
        """Remove `path` if it is an empty folder (one memhub made, its last file gone)."""
        return self._remove_dir(path)

    def _remove_dir(self, path: Path) -> bool:
        """Remove an empty folder memhub created; journaled, so a rollback recreates it."""
        target = Path(os.path.abspath(path))
        try:
            info = os.lstat(target)
            if not stat.S_ISDIR(info.st_mode) or any(os.scandir(target)):
                return False
        except FileNotFoundError:
            return False
        return self._set_dir(target, present=False, mode=stat.S_IMODE(info.st_mode))

    def _make_dir(self, path: Path, mode: int) -> bool:
        """Recreate a folder an undone run removed; journaled like any change."""
        target = Path(os.path.abspath(path))
        if os.path.lexists(target):
            return False
        return self._set_dir(target, present=True, mode=mode)

    def _set_dir(self, target: Path, *, present: bool, mode: int) -> bool:
        """Journal, then create or remove one empty folder."""
        journal = self._require_open()
        empty = jr.tree_digest({})
        entry: dict[str, Any] = {
            "seq": len(journal.entries),
            "path": str(target),
            "kind": "dir",
            "op": "mkdir" if present else "rmdir",
            "token": secrets.token_hex(4),
            "before": ABSENT if present else empty,
            "after": empty if present else ABSENT,
            "pre": None,
            "mode": mode,
            "made_dirs": [],
            "skipped": False,
        }
        try:
            journal.record(entry)
            if present:
                _mkdir(target, mode, entry["token"])
            else:
                os.rmdir(target)
            jr.fsync_dir(target.parent)
        except OSError as err:
            raise _write_error(target, err) from err
        return True

    def _keep(
        self,
        target: Path,
        *,
        data: bytes | None = None,
        tree: Tree | None = None,
        mode: int | None = None,
        made: list[Path] | None = None,
    ) -> None:
        """Keep the target's current state: in this run's store, and as its first original."""
        for folder in made or []:
            self._originals.keep(str(folder), self.run_id, newdir=True)
        self._originals.keep(str(target), self.run_id, data=data, tree=tree, mode=mode)
        if data is not None:
            jr.store_file(self._store, jr.digest_hex(jr.file_digest(data)), data)
        elif tree is not None:
            jr.store_tree(self._store, jr.digest_hex(jr.tree_digest(tree)), tree)

    def _put_state(self, path: Path, state: dict[str, Any], source: Path, expect: str) -> None:
        """Return `path` to a recorded state (file, tree or absent) kept in `source`."""
        kind, digest = state["kind"], state["sha"]
        if digest == ABSENT or kind == ABSENT:
            if os.path.isdir(path) and not os.path.islink(path):
                self._change_tree(path, None, expect=expect, op="delete_tree")
            else:
                self._change_file(path, lambda _: None, expect=expect, mode=None, op="delete")
        elif kind == "tree":
            files = _load(lambda: jr.load_tree(source, state["stored"], state["modes"], digest))
            self._change_tree(path, files, expect=expect, op="write_tree", root_mode=state["mode"])
        else:
            data = _load(lambda: jr.load_file(source, state["stored"], digest))
            self._change_file(path, lambda _: data, expect=expect, mode=state["mode"], op="write")


def _prune(home: Path) -> None:
    """Bound recovery/ after a commit; best effort, since the run itself is done and a
    failure here must not roll it back (the next commit prunes again)."""
    try:
        jr.prune_runs(home)
    except (OSError, ValueError) as err:
        log.warning("pruning old runs in %s failed: %s", home, err)


def _load(read: Callable[[], Any]) -> Any:
    """Read a stored copy; a missing or altered one is a WriteError."""
    try:
        return read()
    except (OSError, ValueError) as err:
        raise WriteError(
            f"a copy memhub kept is missing or altered ({err}); nothing was restored. "
            "Fix: restore that file by hand or from your own backup"
        ) from err


# -- rollback and recovery ----------------------------------------------------------------


def _rollback(home: Path, journal: Journal) -> list[str]:
    """Put back every change the journal records, newest first; returns paths left alone."""
    conflicts: list[str] = []
    failures: list[BaseException] = []
    store = jr.run_store(home, journal.run_id)
    for entry in reversed(journal.entries):
        try:
            _rollback_entry(store, entry, conflicts)
        except (OSError, ValueError, MemhubError) as err:
            failures.append(err)
    if failures:
        raise WriteError(
            f"rolling back run {journal.run_id} failed: {failures[0]}. "
            "Fix: free the folder and run `memhub undo` (it finishes the rollback first)"
        ) from failures[0]
    if conflicts:
        log.warning("run %s: left alone, changed by someone else: %s", journal.run_id, conflicts)
    return conflicts


def _rollback_entry(store: Path, entry: dict[str, Any], conflicts: list[str]) -> None:
    """Undo one journaled change if the target still holds what memhub wrote."""
    target = Path(entry["path"])
    token = entry["token"]
    if not entry.get("skipped"):
        found = fingerprint(target)
        # A folder swap without renameat2 is two renames: between them the target is gone
        # and the old folder sits aside (ours, or a crashed rollback's).
        halfway = (
            entry["kind"] == "tree"
            and found == ABSENT
            and any(jr.sibling(target, token, t).exists() for t in ("old", "rbold"))
        )
        if found == entry["after"] or halfway:
            _put_back(store, entry)
        elif found != entry["before"]:
            conflicts.append(str(target))
    for tag in ("tmp", "new", "old", "mkd", "rbtmp", "rbnew", "rbold"):
        _remove(jr.sibling(target, token, tag))
    _remove(jr.sibling(target, token + "rb", "mkd"))
    for folder in reversed(entry.get("made_dirs") or []):
        _remove(jr.sibling(Path(folder), token, "mkd"))
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def _put_back(store: Path, entry: dict[str, Any]) -> None:
    """Return a target to the before-state its journal entry kept."""
    target = Path(entry["path"])
    token, before = entry["token"], entry["before"]
    if entry["kind"] == "dir":
        if before == ABSENT:
            os.rmdir(target)
        elif not target.is_dir():
            _mkdir(target, entry["mode"], entry["token"] + "rb")
        jr.fsync_dir(target.parent)
    elif entry["kind"] == "tree":
        if before == ABSENT:
            if os.path.lexists(target):
                _drop_tree(target, token, "rb")
            return
        files = jr.load_tree(store, entry["pre"], entry["modes"], before)
        _put_tree(target, files, entry["mode"], token, "rb")
    elif before == ABSENT:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
        jr.fsync_dir(target.parent)
    else:
        data = jr.load_file(store, entry["pre"], before)
        _put_file(target, data, entry["mode"], jr.sibling(target, token, "rbtmp"))


def recover(home: Path) -> list[str]:
    """Roll back every run a crash left open; returns their run ids."""
    home = _home(home)
    done = []
    with operation_lock(home):
        for path in jr.journal_paths(home):
            if not jr.is_open(path):
                continue
            journal = Journal.load(path)
            if journal.state not in jr.UNFINISHED or _ACTIVE.get(str(home)) == journal.run_id:
                continue
            conflicts = _rollback(home, journal)
            journal.finish("rolled_back", conflicts)
            done.append(journal.run_id)
        jr.sweep_temps(home, done)
    return done


# -- undo and restore ---------------------------------------------------------------------


def _last_undoable(home: Path) -> Journal | None:
    """The newest committed run that is not an undo and was not undone."""
    undone: set[str] = set()
    for path in reversed(jr.journal_paths(home)):
        journal = Journal.load(path)
        if journal.state != "committed":
            continue
        if journal.command == "undo":
            undone.add(str(journal.meta.get("undoes")))
        elif journal.run_id not in undone and any(not e.get("skipped") for e in journal.entries):
            return journal
    return None


# (run, path, bytes before the run, bytes now) -> bytes to write, or None when it cannot
Resolver = Callable[[Journal, Path, "bytes | None", "bytes | None"], "bytes | None"]


def undo_last(home: Path, resolve: Resolver | None = None) -> list[Path]:
    """Revert the last committed run as one unit; refuse, writing nothing, if a file changed.

    `resolve` may revert a changed file another way (memhub's owned entries only, keeping
    what a host wrote since); a file it returns None for still makes undo refuse.
    """
    home = _home(home)
    with operation_lock(home):
        recover(home)
        run = _last_undoable(home)
        if run is None:
            return []
        first: dict[str, dict[str, Any]] = {}
        last_after: dict[str, str] = {}
        made: list[str] = []
        for entry in run.entries:
            if entry.get("skipped"):
                continue
            first.setdefault(entry["path"], entry)
            last_after[entry["path"]] = entry["after"]
            made += entry.get("made_dirs") or []
        changed = [
            (Path(p), want, found)
            for p, want in last_after.items()
            if (found := fingerprint(Path(p))) != want
        ]
        store = jr.run_store(home, run.run_id)
        merged: dict[str, tuple[bytes, str]] = {}
        if changed and resolve is not None:
            for changed_path, _want, found in list(changed):
                entry = first[str(changed_path)]
                if entry["kind"] != "file" and entry["before"] != ABSENT:
                    continue
                pre = (
                    None
                    if entry["before"] == ABSENT
                    else _load(
                        functools.partial(jr.load_file, store, entry["pre"], entry["before"])
                    )
                )
                now, _ = (
                    _read_file(changed_path) if not os.path.isdir(changed_path) else (None, None)
                )
                result = resolve(run, changed_path, pre, now)
                if result is not None:
                    merged[str(changed_path)] = (result, found)
                    changed.remove((changed_path, _want, found))
        if changed:
            raise UndoConflictError(run.run_id, changed)
        within = run.meta.get("within")
        with Transaction(
            home,
            command="undo",
            meta={"undoes": run.run_id},
            within=Path(within) if within else None,
        ) as tx:
            for path, entry in reversed(first.items()):
                if entry["kind"] == "dir":
                    if entry["before"] == ABSENT:
                        tx._remove_dir(Path(path))
                    else:
                        tx._make_dir(Path(path), entry["mode"])
                    continue
                state = {
                    "kind": entry["kind"],
                    "sha": entry["before"],
                    "stored": entry["pre"],
                    "mode": entry["mode"],
                    "modes": entry.get("modes") or {},
                }
                if path in merged:
                    data, found = merged[path]
                    tx.write(Path(path), data, expect=found)
                    continue
                tx._put_state(Path(path), state, store, expect=last_after[path])
            for folder in reversed(made):
                tx._remove_dir(Path(folder))
        return [Path(p) for p in first]


def _archive(home: Path, paths: list[str]) -> tuple[Path, dict[str, str]]:
    """Copy the current state of `paths` under recovery/archives/<id>/; path -> fingerprint."""
    folder = jr.make_private_dir(jr.archives_dir(home))
    archive = jr.make_private_dir(folder / jr.new_id([p.name for p in folder.iterdir()]))
    manifest: dict[str, dict[str, Any]] = {}
    found: dict[str, str] = {}
    for number, path in enumerate(paths):
        target, name = Path(path), str(number)
        record: dict[str, Any]
        if os.path.isdir(target):
            files, mode = _read_tree(target)
            assert files is not None
            jr.store_tree(archive, name, files)
            modes = {rel: m for rel, (_, m) in files.items()}
            record = {"kind": "tree", "stored": name, "mode": mode, "modes": modes}
            record["sha"] = jr.tree_digest(files)
        else:
            data, mode = _read_file(target)
            if data is None:
                record = {"kind": ABSENT, "stored": None, "mode": None, "sha": ABSENT}
            else:
                jr.store_file(archive, name, data)
                record = {"kind": "file", "stored": name, "mode": mode}
                record["sha"] = jr.file_digest(data)
        manifest[path] = record
        found[path] = record["sha"]
    jr.write_private(archive / "manifest.json", json.dumps(manifest, indent=2).encode() + b"\n")
    return archive, found


def _run_projects(home: Path, runs: set[str]) -> dict[str, Path | None]:
    """The project each of `runs` wrote inside (its journal's `within`), None at user scope."""
    found: dict[str, Path | None] = {}
    for path in jr.journal_paths(home):
        run = path.name.removesuffix(jr.JOURNAL_SUFFIX)
        if run in runs:
            within = Journal.load(path).meta.get("within")
            found[run] = Path(within) if within else None
    return found


ORIGINALS = "originals"
"""The source of `memhub restore --originals`; any other source names an archive."""


@dataclass(frozen=True, slots=True)
class RestorePlan:
    """What a restore would change, read before asking: shown, confirmed, then re-checked.

    `records` holds the recorded state (kind, sha, stored, mode, modes) of every path the
    source knows; `current` the fingerprint of each now. Only paths whose two differ change.
    """

    source: str
    store: Path
    records: Mapping[str, Mapping[str, Any]]
    current: Mapping[str, str]
    folders: tuple[str, ...] = ()

    @property
    def changes(self) -> list[str]:
        """The paths the restore would write, in record order."""
        return [p for p, r in self.records.items() if self.current[p] != r["sha"]]

    def stored(self, path: str) -> bytes | Tree | None:
        """The recorded copy of `path`: bytes, a folder's files, or None when absent."""
        record = self.records[path]
        if record["sha"] == ABSENT or record["kind"] == ABSENT:
            return None
        if record["kind"] == "tree":
            return _load(
                lambda: jr.load_tree(self.store, record["stored"], record["modes"], record["sha"])
            )
        return _load(lambda: jr.load_file(self.store, record["stored"], record["sha"]))


@dataclass(frozen=True, slots=True)
class RestoreResult:
    changed: list[Path]
    archive: str | None
    """The id of the archive holding the state the restore replaced (None: nothing changed)."""


class UnknownArchiveError(MemhubError):
    """`restore --archive ID` names no archive memhub keeps."""

    exit_code = 2


def archive_ids(home: Path) -> list[str]:
    """The archives `restore` made, oldest first (ids sort by time)."""
    folder = jr.archives_dir(_home(home))
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / "manifest.json").is_file())


def plan_restore(home: Path, archive: str | None = None) -> RestorePlan:
    """What `restore --originals` (or, with `archive`, `restore --archive ID`) would do.

    Finishes any run a crash left open first, so the preview shows what the restore meets.
    """
    home = _home(home)
    recover(home)
    if archive is None:
        originals = Originals(home)
        all_records = originals.records()
        records = {p: r for p, r in all_records.items() if r["kind"] != "newdir"}
        folders = sorted(
            (p for p, r in all_records.items() if r["kind"] == "newdir"),
            key=lambda p: (-len(Path(p).parts), p),
        )
        current = {p: fingerprint(Path(p)) for p in records}
        return RestorePlan(ORIGINALS, originals.folder, records, current, tuple(folders))
    known = archive_ids(home)
    if archive not in known:
        listed = f"use one of: {', '.join(known)} (newest last)" if known else "none exists yet"
        raise UnknownArchiveError(
            f"{jr.archives_dir(home) / archive}: no such archive. Fix: {listed}"
        )
    folder = jr.archives_dir(home) / archive
    try:
        records = json.loads((folder / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise WriteError(
            f"{folder / 'manifest.json'}: unreadable ({err}); nothing was restored"
        ) from err
    current = {p: fingerprint(Path(p)) for p in records}
    return RestorePlan(archive, folder, records, current)


def restore(home: Path, shown: RestorePlan) -> RestoreResult:
    """Carry out a restore that was shown: refuse, writing nothing, if any path differs from
    what the preview read; archive the current state first, then put back each recorded one.
    """
    home = _home(home)
    with operation_lock(home):
        fresh = plan_restore(home, None if shown.source == ORIGINALS else shown.source)
        for path in dict.fromkeys([*fresh.current, *shown.current]):
            if fresh.current.get(path) != shown.current.get(path):
                raise StaleTargetError(
                    f"{path}: changed since the preview was shown; nothing was written. "
                    "Fix: run `memhub restore` again and review the new preview",
                    Path(path),
                )
        if not fresh.changes and not fresh.folders:
            return RestoreResult([], None)
        try:
            archive, current = _archive(home, list(fresh.records))
        except OSError as err:
            raise WriteError(f"{jr.archives_dir(home)}: cannot archive ({err})") from err
        meta = {"archive": archive.name, "source": fresh.source}
        runs = {r["run"] for p in fresh.changes if (r := fresh.records[p]).get("run")}
        projects = _run_projects(home, runs)
        with Transaction(home, command="restore", meta=meta) as tx:
            for path in fresh.changes:
                state = dict(fresh.records[path])
                # each original stays inside the project of the run that first touched it
                tx.within = projects.get(state.get("run", ""))
                tx._put_state(Path(path), state, fresh.store, current[path])
            tx.within = None
            for folder in fresh.folders:
                tx._remove_dir(Path(folder))
            changed = list(dict.fromkeys(tx.changed))
        return RestoreResult(changed, archive.name)


def restore_originals(home: Path) -> list[Path]:
    """Put back every first-touch original (current state archived first); returns changes."""
    return restore(home, plan_restore(home)).changed
