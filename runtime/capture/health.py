"""What is wrong with capture, if anything (`health`), and the report of `memhub capture status`."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from ..handlers import health_inputs, health_memo, health_memo_path
from .settings import FAILURE_WINDOW_S, backend_config, enabled, iso, log_path, memhub_home, now
from .state import all_states, write_atomic


def health() -> str | None:
    """A short message when capture is broken (credential, a recent failed flush), else None;
    a healthy verdict is memoised for the session_start hook (`handlers.health_memo_holds`)."""
    if not enabled():
        return None
    home = str(memhub_home())
    key = health_inputs(home)  # before reading: a change while checking voids the memo
    message, expires_at = _check()
    if message is None:
        _remember(home, key, expires_at)
    return message


def _check() -> tuple[str | None, object]:
    """(the message, else None; the credential's `expires_at` the verdict depends on)."""
    config = backend_config()
    expires_at = None
    if config["backend"] == "remote":
        from ..backends.credential import credential_expired, load_credential

        credential = load_credential()
        if credential is None:
            return (
                "MemHub capture is not signed in: run `memhub login` (or set MEMHUB_API_KEY).",
                None,
            )
        if credential_expired(credential):
            return "MemHub capture's credential has expired: run `memhub login` again.", None
        if not config.get("remote_url"):
            return (
                "MemHub capture is set to the remote backend but MEMHUB_REMOTE_URL is not set.",
                None,
            )
        expires_at = credential.get("expires_at")
    failures = recent_failures()
    if not failures:
        return None, expires_at
    latest = failures[0]
    if latest.get("last_error") == "auth":
        return (
            "MemHub capture's credential was refused by the server: run `memhub login` again.",
            None,
        )
    more = f" ({len(failures)} sessions)" if len(failures) > 1 else ""
    return (
        f"MemHub capture: a recent flush failed{more}: {latest.get('last_error')}"
        f" at {iso(latest.get('last_error_at'))}; see {log_path()}."
    ), None


def _remember(home: str, key: str, expires_at: object) -> None:
    memo_text = health_memo(key, expires_at)
    if memo_text is None:
        return
    with contextlib.suppress(OSError):
        write_atomic(Path(health_memo_path(home)), memo_text.encode("ascii"), sync=False)


def recent_failures(window: float = FAILURE_WINDOW_S) -> list[dict[str, Any]]:
    """Sessions whose last flush failed within `window` seconds and has not succeeded since."""
    moment = now()
    out = []
    for state in all_states(limit=40):
        at = state.get("last_error_at")
        if not at or moment - at > window:
            continue
        if (state.get("last_ok_at") or 0) >= at:
            continue
        out.append(state)
    out.sort(key=lambda s: s.get("last_error_at") or 0, reverse=True)
    return out


# --- what capture may read ------------------------------------------------------------------


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
        from ..backends.credential import credential_expired, credential_path, load_credential

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
                "last_ok_at": iso(state.get("last_ok_at")),
                "last_error": state.get("last_error"),
                "last_error_detail": state.get("last_error_detail"),
                "last_error_at": iso(state.get("last_error_at")),
                "stepped_over": state.get("stepped_over") or [],
                "skip": state.get("skip"),
            }
        )
    return out
