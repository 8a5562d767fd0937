"""Stat signatures of the skill folders memhub manages, so a no-op plan need not re-read them.

A folder whose signature (`hubspec.statsig`) matches the one taken when its bytes were
last read still holds those bytes. A wrong or lost cache only costs a re-read: every
lookup is checked against a fresh signature of the entries listed at read time.
"""

from __future__ import annotations

import json
from pathlib import Path

from memhub.hubspec import statsig

CACHE_FILE = Path("cache") / "trees.json"
CACHE_VERSION = 2


class TreeCache:
    """folder -> [signature, content digest as an entry value, tree digest, listed entries]."""

    def __init__(self, home: Path, entries: dict[str, list] | None = None) -> None:
        self.home = home
        self.entries = entries or {}
        self.dirty = False

    @classmethod
    def load(cls, home: Path) -> TreeCache:
        try:
            raw = json.loads((home / CACHE_FILE).read_text("utf-8"))
        except (OSError, ValueError):
            return cls(home)
        if not isinstance(raw, dict) or raw.get("version") != CACHE_VERSION:
            return cls(home)
        return cls(home, raw.get("trees", {}))

    def lookup(self, target: str) -> tuple[str, str] | None:
        """(entry-value digest, tree digest) of `target` if nothing in it changed since."""
        found = self.entries.get(target)
        if found is None:
            return None
        sig = statsig.signature(target, found[3])
        return (found[1], found[2]) if sig is not None and sig[0] == found[0] else None

    def record(self, target: str, value_digest: str, tree_digest: str) -> None:
        """Remember what `target` holds now (just read), unless an entry is too young."""
        entries = statsig.listing(Path(target))
        sig = statsig.signature(Path(target), entries)
        if sig is None or not statsig.settled(sig):
            return
        row = [sig[0], value_digest, tree_digest, entries]
        if self.entries.get(target) != row:
            self.entries[target] = row
            self.dirty = True

    def save(self) -> None:
        """Best effort and atomic: a cache that cannot be written is simply not used next time."""
        if not self.dirty:
            return
        data = json.dumps({"version": CACHE_VERSION, "trees": self.entries}, sort_keys=True)
        statsig.save_cache(self.home / CACHE_FILE, data.encode("utf-8"))
        self.dirty = False
