"""A read that meets a damaged index, or a disk that refuses the index's refresh, still
answers: the damaged file is made anew from the record files, and where nothing can be
written (a read-only or full MEMHUB_HOME) the read runs over an index in memory
(indexfile.py). The records are never touched. Stdlib only (vendored).
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from . import indexfile, layout

if TYPE_CHECKING:
    from .service import MemoryService

__all__ = ["file_identity", "heal", "healed"]

_F = TypeVar("_F", bound=Callable[..., Any])


def healed(method: _F) -> _F:
    """A `MemoryService` read that raised a SQLite error about its index runs once more,
    after `heal`; any other error passes through."""

    @functools.wraps(method)
    def run(service: MemoryService, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(service, *args, **kwargs)
        except sqlite3.DatabaseError as error:
            if not heal(service, error):
                raise
            return method(service, *args, **kwargs)

    return cast(_F, run)


def heal(service: MemoryService, error: sqlite3.DatabaseError) -> bool:
    """Make the service's index usable after `error`: a damaged file is moved aside (the
    next read makes it again), a disk that refuses writes gets an index in memory. True
    when done; False for an error that says nothing about the index file."""
    path = layout.index_file(service.workspace.root)
    if indexfile.corrupt(error):
        service.release()
        try:
            indexfile.discard(path)
        except OSError as denied:
            if not indexfile.unwritable(denied):
                return False  # the damage stands: the caller names it, and its fix
            service._scan(fallback=indexfile.describe(denied, path))
    elif indexfile.unwritable(error):
        service._scan(fallback=indexfile.describe(error, path))
    else:
        return False
    return True


def file_identity(path: Path) -> tuple[int, int] | None:
    """A file's (device, inode), None when there is none: a replaced index is reopened."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
