"""Skills already read and checked, kept by folder and reused while its signature holds.

Loading a hub of a thousand skills is mostly reading and parsing a thousand SKILL.md
files; a folder whose stat signature (`statsig`) is the one taken when it was read holds
the same bytes, so its checked Skill is reused. Only skills that passed every check are
kept, and the cache is discarded whenever the code that reads skills changes.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from . import model, skills, statsig

CACHE_NAME = "skills.pickle"
CACHE_VERSION = 1


def _code_stamp() -> tuple[int, ...]:
    """Changes whenever the modules that shape a Skill change (an upgrade, an edit)."""
    # A module without a file (a frozen build) cannot change under us: 0 keeps its part fixed.
    files = (m.__file__ for m in (model, skills, statsig))
    return (CACHE_VERSION, *(os.stat(path).st_mtime_ns if path else 0 for path in files))


class SkillCache:
    """(folder, shown name) -> (signature, listed entries, Skill)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / CACHE_NAME
        self.rows: dict[tuple[str, str], tuple[str, list[str], model.Skill]] = {}
        self.dirty = False
        if not os.path.exists(self.path):
            return  # no cache yet: pickle is imported only when there is one to read
        import pickle

        with contextlib.suppress(OSError, ValueError, EOFError, pickle.UnpicklingError):
            with open(self.path, "rb") as handle:
                stamp, rows = pickle.load(handle)
            if stamp == _code_stamp():
                self.rows = rows

    def get(self, folder: Path, shown: str) -> model.Skill | None:
        row = self.rows.get((os.path.abspath(folder), shown))
        if row is None:
            return None
        sig = statsig.signature(folder, row[1])
        return row[2] if sig is not None and sig[0] == row[0] else None

    def put(self, folder: Path, shown: str, skill: model.Skill) -> None:
        entries = statsig.listing(folder)
        sig = statsig.signature(folder, entries)
        if sig is not None and statsig.settled(sig):
            self.rows[(os.path.abspath(folder), shown)] = (sig[0], entries, skill)
            self.dirty = True

    def save(self) -> None:
        """Best effort and atomic, private to the user (it holds skill contents)."""
        if not self.dirty:
            return
        import pickle

        data = pickle.dumps((_code_stamp(), self.rows), pickle.HIGHEST_PROTOCOL)
        statsig.save_cache(self.path, data)
        self.dirty = False
