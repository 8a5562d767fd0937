"""The remote backend's credential: `MEMHUB_API_KEY`, else `$MEMHUB_HOME/credentials.json`
(written 0600 by `memhub login`)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from .base import memhub_home, read_own_json

CREDENTIAL_FILE = "credentials.json"


def credential_path() -> Path:
    return memhub_home() / CREDENTIAL_FILE


def load_credential() -> dict[str, Any] | None:
    """`{"api_key", "source", ...}` from `MEMHUB_API_KEY` or the credential file, else None."""
    env_key = os.environ.get("MEMHUB_API_KEY", "").strip()
    if env_key:
        return {"api_key": env_key, "source": "env"}
    data = read_own_json(credential_path(), follow=True)  # a dotfile manager may link it
    if not isinstance(data, dict) or not isinstance(data.get("api_key"), str):
        return None
    data["source"] = "file"
    return data


def save_credential(api_key: str, *, expires_at: str | None = None) -> Path:
    """Store `api_key` 0600 under MEMHUB_HOME (atomically); returns the file."""
    path = credential_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    body: dict[str, Any] = {
        "api_key": api_key,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if expires_at:
        body["expires_at"] = expires_at
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (json.dumps(body, indent=2) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return path


def credential_expired(credential: dict[str, Any] | None) -> bool:
    expires = (credential or {}).get("expires_at")
    if not isinstance(expires, str) or not expires:
        return False
    return expires <= time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
