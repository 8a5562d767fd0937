"""Codex's marketplace file (`.agents/plugins/marketplace.json`): its entries (`policy` and
`category` always) and the source kinds it takes (local, url, git-subdir; `ref` and `sha`)."""

from __future__ import annotations

from typing import Any

from memhub.compiler.hosts.common import NATIVE_ROOT, compact, deep_merge
from memhub.hubspec.marketplace import PluginSource
from memhub.hubspec.model import Hub, Marketplace

name = "codex"
bundle_root = NATIVE_ROOT  # its plugin folders: plugins/<name>/ (or `plugin.path`)
title = "Codex"
DEFAULT_CATEGORY = "Productivity"
MARKETPLACE_FILE = ".agents/plugins/marketplace.json"


def marketplace_source(source: PluginSource, relative: str | None) -> tuple[Any, str]:
    """The entry's `source`: `local` for a folder of the marketplace, `url` for a git
    repository (a GitHub one by its clone URL), `git-subdir` for a folder of one."""
    if source.is_local:
        return {"source": "local", "path": relative}, ""
    pin = compact({"ref": source.ref, "sha": source.sha})
    if source.kind == "github":
        return {"source": "url", "url": f"https://github.com/{source.repo}.git", **pin}, ""
    if source.kind == "git":
        return {"source": "url", "url": source.url, **pin}, ""
    return {"source": "git-subdir", "url": source.url, "path": source.path, **pin}, ""


def _entry(plugin: str, source: Any, category: str | None) -> dict[str, Any]:
    return {
        "name": plugin,
        "source": source,
        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        "category": category or DEFAULT_CATEGORY,
    }


def plugin_entry(hub: Hub, source: Any) -> dict[str, Any]:
    """A built plugin's marketplace entry, its `overrides.codex.marketplace_entry` merged in."""
    entry = _entry(hub.plugin.name, source, hub.plugin.category)
    return deep_merge(entry, hub.override(name, "marketplace_entry"))


def listed_entry(plugin: str, description: str | None, source: Any) -> dict[str, Any]:
    """The entry of a plugin published from elsewhere (Codex entries carry no description)."""
    return _entry(plugin, source, None)


def marketplace_document(
    market: Marketplace, description: str | None, entries: list[dict[str, Any]]
) -> dict[str, Any]:
    """.agents/plugins/marketplace.json listing `entries` in order (Codex has no
    marketplace description)."""
    return {
        "name": market.name,
        "interface": {"displayName": market.display_name or market.name},
        "plugins": entries,
    }
