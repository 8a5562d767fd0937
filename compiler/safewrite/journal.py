"""memhub's own records under MEMHUB_HOME: run journals, pre-images, first-touch originals.

Layout (files 0600, folders 0700):

    lock                              the operation lock (see safewrite.operation_lock)
    journal/<run-id>.jsonl            one run's write-ahead journal, one JSON record a line
    recovery/originals/index.jsonl    path -> first-touch original, append-only
    recovery/originals/<key>-<run>    the stored original (a file, or a folder for a tree)
    recovery/objects/<sha256>         pre-images of every run, named (and so kept once) by
                                      their digest; runs journaled before this layout keep
                                      theirs in recovery/runs/<run-id>/<sha256>
    recovery/archives/<id>/           the state `restore --originals` replaced (manifest.json)

Every record is made durable (fsync of the file and of its folder) before the change it
describes. A journal is appended to, never rewritten: a torn last line is a record whose
change never started, and readers skip it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

ABSENT = "absent"
UNFINISHED = ("open", "rolling_back")
"""Journal states `recover` rolls back: no end record, or a rollback that did not finish."""
JOURNAL_SUFFIX = ".jsonl"

Tree = dict[str, tuple[bytes, int]]
"""A folder as data: relative POSIX path -> (bytes, permission bits)."""

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def lock_path(home: Path) -> Path:
    """The operation lock file."""
    return home / "lock"


def journal_dir(home: Path) -> Path:
    """Where run journals live."""
    return home / "journal"


def originals_dir(home: Path) -> Path:
    """Where first-touch originals live."""
    return home / "recovery" / "originals"


# Undo steps back through at most this many runs: older journals and the pre-images only
# they name are pruned after each commit, so recovery/ stops growing with every apply.
MAX_RUNS_KEPT = 10


def objects_dir(home: Path) -> Path:
    """The content-addressed pre-image store every run shares."""
    return home / "recovery" / "objects"


def _legacy_run_store(home: Path, run_id: str) -> Path:
    return home / "recovery" / "runs" / run_id


def run_store(home: Path, run_id: str) -> Path:
    """Where one run keeps its pre-images: the shared store, where the same bytes are one
    file however many runs saw them (a 16 MB .claude.json is not copied per apply); a run
    journaled before that layout still has its own folder."""
    legacy = _legacy_run_store(home, run_id)
    return legacy if legacy.is_dir() else objects_dir(home)


def archives_dir(home: Path) -> Path:
    """Where `restore --originals` archives the state it replaces."""
    return home / "recovery" / "archives"


# -- digests -----------------------------------------------------------------------------


def file_digest(data: bytes | None) -> str:
    """`sha256:<hex>` of a file's bytes, `absent` for no file."""
    return ABSENT if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


def tree_digest(files: Mapping[str, tuple[bytes, int]]) -> str:
    """Stable digest of a folder: relative paths, exec bits (or link marks) and bytes."""
    digest = hashlib.sha256(b"memhub-tree-v1\0")
    for rel in sorted(files):
        data, mode = files[rel]
        flag = b"l" if stat.S_ISLNK(mode) else b"x" if mode & 0o111 else b"-"
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0" + flag)
        digest.update(len(data).to_bytes(8, "big") + data)
    return "sha256:" + digest.hexdigest()


def digest_hex(digest: str) -> str:
    """The hex part of a `sha256:` digest (a stored name)."""
    return digest.split(":", 1)[1]


def clean_rel(rel: str) -> str:
    """A tree member's relative path, checked to stay inside its folder."""
    pure = PurePosixPath(rel)
    if not rel or pure.is_absolute() or any(part in ("", ".", "..") for part in pure.parts):
        raise ValueError(f"{rel!r}: not a relative path inside the folder")
    if "\\" in rel or "\0" in rel:
        raise ValueError(f"{rel!r}: not a plain relative path")
    return pure.as_posix()


# -- durable file primitives ---------------------------------------------------------------


def fsync_dir(folder: Path) -> None:
    """Make a folder's entries (creations, renames, removals) durable."""
    fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to `fd`."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def create_file(path: Path, data: bytes, mode: int) -> None:
    """Create `path` (it must not exist) holding `data`, fsynced, with exactly `mode`."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_NOFOLLOW, 0o600)
    try:
        _write_all(fd, data)
        os.fsync(fd)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def sibling(path: Path, token: str, tag: str) -> Path:
    """A hidden name beside `path` for memhub's temp, staging or set-aside copy of it."""
    return path.with_name(f".{path.name[:180]}.memhub-{token}.{tag}")


def make_private_dir(folder: Path) -> Path:
    """Create `folder` and any missing parents as 0700 folders; return it."""
    missing = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for each in reversed(missing):
        try:
            os.mkdir(each, 0o700)
        except FileExistsError:
            continue
        os.chmod(each, 0o700)
    return folder


def write_private(path: Path, data: bytes) -> None:
    """Atomically write one of memhub's own files (0600): temp, fsync, rename, fsync folder."""
    temp = sibling(path, secrets.token_hex(4), "tmp")
    create_file(temp, data, 0o600)
    try:
        os.replace(temp, path)
    except BaseException:
        _discard(temp)
        raise
    fsync_dir(path.parent)


def append_records(path: Path, records: list[Mapping[str, Any]]) -> None:
    """Append JSON lines to `path` and fsync them (a torn last line is skipped on read)."""
    payload = b"".join(
        json.dumps(r, sort_keys=True, separators=(",", ":")).encode() + b"\n" for r in records
    )
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _O_CLOEXEC | _O_NOFOLLOW, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            payload = b"\n" + payload  # end a torn line so it stays one skipped record
        _write_all(fd, payload)
        os.fsync(fd)
        if size == 0:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    if size == 0:
        fsync_dir(path.parent)


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every whole JSON-object line of `path`; torn or garbled lines are skipped."""
    records = []
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def _discard(path: Path) -> None:
    """Remove a file if it is there."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def new_id(taken: list[str] | None = None) -> str:
    """A sortable id: UTC time to the microsecond, then random; later than every `taken`."""
    nanos = time.time_ns()
    latest = max(taken or [""])
    while True:
        seconds, micros = divmod(nanos // 1000, 1_000_000)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds))
        run_id = f"{stamp}.{micros:06d}Z-{secrets.token_hex(3)}"
        if run_id > latest:
            return run_id
        nanos += 1000


def now_iso() -> str:
    """The current UTC time, ISO 8601."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# -- stored copies (pre-images, originals, archives) ----------------------------------------


def store_file(folder: Path, name: str, data: bytes) -> None:
    """Keep `data` as `folder/name` (0600), unless already kept."""
    if (folder / name).exists():
        return
    make_private_dir(folder)
    write_private(folder / name, data)


def build_tree(
    root: Path, files: Tree, *, file_mode: int | None, root_mode: int, dir_mode: int
) -> None:
    """Write `files` into the new folder `root` (each file's own mode unless `file_mode`),
    then set folder modes and fsync every folder, deepest first."""
    os.mkdir(root, 0o700)
    made = [root]
    for rel in sorted(files):
        dest = root / rel
        for parent in reversed(dest.relative_to(root).parents[:-1]):
            sub = root / parent
            if not sub.exists():
                os.mkdir(sub, 0o700)
                made.append(sub)
        data, mode = files[rel]
        create_file(dest, data, mode if file_mode is None else file_mode)
    for each in reversed(made):
        os.chmod(each, root_mode if each == root else dir_mode)
        fsync_dir(each)


def store_tree(folder: Path, name: str, files: Tree) -> None:
    """Keep a folder's files as `folder/name/` (0600 files; modes live in the record)."""
    target = folder / name
    if target.exists():
        return
    make_private_dir(folder)
    staging = sibling(target, secrets.token_hex(4), "tmp")
    build_tree(staging, files, file_mode=0o600, root_mode=0o700, dir_mode=0o700)
    os.rename(staging, target)
    fsync_dir(folder)


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
                _remove_tree(leftover)
            else:
                _discard(leftover)


def _remove_tree(folder: Path) -> None:
    """Remove one of memhub's own folders."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name))
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    os.rmdir(folder)


# -- run journals -------------------------------------------------------------------------


@dataclass
class Journal:
    """One run's write-ahead journal: what it meant to change, and how it ended."""

    path: Path
    run_id: str
    command: str
    meta: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    state: str = "open"
    conflicts: list[str] = field(default_factory=list)
    pid: int = 0
    started: str = ""

    @classmethod
    def begin(cls, home: Path, run_id: str, command: str, meta: Mapping[str, Any]) -> Journal:
        """A new journal, not yet on disk (it is created with its first entry)."""
        return cls(
            path=journal_dir(home) / f"{run_id}{JOURNAL_SUFFIX}",
            run_id=run_id,
            command=command,
            meta=dict(meta),
            pid=os.getpid(),
            started=now_iso(),
        )

    @property
    def on_disk(self) -> bool:
        """Whether any record was written (a run with no change leaves no journal)."""
        return self.path.exists()

    def record(self, entry: dict[str, Any]) -> None:
        """Make `entry` durable before its change; an entry with a known `seq` is updated."""
        records: list[Mapping[str, Any]] = []
        if not self.on_disk:
            make_private_dir(self.path.parent)
            records.append(
                {
                    "run": self.run_id,
                    "command": self.command,
                    "meta": self.meta,
                    "pid": self.pid,
                    "started": self.started,
                    "version": 1,
                }
            )
        records.append({"intent": entry})
        append_records(self.path, records)
        self._apply(entry)

    def finish(self, state: str, conflicts: list[str] | None = None) -> None:
        """Record how the run ended (`committed` or `rolled_back`), if it changed anything."""
        self.state = state
        self.conflicts = list(conflicts or [])
        if self.on_disk:
            record = {"state": state, "at": now_iso(), "conflicts": self.conflicts}
            append_records(self.path, [record])

    def _apply(self, entry: dict[str, Any]) -> None:
        """Add `entry`, or replace the one with its `seq`."""
        seq = entry["seq"]
        if seq < len(self.entries):
            self.entries[seq] = entry
        else:
            self.entries.append(entry)

    @classmethod
    def load(cls, path: Path) -> Journal:
        """Read a journal back; records after a torn line still count."""
        journal = cls(path=path, run_id=path.name.removesuffix(JOURNAL_SUFFIX), command="")
        for record in read_records(path):
            if "run" in record:
                journal.command = str(record.get("command", ""))
                journal.meta = dict(record.get("meta") or {})
                journal.pid = int(record.get("pid") or 0)
                journal.started = str(record.get("started", ""))
            elif "intent" in record:
                journal._apply(dict(record["intent"]))
            elif "state" in record:
                journal.state = str(record["state"])
                journal.conflicts = list(record.get("conflicts") or [])
        return journal


def journal_paths(home: Path) -> list[Path]:
    """Every run journal, oldest first."""
    folder = journal_dir(home)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.endswith(JOURNAL_SUFFIX))


def is_open(path: Path) -> bool:
    """Whether a journal's run still needs rolling back (read from its tail only)."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(size - 4096, 0))
        tail = handle.read()
    lines = [line for line in tail.splitlines() if line.strip()]
    for line in reversed(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "state" in record:
            return record["state"] in UNFINISHED
        return True
    return True


def run_ids(home: Path) -> list[str]:
    """Run ids of every journal, oldest first."""
    return [p.name.removesuffix(JOURNAL_SUFFIX) for p in journal_paths(home)]


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

    def keep(
        self,
        path: str,
        run_id: str,
        *,
        data: bytes | None = None,
        tree: Tree | None = None,
        mode: int | None = None,
        newdir: bool = False,
    ) -> None:
        """Record `path`'s original (file, tree, absent, or a folder memhub creates) once."""
        if path in self.records():
            return
        key = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:24]
        stored = f"{key}-{run_id}"
        record: dict[str, Any] = {"path": path, "run": run_id, "at": now_iso(), "mode": mode}
        make_private_dir(self.folder)
        if tree is not None:
            store_tree(self.folder, stored, tree)
            modes = {rel: m for rel, (_, m) in tree.items()}
            record.update(kind="tree", stored=stored, sha=tree_digest(tree), modes=modes)
        elif data is not None:
            store_file(self.folder, stored, data)
            record.update(kind="file", stored=stored, sha=file_digest(data))
        else:
            record.update(kind="newdir" if newdir else ABSENT, stored=None, sha=ABSENT)
        append_records(self.index, [record])
        self.records()[path] = record


# -- pruning --------------------------------------------------------------------------------


def prune_runs(home: Path, keep: int = MAX_RUNS_KEPT) -> None:
    """Forget runs older than the newest `keep` applies/uninstalls (undo runs in between do
    not count, so undoing does not shorten how far undo reaches), then drop pre-images no
    kept run names. A run that is still open is kept whatever its age (recover needs its
    pre-images). Call it under the operation lock, after a commit.
    """
    counted = 0
    prunable: list[Path] = []
    for path in reversed(journal_paths(home)):
        if counted >= keep:
            prunable.append(path)
        elif Journal.load(path).command != "undo":
            counted += 1
    for path in prunable:
        if is_open(path):
            continue
        legacy = _legacy_run_store(home, path.name.removesuffix(JOURNAL_SUFFIX))
        if legacy.is_dir():
            _remove_tree(legacy)
        _discard(path)
    folder = objects_dir(home)
    if not folder.is_dir():
        return
    wanted = {
        entry["pre"]
        for path in journal_paths(home)
        for entry in Journal.load(path).entries
        if isinstance(entry.get("pre"), str)
    }
    removed = False
    for item in folder.iterdir():
        if item.name in wanted or item.name.startswith("."):  # dot-names: sweep_temps' temps
            continue
        if item.is_dir() and not item.is_symlink():
            _remove_tree(item)
        else:
            _discard(item)
        removed = True
    if removed:
        fsync_dir(folder)
