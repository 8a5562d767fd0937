"""What every capture backend shares: the interface, its errors, the canonical record bytes.

Every backend has one method, `import_conversation(session_header, records) -> ack`, where
`session_header` is `{"conversation_id", "session_id", "host", "title", "cwd", "flush"}`
and `records` are `Record.to_json()` dicts, and the ack is
`{"conversation_id", "ack_through": <id of the last record stored, or None>,
"records_new", "records_updated", "records_unchanged", "records_dropped"}`. Errors are
`BackendError` (retryable or not), `PayloadTooLarge` (HTTP 413: capture halves the
session's payload cap) and `AuthFailed` (the credential was refused).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any, Protocol


class BackendError(Exception):
    """A backend did not store the payload. `retryable` says whether trying later may work."""

    def __init__(self, message: str, *, retryable: bool = True, status: int | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.status = status


class PayloadTooLarge(BackendError):
    """The backend refused the payload for its size (HTTP 413)."""

    def __init__(self, message: str = "payload too large (413)", *, size: int | None = None):
        super().__init__(message, retryable=True, status=413)
        self.size = size


class AuthFailed(BackendError):
    """The backend refused the credential (HTTP 401/403), or there is none."""

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message, retryable=False, status=status)


class Backend(Protocol):
    kind: str

    def import_conversation(
        self, session_header: dict[str, Any], records: list[dict[str, Any]]
    ) -> dict[str, Any]: ...

    def close(self) -> None: ...


def memhub_home() -> Path:
    configured = os.environ.get("MEMHUB_HOME")
    return Path(configured) if configured else Path.home() / ".memhub"


OWN_FILE_LIMIT = 1 << 20  # capture's state, settings and credential files are small


def read_own_json(path: Path, *, follow: bool = False) -> Any:
    """The JSON value of one of memhub's own small files, None when it is absent, not a
    regular file (a FIFO is never blocked on), a link (unless `follow`), over
    OWN_FILE_LIMIT bytes, or not JSON: memhub's folder is untrusted input too."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > OWN_FILE_LIMIT:
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(OWN_FILE_LIMIT + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def canonical(record: dict[str, Any]) -> bytes:
    """A record's canonical JSON bytes (sorted keys, compact): what digests are taken of."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )


def storable(record: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """(the record as a store takes it, its canonical bytes): a record holding text no UTF-8
    store takes (a lone surrogate) comes back as a copy with it replaced by U+FFFD and
    `"repaired": true`, never refused, so one bad string cannot stop a session's capture."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    try:
        return record, text.encode("utf-8")
    except UnicodeEncodeError:
        from ..transcripts.clean import clean_value

        fixed, _ = clean_value(json.loads(json.dumps(record)))  # a deep copy to clean
        fixed["repaired"] = True
        return fixed, canonical(fixed)


def storable_header(header: dict[str, Any]) -> dict[str, Any]:
    """A session header whose strings a UTF-8 store takes (lone surrogates replaced)."""
    try:
        json.dumps(header, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        from ..transcripts.clean import clean_value

        return dict(clean_value(json.loads(json.dumps(header)))[0])
    return header
