"""A background re-check of record files for a long-running service (the MCP server).

With `MemoryService(recheck=N)`, reads trust a records folder whose own stat is unchanged (so
a created, deleted or renamed file is still seen at once) and this thread walks every file of
the granted folders every N seconds on its own connection, so an edit made in place (an
editor that rewrites a file without renaming it) reaches the index within N seconds while no
query waits for a walk over 100k files. Stdlib only.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from .index import MemoryIndex

__all__ = ["Watcher"]


class Watcher:
    """A daemon thread refreshing the index from the files of `pairs` every `interval` s."""

    def __init__(
        self, root: Path, index_file: Path, pairs: Sequence[tuple[str, str | None]], interval: float
    ) -> None:
        self.root, self.index_file, self.pairs = root, index_file, list(pairs)
        self.interval = interval
        self.walks = 0  # completed walks (tests wait on it)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memhub-memory-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from .scan import Scanner

        scanner: Scanner | None = None
        while not self._stop.wait(self.interval):
            try:
                if scanner is None or not self.index_file.exists():
                    if scanner is not None:
                        scanner.index.close()
                    scanner = Scanner(self.root, MemoryIndex(self.index_file))
                scanner.refresh(self.pairs)
                self.walks += 1
            except (OSError, sqlite3.Error, ValueError):
                # A busy or replaced index, a folder gone: the next walk tries again, and
                # reads still see created and deleted files themselves.
                if scanner is not None:
                    with contextlib.suppress(sqlite3.Error):
                        scanner.index.close()
                scanner = None
        if scanner is not None:
            scanner.index.close()

    def stop(self) -> None:
        """Stop the thread (it finishes the walk it is in)."""
        self._stop.set()
        self._thread.join(timeout=30)
