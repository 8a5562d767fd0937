"""GitHub Copilot CLI's marketplace file (`.github/plugin/marketplace.json`): Claude Code's
entry shape and source kinds (relative folder, github, url, git-subdir; `ref` and `sha`
pins: copilot 1.0.102 validates each and refuses an unknown kind), a `metadata.description`
in place of a top-level one, and plugins in the bundle's `copilot/<name>/` folders."""

from __future__ import annotations

import re
from typing import Any

from memhub.compiler.hosts import claude_marketplace, cursor_marketplace
from memhub.compiler.hosts.common import NATIVE_ROOT, deep_merge
from memhub.hubspec.marketplace import PluginSource
from memhub.hubspec.model import Hub

name = "copilot"
title = "GitHub Copilot CLI"
MARKETPLACE_FILE = ".github/plugin/marketplace.json"
bundle_root = "copilot"  # where its plugin folders lie in a bundle (copilot/<name>/)


def root(hub: Hub) -> str:
    """The bundle folder holding the plugin's Copilot copy: its own (`copilot/`), or the
    plugin's native folder when `plugin.copilot_manifest` puts the manifest there."""
    return NATIVE_ROOT if hub.plugin.copilot_manifest else bundle_root


# copilot 1.0.102 parses a git source's `url` as a URL: `scheme://...`, never scp-style
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")


def marketplace_source(source: PluginSource, relative: str | None) -> tuple[Any, str]:
    """The entry's `source`: the same shapes as Claude Code's; (None, why) for a git address
    Copilot refuses."""
    if source.url is not None and not _URL.fullmatch(source.url):
        return None, (
            f"Copilot CLI reads a git source's url as a URL and refuses {source.url!r} "
            "(`Invalid url`), so the entry is left out; write it as ssh://user@host/path"
        )
    return claude_marketplace.marketplace_source(source, relative)


def plugin_entry(hub: Hub, source: Any) -> dict[str, Any]:
    """A built plugin's entry, its `overrides.copilot.marketplace_entry` merged in."""
    entry = {"name": hub.plugin.name, "source": source, "description": hub.plugin.description}
    return deep_merge(entry, hub.override(name, "marketplace_entry"))


# a listed plugin's entry is Claude Code's, the file itself Cursor's (name, owner,
# metadata.description, plugins)
listed_entry = claude_marketplace.listed_entry
marketplace_document = cursor_marketplace.marketplace_document
