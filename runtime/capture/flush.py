"""One flush of a session (and of the subagents it spawned), under the session's lock."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from .sending import Flush, FlushResult
from .settings import HOSTS, LOCK_WAIT_S, MODES, enabled, log, open_backend
from .sources import admit, reader_module
from .state import Lock, pending, record_failure, state_path


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
        slug = error_slug(exc)
        log(f"{host} {session_id}: {mode} flush failed ({slug}): {error_detail(exc)}")
        record_failure(host, session_id, path, slug, error_detail(exc))
        return FlushResult("failed", error=f"{slug}: {error_detail(exc)}")
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
    lock = Lock(state_path(host, session_id).with_suffix(".lock"), LOCK_WAIT_S[mode])
    try:
        if not lock.acquire():
            log(f"{host} {session_id}: {mode} flush skipped, another flush holds the lock")
            return FlushResult("busy")
    except OSError as exc:
        log(f"{host} {session_id}: cannot lock ({exc})")
        return FlushResult("failed", error=str(exc))
    try:
        result = Flush(host, session_id, path, mode, backend, title, cwd).run()
        if mode != "turn" and not (result.sent or result.stepped_over):
            # a work boundary or the backstop found nothing new: say so, so the log shows
            # every commit and session-end flush that ran (a sent one logs its counts)
            log(f"{host} {session_id}: {mode} flush: nothing new ({result.status})")
        return result
    except Exception as exc:
        slug = error_slug(exc)
        log(f"{host} {session_id}: {mode} flush failed ({slug}): {error_detail(exc)}")
        record_failure(host, session_id, path, slug, error_detail(exc))
        return FlushResult("failed", error=f"{slug}: {error_detail(exc)}")
    finally:
        lock.release()


def _flush_subagents(host: str, path: Path, mode: str, backend: Any, cwd: str | None) -> None:
    """Flush the subagent transcripts the session spawned, each as a session of its own
    (linked to its parent), in the same mode: the host's hook names only the session's
    transcript, so without this a subagent's work is never captured. A turn flush skips the
    ones that have not grown (one stat each); the backstop also looks for the old flat
    layout, which costs a read of each candidate's first line."""
    reader = reader_module(host)
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


def error_slug(exc: BaseException) -> str:
    from ..backends.base import AuthFailed, BackendError

    if isinstance(exc, AuthFailed):
        return "auth"
    if isinstance(exc, BackendError):
        return "rejected" if not exc.retryable else "unavailable"
    if isinstance(exc, OSError):
        return "io"
    return "error"


def error_detail(exc: BaseException) -> str:
    from .redact import redact_text

    return redact_text(f"{type(exc).__name__}: {exc}")[:200]
