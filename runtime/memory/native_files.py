"""Reading the Markdown files an import names, refusing what must not be followed.

A folder is walked for `*.md` files (hidden folders skipped). Each refusal is a note naming
the file, never an exception: a FIFO, device or socket (opened non-blocking, so a FIFO never
hangs the read), a symlink whose target leaves the named folder, a symlinked folder, a file
over MAX_FILE_BYTES, a file that is not UTF-8. Stdlib only (vendored).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 1024 * 1024  # far above any memory note; a bigger "note" is not one
MAX_FILES = 10_000  # a folder walk stops here (a home folder named by mistake)
SUFFIX = ".md"


@dataclass(frozen=True)
class SourceFile:
    """One readable Markdown file: where it is, its bytes and their text."""

    path: Path
    data: bytes
    text: str


def read_file(path: Path, notes: list[str]) -> SourceFile | None:
    """The file's bytes and UTF-8 text, or None with a note saying why it is refused."""
    try:
        info = os.stat(path)
    except OSError as exc:
        notes.append(f"{path}: cannot be read ({exc.strerror or exc}); skipped")
        return None
    if not stat.S_ISREG(info.st_mode):
        notes.append(f"{path}: not a regular file (a FIFO, device or socket); skipped")
        return None
    if info.st_size > MAX_FILE_BYTES:
        notes.append(f"{path}: {info.st_size:,} bytes, over the {MAX_FILE_BYTES:,} a note may have")
        return None
    try:
        # O_NONBLOCK: a file swapped for a FIFO after the stat must not block the read
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        notes.append(f"{path}: cannot be read ({exc.strerror or exc}); skipped")
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            notes.append(f"{path}: not a regular file (a FIFO, device or socket); skipped")
            return None
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        notes.append(f"{path}: over the {MAX_FILE_BYTES:,} bytes a note may have; skipped")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        notes.append(f"{path}:{line}: not UTF-8 text; skipped")
        return None
    return SourceFile(path, data, text)


def markdown_files(paths: Sequence[Path], notes: list[str]) -> Iterator[Path]:
    """The Markdown files `paths` name: files as given, folders walked (sorted, each file
    once), every refusal noted."""
    seen: set[str] = set()
    count = 0
    for given in paths:
        for path in _expand(Path(given), notes):
            key = os.path.realpath(path)
            if key in seen:
                continue
            seen.add(key)
            count += 1
            if count > MAX_FILES:
                notes.append(f"{given}: more than {MAX_FILES:,} Markdown files; stopped there")
                return
            yield path


def _expand(given: Path, notes: list[str]) -> Iterator[Path]:
    if not os.path.lexists(given):
        notes.append(f"{given}: no such file or folder")
        return
    if not given.is_dir():
        yield given  # a file named on the command line is read, link or not (checked there)
        return
    root = os.path.realpath(given)
    for folder, dirs, files in os.walk(given, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in list(dirs):
            if os.path.islink(os.path.join(folder, name)):
                notes.append(f"{Path(folder, name)}: a linked folder; not followed")
                dirs.remove(name)
        for name in sorted(files):
            if not name.lower().endswith(SUFFIX) or name.startswith("."):
                continue
            path = Path(folder, name)
            if path.is_symlink():
                target = os.path.realpath(path)
                if not _inside(target, root):
                    notes.append(f"{path}: a link leaving {given}; not followed")
                    continue
                path = Path(target)  # the file itself is the source, however it is reached
            yield path


def _inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)
