"""A session's capture state (`<host>-<session>.json`), its lock, and the failure marker."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from .settings import FAULT_EXIT, capture_dir, conversation_id, enabled, now


def safe_name(session_id: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:80]
    if safe != session_id:
        import hashlib

        safe += "-" + hashlib.blake2b(session_id.encode(), digest_size=4).hexdigest()
    return safe


def state_path(host: str, session_id: str) -> Path:
    return capture_dir() / f"{host}-{safe_name(session_id)}.json"


def load_state(host: str, session_id: str) -> dict[str, Any] | None:
    from ..backends.base import read_own_json

    data = read_own_json(state_path(host, session_id))
    return data if isinstance(data, dict) else None


def write_atomic(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Replace `path` with `data` (temp file + rename, 0600); `sync`: fsync first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def save_state(state: dict[str, Any]) -> None:
    state["updated_at"] = now()
    try:
        data = json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:  # a path that is not UTF-8 (surrogate escapes): kept exactly
        data = json.dumps(state, separators=(",", ":")).encode("ascii")
    write_atomic(state_path(state["host"], state["session_id"]), data)


def fault(point: str) -> None:
    """Test hook: `MEMHUB_CAPTURE_FAULT=<point>` kills the process at that point."""
    if os.environ.get("MEMHUB_CAPTURE_FAULT") == point:
        os._exit(FAULT_EXIT)


class Lock:
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


def new_state(host: str, session_id: str, path: Path) -> dict[str, Any]:
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


def failure_marker() -> Path:
    """Replaced on every recorded failure, so `capture.health`'s memo of a healthy verdict
    (`memo.py`) sees a new failure without reading every session's state."""
    return capture_dir() / "failed"


def record_failure(host: str, session_id: str, path: Path, slug: str, detail: str) -> None:
    """Note a failed flush in the session's state (for `health` and `memhub capture status`)."""
    try:
        state = load_state(host, session_id) or new_state(host, session_id, path)
        state.update(
            last_error=slug,
            last_error_detail=detail,
            last_error_at=now(),
            fail_streak=int(state.get("fail_streak") or 0) + 1,
        )
        save_state(state)
    except Exception:
        pass
    with contextlib.suppress(OSError):
        write_atomic(failure_marker(), f"{now()}\n".encode("ascii"))


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


def all_states(limit: int | None = None) -> list[dict[str, Any]]:
    """Every session's capture state, most recently updated first."""
    folder = capture_dir()
    try:
        files = [p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith(".")]
    except OSError:
        return []
    files.sort(key=lambda p: p.stat().st_mtime if p.exists() else 0, reverse=True)
    out = []
    from ..backends.base import read_own_json

    for path in files[:limit] if limit else files:
        data = read_own_json(path)  # a FIFO named *.json must not hang session_start
        if isinstance(data, dict) and "session_id" in data:
            out.append(data)
    return out
