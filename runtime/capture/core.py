"""Session capture: ship each host's transcript to a backend in bounded, acknowledged deltas.

Stdlib only, relative imports only (bundles vendor this folder). Importing this module is
cheap: the readers, SQLite and the backends load only when a flush actually runs, so
`pending()` can serve as a hook's prefilter.

State, under `$MEMHUB_HOME/capture/`:

- `<host>-<session>.json`: the session's byte cursor (`offset`, the end of the last record
  the backend acknowledged), its `mark` (the digest of the bytes just before it, so a file
  rewritten in place is noticed), the reader's `context` at that offset, the payload cap, title,
  counters and the last error. Written atomically (temp file + rename), 0600.
- `<host>-<session>.lock`: an fcntl lock held for the whole flush, so concurrent hook
  processes on one session take turns.
- `watermark.sqlite`: per backend and conversation id, every record id acknowledged and the
  digest of the version sent. A record already acknowledged in the same version is never
  sent again; a new version of an id (Gemini rewrites messages) is.

A flush (`flush(host, session_id, transcript_path, mode)`):

- reads from the cursor to the last complete newline (a half-written last line waits);
- cuts payloads at record boundaries under the session's cap (`MEMHUB_CAPTURE_CAP`, default
  3.5 MB); a record larger than the cap goes alone;
- sends one payload (`turn`) or all of them (`commit`, `session_end`, within a deadline);
- moves the cursor only after the backend acknowledged the payload, to the end of the last
  record it confirmed (`ack_through`), then records the ids in the watermark;
- on 413 halves the session's cap (persisted) and retries smaller; a single record refused
  with 413 is stepped over and logged (`stepped_over` in the state), not retried forever;
- on any other failure leaves the cursor where it was and records the error (see `health`).

Capture reads only regular files under the host's own transcript folders (`admit`): a hook
payload is untrusted input, and a path elsewhere (or a link out, or a FIFO) is refused and
logged, never opened.

Modes: `turn` (the per-turn delta, `flush: "auto"`), `commit` (after a real `git commit`,
`gh pr create` or `gh pr merge`: everything pending, `flush: "now"`), `session_end` (the
backstop: the whole transcript from its first byte, deduplicated by the watermark, so it
captures a session whose per-turn path never worked; it moves the cursor forward only).

Codex threads Codex runs for itself (`thread_source` subagent, guardian_review,
memory_consolidation) are skipped; an unknown value is captured and logged.
`MEMHUB_CAPTURE=0` (or off/false/no) turns capture off. Failures go to
`$MEMHUB_HOME/logs/capture.log`.

Backend: `MEMHUB_BACKEND=local|remote` and `MEMHUB_REMOTE_URL`, else
`$MEMHUB_HOME/capture.json` (`{"backend": "remote", "remote_url": "https://..."}`), else
the local store.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import time
from pathlib import Path
from typing import Any

MODES = ("turn", "commit", "session_end")
HOSTS = ("claude", "codex", "cursor", "gemini")
DEFAULT_CAP = 3_500_000
MIN_CAP = 16_384
# Codex's own threads; compared by value, never by prefix (Codex adds kinds over time)
SKIP_THREAD_SOURCES = frozenset({"subagent", "guardian_review", "memory_consolidation"})
KNOWN_THREAD_SOURCES = frozenset({"user", "cli", "vscode", "exec", "app_server", "mcp"})
FLUSH_VALUE = {"turn": "auto", "commit": "now", "session_end": "now"}
LOCK_WAIT_S = {"turn": 30.0, "commit": 60.0, "session_end": 120.0}
DEADLINE_S = {"turn": 60.0, "commit": 240.0, "session_end": 240.0}
FAILURE_WINDOW_S = 24 * 3600
READ_BLOCK = 1 << 20
LOG_MAX = 1 << 20
STEPPED_KEEP = 50
FAULT_EXIT = 86


# --- configuration --------------------------------------------------------------------------


def memhub_home() -> Path:
    configured = os.environ.get("MEMHUB_HOME")
    return Path(configured) if configured else Path.home() / ".memhub"


def capture_dir() -> Path:
    return memhub_home() / "capture"


def log_path() -> Path:
    return memhub_home() / "logs" / "capture.log"


def enabled() -> bool:
    return os.environ.get("MEMHUB_CAPTURE", "1").strip().lower() not in ("0", "off", "false", "no")


def backend_config() -> dict[str, Any]:
    """`{"backend": "local"|"remote", "remote_url", "source"}` from the env, file or default."""
    kind = os.environ.get("MEMHUB_BACKEND", "").strip().lower()
    url = os.environ.get("MEMHUB_REMOTE_URL", "").strip()
    if kind or url:
        return {"backend": kind or "remote", "remote_url": url or None, "source": "env"}
    path = memhub_home() / "capture.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and data.get("backend"):
        remote_url = data.get("remote_url")
        if not isinstance(remote_url, str):
            remote_url = None
        return {
            "backend": str(data["backend"]).lower(),
            "remote_url": remote_url,
            "source": str(path),
        }
    return {"backend": "local", "remote_url": None, "source": "default"}


def open_backend(config: dict[str, Any] | None = None) -> Any:
    """The configured backend (the caller closes it)."""
    config = config or backend_config()
    if config["backend"] == "remote":
        from ..backends.local import BackendError
        from ..backends.remote import RemoteBackend

        if not config.get("remote_url"):
            raise BackendError("MEMHUB_BACKEND=remote needs MEMHUB_REMOTE_URL", retryable=False)
        return RemoteBackend(config["remote_url"])
    if config["backend"] != "local":
        from ..backends.local import BackendError

        raise BackendError(f"unknown backend {config['backend']!r}", retryable=False)
    from ..backends.local import LocalStore

    return LocalStore()


def backend_id(backend: Any) -> str:
    """The watermark's namespace for a backend: `local`, or `remote:<url>`."""
    if getattr(backend, "kind", "") == "remote":
        return f"remote:{getattr(backend, 'url', '')}"
    return str(getattr(backend, "watermark_id", None) or getattr(backend, "kind", "local"))


def conversation_id(host: str, session_id: str) -> str:
    """The id a session is stored under: Claude's bare, the other hosts' prefixed."""
    return session_id if host == "claude" else f"{host}-{session_id}"


# --- small helpers ----------------------------------------------------------------------------


def _now() -> float:
    return time.time()


def _iso(moment: float | None) -> str | None:
    if moment is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def log(message: str) -> None:
    """One line in the capture log (never raises; rotates at 1 MB)."""
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if path.stat().st_size > LOG_MAX:
                os.replace(path, path.with_name(path.name + ".1"))
        except OSError:
            pass
        line = f"{_iso(_now())} [{os.getpid()}] {message}\n"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # the log must never break a hook
        pass


def _safe(session_id: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:80]
    if safe != session_id:
        import hashlib

        safe += "-" + hashlib.blake2b(session_id.encode(), digest_size=4).hexdigest()
    return safe


def state_path(host: str, session_id: str) -> Path:
    return capture_dir() / f"{host}-{_safe(session_id)}.json"


def load_state(host: str, session_id: str) -> dict[str, Any] | None:
    try:
        data = json.loads(state_path(host, session_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _save_state(state: dict[str, Any]) -> None:
    state["updated_at"] = _now()
    _write_atomic(
        state_path(state["host"], state["session_id"]),
        json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
    )


def _fault(point: str) -> None:
    """Test hook: `MEMHUB_CAPTURE_FAULT=<point>` kills the process at that point."""
    if os.environ.get("MEMHUB_CAPTURE_FAULT") == point:
        os._exit(FAULT_EXIT)


class _Lock:
    """An exclusive fcntl lock on `<state>.lock`, waited for up to `wait` seconds."""

    def __init__(self, path: Path, wait: float):
        self.path, self.wait, self.fd = path, wait, -1

    def acquire(self) -> bool:
        try:
            import fcntl
        except ImportError:  # no fcntl (Windows): capture runs unlocked
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self.wait
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except OSError:
                if time.monotonic() >= deadline:
                    os.close(self.fd)
                    self.fd = -1
                    return False
                time.sleep(0.02)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing drops the flock
            self.fd = -1


# --- the watermark ---------------------------------------------------------------------------


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
        now = _now()
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.executemany(
                "INSERT INTO acked (conversation, record_id, digest, at) VALUES (?,?,?,?)"
                " ON CONFLICT(conversation, record_id) DO UPDATE SET digest = excluded.digest,"
                " at = excluded.at",
                [(conversation, rid, sig, now) for rid, sig in items],
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


def pending(host: str, session_id: str, transcript_path: str | os.PathLike[str]) -> bool:
    """Whether a turn flush has anything to do (cheap: one stat, one small JSON read)."""
    if not enabled():
        return False
    try:
        info = os.stat(transcript_path)
    except OSError:
        return False
    state = load_state(host, session_id)
    if state is None:
        return info.st_size > 0
    if state.get("skip"):
        return False
    if state.get("inode") not in (None, info.st_ino):
        return True
    return info.st_size != state.get("offset", 0)


def health() -> str | None:
    """A short message when capture is broken (credential, a recent failed flush), else None."""
    if not enabled():
        return None
    config = backend_config()
    if config["backend"] == "remote":
        from ..backends.remote import credential_expired, load_credential

        credential = load_credential()
        if credential is None:
            return "MemHub capture is not signed in: run `memhub login` (or set MEMHUB_API_KEY)."
        if credential_expired(credential):
            return "MemHub capture's credential has expired: run `memhub login` again."
        if not config.get("remote_url"):
            return "MemHub capture is set to the remote backend but MEMHUB_REMOTE_URL is not set."
    failures = recent_failures()
    if not failures:
        return None
    latest = failures[0]
    if latest.get("last_error") == "auth":
        return "MemHub capture's credential was refused by the server: run `memhub login` again."
    more = f" ({len(failures)} sessions)" if len(failures) > 1 else ""
    return (
        f"MemHub capture: a recent flush failed{more}: {latest.get('last_error')}"
        f" at {_iso(latest.get('last_error_at'))}; see {log_path()}."
    )


def all_states(limit: int | None = None) -> list[dict[str, Any]]:
    """Every session's capture state, most recently updated first."""
    folder = capture_dir()
    try:
        files = [p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith(".")]
    except OSError:
        return []
    files.sort(key=lambda p: p.stat().st_mtime if p.exists() else 0, reverse=True)
    out = []
    for path in files[:limit] if limit else files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "session_id" in data:
            out.append(data)
    return out


def recent_failures(window: float = FAILURE_WINDOW_S) -> list[dict[str, Any]]:
    """Sessions whose last flush failed within `window` seconds and has not succeeded since."""
    now = _now()
    out = []
    for state in all_states(limit=40):
        at = state.get("last_error_at")
        if not at or now - at > window:
            continue
        if (state.get("last_ok_at") or 0) >= at:
            continue
        out.append(state)
    out.sort(key=lambda s: s.get("last_error_at") or 0, reverse=True)
    return out


# --- what capture may read ------------------------------------------------------------------


def _reader_module(host: str) -> Any:
    import importlib

    return importlib.import_module(f"..transcripts.{host}", __package__)


def transcript_roots(host: str) -> list[str]:
    """The real paths of the folders where `host` keeps transcripts (the reader's roots,
    which honour the host's own override variables: CLAUDE_CONFIG_DIR, CODEX_HOME,
    GEMINI_CLI_HOME, HOME)."""
    return [os.path.realpath(root) for root in _reader_module(host).roots()]


def admit(host: str, transcript_path: str | os.PathLike[str]) -> tuple[Path | None, str | None]:
    """(the transcript's real path, None) when capture may read it; (None, None) when it
    does not exist (yet); (None, why) when it is refused.

    The path comes from a hook payload, which anything can write: capture reads only a
    regular file under the host's own transcript roots, after resolving every link, so a
    payload naming `/etc/shadow`, `~/.aws/credentials` or a link to them is refused, and a
    FIFO is refused by `stat` without ever being opened (opening one would block).
    """
    real = os.path.realpath(transcript_path)
    roots = transcript_roots(host)
    if not roots:
        return None, (
            f"{transcript_path} is not under {host}'s transcript folders: none is read while "
            "the host's folder variable is a relative path (make it absolute)"
        )
    if not any(real.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
        return None, (
            f"{transcript_path} is not under {host}'s transcript folders ({', '.join(roots)})"
        )
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{transcript_path}: cannot stat ({exc.strerror})"
    if not stat.S_ISREG(info.st_mode):
        return None, f"{transcript_path} is not a regular file"
    return Path(real), None


def open_transcript(path: Path) -> Any:
    """`path` opened for reading without following a link and without blocking, checked to
    be a regular file once open (it may have been swapped since `admit` looked)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is no longer a regular file")
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


# --- flushing ---------------------------------------------------------------------------------


class FlushResult:
    """What one flush did. `status`: ok, nothing, disabled, skipped, busy, refused (the
    transcript is not a regular file under the host's transcript folders) or failed."""

    __slots__ = ("cursor", "error", "payloads", "sent", "status", "stepped_over")

    def __init__(self, status: str, **values: Any):
        self.status = status
        self.sent = values.get("sent", 0)
        self.payloads = values.get("payloads", 0)
        self.cursor = values.get("cursor", 0)
        self.stepped_over = values.get("stepped_over", 0)
        self.error = values.get("error")

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self) -> str:
        return f"FlushResult({self.as_dict()})"


def flush(
    host: str,
    session_id: str,
    transcript_path: str | os.PathLike[str] | None,  # None from a payload without one
    mode: str = "turn",
    *,
    backend: Any = None,
    title: str | None = None,
    cwd: str | None = None,
) -> FlushResult:
    """Send what the backend has not acknowledged yet; never raises (failures are logged)."""
    if not enabled():
        return FlushResult("disabled")
    if mode not in MODES or host not in HOSTS or not session_id:
        log(f"flush refused: host={host!r} mode={mode!r} session={session_id!r}")
        return FlushResult("failed", error="bad arguments")
    if not transcript_path:
        log(f"{host} {session_id}: {mode} flush without a transcript path")
        return FlushResult("failed", error="no transcript path")
    path, refusal = admit(host, transcript_path)
    if refusal:
        log(f"{host} {session_id}: {mode} flush refused: {refusal}")
        return FlushResult("refused", error=refusal)
    if path is None:  # not written yet (or gone): nothing to send, nothing broken
        log(f"{host} {session_id}: {mode} flush: no transcript at {transcript_path}")
        return FlushResult("nothing", error="transcript not found")
    own_backend = backend is None
    try:
        if own_backend:
            backend = open_backend()
        result = _flush_locked(host, session_id, path, mode, backend, title, cwd)
        _flush_subagents(host, path, mode, backend, cwd)
        return result
    except Exception as exc:  # the backend could not be opened
        slug = _slug(exc)
        log(f"{host} {session_id}: {mode} flush failed ({slug}): {_detail(exc)}")
        _record_failure(host, session_id, path, slug, exc)
        return FlushResult("failed", error=f"{slug}: {_detail(exc)}")
    finally:
        if own_backend and backend is not None:
            with contextlib.suppress(Exception):
                backend.close()


def _flush_locked(
    host: str,
    session_id: str,
    path: Path,
    mode: str,
    backend: Any,
    title: str | None,
    cwd: str | None,
) -> FlushResult:
    """One transcript's flush under its session lock."""
    lock = _Lock(state_path(host, session_id).with_suffix(".lock"), LOCK_WAIT_S[mode])
    try:
        if not lock.acquire():
            log(f"{host} {session_id}: {mode} flush skipped, another flush holds the lock")
            return FlushResult("busy")
    except OSError as exc:
        log(f"{host} {session_id}: cannot lock ({exc})")
        return FlushResult("failed", error=str(exc))
    try:
        result = _Flush(host, session_id, path, mode, backend, title, cwd).run()
        if mode != "turn" and not (result.sent or result.stepped_over):
            # a work boundary or the backstop found nothing new: say so, so the log shows
            # every commit and session-end flush that ran (a sent one logs its counts)
            log(f"{host} {session_id}: {mode} flush: nothing new ({result.status})")
        return result
    except Exception as exc:
        slug = _slug(exc)
        log(f"{host} {session_id}: {mode} flush failed ({slug}): {_detail(exc)}")
        _record_failure(host, session_id, path, slug, exc)
        return FlushResult("failed", error=f"{slug}: {_detail(exc)}")
    finally:
        lock.release()


def _flush_subagents(host: str, path: Path, mode: str, backend: Any, cwd: str | None) -> None:
    """Flush the subagent transcripts the session spawned, each as a session of its own
    (linked to its parent), in the same mode: the host's hook names only the session's
    transcript, so without this a subagent's work is never captured. A turn flush skips the
    ones that have not grown (one stat each); the backstop also looks for the old flat
    layout, which costs a read of each candidate's first line."""
    reader = _reader_module(host)
    find = getattr(reader, "subagents", None)
    if find is None:
        return
    try:
        found = find(path, flat=mode == "session_end")
    except OSError as exc:
        log(f"{host} {path.name}: cannot list subagent transcripts ({exc})")
        return
    for sub in found:
        sub_path, refusal = admit(host, sub)
        if sub_path is None:
            if refusal:
                log(f"{host} {path.name}: subagent transcript refused: {refusal}")
            continue
        sub_id = reader.session_id_for(sub_path)
        if mode == "turn" and not pending(host, sub_id, sub_path):
            continue
        _flush_locked(host, sub_id, sub_path, mode, backend, None, cwd)


def _slug(exc: BaseException) -> str:
    from ..backends.local import AuthFailed, BackendError

    if isinstance(exc, AuthFailed):
        return "auth"
    if isinstance(exc, BackendError):
        return "rejected" if not exc.retryable else "unavailable"
    if isinstance(exc, OSError):
        return "io"
    return "error"


def _detail(exc: BaseException) -> str:
    from .redact import redact_text

    return redact_text(f"{type(exc).__name__}: {exc}")[:200]


def _record_failure(host: str, session_id: str, path: Path, slug: str, exc: BaseException) -> None:
    try:
        state = load_state(host, session_id) or _new_state(host, session_id, path)
        state.update(
            last_error=slug,
            last_error_detail=_detail(exc),
            last_error_at=_now(),
            fail_streak=int(state.get("fail_streak") or 0) + 1,
        )
        _save_state(state)
    except Exception:
        pass


def _new_state(host: str, session_id: str, path: Path) -> dict[str, Any]:
    return {
        "version": 1,
        "host": host,
        "session_id": session_id,
        "conversation_id": conversation_id(host, session_id),
        "transcript": str(path),
        "offset": 0,
        "context": None,
        "initial_context": None,
        "inode": None,
        "mark": None,
        "subagent": None,
        "cap": None,
        "title": None,
        "title_source": None,
        "first_prompt": None,
        "cwd": None,
        "thread_source": None,
        "skip": None,
        "records_acked": 0,
        "payloads": 0,
        "stepped_over": [],
        "last_ok_at": None,
        "last_error": None,
        "last_error_detail": None,
        "last_error_at": None,
        "fail_streak": 0,
    }


class _Item:
    """One record ready to send: its dict, canonical size and digest."""

    __slots__ = ("digest", "id", "record", "size")

    def __init__(self, record: dict[str, Any], size: int, digest: str):
        self.record, self.size, self.digest = record, size, digest
        self.id = record["id"]


class _Group:
    """The records of one transcript line, the offset just past it, the context there, and
    the last bytes before that offset (`tail`, for the cursor's mark)."""

    __slots__ = ("context", "end", "items", "size", "tail")

    def __init__(self, end: int, context: str, items: list[_Item], tail: bytes = b""):
        self.end, self.context, self.items, self.tail = end, context, items, tail
        self.size = sum(item.size for item in items)


MARK_BYTES = 256  # how much of the bytes before the cursor its mark covers


def _mark_digest(data: bytes) -> str:
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


class _Flush:
    def __init__(
        self,
        host: str,
        session_id: str,
        path: Path,
        mode: str,
        backend: Any,
        title: str | None,
        cwd: str | None,
    ):
        self.host, self.session_id, self.path, self.mode = host, session_id, path, mode
        self.backend = backend
        self.remote = getattr(backend, "kind", "") == "remote"
        self.given_title, self.given_cwd = title, cwd
        self.conversation = conversation_id(host, session_id)
        self.mark_key = f"{backend_id(backend)}|{self.conversation}"
        self.deadline = time.monotonic() + float(
            os.environ.get("MEMHUB_FLUSH_DEADLINE_S") or DEADLINE_S[mode]
        )
        self.watermark: Watermark | None = None
        self.sent = self.payloads = self.stepped = 0
        self.saved = False

    # --- setup ---------------------------------------------------------------------------------

    def run(self) -> FlushResult:

        state = load_state(self.host, self.session_id) or _new_state(
            self.host, self.session_id, self.path
        )
        self.state = state
        try:
            info = os.stat(self.path)
        except OSError as exc:
            raise OSError(f"transcript not readable: {exc}") from exc
        if state.get("skip"):
            return FlushResult("skipped", cursor=state.get("offset", 0), error=state["skip"])
        reader = self._reader()
        if self.host == "codex" and not self._codex_allowed(state):
            return FlushResult(
                "skipped" if state.get("skip") else "nothing", cursor=state.get("offset", 0)
            )
        if state.get("subagent") is None:  # [agent id, parent session] or [None, None]
            subagent_of = getattr(reader, "subagent_of", None)
            state["subagent"] = list(subagent_of(self.path)) if subagent_of else [None, None]
        if state.get("initial_context") is None:
            state["initial_context"] = _initial_context(reader, self.path)
        if state.get("cap") is None:
            state["cap"] = _env_int("MEMHUB_CAPTURE_CAP", DEFAULT_CAP)
        offset = int(state.get("offset") or 0)
        rewritten = self._rewritten(info, offset)
        if rewritten:
            log(
                f"{self.host} {self.session_id}: transcript rewritten ({rewritten});"
                " reading it again from the start (the watermark drops what was stored)"
            )
            offset = 0
            state["mark"] = None
            state["context"] = None
            state["initial_context"] = _initial_context(reader, self.path)
        fresh = state.get("inode") != info.st_ino
        state["inode"] = info.st_ino
        state["offset"] = offset
        state["transcript"] = str(self.path)
        if fresh:  # persist the reader's initial context before anything is sent
            _save_state(state)
        self.watermark = Watermark()
        try:
            if not hasattr(reader, "parse_lines") or self.path.suffix not in (".jsonl", ""):
                return self._whole_source(reader)
            return self._stream(reader, info.st_size)
        finally:
            self.watermark.close()

    def _rewritten(self, info: os.stat_result, offset: int) -> str | None:
        """Why the transcript is no longer the one the cursor points into, else None.

        A new inode or a file shorter than the cursor is plainly another file. A file
        rewritten in place (or truncated, then appended past the cursor) is caught by the
        cursor's mark: the digest of the last bytes the cursor moved past. When those bytes
        changed, the cursor points into the middle of some other record.
        """
        if self.state.get("inode") not in (None, info.st_ino):
            return "a new file"
        if info.st_size < offset:
            return f"size {info.st_size} < cursor {offset}"
        mark = self.state.get("mark")
        if not offset or not isinstance(mark, dict) or mark.get("at") != offset:
            return None
        length = int(mark.get("len") or 0)
        with open_transcript(self.path) as handle:
            handle.seek(offset - length)
            tail = handle.read(length)
        if _mark_digest(tail) != mark.get("digest"):
            return f"the {length} bytes before cursor {offset} changed"
        return None

    def _reader(self) -> Any:
        return _reader_module(self.host)

    def _codex_allowed(self, state: dict[str, Any]) -> bool:
        """Skip Codex's own threads by `thread_source`; log a value never seen before."""
        if state.get("thread_checked"):
            return True
        try:
            with open_transcript(self.path) as handle:
                first = handle.readline(1 << 24)
        except OSError:
            return False
        if not first.endswith(b"\n"):
            return False  # the header line is still being written
        try:
            value = json.loads(first)
        except ValueError:
            value = None
        payload = value.get("payload") if isinstance(value, dict) else None
        source = None
        if isinstance(value, dict) and value.get("type") == "session_meta":
            raw = payload.get("thread_source") if isinstance(payload, dict) else None
            if isinstance(raw, str):
                source = raw or None
            elif isinstance(raw, dict) and raw:
                source = str(next(iter(raw)))
        state["thread_source"] = source
        state["thread_checked"] = True
        if source in SKIP_THREAD_SOURCES:
            state["skip"] = f"codex thread_source {source}"
            log(f"codex {self.session_id}: not captured (thread_source {source!r})")
            _save_state(state)
            return False
        if source is not None and source not in KNOWN_THREAD_SOURCES:
            log(f"codex {self.session_id}: unknown thread_source {source!r}; captured")
        _save_state(state)
        return True

    # --- reading ----------------------------------------------------------------------------

    def _groups(self, reader: Any, start: int, size: int, context: dict[str, Any]) -> Any:
        """(`_Group` per complete line from `start` to `size`); `context` is updated in place."""
        parse = reader.parse_lines
        with open_transcript(self.path) as handle:
            handle.seek(start)
            position = start  # file offset of the first byte not yet read
            parts: list[bytes] = []  # the unfinished line so far (a long line spans blocks)
            while position < size:
                block = handle.read(min(READ_BLOCK, size - position))
                if not block:
                    break
                position += len(block)
                if block.rfind(b"\n") < 0:
                    parts.append(block)
                    continue
                data = b"".join([*parts, block])
                base = position - len(data)
                parts, cut = [], 0
                while True:
                    newline = data.find(b"\n", cut)
                    if newline < 0:
                        break
                    records = parse(self.session_id, data[cut : newline + 1], base + cut, context)
                    self._note(records)
                    items = [self._item(record) for record in records]
                    tail = data[max(0, newline + 1 - MARK_BYTES) : newline + 1]
                    yield _Group(base + newline + 1, json.dumps(context), items, tail)
                    cut = newline + 1
                if cut < len(data):
                    parts = [data[cut:]]
            if parts and self.mode == "session_end":
                yield from self._unterminated(parse, b"".join(parts), position, context)

    def _unterminated(self, parse: Any, line: bytes, end: int, context: dict[str, Any]) -> Any:
        """The backstop's last line without its final newline: a record when it is whole
        JSON (a host may never write that newline; `memhub sessions` counts the line too),
        else nothing (it is half-written, and a later flush reads it whole)."""
        from ..transcripts.records import INVALID, load_line

        if not line.strip() or load_line(line) is INVALID:
            return
        records = parse(self.session_id, line + b"\n", end - len(line), context)
        for record in records:
            # where the line ends once its newline is written: the record keeps one version
            # (one digest for the watermark) whether or not the host ever writes it
            record.end = end + 1
        self._note(records)
        items = [self._item(record) for record in records]
        yield _Group(end, json.dumps(context), items, line[-MARK_BYTES:])

    def _item(self, record: Any) -> _Item:
        from ..backends.local import canonical, digest

        data = record.to_json() if hasattr(record, "to_json") else dict(record)
        if self.remote:
            from .redact import redact

            data = redact(data)
        body = canonical(data)
        return _Item(data, len(body), digest(body))

    def _note(self, records: list[Any]) -> None:
        """Collect the session's name and working directory from its records, by the same
        title rule as the readers (`records.fold_title`), so `memhub sessions` and the store
        name a session alike."""
        from ..transcripts.records import fold_title

        state = self.state
        for record in records:
            raw = record.raw if isinstance(getattr(record, "raw", None), dict) else {}
            titles = state.get("titles")
            if not isinstance(titles, dict):
                titles = state["titles"] = {}
            fold_title(titles, record)
            if state.get("cwd") is None:
                payload = raw.get("payload")
                if not isinstance(payload, dict):
                    payload = raw
                if isinstance(payload.get("cwd"), str):
                    state["cwd"] = payload["cwd"]
            if not state.get("first_prompt") and self._is_prompt(record, raw):
                from ..transcripts.records import prompt_title

                text = record.text
                if self.host == "codex":
                    text = self._reader().clean_prompt(text) if text else text
                state["first_prompt"] = prompt_title(text)

    def _is_prompt(self, record: Any, raw: dict[str, Any]) -> bool:
        """A typed prompt, by the reader's own rule where it has one."""
        own = getattr(self._reader(), "is_prompt", None)
        if own is not None:
            return bool(own(record, self.path.name.startswith("agent-")))
        return (
            record.role == "user"
            and record.kind in ("message", "event")
            and bool(record.text)
            and not record.sidechain
            and not raw.get("isMeta")
        )

    def _title(self) -> tuple[str | None, str | None]:
        """What the host calls the session (a rename first), else the first prompt."""
        from ..transcripts.records import choose_title

        if self.given_title:
            return self.given_title, "host"
        if self.host == "codex":
            index = self._codex_index_title()
            if index:
                return index, "host"
        return choose_title(self.state.get("titles") or {}, self.state.get("first_prompt"))

    def _codex_index_title(self) -> str | None:
        reader = self._reader()
        index_title = getattr(reader, "_index_title", None)
        if index_title is None:
            return None
        try:
            home = reader.home_of(self.path) or reader.codex_home()
            return index_title(home, self.session_id)[0]
        except Exception:
            return None

    def _header(self) -> dict[str, Any]:
        title, source = self._title()
        header = {
            "conversation_id": self.conversation,
            "session_id": self.session_id,
            "host": self.host,
            "title": title,
            "title_source": source,
            "cwd": self.given_cwd or self.state.get("cwd"),
            "source": str(self.path),
            "flush": FLUSH_VALUE[self.mode],
        }
        agent_id, parent = self.state.get("subagent") or (None, None)
        if agent_id:  # a subagent transcript: a session of its own, linked to its parent
            header["agent_id"] = agent_id
            header["parent"] = conversation_id(self.host, parent) if parent else None
        if title:
            self.state["title"], self.state["title_source"] = title, source
        if self.remote:
            from .redact import redact

            header = redact(header)
        return header

    # --- the byte-stream path --------------------------------------------------------------

    def _stream(self, reader: Any, size: int) -> FlushResult:
        state = self.state
        if self.mode == "session_end":
            start = 0
            context = json.loads(json.dumps(state["initial_context"]))
        else:
            start = int(state["offset"])
            context = state.get("context") or json.loads(json.dumps(state["initial_context"]))
        if start >= size:
            return FlushResult("nothing", cursor=state["offset"])
        groups = self._groups(reader, start, size, context)
        ahead: list[_Group] = []  # read, not yet placed in a payload (oldest first)
        exhausted = force_single = False
        while True:
            payload: list[_Group] = []
            payload_bytes = 0
            while True:
                if ahead:
                    group = ahead.pop(0)
                else:
                    found = next(groups, None)
                    if found is None:
                        exhausted = True
                        break
                    group = found
                    group.items = self._unsent(group.items)
                    group.size = sum(item.size for item in group.items)
                if payload_bytes and (
                    payload_bytes + group.size > state["cap"] or (force_single and group.size)
                ):
                    ahead.insert(0, group)
                    break
                if not group.size and not payload_bytes:
                    payload = [group]  # only the last of a run of empty lines matters
                else:
                    payload.append(group)
                    payload_bytes += group.size
            if not payload:
                break
            if not payload_bytes:
                # nothing to send (blank lines, records already acknowledged): move past them
                self._advance(payload[-1], acked=[])
            elif time.monotonic() > self.deadline:
                log(f"{self.host} {self.session_id}: {self.mode} flush stopped at its deadline")
                break
            else:
                outcome = self._send(payload, payload_bytes)
                if outcome == "too-large":  # the cap is halved: rebuild smaller
                    ahead[:0] = payload
                    force_single = state["cap"] >= payload_bytes
                    continue
                force_single = False
                if self.mode == "turn" and outcome == "sent":
                    break
            if exhausted and not ahead:
                break
        return self._done()

    def _unsent(self, items: list[_Item], stream: bool = True) -> list[_Item]:
        """The items the backend has not acknowledged. In a byte stream, every version of
        a rewritten record is a line of its own: one is unsent unless that very line was
        acknowledged. A whole source holds one version per id: it is unsent unless it is
        the latest acknowledged (a record changed back is sent again)."""
        if not items:
            return items
        assert self.watermark is not None
        ids = [item.id for item in items]
        if stream:
            acked = self.watermark.versions(self.mark_key, ids)
            return [item for item in items if item.digest not in acked.get(item.id, ())]
        known = self.watermark.known(self.mark_key, ids)
        return [item for item in items if known.get(item.id) != item.digest]

    def _send(self, payload: list[_Group], payload_bytes: int) -> str:
        """Send one payload: 'sent', 'stepped' (refused for size) or 'too-large' (cap halved).

        A partial or unconfirmed ack raises BackendError after saving what was confirmed.
        """
        from ..backends.local import PayloadTooLarge

        state = self.state
        items = [item for group in payload for item in group.items]
        header = self._header()
        try:
            ack = self.backend.import_conversation(header, [item.record for item in items])
        except PayloadTooLarge:
            sending = [g for g in payload if g.items]
            if len(sending) == 1 and len(sending[0].items) >= 1:
                self._step_over(payload, payload_bytes)
                return "stepped"
            old = state["cap"]
            state["cap"] = max(MIN_CAP, min(old, payload_bytes) // 2)
            log(
                f"{self.host} {self.session_id}: 413 for {payload_bytes} bytes in"
                f" {len(items)} records; payload cap {old} -> {state['cap']}"
            )
            _save_state(state)
            return "too-large"
        _fault("after_send")
        through = ack.get("ack_through") if isinstance(ack, dict) else None
        if not isinstance(ack, dict) or ack.get("conversation_id") != self.conversation:
            from ..backends.local import BackendError

            raise BackendError("the backend's ack does not name this conversation")
        ids = [item.id for item in items]
        confirmed = payload if through == ids[-1] else self._confirmed_prefix(payload, through)
        acked = [item for group in confirmed for item in group.items]
        if acked:
            assert self.watermark is not None
            self.watermark.add(self.mark_key, [(item.id, item.digest) for item in acked])
            _fault("after_watermark")
        if confirmed:
            self._advance(confirmed[-1], acked)
        self.sent += len(acked)
        self.payloads += 1 if acked else 0
        if len(confirmed) < len(payload):
            from ..backends.local import BackendError

            raise BackendError(
                f"the backend confirmed {len(acked)} of {len(items)} records"
                f" (ack_through {through!r})"
            )
        return "sent"

    @staticmethod
    def _confirmed_prefix(payload: list[_Group], through: Any) -> list[_Group]:
        """The groups wholly at or before the record `through` (None: nothing)."""
        if not isinstance(through, str):
            return []
        last = None
        for index, group in enumerate(payload):
            if any(item.id == through for item in group.items):
                last = index
        if last is None:
            return []
        group = payload[last]
        # a line is confirmed only when its last record is
        whole = group.items and group.items[-1].id == through
        return payload[: last + 1] if whole else payload[:last]

    def _step_over(self, payload: list[_Group], payload_bytes: int) -> None:
        state = self.state
        ids = [item.id for group in payload for item in group.items]
        log(
            f"{self.host} {self.session_id}: stepped over {len(ids)} record(s)"
            f" {', '.join(ids[:5])} ({payload_bytes} bytes): too large for the backend"
        )
        stepped = list(state.get("stepped_over") or [])
        stepped.append({"ids": ids[:20], "bytes": payload_bytes, "at": _now()})
        state["stepped_over"] = stepped[-STEPPED_KEEP:]
        self.stepped += len(ids)
        self._advance(payload[-1], acked=[])

    def _advance(self, group: _Group, acked: list[_Item]) -> None:
        """Move the cursor to `group.end` (forward only) and save the state."""
        state = self.state
        if group.end > int(state["offset"]):
            state["offset"] = group.end
            state["context"] = json.loads(group.context)
            if group.tail:
                tail = group.tail
                state["mark"] = {"at": group.end, "len": len(tail), "digest": _mark_digest(tail)}
            else:
                state["mark"] = None
        if acked:
            state["records_acked"] = int(state.get("records_acked") or 0) + len(acked)
            state["payloads"] = int(state.get("payloads") or 0) + 1
            state["last_ok_at"] = _now()
            state["last_error"] = state["last_error_detail"] = state["last_error_at"] = None
            state["fail_streak"] = 0
        _save_state(state)
        self.saved = True

    def _done(self) -> FlushResult:
        state = self.state
        if not self.saved:
            _save_state(state)
        if self.sent or self.stepped:
            log(
                f"{self.host} {self.session_id}: {self.mode} +{self.sent} records in"
                f" {self.payloads} payload(s), cursor {state['offset']}"
                + (f", stepped over {self.stepped}" if self.stepped else "")
            )
        return FlushResult(
            "ok" if self.sent or self.stepped else "nothing",
            sent=self.sent,
            payloads=self.payloads,
            cursor=state["offset"],
            stepped_over=self.stepped,
        )

    # --- sources that are not byte streams (Cursor store.db, Gemini .json) --------------------

    def _whole_source(self, reader: Any) -> FlushResult:
        session, records = reader.read_session(self.path)
        if session.title:
            key = "user" if session.title_source == "user" else session.title_source or "host"
            key = "host" if key == "prompt" else key
            if session.title_source == "prompt":
                self.state["first_prompt"] = session.title
            else:
                self.state["titles"] = {**(self.state.get("titles") or {}), key: session.title}
        if session.cwd and not self.state.get("cwd"):
            self.state["cwd"] = session.cwd
        # one group per record; the "offset" counts records for display only
        groups = []
        for index, record in enumerate(records, 1):
            groups.append(_Group(index, "null", [self._item(record)]))
        payload: list[_Group] = []
        payload_bytes = 0
        queue = groups
        while queue:
            group = queue.pop(0)
            group.items = self._unsent(group.items, stream=False)
            group.size = sum(item.size for item in group.items)
            if payload and payload_bytes + group.size > self.state["cap"]:
                queue.insert(0, group)
            else:
                payload.append(group)
                payload_bytes += group.size
                if queue:
                    continue
            if payload_bytes:
                outcome = self._send(payload, payload_bytes)
                if outcome == "too-large":
                    queue[:0] = payload
            payload, payload_bytes = [], 0
            if time.monotonic() > self.deadline:
                break
        self.state["offset"] = 0
        return self._done()


def _initial_context(reader: Any, path: Path) -> dict[str, Any]:
    maker = getattr(reader, "initial_context", None)
    context = maker(path) if maker else {}
    return json.loads(json.dumps(context))


def _env_int(name: str, default: int) -> int:
    try:
        value = int(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


# --- status (for `memhub capture status`) ------------------------------------------------


def status() -> dict[str, Any]:
    """Backend, credential, every session's cursor and failures, and the log's place."""
    config = backend_config()
    out: dict[str, Any] = {
        "enabled": enabled(),
        "backend": config,
        "log": str(log_path()),
        "health": health(),
        "sessions": [],
    }
    if config["backend"] == "remote":
        from ..backends.remote import credential_expired, credential_path, load_credential

        credential = load_credential()
        out["credential"] = {
            "present": credential is not None,
            "source": (credential or {}).get("source"),
            "path": str(credential_path()),
            "expires_at": (credential or {}).get("expires_at"),
            "expired": credential_expired(credential),
        }
    for state in all_states():
        try:
            size = os.stat(state.get("transcript") or "").st_size
        except OSError:
            size = None
        offset = int(state.get("offset") or 0)
        out["sessions"].append(
            {
                "host": state.get("host"),
                "session_id": state.get("session_id"),
                "conversation_id": state.get("conversation_id"),
                "title": state.get("title"),
                "transcript": state.get("transcript"),
                "cursor": offset,
                "size": size,
                "pending_bytes": None if size is None else max(0, size - offset),
                "cap": state.get("cap"),
                "records_acked": state.get("records_acked", 0),
                "last_ok_at": _iso(state.get("last_ok_at")),
                "last_error": state.get("last_error"),
                "last_error_detail": state.get("last_error_detail"),
                "last_error_at": _iso(state.get("last_error_at")),
                "stepped_over": state.get("stepped_over") or [],
                "skip": state.get("skip"),
            }
        )
    return out
