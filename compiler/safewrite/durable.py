"""Durable file primitives: every byte memhub writes is fsynced, then its folder is.

A write goes to a new file (O_EXCL, no link followed), is fsynced, gets its exact mode, and
is renamed into place; the folder holding it is fsynced after. These are the only ways the
write layer creates files and folders.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

Tree = dict[str, tuple[bytes, int]]
"""A folder as data: relative POSIX path -> (bytes, permission bits)."""

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


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
        discard(temp)
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


def discard(path: Path) -> None:
    """Remove a file if it is there."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def remove_tree(folder: Path) -> None:
    """Remove one of memhub's own folders."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            os.unlink(os.path.join(root, name))
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    os.rmdir(folder)


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
