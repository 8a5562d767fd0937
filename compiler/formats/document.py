"""One host document (JSON or TOML): parsed once, read by key path, edited in one batch.

Install, doctor, import and diff all look things up in the same few host files
(`~/.claude.json`, `config.toml`, `mcp.json`, `settings.json`). Parsing such a file per
lookup, or splicing it per entry, makes an install of N servers cost N times the file. A
`Document` parses its text once, answers every `get` from that, and collects `set` and
`remove` edits until its `text` is read; then all of them are made together
(`jsonedit.set_keys`, `tomledit.edit_tables`: one scan, one verification).

    doc = Document("toml", text)
    doc.get(("mcp_servers", "docs"))      # the value, or MISSING
    doc.set(("mcp_servers", "new"), {...})
    doc.remove(("mcp_servers", "old"))    # TOML tables; JSON removals go through jsonedit
    doc.text                              # the edited text (the edits are made now)
    doc.replace(jsonedit.append_item(doc.text, path, item))   # any other edit

`parsed(format, text)` is the shared cache under it, and the one way install, doctor,
import and diff parse a host's JSON or TOML (`format_of(name)` picks the format): the data of a text, computed once for
as long as the same text comes back (plan, then apply's compare-and-swap on the same bytes).
Values it returns are shared: read them, never change them.

Errors are the editors' own: `jsonedit.JsonEditError` and `tomledit.TomlEditError`, naming
line and column where the parser does.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal

from memhub.compiler.formats import jsonedit, tomledit

DocFormat = Literal["json", "toml"]
KeyPath = tuple[str, ...]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # what `get` returns for an absent key
_REMOVE: Any = object()


@functools.lru_cache(maxsize=32)
def parsed(fmt: DocFormat, text: str) -> Any:
    """The data of `text` (blank JSON is {}); shared, never to be changed."""
    return jsonedit.parse(text) if fmt == "json" else tomledit.parse(text)


def format_of(name: str) -> DocFormat | None:
    """The document format a file name says (`.json` and `.jsonc`, whose comments jsonedit
    keeps; `.toml`), None for any other file."""
    if name.endswith((".json", ".jsonc")):
        return "json"
    return "toml" if name.endswith(".toml") else None


class Document:
    """A host document's text and its data; edits are collected, then made at once."""

    def __init__(self, fmt: DocFormat, text: str) -> None:
        self.format = fmt
        self._text = text
        self._pending: dict[KeyPath, Any] = {}
        self._under: set[KeyPath] = set()  # every proper prefix of a pending path
        parsed(fmt, text)  # a text that does not parse is refused before any edit

    @property
    def text(self) -> str:
        """The text with every edit made so far."""
        self._flush()
        return self._text

    @property
    def data(self) -> Any:
        """The parsed data of `text` (shared: do not change it)."""
        return parsed(self.format, self.text)

    def get(self, path: Sequence[str]) -> Any:
        """The value at `path`, or MISSING; an error when the path crosses a non-table."""
        key = tuple(path)
        if key in self._under or any(key[:n] in self._pending for n in range(1, len(key) + 1)):
            self._flush()  # an edit of this batch is at, above or below `path`
        data = parsed(self.format, self._text)
        if self.format == "toml":
            value = tomledit.lookup_table(data, key, self._text)
            return MISSING if value is None else value
        for depth, part in enumerate(key):
            if not isinstance(data, dict):
                shown = ".".join(key[:depth])
                raise jsonedit.JsonEditError(f"{shown} is not an object")
            if part not in data:
                return MISSING
            data = data[part]
        return data

    def set(self, path: Sequence[str], value: Any) -> None:
        """Make the member (JSON) or table (TOML) at `path` equal `value`."""
        self._add(tuple(path), value)

    def remove(self, path: Sequence[str]) -> None:
        """Remove the TOML table at `path` (absent: nothing happens)."""
        if self.format != "toml":
            raise TypeError("JSON members are removed with jsonedit (its pruning rules)")
        self._add(tuple(path), _REMOVE)

    def replace(self, text: str) -> None:
        """Take the result of an edit made on `text` by other means."""
        self._flush()
        self._text = text

    def _add(self, key: KeyPath, value: Any) -> None:
        inside = any(key[:n] in self._pending for n in range(1, len(key)))
        if inside or key in self._pending or key in self._under:
            self._flush()  # the same path twice, or one inside another: one batch each
        self._pending[key] = value
        self._under.update(key[:n] for n in range(1, len(key)))

    def _flush(self) -> None:
        if not self._pending:
            return
        edits = list(self._pending.items())
        self._pending.clear()
        self._under.clear()
        if self.format == "json":
            self._text = jsonedit.set_keys(self._text, edits)
        else:
            changes = [(key, None if value is _REMOVE else value) for key, value in edits]
            self._text = tomledit.edit_tables(self._text, changes)
