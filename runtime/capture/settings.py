"""Capture's settings: where its files live, whether it is on, which backend, its log."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

MODES = ("turn", "commit", "session_end")
HOSTS = ("claude", "codex", "copilot", "cursor", "gemini")
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
    from ..backends.base import read_own_json

    path = memhub_home() / "capture.json"
    data = read_own_json(path)
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
        from ..backends.base import BackendError
        from ..backends.remote import RemoteBackend

        if not config.get("remote_url"):
            raise BackendError("MEMHUB_BACKEND=remote needs MEMHUB_REMOTE_URL", retryable=False)
        return RemoteBackend(config["remote_url"])
    if config["backend"] != "local":
        from ..backends.base import BackendError

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


def now() -> float:
    return time.time()


def iso(moment: float | None) -> str | None:
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
        line = f"{iso(now())} [{os.getpid()}] {message}\n"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # the log must never break a hook
        pass


def env_int(name: str, default: int) -> int:
    try:
        value = int(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return value if value > 0 else default
