"""The local capture backend (the embedded default; the interface is in `base`).

Stdlib only (`sqlite3`): it runs in hook processes. One SQLite database,
`$MEMHUB_HOME/store.sqlite` (WAL, busy timeout), holds

- `sessions`: one row per conversation id (host, session id, title, cwd, timestamps, and
  for a subagent transcript its parent session and agent id);
- `records`: one row per (conversation id, record id), the record's JSON as capture sent it.
  Re-sending a record is idempotent: the same id with the same content changes nothing, a
  new version of an id (Gemini rewrites messages under their id) replaces the old one and
  keeps its place in the order.

It answers `import_conversation` as `base` describes.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from ..transcripts.clean import load_json
from .base import BackendError, digest, memhub_home, storable, storable_header

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 30.0


_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS sessions (
    conversation_id TEXT PRIMARY KEY,
    session_id TEXT,
    host TEXT,
    title TEXT,
    title_source TEXT,
    cwd TEXT,
    source TEXT,
    created_at REAL,
    updated_at REAL,
    parent TEXT,
    agent_id TEXT
);
CREATE TABLE IF NOT EXISTS records (
    conversation_id TEXT NOT NULL,
    record_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ts TEXT,
    kind TEXT,
    body TEXT NOT NULL,
    digest TEXT NOT NULL,
    received INTEGER NOT NULL DEFAULT 1,
    stored_at REAL,
    rewound INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (conversation_id, record_id)
);
CREATE INDEX IF NOT EXISTS records_order ON records (conversation_id, seq);
"""


_ADDED_COLUMNS = (
    ("records", "rewound", "INTEGER NOT NULL DEFAULT 0"),  # Gemini rewinds
    ("sessions", "parent", "TEXT"),  # a subagent transcript's parent session
    ("sessions", "agent_id", "TEXT"),
)


class LocalStore:
    """SQLite-backed store; one connection per instance, safe across processes."""

    kind = "local"

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else memhub_home() / "store.sqlite"
        self._db: sqlite3.Connection | None = None

    # --- connection -------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        db.text_factory = _text  # a damaged store's bytes read as U+FFFD, never an error
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        with contextlib.suppress(OSError):
            os.chmod(self.path, 0o600)
        _retry(lambda: db.execute("PRAGMA journal_mode = WAL"))
        db.execute("PRAGMA synchronous = NORMAL")
        _retry(lambda: db.executescript(_DDL))
        # columns a store written by an older version lacks (another process may add them)
        for table, column, kind in _ADDED_COLUMNS:
            columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column not in columns:
                with contextlib.suppress(sqlite3.OperationalError):
                    sql = f"ALTER TABLE {table} ADD COLUMN {column} {kind}"
                    _retry(lambda sql=sql: db.execute(sql))
        self._db = db
        return db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> LocalStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- the backend interface ---------------------------------------------------------------

    def import_conversation(
        self, session_header: dict[str, Any], records: list[dict[str, Any]]
    ) -> dict[str, Any]:
        session_header = storable_header(session_header)
        conversation_id = session_header.get("conversation_id")
        if not isinstance(conversation_id, str) or not conversation_id:
            raise BackendError("session header has no conversation_id", retryable=False)
        rows = []
        for record in records:
            record_id = record.get("id")
            if not isinstance(record_id, str) or not record_id:
                raise BackendError("a record has no id", retryable=False)
            record, body = storable(record)  # a lone surrogate is replaced, never refused
            rows.append((record["id"], record, body.decode("utf-8"), digest(body)))
        db = self._connect()
        counts = {"records_new": 0, "records_updated": 0, "records_unchanged": 0}

        def write() -> None:
            counts.update(records_new=0, records_updated=0, records_unchanged=0)
            now = time.time()
            db.execute("BEGIN IMMEDIATE")  # a lock error here is retried: nothing began
            try:
                self._upsert_session(db, conversation_id, session_header, now)
                (seq,) = db.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM records WHERE conversation_id = ?",
                    (conversation_id,),
                ).fetchone()
                for row in rows:
                    outcome, seq = _store_record(db, conversation_id, row, seq, now)
                    counts[outcome] += 1
                db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise

        try:
            _retry(write)
        except sqlite3.Error as exc:
            raise BackendError(f"local store: {exc}") from exc
        return {
            "conversation_id": conversation_id,
            "ack_through": records[-1]["id"] if records else None,  # as sent
            "records_dropped": 0,
            **counts,
        }

    @staticmethod
    def _upsert_session(
        db: sqlite3.Connection, conversation_id: str, header: dict[str, Any], now: float
    ) -> None:
        db.execute(
            "INSERT INTO sessions (conversation_id, session_id, host, title, title_source, cwd,"
            " source, created_at, updated_at, parent, agent_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
            " ON CONFLICT(conversation_id) DO UPDATE SET"
            " session_id = COALESCE(excluded.session_id, session_id),"
            " host = COALESCE(excluded.host, host),"
            " title = COALESCE(excluded.title, title),"
            " title_source = COALESCE(excluded.title_source, title_source),"
            # filed where it was first captured: a session that cds into another project's
            # checkout stays in its own (issue 22, item 4)
            " cwd = COALESCE(cwd, excluded.cwd),"
            " source = COALESCE(excluded.source, source),"
            " parent = COALESCE(excluded.parent, parent),"
            " agent_id = COALESCE(excluded.agent_id, agent_id),"
            " updated_at = excluded.updated_at",
            (
                conversation_id,
                _str(header.get("session_id")),
                _str(header.get("host")),
                _str(header.get("title")),
                _str(header.get("title_source")),
                _str(header.get("cwd")),
                _str(header.get("source")),
                now,
                now,
                _str(header.get("parent")),
                _str(header.get("agent_id")),
            ),
        )

    # --- queries (for the CLI and tests) --------------------------------------------------

    def exists(self) -> bool:
        return self.path.is_file()

    def sessions(self) -> list[dict[str, Any]]:
        """Every session, newest first: id, host, title, record count, last import."""
        if not self.exists():
            return []
        db = self._connect()
        rows = db.execute(
            "SELECT s.conversation_id, s.session_id, s.host, s.title, s.title_source, s.cwd,"
            " s.source, s.created_at, s.updated_at, s.parent, s.agent_id,"
            " (SELECT COUNT(*) FROM records r WHERE r.conversation_id = s.conversation_id)"
            " FROM sessions s ORDER BY s.updated_at DESC"
        ).fetchall()
        keys = (
            "conversation_id",
            "session_id",
            "host",
            "title",
            "title_source",
            "cwd",
            "source",
            "created_at",
            "updated_at",
            "parent",
            "agent_id",
            "records",
        )
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def session(self, ref: str) -> dict[str, Any] | None:
        """The session whose conversation id or session id is `ref` (or a unique prefix)."""
        rows = self.sessions()
        exact = [s for s in rows if ref in (s["conversation_id"], s["session_id"])]
        if exact:
            return exact[0]
        prefix = [
            s
            for s in rows
            if s["conversation_id"].startswith(ref) or (s["session_id"] or "").startswith(ref)
        ]
        return prefix[0] if len(prefix) == 1 else None

    def records(self, conversation_id: str, *, rewound: bool = True) -> list[dict[str, Any]]:
        """The session's records in arrival order (each id once, its last version); with
        `rewound=False`, without the messages a later Gemini `$rewindTo` took back."""
        if not self.exists():
            return []
        db = self._connect()
        rows = db.execute(
            "SELECT body FROM records WHERE conversation_id = ?"
            + ("" if rewound else " AND rewound = 0")
            + " ORDER BY seq",
            (conversation_id,),
        ).fetchall()
        return [load_json(body)[0] for (body,) in rows]

    def received(self, conversation_id: str) -> dict[str, int]:
        """How many times each record id arrived (a re-send counts; the store keeps one)."""
        if not self.exists():
            return {}
        db = self._connect()
        rows = db.execute(
            "SELECT record_id, received FROM records WHERE conversation_id = ?",
            (conversation_id,),
        ).fetchall()
        return dict(rows)


REWIND = "rewind"
# Gemini's operations and header: what a rewind never takes back
_NOT_MESSAGES = ("rewind", "set", "meta")


def _store_record(
    db: sqlite3.Connection,
    conversation_id: str,
    row: tuple[str, dict[str, Any], str, str],
    seq: int,
    now: float,
) -> tuple[str, int]:
    """Insert, update or count again one record (inside the caller's transaction); returns
    which counter it adds to and the conversation's last sequence number."""
    record_id, record, body, sig = row
    old = db.execute(
        "SELECT digest FROM records WHERE conversation_id = ? AND record_id = ?",
        (conversation_id, record_id),
    ).fetchone()
    ts, kind = _str(record.get("ts")), _str(record.get("kind"))
    if old is None:
        seq += 1
        db.execute(
            "INSERT INTO records (conversation_id, record_id, seq, ts, kind,"
            " body, digest, received, stored_at) VALUES (?,?,?,?,?,?,?,1,?)",
            (conversation_id, record_id, seq, ts, kind, body, sig, now),
        )
        if record.get("kind") == REWIND:
            _rewind(db, conversation_id, record, seq)
        return "records_new", seq
    if old[0] == sig:
        db.execute(
            "UPDATE records SET received = received + 1"
            " WHERE conversation_id = ? AND record_id = ?",
            (conversation_id, record_id),
        )
        return "records_unchanged", seq
    db.execute(
        "UPDATE records SET body = ?, digest = ?, ts = ?, kind = ?,"
        " received = received + 1, stored_at = ?, rewound = 0"
        " WHERE conversation_id = ? AND record_id = ?",
        (body, sig, ts, kind, now, conversation_id, record_id),
    )
    return "records_updated", seq


def _rewind(db: sqlite3.Connection, conversation_id: str, record: dict[str, Any], seq: int) -> None:
    """Apply a Gemini `$rewindTo`: the target message and every later one are taken back.

    They are marked, never deleted (nothing captured is lost, and a message Gemini writes
    again under its id comes back); an unknown target takes back every message, as Gemini
    does. Applied once, when the rewind record first arrives, so a re-send changes nothing.
    """
    raw = record.get("raw")
    if not isinstance(raw, dict):
        raw = {}
    found = db.execute(
        "SELECT seq FROM records WHERE conversation_id = ? AND record_id = ?",
        (conversation_id, _str(raw.get("$rewindTo"))),  # not a string: no such message
    ).fetchone()
    start = found[0] if found else 0
    db.execute(
        "UPDATE records SET rewound = 1 WHERE conversation_id = ? AND seq >= ? AND seq < ?"
        " AND COALESCE(kind, '') NOT IN (?, ?, ?)",
        (conversation_id, start, seq, *_NOT_MESSAGES),
    )


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _retry(action: Any, attempts: int = 8) -> Any:
    """Run `action`, retrying while SQLite reports a lock the busy timeout did not clear."""
    delay = 0.05
    for attempt in range(attempts):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if attempt == attempts - 1 or ("locked" not in text and "busy" not in text):
                raise
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
    return None
