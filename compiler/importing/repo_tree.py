"""Read a plugin repository (`memhub import --from-repo DIR`) into memory, refusing hostile input.

Every regular file under DIR is read once, with its executable bit; `.git` is skipped. A link
is followed only when its target stays inside DIR. What cannot be read safely is never opened
nor followed, and costs that path alone, not the repository: a link that dangles, loops or
leaves DIR, a FIFO, socket or device, a file over MAX_FILE_BYTES or one that cannot be read is
recorded with why (`unread`), and the import lists it as a `cannot_reproduce` row. DIR over
MAX_TOTAL_BYTES in all is refused (one error, nothing written). A link is also kept as what it
is: its entry holds the target text (`link`), a folder link's files listed under its path too.
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
    unread: str | None = None  # why it was neither followed nor read (no bytes): a row


def links_of(tree: Tree) -> dict[str, str]:
    """Every link of the repository that was followed (path -> target text)."""
    return {p: f.link for p, f in tree.items() if f.link is not None and f.unread is None}


def files_of(tree: Tree) -> Tree:
    """The tree as the readers see it: files (a file link as its target's bytes), no
    folder-link entries and nothing unread."""
    return {p: f for p, f in tree.items() if not f.folder and f.unread is None}


def unread_of(tree: Tree) -> dict[str, str]:
    """Every path neither followed nor read, and why (repo_links.unread_rows lists them)."""
    return {p: f.unread for p, f in tree.items() if f.unread is not None}


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
        link = os.readlink(path) if entry.is_symlink() else None
        real = path if link is None else _inside(path, link, top)
        if isinstance(real, str):  # a link not followed: nothing behind it is read
            tree[rel] = RepoFile(b"", link=link, unread=real)
        elif real.is_dir():
            if real in chain:
                tree[rel] = RepoFile(b"", link=link, unread=LOOPS)
                continue
            if link is not None:
                tree[rel] = RepoFile(b"", link=link, folder=True)
            _walk(top, real, rel + "/", (*chain, real), tree)
        else:
            read = _read(real)
            tree[rel] = RepoFile(read.content, read.executable, link, unread=read.unread)


LOOPS = "a link looping back into a folder that holds it: not followed, nothing read through it"


def _inside(path: Path, link: str, top: Path) -> Path | str:
    """A link's target inside the repository, or why it is not followed (it dangles, loops or
    leaves the repository: nothing outside it is ever read)."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return (
            f"a link to {link!r} that reaches nothing (it dangles or loops): not followed, "
            "so memhub cannot give it back. Fix: point it at a file of the repository, or "
            "remove it"
        )
    if not target.is_relative_to(top):
        return (
            f"a link to {link!r} leaving the repository: not followed, nothing read. Fix: "
            "replace the link with the file it points at, or remove it"
        )
    return target


def _read(path: Path) -> RepoFile:
    """One regular file (a link's target already resolved inside the repository); anything
    else is not opened (a FIFO would block), an over-size file not read."""
    info = os.stat(path, follow_symlinks=False)
    if not stat.S_ISREG(info.st_mode):
        return RepoFile(b"", unread=SPECIAL)
    if info.st_size > MAX_FILE_BYTES:
        return RepoFile(
            b"",
            unread=f"{info.st_size} bytes, over the {MAX_FILE_BYTES >> 20} MiB a shipped file "
            "may have: not read. Fix: remove it or keep it out of the plugin",
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            content = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return RepoFile(b"", unread=f"cannot be read ({exc.strerror}). Fix: make it readable")
    return RepoFile(content, bool(info.st_mode & 0o111))


SPECIAL = (
    "not a regular file (a FIFO, socket or device): not opened, nothing read. Fix: remove it "
    "from the repository"
)


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
