"""The session brief's two caches, so that a session start reads files instead of git and SQLite.

Both live in `$MEMHUB_HOME/hooks/recall/brief/`, one JSON document per file, written whole
(a temporary file, then `os.replace`: a reader sees the old document or the new one, never
half of one; a writer killed midway leaves only its temporary file, swept later).

* The **map** (`map-<checkout>.json`, one per repository, or `-` outside any): the resolved
  memory (project, scopes), the counts by kind and the top of MEMORY.md. Valid while its
  key holds: the stat keys of the projects registry, the index (and its WAL) and each
  MEMORY.md it read. Any change to what it shows changes one of them, so it is never stale
  in a way a user could see; when it is missing or stale the hook rebuilds it in-process
  (`build_map`: the counts query and MEMORY.md's top, ~10 ms at 10,000 records).
* The **pointers** (`ptr-<repository>-<worktree+branch>.json`, one per branch): the
  Apply and Recall & Consult items (brief_render's), worked out by the detached child
  (brief_pointers.py). Valid while its key holds (`pointer_key`: HEAD, refs and the
  checkout's index file from brief_where, the memory index, the scopes, the account) and
  it is younger than `MAX_AGE_S` (the key cannot see an edit git has not looked at yet).
  With remote recall the key names the remote, and the document also holds the server's
  overview (`overview`, clipped), which the Map shows; a child whose remote failed writes
  an empty key, so the next session start asks again.

Stdlib only; JSON through the hook's own codec (events.py), no `json` import.
"""

from __future__ import annotations

import os
import time

from ..events import dumps, loads
from ..lowos import stat_key

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .brief_where import Where
    from .recall_scope import Scope

__all__ = [
    "MAX_AGE_S",
    "build_map",
    "folder",
    "index_stamp",
    "load",
    "map_path",
    "pointer_key",
    "pointer_path",
    "pointers_of",
    "remote_mark",
    "save",
    "sweep",
    "valid_map",
]

MAX_AGE_S = 3600.0
MAX_BYTES = 1 << 20
MD_LINES = 12
# what the cached lines are rendered as: a cache of another format is neither shown nor kept
# (format 2: unreviewed titles fenced, unreviewed.py)
FORMAT = 2
TEMP_AGE_S = 300.0  # a temporary file older than this was left by a killed writer


def folder(home: str) -> str:
    return os.path.join(home, "hooks", "recall", "brief")


def _fnv(text: str) -> str:
    """A short stable name for a path (FNV-1a, 64 bits): hashlib costs a hook ~1 ms."""
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogateescape"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def map_path(home: str, common_dir: str | None) -> str:
    return os.path.join(folder(home), f"map-{_fnv(common_dir or '-')}.json")


def pointer_path(home: str, where: Where, head: str) -> str:
    """The pointer cache of one checkout's branch (`head`: HEAD's text): worktrees apart."""
    branch = _fnv(f"{where.toplevel}\n{head}")
    return os.path.join(folder(home), f"ptr-{_fnv(where.common_dir)}-{branch}.json")


def load(path: str) -> dict[str, Any] | None:
    """The document in `path`; None when missing, unreadable or not a JSON object."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES)
    except OSError:
        return None
    value = loads(data)
    return value if isinstance(value, dict) else None


def save(path: str, document: dict[str, Any]) -> bool:
    """Write `document` to `path` whole (temporary file + rename); False when it could not."""
    temp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temp, "w", encoding="ascii") as handle:
            handle.write(dumps(document))
        os.replace(temp, path)
        return True
    except OSError:
        try:  # noqa: SIM105 (contextlib costs the hook an import)
            os.unlink(temp)
        except OSError:
            pass
        return False


def sweep(where: str, now: float, age: float = TEMP_AGE_S) -> None:
    """Remove the temporary files killed writers left in `where`."""
    try:
        names = os.listdir(where)
    except OSError:
        return
    for name in names:
        if not name.endswith(".tmp"):
            continue
        path = os.path.join(where, name)
        try:
            if now - os.stat(path).st_mtime > age:
                os.unlink(path)
        except OSError:
            pass


def index_stamp(index: str) -> str:
    """The index file's and its WAL's stat keys (an empty WAL, which a reader may leave, is
    none): what `directives_read` keys its derived cache on."""
    wal = index + "-wal"
    try:
        empty = os.stat(wal).st_size == 0
    except OSError:
        empty = True
    return f"{stat_key(index)}+{'-' if empty else stat_key(wal)}"


def _map_key(root: str, md_files: list[str]) -> str:
    parts = [stat_key(os.path.join(root, "projects.json")), index_stamp(
        os.path.join(root, "index.sqlite"))]  # fmt: skip
    return "|".join(parts + [stat_key(f) for f in md_files])


def valid_map(root: str, document: dict[str, Any] | None, common_dir: str | None) -> bool:
    """Whether a map document still says what the memory holds for `common_dir`."""
    if document is None or document.get("common_dir") != (common_dir or "-"):
        return False
    if document.get("format") != FORMAT:  # written by a memhub that rendered it otherwise
        return False
    md = document.get("md_files")
    if not isinstance(md, list) or not isinstance(document.get("counts"), dict):
        return False
    return document.get("key") == _map_key(root, [str(f) for f in md])


def build_map(scope: Scope) -> dict[str, Any]:
    """The map document for `scope` (in-process: SQLite's counts and MEMORY.md's top, each
    record's line from what the index says of it)."""
    from . import brief_read, brief_render

    md_files = scope.md_files()
    key = _map_key(scope.root, md_files)  # before reading: a write meanwhile makes it stale
    top = brief_read.memory_md_top(md_files, MD_LINES)
    db = brief_read.connect(scope.index)
    try:
        counts = brief_read.counts(db, scope.allowed)
        known = brief_read.listed(db, scope.allowed, [rid for _, rid in top if rid])
    finally:
        db.close()
    shown = [brief_render.map_line(line, rid, known) for line, rid in top]
    return {
        "format": FORMAT,
        "key": key,
        "common_dir": scope.common_dir or "-",
        "toplevel": scope.toplevel,
        "project_id": scope.project_id,
        "project_name": scope.project_name,
        "allowed": [[s, p] for s, p in scope.allowed],
        "signature": scope.signature,
        "md_files": md_files,
        "counts": counts,
        "md_top": [line for line in shown if line is not None],
    }


def pointer_key(where: Where, root: str, signature: str, account: str) -> str:
    """What the pointers of this checkout's branch depend on, as one line."""
    from .brief_where import branch_key

    index = index_stamp(os.path.join(root, "index.sqlite"))
    return "\t".join((branch_key(where), index, signature, account, where.toplevel))


def remote_mark(home: str) -> str:
    """The remote recall asks, as part of the pointer key: pointers found locally are stale
    once a remote is configured, and the other way round (one small read, no network)."""
    from .remote_settings import load

    remote, _ = load(home)
    return f"\tremote:{remote.url}" if remote is not None else ""


class PointerState:
    """A branch's pointer cache: where it is, the key it must carry, what it holds (if
    anything), and whether that is current."""

    __slots__ = ("cached", "fresh", "key", "path")

    def __init__(self, path: str, key: str, cached: dict[str, Any] | None, fresh: bool) -> None:
        self.path, self.key, self.cached, self.fresh = path, key, cached, fresh


def pointers_of(home: str, where: Where, signature: str, account: str) -> PointerState:
    """The pointer cache of `where`'s branch and whether it is current (its key, its age)."""
    from .brief_where import head

    key = pointer_key(where, os.path.join(home, "memory"), signature, account) + remote_mark(home)
    path = pointer_path(home, where, head(where))
    cached = load(path)
    if cached is not None and cached.get("format") != FORMAT:
        cached = None  # rendered by another memhub (its lines unfenced): not shown, remade
    at = cached.get("at") if cached else None
    age = time.time() - at if isinstance(at, (int, float)) else MAX_AGE_S
    fresh = cached is not None and cached.get("key") == key and 0 <= age < MAX_AGE_S
    return PointerState(path, key, cached, fresh)
