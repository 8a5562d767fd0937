"""Plugin folders a repository's marketplace files name: where an entry's `source` points
(repo.py reads the folder), folders listed without a manifest of their own, and folders a
host's marketplace lists without that host's manifest."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts import claude_repo, copilot_repo, cursor_repo
from memhub.compiler.importing.repo import PluginHub, read_plugin
from memhub.compiler.importing.repo_parts import plugin_fields
from memhub.compiler.importing.repo_tree import Tree


def listed_folders(
    tree: Tree, found: list[tuple[Any, str, dict[str, Any]]], known: set[str]
) -> list[PluginHub]:
    """Plugin folders a marketplace lists by `./folder` that hold no manifest of their own
    (Claude Code takes the entry as the manifest): read with the entry's fields. A source
    naming no folder of the repository is left to repo_market (dropped, with a row)."""
    hubs: list[PluginHub] = []
    for reader, market_folder, doc in found:
        for entry in reader.read_marketplace(doc)["entries"]:
            source = entry.get("source")
            if not isinstance(source, str):
                continue
            folder = local_folder(tree, reader, market_folder, doc, source)
            if folder is None or folder in known:
                continue
            known.add(folder)
            hub = read_plugin(tree, folder)
            if reader is copilot_repo and (hub.copilot_manifest or hub.shared_package):
                hubs.append(hub)  # a manifest Copilot reads, in place: no entry stands in
                continue
            fields, _ = plugin_fields({k: v for k, v in entry.items() if k != "source"}, {})
            hub.read.fields(fields, reader.name)
            if reader is claude_repo:  # Claude Code loads a folder without one
                hub.read.extra.setdefault(reader.name, {})["manifest"] = None
            else:
                hub.read.cannot(
                    f"{folder}/{reader.MANIFEST}",
                    f"the repository has no manifest here (its marketplace entry stands in "
                    f"for it); {reader.name} needs one, so memhub writes it",
                )
            hubs.append(hub)
    return hubs


def adopt_listed(found: list[tuple[Any, str, dict[str, Any]]], plugins: list[PluginHub]) -> None:
    """A plugin folder a Claude or Cursor marketplace lists by `./folder` without a manifest
    of that host (the entry stands in for it: Claude Code loads such a folder, and Cursor
    marketplaces keep each plugin's manifest in their own `.cursor-plugin/plugins/`) gets
    that host, with `overrides.<host>.manifest: null`."""
    by_folder = {hub.folder: hub for hub in plugins}
    for reader, market_folder, doc in found:
        if reader not in (claude_repo, cursor_repo):
            continue
        for entry in reader.read_marketplace(doc)["entries"]:
            source = entry.get("source")
            if not isinstance(source, str):
                continue
            folder = posixpath.normpath(posixpath.join(market_folder, source))
            hub = by_folder.get("" if folder == "." else folder)
            if hub is None or reader.name in hub.read.hosts:
                continue
            fields, _ = plugin_fields({k: v for k, v in entry.items() if k != "source"}, {})
            hub.read.fields(fields, reader.name)
            hub.read.extra.setdefault(reader.name, {})["manifest"] = None
            hub.read.carried[reader.name] = set()  # no manifest carries a server


def local_folder(
    tree: Tree, reader: Any, market_folder: str, doc: Mapping[str, Any], source: str
) -> str | None:
    """The repository folder a marketplace entry's `source` (already read under
    `metadata.pluginRoot` when bare) names: from the marketplace's folder, as every host
    reads it; else under `metadata.pluginRoot` (Copilot CLI reads `./x` there, Claude Code
    does not) or from the marketplace file's own folder (`../../plugins/x` beside
    `.github/plugin/marketplace.json`; neither host installs it), the entry's own `source`
    then coming back as its override. None when no folder of the repository holds a file."""
    metadata = doc.get("metadata")
    root = metadata.get("pluginRoot") if isinstance(metadata, Mapping) else None
    bases = [market_folder]
    if isinstance(root, str):
        bases.append(posixpath.join(market_folder, root))
    bases.append(posixpath.join(market_folder, posixpath.dirname(reader.MARKETPLACE)))
    for base in bases:
        folder = posixpath.normpath(posixpath.join(base, source))
        folder = "" if folder == "." else folder  # `./`: the repository root
        if folder.startswith(("/", "../")) or folder == "..":
            continue
        if any(p.startswith(folder + "/") for p in tree) if folder else bool(tree):
            return folder
    return None
