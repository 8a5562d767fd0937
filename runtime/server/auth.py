"""The HTTP server's bearer key: generated on first use, stored 0600 under MEMHUB_HOME.

The key lives in `$MEMHUB_HOME/mcp/http.key` (one line). It starts `mhk_`, the prefix capture
redacts, so a key pasted into a session never leaves it in a transcript sent anywhere. A key
file that others can read, or that is a link, is refused rather than used.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import secrets
import stat
from pathlib import Path

__all__ = ["KeyFile", "UnsafeKey", "key_path", "load_or_create", "rotate"]

PREFIX = "mhk_"
KEY_DIR = "mcp"
KEY_FILE = "http.key"


class UnsafeKey(Exception):
    """The key file is unsafe or unreadable: `message` says which and how to fix it."""


def key_path(home: Path) -> Path:
    """Where the key of the memhub home `home` is stored."""
    return Path(home) / KEY_DIR / KEY_FILE


def _new_key() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def _read(path: Path) -> str | None:
    """The stored key, None when there is none; UnsafeKey when the file is unsafe."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnsafeKey(f"{path}: cannot read the MCP key ({exc.strerror}): remove it") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeKey(f"{path} is not a regular file: remove it")
        if info.st_mode & 0o077:
            raise UnsafeKey(
                f"{path} can be read by others: `chmod 600 {path}`, or rotate the key"
                " (`memhub mcp key --rotate`)"
            )
        text = os.read(fd, 4096).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    if not text.startswith(PREFIX) or len(text) < len(PREFIX) + 32:
        raise UnsafeKey(f"{path} does not hold a memhub key: rotate it (`memhub mcp key --rotate`)")
    return text


def _write_new(path: Path, key: str, *, replace: bool) -> bool:
    """Write `key` 0600 at `path`; without `replace`, only if no key exists (returns whether
    this call wrote it: two servers starting at once agree on one key)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (key + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        if replace:
            os.replace(tmp, path)
            return True
        try:
            os.link(tmp, path)  # fails if another process made the key first
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def load_or_create(home: Path) -> str:
    """The key of `home`, made on first use."""
    path = key_path(home)
    found = _read(path)
    if found is not None:
        return found
    _write_new(path, _new_key(), replace=False)
    made = _read(path)
    if made is None:  # removed between the write and the read: say so, never loop
        raise UnsafeKey(f"{path} vanished while it was being made: try again")
    return made


def rotate(home: Path) -> str:
    """A new key for `home`; the old one stops working at once (running servers re-read it)."""
    path = key_path(home)
    with contextlib.suppress(UnsafeKey):
        _read(path)  # an unsafe old file is replaced, never followed
    if path.is_symlink():
        path.unlink()
    _write_new(path, _new_key(), replace=True)
    key = _read(path)
    assert key is not None
    return key


class KeyFile:
    """The current key of a running server: the file is re-read when it changes (a rotation
    takes effect without a restart), at the cost of one stat per request."""

    def __init__(self, home: Path) -> None:
        self.path = key_path(home)
        self._key = load_or_create(home)
        self._stamp = self._signature()

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            info = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_size)

    def current(self) -> str | None:
        """The key now in force; None when the file became unusable (every request fails)."""
        stamp = self._signature()
        if stamp != self._stamp:
            try:
                self._key = _read(self.path) or ""
            except UnsafeKey:
                self._key = ""
            self._stamp = stamp
        return self._key or None

    def accepts(self, header: str | None) -> bool:
        """Whether an `Authorization` header value carries the key (constant-time)."""
        key = self.current()
        if not key or not header:
            return False
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(token.strip().encode(), key.encode())
