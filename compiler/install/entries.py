"""Entries: the pieces of host config files that an install owns, one record each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from memhub.compiler.digest import value_digest

EntryKind = Literal["json-key", "json-item", "json-default", "toml-table", "text-block", "tree"]
FileFormat = Literal["json", "toml", "text", "tree"]
# The format of the file each kind of entry lives in (the part of the kind before "-").
_FORMAT: dict[EntryKind, FileFormat] = {
    "json-key": "json",
    "json-item": "json",
    "json-default": "json",
    "toml-table": "toml",
    "text-block": "text",
    "tree": "tree",
}


@dataclass(frozen=True, slots=True)
class EntryKey:
    """An owned entry's identity within its target file, as the state records it:
    `kind:a/b/c`, and for an array item `kind:a/b#<digest of the item>` (content-addressed).

    Parsed once here (`parse`) and written once here (`str`); nothing else splits keys."""

    kind: EntryKind
    path: tuple[str, ...]
    item: str | None = None  # a json-item's digest

    @classmethod
    def parse(cls, key: str) -> EntryKey:
        kind, sep, rest = key.partition(":")
        if not sep or kind not in _KINDS:
            raise ValueError(f"not an entry key: {key!r}")
        where, hashed, item = rest.partition("#") if kind == "json-item" else (rest, "", "")
        path = tuple(where.split("/")) if where else ()
        return cls(kind, path, item if hashed else None)  # type: ignore[arg-type]

    @property
    def format(self) -> FileFormat:
        return _FORMAT[self.kind]

    @property
    def name(self) -> str:
        """The path as one string: a block's name, a table's `a/b`."""
        return "/".join(self.path)

    def __str__(self) -> str:
        where = "/".join(self.path)
        return f"{self.kind}:{where}" if self.item is None else f"{self.kind}:{where}#{self.item}"


_KINDS = frozenset(get_args(EntryKind))


def key_format(key: str) -> FileFormat:
    """The format of the file an entry key lives in (`tree`, `json`, `toml`, `text`)."""
    return EntryKey.parse(key).format


@dataclass(frozen=True, slots=True)
class Entry:
    """One owned entry: where it lives (file + key path) and the value memhub wants there.

    - `json-key`: the member at `path` of a JSON object file (an MCP server by name).
    - `json-item`: an element of the array at `path`, identified by its content (a hook).
    - `toml-table`: the table at `path` of a TOML file (`[mcp_servers.<name>]`).
    - `json-default`: a member set only when absent and never removed (a format `version`).
    - `text-block`: the marked block `path[0]` of a Markdown file (instructions).
    - `tree`: a whole folder (a skill); `value` maps relative paths to [sha256, mode].
    """

    host: str
    target: str
    kind: EntryKind
    path: tuple[str, ...]
    value: Any
    files: tuple[tuple[str, bytes, int], ...] = ()  # a tree's (relative path, bytes, mode)

    @property
    def format(self) -> FileFormat:
        return _FORMAT[self.kind]

    @property
    def key(self) -> str:
        """Stable identity within its target file (content-addressed for array items)."""
        return _key_of(self)

    @property
    def entry_key(self) -> EntryKey:
        return EntryKey(self.kind, self.path, self.digest if self.kind == "json-item" else None)

    @property
    def digest(self) -> str:
        return _digest_of(self)


_DIGESTS: dict[int, tuple[Any, str]] = {}
_KEYS: dict[int, tuple[Entry, str]] = {}


def _key_of(entry: Entry) -> str:
    """str(entry.entry_key), remembered per entry: a plan asks each entry's key several
    times (state, merge, drift), and an Entry is frozen."""
    cached = _KEYS.get(id(entry))
    if cached is not None and cached[0] is entry:
        return cached[1]
    key = str(entry.entry_key)
    _KEYS[id(entry)] = (entry, key)
    return key


def _digest_of(entry: Entry) -> str:
    """value_digest, remembered per value object (tree values are shared across hosts)."""
    cached = _DIGESTS.get(id(entry.value))
    if cached is not None and cached[0] is entry.value:
        return cached[1]
    digest = value_digest(entry.value)
    _DIGESTS[id(entry.value)] = (entry.value, digest)
    return digest
