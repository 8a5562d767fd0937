"""Read a plugin repository (`memhub import --from-repo DIR`) into memory, refusing hostile input.

Every regular file under DIR is read once, with its executable bit; `.git` is skipped. A link
is followed only when its target stays inside DIR; a link leaving DIR, a FIFO, socket or
device, a file over MAX_FILE_BYTES (or DIR over MAX_TOTAL_BYTES in all) is refused with one
error naming the path and the fix, and nothing is written. A link is also kept as what it is:
its entry holds the target text (`link`), a folder link's files listed under its path too.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memhub.hubspec import MemhubError

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_TOTAL_BYTES = 200 * 1024 * 1024
SKIPPED = frozenset({".git"})


class RepoError(MemhubError):
    """The repository cannot be imported: one file is hostile or does not parse."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class RepoFile:
    """A file's bytes; a link's entry also holds its target text (a folder link no bytes)."""

    content: bytes
    executable: bool = False
    link: str | None = None
    folder: bool = False  # a link to a folder: its files are listed under its path


def links_of(tree: Tree) -> dict[str, str]:
    """Every link of the repository (path -> target text)."""
    return {p: f.link for p, f in tree.items() if f.link is not None}


def files_of(tree: Tree) -> Tree:
    """The tree as the readers see it: files (a file link as its target's bytes), no
    folder-link entries."""
    return {p: f for p, f in tree.items() if not f.folder}


Tree = dict[str, RepoFile]


def read_tree(root: Path) -> Tree:
    """Every file under `root` by POSIX path relative to it, sorted; a folder link inside the
    repository lists its target's files under the link's path (as a bundle holds them)."""
    if not root.is_dir():
        raise RepoError(f"{root}: is not a folder. Fix: name a plugin repository's folder")
    top = root.resolve()
    tree: Tree = {}
    _walk(top, top, "", (top,), tree)
    if sum(len(f.content) for f in tree.values()) > MAX_TOTAL_BYTES:
        raise RepoError(
            f"{root}: holds more than {MAX_TOTAL_BYTES >> 20} MiB; nothing written. "
            "Fix: import a smaller repository"
        )
    return dict(sorted(tree.items()))


def _walk(top: Path, folder: Path, prefix: str, chain: tuple[Path, ...], tree: Tree) -> None:
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name in SKIPPED:
            continue
        path, rel = Path(entry.path), prefix + entry.name
        link = entry.is_symlink()
        real = _inside(path, rel, top) if link else path
        if real.is_dir():
            if real in chain:
                raise RepoError(
                    f"{rel}: is a link looping back into its own folder. Fix: remove it"
                )
            if link:
                tree[rel] = RepoFile(b"", link=os.readlink(path), folder=True)
            _walk(top, real, rel + "/", (*chain, real), tree)
        else:
            read = _read(real, rel)
            tree[rel] = RepoFile(read.content, read.executable, os.readlink(path)) if link else read


def _inside(path: Path, rel: str, top: Path) -> Path:
    """A link's target, refused when it dangles, loops or leaves the repository."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise RepoError(f"{rel}: is a broken or looping link ({exc}). Fix: remove it") from None
    if not target.is_relative_to(top):
        raise RepoError(
            f"{rel}: is a link leaving the repository (to {target}); nothing read. "
            "Fix: replace the link with the file it points at, or remove it"
        )
    return target


def _read(path: Path, rel: str) -> RepoFile:
    """One regular file (a link's target already resolved inside the repository)."""
    info = os.stat(path, follow_symlinks=False)
    if not stat.S_ISREG(info.st_mode):
        raise RepoError(
            f"{rel}: is not a regular file (a FIFO, socket or device); nothing read. "
            "Fix: remove it from the repository"
        )
    if info.st_size > MAX_FILE_BYTES:
        raise RepoError(
            f"{rel}: is {info.st_size} bytes, over the {MAX_FILE_BYTES >> 20} MiB a shipped "
            "file may have; nothing written. Fix: remove it or keep it out of the plugin"
        )
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    try:
        with os.fdopen(fd, "rb") as handle:
            content = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise RepoError(f"{rel}: cannot be read ({exc.strerror}). Fix: make it readable") from None
    return RepoFile(content, bool(info.st_mode & 0o111))


def json_file(tree: Tree, rel: str) -> Any:
    """The JSON document at `rel` (None when absent); one that does not parse is refused."""
    entry = tree.get(rel)
    if entry is None:
        return None
    try:
        return json.loads(entry.content.decode("utf-8"))
    except UnicodeDecodeError:
        raise RepoError(f"{rel}: is not UTF-8. Fix: save it as UTF-8 JSON") from None
    except RecursionError:
        raise RepoError(f"{rel}: is nested too deeply to read. Fix: correct the JSON") from None
    except json.JSONDecodeError as exc:
        raise RepoError(
            f"{rel}:{exc.lineno}:{exc.colno}: does not parse as JSON ({exc.msg}). "
            "Fix: correct the JSON"
        ) from None
