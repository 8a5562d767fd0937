"""Claude Code's marketplace file (`.claude-plugin/marketplace.json`): its entries and every
source kind it takes (relative folder, github, url, git-subdir; `ref` and `sha` pins)."""

from __future__ import annotations

from typing import Any

from memhub.compiler.hosts.common import NATIVE_ROOT, compact, deep_merge
from memhub.hubspec.marketplace import PluginSource
from memhub.hubspec.model import Hub, Marketplace

name = "claude"
bundle_root = NATIVE_ROOT  # its plugin folders: plugins/<name>/ (or `plugin.path`)
title = "Claude Code"
MARKETPLACE_SCHEMA = "https://json.schemastore.org/claude-code-marketplace.json"
MARKETPLACE_FILE = ".claude-plugin/marketplace.json"


def marketplace_source(source: PluginSource, relative: str | None) -> tuple[Any, str]:
    """The entry's `source` (`relative` is a local plugin's `./folder`); Claude Code takes
    every kind memhub has."""
    if source.is_local:
        return relative, ""
    pin = compact({"ref": source.ref, "sha": source.sha})
    if source.kind == "github":
        return {"source": "github", "repo": source.repo, **pin}, ""
    if source.kind == "git":
        return {"source": "url", "url": source.url, **pin}, ""
    return {"source": "git-subdir", "url": source.url, "path": source.path, **pin}, ""


def plugin_entry(hub: Hub, source: Any) -> dict[str, Any]:
    """A built plugin's marketplace entry, its `overrides.claude.marketplace_entry` merged in."""
    plugin = hub.plugin
    entry = compact(
        {
            "name": plugin.name,
            "source": source,
            "description": plugin.description,
            "version": plugin.version,
            "author": plugin.author.as_dict() if plugin.author else None,
            "homepage": plugin.homepage,
            "repository": plugin.repository,
            "license": plugin.license,
            "keywords": list(plugin.keywords),
            "category": plugin.category,
        }
    )
    return deep_merge(entry, hub.override(name, "marketplace_entry"))


def listed_entry(plugin: str, description: str | None, source: Any) -> dict[str, Any]:
    """The entry of a plugin published from elsewhere (no hub here to describe it)."""
    return compact({"name": plugin, "source": source, "description": description})


def marketplace_document(
    market: Marketplace, description: str | None, entries: list[dict[str, Any]]
) -> dict[str, Any]:
    """.claude-plugin/marketplace.json listing `entries` in order."""
    return compact(
        {
            "$schema": MARKETPLACE_SCHEMA,
            "name": market.name,
            "description": description,
            "owner": market.owner.as_dict(),
            "plugins": entries,
        }
    )
