"""The hosts that read marketplace files, and the contract their adapters fill to write one.

Each of these hosts (Claude Code, Codex, Cursor) has a `<host>_marketplace` module beside its
adapter that writes its own marketplace shapes (the adapter uses it for a one-plugin
bundle); the marketplace build only asks them, in this one list."""

from __future__ import annotations

from typing import Any, Protocol

from memhub.compiler.hosts import (
    claude_marketplace,
    codex_marketplace,
    copilot_marketplace,
    cursor_marketplace,
)
from memhub.hubspec.marketplace import PluginSource
from memhub.hubspec.model import Hub, Marketplace


class MarketplaceWriter(Protocol):
    name: str
    title: str
    MARKETPLACE_FILE: str  # relative to the marketplace's folder
    bundle_root: str  # the bundle folder holding this host's plugin folders

    def marketplace_source(self, source: PluginSource, relative: str | None) -> tuple[Any, str]:
        """The entry's `source` value, or (None, why the host cannot express it)."""
        ...

    def plugin_entry(self, hub: Hub, source: Any) -> dict[str, Any]:
        """A built plugin's entry, its `overrides.<host>.marketplace_entry` merged in."""
        ...

    def listed_entry(self, plugin: str, description: str | None, source: Any) -> dict[str, Any]:
        """The entry of a plugin published from elsewhere."""
        ...

    def marketplace_document(
        self, market: Marketplace, description: str | None, entries: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The marketplace file listing `entries`."""
        ...


WRITERS: dict[str, MarketplaceWriter] = {
    w.name: w
    for w in (claude_marketplace, codex_marketplace, cursor_marketplace, copilot_marketplace)
}
# where a plugin hub's own build writes its one-plugin marketplace files (the bundle root)
ROOT_FILES: frozenset[str] = frozenset(w.MARKETPLACE_FILE for w in WRITERS.values())
