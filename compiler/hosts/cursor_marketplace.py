"""Cursor's marketplace file (`.cursor-plugin/marketplace.json`): its entries name a folder of the
marketplace repository, nothing else."""

from __future__ import annotations

from typing import Any

from memhub.compiler.hosts.common import NATIVE_ROOT, compact, deep_merge
from memhub.hubspec.marketplace import PluginSource
from memhub.hubspec.model import Hub, Marketplace

name = "cursor"
bundle_root = NATIVE_ROOT  # its plugin folders: plugins/<name>/ (or `plugin.path`)
title = "Cursor"
MARKETPLACE_FILE = ".cursor-plugin/marketplace.json"


def marketplace_source(source: PluginSource, relative: str | None) -> tuple[Any, str]:
    """The entry's `source`: a folder of the marketplace; (None, why) for any other kind."""
    if source.is_local:
        return relative, ""
    return None, (
        "Cursor's marketplace entries name a folder of the marketplace repository; it fetches "
        f"no plugin from another git repository ({source.kind} source), so the entry is left out"
    )


def plugin_entry(hub: Hub, source: Any) -> dict[str, Any]:
    """A built plugin's marketplace entry, its `overrides.cursor.marketplace_entry` merged in."""
    entry = {"name": hub.plugin.name, "source": source, "description": hub.plugin.description}
    return deep_merge(entry, hub.override(name, "marketplace_entry"))


def listed_entry(plugin: str, description: str | None, source: Any) -> dict[str, Any]:
    """The entry of a plugin published from elsewhere."""
    return compact({"name": plugin, "source": source, "description": description})


def marketplace_document(
    market: Marketplace, description: str | None, entries: list[dict[str, Any]]
) -> dict[str, Any]:
    """.cursor-plugin/marketplace.json listing `entries` in order."""
    return compact(
        {
            "name": market.name,
            "owner": compact({"name": market.owner.name, "email": market.owner.email}),
            "metadata": compact({"description": description}),
            "plugins": entries,
        }
    )
