"""The write layer `memhub apply` uses: one journaled run of changes, all of it or none.

Every change goes through a `Transaction` held under `operation_lock(home)`:

1. the target's current bytes are kept: in the run's pre-image store, and, the first time
   memhub ever touches the path, in the append-only originals (store.py);
2. the intent (path, before and after fingerprints) is appended to the run's journal and
   fsynced;
3. the new bytes go to a temp file beside the target (fsync, exact mode), the target is
   re-read (compare-and-swap), then `os.replace` and an fsync of the folder. A folder is
   built beside its target and swapped in with one `renameat2(RENAME_EXCHANGE)` on Linux;
   consecutive folder writes are queued and carried out together with one sync (see
   treebatch.py) before the next other change, or at commit.

An exception rolls back every change of the run; a crash leaves an open journal that
`recover` (run by every Transaction, undo and restore) rolls back (recovery.py). A change is
undone only while the target still holds what memhub wrote; anything else is left alone and
reported.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from memhub.compiler.digest import ABSENT, digest_hex, file_digest, tree_digest
from memhub.compiler.safewrite import durable, fsops, store, targetfs
from memhub.compiler.safewrite import journal as jr
from memhub.compiler.safewrite.durable import Tree, fsync_dir, sibling
from memhub.compiler.safewrite.errors import (
    StaleTargetError,
    WriteError,
    load_kept,
    stale,
    warn,
    write_error,
)
from memhub.compiler.safewrite.journal import Journal
from memhub.compiler.safewrite.lock import canonical_home, lock_held
from memhub.compiler.safewrite.recovery import ACTIVE, recover, rollback
from memhub.compiler.safewrite.treebatch import PendingTree, TreeBatch, carry_out


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
        self.home = canonical_home(home)
        self.command = command
        self.meta = dict(meta or {})
        self.within = within
        if within is not None:  # so that undoing this run stays inside the project too
            self.meta.setdefault("within", str(within))
        self.run_id = ""
        self.changed: list[Path] = []
        self._journal: Journal | None = None
        self._originals = store.Originals(self.home)
        self._trees = TreeBatch()
        # folders resolved once per run for folder writes (targetfs.locate)
        self._folders: targetfs.Folders = {}

    def __enter__(self) -> Transaction:
        if not lock_held(self.home):
            raise RuntimeError(f"Transaction needs operation_lock({self.home}) held")
        if str(self.home) in ACTIVE:
            raise RuntimeError(f"a Transaction on {self.home} is already open")
        recover(self.home)
        self.run_id = store.new_id(jr.run_ids(self.home))
        self._journal = Journal.begin(self.home, self.run_id, self.command, self.meta)
        ACTIVE[str(self.home)] = self.run_id
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
                    self._flush()
                    journal.finish("committed")
                except OSError as err:
                    error = write_error(journal.path, err)
                    self._abort(journal, error)
                    raise error from err
                except BaseException as err:
                    self._abort(journal, err)
                    raise
                _prune(self.home)
            else:
                self._abort(journal, exc)
        finally:
            ACTIVE.pop(str(self.home), None)
            self._journal = None

    def _abort(self, journal: Journal, exc: BaseException) -> None:
        """Roll back this run once a durable record says so; otherwise leave it to `recover`."""
        self.changed = []
        self._trees.take()  # queued folder writes never started: nothing to undo
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
            conflicts = rollback(self.home, journal)
            journal.finish("rolled_back", conflicts)
        except BaseException as err:
            exc.add_note(
                f"memhub: rolling back run {journal.run_id} failed ({err}); "
                "the next memhub command finishes it"
            )
            warn("rollback of run %s failed: %s", journal.run_id, err)

    def _require_open(self) -> Journal:
        """The journal of this open run."""
        if self._journal is None:
            raise RuntimeError("use the Transaction inside `with`")
        return self._journal

    @property
    def _store(self) -> Path:
        """This run's pre-image store."""
        return store.run_store(self.home, self.run_id)

    def _flush(self) -> None:
        """Carry out the queued folder writes (see treebatch), before any other change."""
        if self._trees:
            carry_out(self._trees.take(), self._require_open(), self._originals, self._store)

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
        self._flush()
        if retries < 0:
            raise ValueError("retries must be 0 or more")
        target, _ = targetfs.locate(path, within=self.within)
        seq, token = len(journal.entries), os.urandom(4).hex()
        made: list[str] = []
        entry: dict[str, Any] | None = None
        for _attempt in range(retries + 1):
            current, cur_mode = fsops.read_file(target)
            before = file_digest(current)
            if expect is not None and before != expect:
                raise stale(target, expect, before)
            new = compute(current)
            if new is not None and not isinstance(new, bytes):
                raise TypeError(f"{target}: new content must be bytes")
            new_mode = fsops.new_file_mode(mode, cur_mode, target.parent)
            if new == current and (new is None or new_mode == cur_mode):
                if entry is not None:  # an earlier attempt's intent: it never happened
                    self._skip(journal, entry, target)
                return False
            targetfs.require_writable(target)
            missing = fsops.missing_dirs(target.parent) if new is not None else []
            made += [str(d) for d in missing]
            try:
                self._keep(target, current, cur_mode, missing)
                pre = digest_hex(before) if current is not None else None
                entry = jr.intent(
                    seq,
                    target,
                    "file",
                    op,
                    token,
                    before,
                    file_digest(new),
                    pre=pre,
                    mode=cur_mode,
                    made_dirs=made,
                )
                journal.record(entry)
                if self._replace_file(target, new, new_mode, before, missing, token):
                    self.changed.append(target)
                    return True
                if expect is not None:
                    journal.record({**entry, "skipped": True})
                    raise stale(target, expect, fsops.fingerprint(target))
            except OSError as err:
                raise write_error(target, err) from err
        if entry is not None:
            self._skip(journal, entry, target)
        raise StaleTargetError(
            f"{target}: changed {retries + 1} times while memhub was writing it; nothing was "
            "written. Fix: quit the program that keeps rewriting it (for ~/.claude.json, "
            "Claude Code), then run this again",
            target,
        )

    def _replace_file(
        self,
        target: Path,
        new: bytes | None,
        mode: int,
        before: str,
        missing: list[Path],
        token: str,
    ) -> bool:
        """Write `new` beside `target` and swap it in (or unlink for None), if `target` still
        holds `before` (compare-and-swap); False, nothing changed, if it does not."""
        temp = sibling(target, token, "tmp")
        if new is not None:
            private = fsops.private_folder(target.parent)
            fsops.make_dirs(missing, 0o700 if private else 0o755, token)
            fsops.remove(temp)
            durable.create_file(temp, new, mode)  # one name, so a test can intercept it
        # Compare-and-swap: the target must still hold what was read and merged.
        if file_digest(fsops.read_file(target)[0]) != before:
            fsops.remove(temp)
            return False
        if new is None:
            os.unlink(target)
        else:
            os.replace(temp, target)
        fsync_dir(target.parent)
        return True

    # -- folders --

    def write_tree(
        self, path: Path, files: dict[str, tuple[bytes, int]], *, expect: str | None = None
    ) -> bool:
        """Replace the folder `path` with exactly `files` (rel path -> bytes, mode) as one unit.

        Checked now, queued, and carried out with the folder writes queued beside it before
        the next other change or at commit; True if it will change the folder."""
        try:
            clean = {
                store.clean_rel(rel): (data, stat.S_IMODE(mode))
                for rel, (data, mode) in files.items()
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
        """Read and check a folder, then queue its write (carried out by `_flush`)."""
        self._require_open()
        target, info = targetfs.locate(path, folder=True, within=self.within, folders=self._folders)
        if self._trees.overlaps(target):
            self._flush()  # the queued write changes what this one reads
            info = targetfs.examine(target)
        # absent when located: nothing to read (the swap re-checks it is still absent)
        current, cur_mode = (None, None) if info is None else fsops.read_tree(target)
        before = tree_digest(current) if current is not None else ABSENT
        if expect is not None and before != expect:
            raise stale(target, expect, before)
        if files == current and (files is None or root_mode in (None, cur_mode)):
            return False
        targetfs.writable(target, info)
        dir_mode, missing = self._trees.parent(target.parent)
        if files is None:
            missing = []
        pending = PendingTree(
            target=target,
            files=files,
            current=current,
            cur_mode=cur_mode,
            before=before,
            root_mode=fsops.new_file_mode(root_mode, cur_mode, target.parent, default=dir_mode),
            dir_mode=dir_mode,
            missing=self._trees.unclaimed(missing),
            op=op,
            token=os.urandom(4).hex(),
        )
        self._trees.add(pending)
        self.changed.append(target)
        return True

    def _skip(self, journal: Journal, entry: dict[str, Any], target: Path) -> None:
        """Record that a journaled intent was given up before its change."""
        try:
            journal.record({**entry, "skipped": True})
        except OSError as err:
            raise write_error(target, err) from err

    def remove_empty_dir(self, path: Path) -> bool:
        """Remove `path` if it is an empty folder (one memhub made, its last file gone)."""
        return self._remove_dir(path)

    def _remove_dir(self, path: Path) -> bool:
        """Remove an empty folder memhub created; journaled, so a rollback recreates it."""
        target = Path(os.path.abspath(path))
        self._flush()  # a queued folder removal may be what empties it
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
        self._flush()
        if os.path.lexists(target):
            return False
        return self._set_dir(target, present=True, mode=mode)

    def _set_dir(self, target: Path, *, present: bool, mode: int) -> bool:
        """Journal, then create or remove one empty folder."""
        journal = self._require_open()
        self._flush()
        empty = tree_digest({})
        before, after = (ABSENT, empty) if present else (empty, ABSENT)
        op, token = "mkdir" if present else "rmdir", os.urandom(4).hex()
        entry = jr.intent(len(journal.entries), target, "dir", op, token, before, after, mode=mode)
        try:
            journal.record(entry)
            if present:
                fsops.mkdir(target, mode, entry["token"])
            else:
                os.rmdir(target)
            fsync_dir(target.parent)
        except OSError as err:
            raise write_error(target, err) from err
        return True

    def _keep(self, target: Path, data: bytes | None, mode: int | None, made: list[Path]) -> None:
        """Keep a file's current state: in this run's store, and as its first original
        (folders are kept by treebatch, all of a batch at once)."""
        records = [self._originals.prepare(str(d), self.run_id, newdir=True) for d in made]
        records.append(self._originals.prepare(str(target), self.run_id, data=data, mode=mode))
        self._originals.add([r for r in records if r is not None])  # one append, one fsync
        if data is not None:
            store.store_file(self._store, digest_hex(file_digest(data)), data)

    def _put_state(self, path: Path, state: dict[str, Any], source: Path, expect: str) -> None:
        """Return `path` to a recorded state (file, tree or absent) kept in `source`."""
        kind, digest = state["kind"], state["sha"]
        if digest == ABSENT or kind == ABSENT:
            if os.path.isdir(path) and not os.path.islink(path):
                self._change_tree(path, None, expect=expect, op="delete_tree")
            else:
                self._change_file(path, lambda _: None, expect=expect, mode=None, op="delete")
        elif kind == "tree":
            stored, modes = state["stored"], state["modes"]
            files = load_kept(lambda: store.load_tree(source, stored, modes, digest))
            self._change_tree(path, files, expect=expect, op="write_tree", root_mode=state["mode"])
        else:
            data = load_kept(lambda: store.load_file(source, state["stored"], digest))
            self._change_file(path, lambda _: data, expect=expect, mode=state["mode"], op="write")


def _prune(home: Path) -> None:
    """Bound recovery/ after a commit; best effort, since the run itself is done and a
    failure here must not roll it back (the next commit prunes again)."""
    try:
        jr.prune_runs(home)
    except (OSError, ValueError) as err:
        warn("pruning old runs in %s failed: %s", home, err)
