"""A background re-check of record files for a long-running service (the MCP server).

With `MemoryService(recheck=N)`, reads trust a records folder whose own stat is unchanged (so
a created, deleted or renamed file is still seen at once), and every N seconds a child
process walks every file of the granted folders and refreshes the index, so an edit made in
place (an editor that rewrites a file without renaming it) reaches the index within about N
seconds while no query waits for, or shares an interpreter lock with, a walk over 100k
files. Stdlib only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

__all__ = ["Watcher", "walk_once"]

WALK_TIMEOUT = 600.0
# The child imports this package the way the parent did (memhub.runtime.memory, or a
# bundle's memhub_runtime.memory), with the parent's import path.
_CHILD = (
    "import json, os, sys\n"
    "hasattr(os, 'nice') and os.nice(10)\n"  # queries come first on a busy machine
    "sys.path[:0] = json.loads(sys.argv[1])\n"
    "from {package}.watcher import walk_once\n"
    "walk_once(json.loads(sys.argv[2]))\n"
)


def walk_once(job: dict[str, object]) -> None:
    """One walk (in the child): refresh the index from the files of the job's pairs."""
    from .index import MemoryIndex
    from .scan import Scanner

    pairs = [(str(s), None if p is None else str(p)) for s, p in job["pairs"]]  # type: ignore[attr-defined]
    with MemoryIndex(Path(str(job["index"]))) as index:
        scanner = Scanner(Path(str(job["root"])), index)
        for pair in pairs:
            if os.getppid() != job["parent"]:
                return  # the server is gone: nobody reads what this walk would find
            scanner.refresh([pair])


class Watcher:
    """A daemon thread starting a walk every `interval` seconds and waiting for it."""

    def __init__(
        self, root: Path, index_file: Path, pairs: Sequence[tuple[str, str | None]], interval: float
    ) -> None:
        self.job = {
            "root": str(root),
            "index": str(index_file),
            "pairs": [list(p) for p in pairs],
            "parent": os.getpid(),
        }
        self.interval = interval
        self.walks = 0  # completed walks (tests wait on it)
        self.failures = 0
        self._stop = threading.Event()
        self._child: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._run, name="memhub-memory-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        code = _CHILD.format(package=__package__)
        while not self._stop.wait(self.interval):
            try:
                self._child = subprocess.Popen(
                    [sys.executable, "-c", code, json.dumps(sys.path), json.dumps(self.job)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                ok = self._child.wait(timeout=WALK_TIMEOUT) == 0
            except (OSError, subprocess.SubprocessError):
                ok = False  # reads still see created and deleted files themselves
            finally:
                self._child = None
            if ok:
                self.walks += 1
            else:
                self.failures += 1

    def stop(self) -> None:
        """Stop the thread (and a walk under way)."""
        self._stop.set()
        child = self._child
        if child is not None and child.poll() is None:
            child.terminate()
        self._thread.join(timeout=30)
