"""Every content digest memhub computes, one function per kind of value.

A digest names what it hashes: `sha256:<hex>` of a file's bytes (`file_digest`), of a
folder's files (`tree_digest`), or of a value's canonical JSON (`value_digest`, which a
skill folder's entry value from `skill_tree_value` goes through too). `absent` stands for
no file at all. Each kind is computed here and nowhere else.
"""

from __future__ import annotations

import hashlib
import json
import stat
from collections.abc import Iterable, Mapping
from typing import Any

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


def bytes_hex(data: bytes) -> str:
    """The bare sha256 hex of some bytes (a stored name, a skill tree value's member)."""
    return hashlib.sha256(data).hexdigest()


def canonical_text(value: Any) -> str | None:
    """A value as sorted, compact JSON, written by json's C encoder; None when it is not
    plain JSON data (NaN and infinities included). Equal texts mean equal data of equal
    types (1, 1.0 and true are written apart), which lets the JSON and TOML editors check a
    whole matching document with one comparison."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None


def value_digest(value: Any) -> str:
    """sha256 of a value's canonical JSON (sorted keys, no spaces, UTF-8 as is): what
    ownership and drift compare, and what Codex records as a hook's `trusted_hash`."""
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def skill_tree_value(files: Iterable[tuple[str, bytes, int]]) -> dict[str, list[Any]]:
    """A skill folder as the value its install entry owns: path -> [sha256 hex, mode].

    Callers pass the mode as installed (0644 or 0755), so that a folder read back from disk
    and the same skill built from the hub give one value."""
    return {path: [bytes_hex(data), mode] for path, data, mode in files}
