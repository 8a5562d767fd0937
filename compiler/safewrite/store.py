"""memhub's own records under MEMHUB_HOME: where each lives, and the copies it keeps.

Layout (files 0600, folders 0700):

    lock                              the operation lock (see lock.operation_lock)
    journal/<run-id>.jsonl            one run's write-ahead journal, one JSON record a line
    recovery/originals/index.jsonl    path -> first-touch original, append-only
    recovery/originals/<key>-<run>    the stored original (a file, or a folder for a tree)
    recovery/objects/<sha256>         pre-images of every run, named (and so kept once) by
                                      their digest; runs journaled before this layout keep
                                      theirs in recovery/runs/<run-id>/<sha256>
    recovery/archives/<id>/           the state `restore --originals` replaced (manifest.json)

Every record is made durable (fsync of the file and of its folder) before the change it
describes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from memhub.compiler.digest import ABSENT, bytes_hex, file_digest, tree_digest
from memhub.compiler.safewrite.durable import (
    SyncSet,
    Tree,
    append_records,
    build_tree,
    discard,
    fsync_dir,
    make_private_dir,
    read_records,
    remove_tree,
    sibling,
    write_private,
)


def lock_path(home: Path) -> Path:
    """The operation lock file."""
    return home / "lock"


def journal_dir(home: Path) -> Path:
    """Where run journals live."""
    return home / "journal"


def originals_dir(home: Path) -> Path:
    """Where first-touch originals live."""
    return home / "recovery" / "originals"


def objects_dir(home: Path) -> Path:
    """The content-addressed pre-image store every run shares."""
    return home / "recovery" / "objects"


def legacy_run_store(home: Path, run_id: str) -> Path:
    """A run's own pre-image folder, from before the shared store."""
    return home / "recovery" / "runs" / run_id


def run_store(home: Path, run_id: str) -> Path:
    """Where one run keeps its pre-images: the shared store, where the same bytes are one
    file however many runs saw them (a 16 MB .claude.json is not copied per apply); a run
    journaled before that layout still has its own folder."""
    legacy = legacy_run_store(home, run_id)
    return legacy if legacy.is_dir() else objects_dir(home)


def archives_dir(home: Path) -> Path:
    """Where `restore --originals` archives the state it replaces."""
    return home / "recovery" / "archives"


def clean_rel(rel: str) -> str:
    """A tree member's relative path, checked to stay inside its folder."""
    pure = PurePosixPath(rel)
    if not rel or pure.is_absolute() or any(part in ("", ".", "..") for part in pure.parts):
        raise ValueError(f"{rel!r}: not a relative path inside the folder")
    if "\\" in rel or "\0" in rel:
        raise ValueError(f"{rel!r}: not a plain relative path")
    return pure.as_posix()


def new_id(taken: list[str] | None = None) -> str:
    """A sortable id: UTC time to the microsecond, then random; later than every `taken`."""
    nanos = time.time_ns()
    latest = max(taken or [""])
    while True:
        seconds, micros = divmod(nanos // 1000, 1_000_000)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds))
        run_id = f"{stamp}.{micros:06d}Z-{os.urandom(3).hex()}"
        if run_id > latest:
            return run_id
        nanos += 1000


def now_iso() -> str:
    """The current UTC time, ISO 8601."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# -- stored copies (pre-images, originals, archives) ----------------------------------------


def store_file(folder: Path, name: str, data: bytes, sync: SyncSet | None = None) -> None:
    """Keep `data` as `folder/name` (0600), unless already kept; durable now, or with
    `sync` when it is flushed."""
    if (folder / name).exists():
        return
    make_private_dir(folder)
    write_private(folder / name, data, sync)


def store_tree(folder: Path, name: str, files: Tree, sync: SyncSet | None = None) -> None:
    """Keep a folder's files as `folder/name/` (0600 files; modes live in the record);
    durable now, or with `sync` when it is flushed."""
    target = folder / name
    if target.exists():
        return
    make_private_dir(folder)
    staging = sibling(target, os.urandom(4).hex(), "tmp")
    built = None if sync is None else SyncSet()
    build_tree(staging, files, file_mode=0o600, root_mode=0o700, dir_mode=0o700, sync=built)
    os.rename(staging, target)
    if sync is None or built is None:
        fsync_dir(folder)
        return
    built.moved(staging, target)
    sync.add(built)


def load_file(folder: Path, name: str, digest: str) -> bytes:
    """A stored file's bytes, verified against `digest`."""
    data = (folder / name).read_bytes()
    if file_digest(data) != digest:
        raise ValueError(f"{folder / name}: stored copy does not match {digest}")
    return data


def load_tree(folder: Path, name: str, modes: Mapping[str, int], digest: str) -> Tree:
    """A stored folder with its recorded modes, verified against `digest`."""
    root = folder / name
    files = {rel: ((root / rel).read_bytes(), int(mode)) for rel, mode in modes.items()}
    if tree_digest(files) != digest:
        raise ValueError(f"{root}: stored copy does not match {digest}")
    return files


def sweep_temps(home: Path, run_ids: list[str] | None = None) -> None:
    """Remove temp files a crash left in memhub's folders (and in the named runs' stores)."""
    folders = [home, journal_dir(home), originals_dir(home), archives_dir(home), objects_dir(home)]
    folders += [run_store(home, run_id) for run_id in run_ids or []]
    for folder in folders:
        if not folder.is_dir():
            continue
        for leftover in folder.glob(".*.memhub-*.tmp"):
            if leftover.is_dir() and not leftover.is_symlink():
                remove_tree(leftover)
            else:
                discard(leftover)


# -- first-touch originals --------------------------------------------------------------


class Originals:
    """The append-only record of each path as it was before memhub first changed it."""

    def __init__(self, home: Path) -> None:
        self.folder = originals_dir(home)
        self.index = self.folder / "index.jsonl"
        self._records: dict[str, dict[str, Any]] | None = None

    def records(self) -> dict[str, dict[str, Any]]:
        """Path -> its original's record; the first record of a path wins."""
        if self._records is None:
            found: dict[str, dict[str, Any]] = {}
            if self.index.exists():
                for record in read_records(self.index):
                    if isinstance(record.get("path"), str):
                        found.setdefault(record["path"], record)
            self._records = found
        return self._records

    def prepare(
        self,
        path: str,
        run_id: str,
        *,
        data: bytes | None = None,
        tree: Tree | None = None,
        mode: int | None = None,
        newdir: bool = False,
        sync: SyncSet | None = None,
    ) -> dict[str, Any] | None:
        """Store `path`'s original copy and return its index record (for `add`), or None
        when the path already has one."""
        if path in self.records():
            return None
        key = bytes_hex(path.encode("utf-8", "surrogateescape"))[:24]
        stored = f"{key}-{run_id}"
        record: dict[str, Any] = {"path": path, "run": run_id, "at": now_iso(), "mode": mode}
        make_private_dir(self.folder)
        if tree is not None:
            store_tree(self.folder, stored, tree, sync)
            modes = {rel: m for rel, (_, m) in tree.items()}
            record.update(kind="tree", stored=stored, sha=tree_digest(tree), modes=modes)
        elif data is not None:
            store_file(self.folder, stored, data, sync)
            record.update(kind="file", stored=stored, sha=file_digest(data))
        else:
            record.update(kind="newdir" if newdir else ABSENT, stored=None, sha=ABSENT)
        return record

    def add(self, records: list[dict[str, Any]], sync: SyncSet | None = None) -> None:
        """Append prepared records to the index in one write (the first per path counts)."""
        fresh: dict[str, dict[str, Any]] = {}
        for record in records:
            if record["path"] not in self.records():
                fresh.setdefault(record["path"], record)
        if not fresh:
            return
        append_records(self.index, list(fresh.values()), sync)
        self.records().update(fresh)
