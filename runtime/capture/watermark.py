"""The watermark: every record id (and version) each backend acknowledged, in SQLite."""

from __future__ import annotations

import time
from pathlib import Path

from .settings import capture_dir, now


class Watermark:
    """Record ids (and the digest of the version sent) each backend acknowledged.

    `acked` holds each id's latest acknowledged digest; `versions` every (id, digest) ever
    acknowledged. A byte stream holds every version of a rewritten record (Gemini writes a
    message again, whole, under its id), each its own line, and a record's digest covers
    where its line ends: re-reading the stream (the backstop) must skip each version whose
    line was acknowledged, not only the latest one, or it re-sends every older version.
    """

    def __init__(self, path: Path | None = None):
        import sqlite3

        self.path = path or capture_dir() / "watermark.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA busy_timeout = 30000")
        for _ in range(20):
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS acked (conversation TEXT NOT NULL,"
                    " record_id TEXT NOT NULL, digest TEXT NOT NULL, at REAL,"
                    " PRIMARY KEY (conversation, record_id))"
                )
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS versions (conversation TEXT NOT NULL,"
                    " record_id TEXT NOT NULL, digest TEXT NOT NULL,"
                    " PRIMARY KEY (conversation, record_id, digest)) WITHOUT ROWID"
                )
                break
            except sqlite3.OperationalError:
                time.sleep(0.05)

    def known(self, conversation: str, ids: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT record_id, digest FROM acked WHERE conversation = ? AND record_id IN ({marks})",
                (conversation, *chunk),
            ).fetchall()
            out.update(rows)
        return out

    def versions(self, conversation: str, ids: list[str]) -> dict[str, set[str]]:
        """Every digest acknowledged for each of `ids` (the latest among them)."""
        out: dict[str, set[str]] = {}
        for start in range(0, len(ids), 400):
            chunk = ids[start : start + 400]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT record_id, digest FROM acked WHERE conversation = ?"
                f" AND record_id IN ({marks}) UNION ALL SELECT record_id, digest FROM versions"
                f" WHERE conversation = ? AND record_id IN ({marks})",
                (conversation, *chunk, conversation, *chunk),
            ).fetchall()
            for record_id, digest in rows:
                out.setdefault(record_id, set()).add(digest)
        return out

    def add(self, conversation: str, items: list[tuple[str, str]]) -> None:
        if not items:
            return
        moment = now()
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany(
                "INSERT INTO acked (conversation, record_id, digest, at) VALUES (?,?,?,?)"
                " ON CONFLICT(conversation, record_id) DO UPDATE SET digest = excluded.digest,"
                " at = excluded.at",
                [(conversation, rid, sig, moment) for rid, sig in items],
            )
            self._db.executemany(
                "INSERT OR IGNORE INTO versions (conversation, record_id, digest) VALUES (?,?,?)",
                [(conversation, rid, sig) for rid, sig in items],
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def count(self, conversation: str) -> int:
        (n,) = self._db.execute(
            "SELECT COUNT(*) FROM acked WHERE conversation = ?", (conversation,)
        ).fetchone()
        return int(n)

    def close(self) -> None:
        self._db.close()


# --- the prefilter and health -----------------------------------------------------------------
