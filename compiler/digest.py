"""Every content digest memhub computes, one function per kind of value.

A digest names what it hashes: `sha256:<hex>` of a file's bytes, of a folder's files, or of
a value's canonical JSON. `absent` stands for no file at all.
"""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Mapping

ABSENT = "absent"
"""The digest of a path that holds nothing."""


def file_digest(data: bytes | None) -> str:
    """`sha256:<hex>` of a file's bytes, `absent` for no file."""
    return ABSENT if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


def tree_digest(files: Mapping[str, tuple[bytes, int]]) -> str:
    """Stable digest of a folder: relative paths, exec bits (or link marks) and bytes."""
    digest = hashlib.sha256(b"memhub-tree-v1\0")
    for rel in sorted(files):
        data, mode = files[rel]
        flag = b"l" if stat.S_ISLNK(mode) else b"x" if mode & 0o111 else b"-"
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0" + flag)
        digest.update(len(data).to_bytes(8, "big") + data)
    return "sha256:" + digest.hexdigest()


def digest_hex(digest: str) -> str:
    """The hex part of a `sha256:` digest (a stored name)."""
    return digest.split(":", 1)[1]
