"""What the build still writes otherwise than the repository, in the JSON documents overrides
reach, made into overrides (after repo_trim.py):

- a merge patch (RFC 7396): a value the repository has otherwise, and `key: null` for each key
  the adapter writes that the repository lacks (Claude's marketplace `$schema`, Codex's
  `interface` keys, a plugin's `version`), into `overrides.<host>.manifest`, the marketplace
  hub's `overrides.<host>.marketplace` and each plugin entry's `overrides.<host>`;
- a key order (`overrides.<host>.key_order`, compiler/hosts/keyorder.py) where the repository
  orders an object's keys otherwise than memhub writes them (manifests, marketplace files,
  Claude's `.mcp.json`).

Each step builds the hub once and compares; nothing here reads the disk.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from memhub.compiler.hosts import copilot_repo
from memhub.compiler.hosts.keyorder import KEY_ORDER, order_of, ordered
from memhub.compiler.importing.repo import READERS, PluginHub
from memhub.compiler.importing.repo_market import RepoImport
from memhub.compiler.importing.repo_mcp_fill import server_patches
from memhub.compiler.importing.repo_tree import Tree

Documents = dict[str, Any]  # repository path -> the built JSON document there
MANIFEST, MARKETPLACE, PLUGINS, MCP = "manifest", "marketplace", "plugins", "mcp"
MCP_FILE = ".mcp.json"


def fill(imported: RepoImport, tree: Tree, build: Callable[[RepoImport], Any]) -> None:
    """Add the patches, then the key orders, that the builds of `imported` still need."""
    for step in (_patch_step, _order_step):
        built = build(imported)
        if not isinstance(built, dict):
            return  # the hub does not build: the round trip says why
        docs = {p: _json(a.content) for p, a in built.items() if p.endswith(".json")}
        step(imported, tree, docs)


def merge_patch(built: Any, wanted: Any) -> dict[str, Any]:
    """The merge patch turning object `built` into `wanted` (null: a key `wanted` lacks)."""
    out: dict[str, Any] = {k: None for k in built if k not in wanted}
    for key, value in wanted.items():
        if key in built and isinstance(value, dict) and isinstance(built[key], dict):
            inner = merge_patch(built[key], value)
            if inner:
                out[key] = inner
        elif key not in built or built[key] != value:
            out[key] = value
    return out


def _patch_step(imported: RepoImport, tree: Tree, docs: Documents) -> None:
    server_patches([hub for hub, _ in imported.plugins], tree, docs)  # .mcp.json entries
    for hub, path, host in _manifests(imported, tree):
        patch = merge_patch(docs.get(path) or {}, _repo(tree, path))
        if patch and path in docs:
            _into(hub.read.extra.setdefault(host, {}), {MANIFEST: patch})
    market = imported.market_hub
    patches: dict[str, list[dict[str, Any]]] = {}
    items = _items(imported)
    for path, host in _marketplaces(imported, tree):
        mine, ours = _repo(tree, path), docs.get(path)
        if not isinstance(ours, dict):
            continue
        top = {k: v for k, v in mine.items() if k != PLUGINS}
        patches.setdefault(host, []).append(merge_patch(_without(ours, PLUGINS), top))
        for entry in _entries(mine):
            built = next((e for e in _entries(ours) if e.get("name") == entry.get("name")), None)
            item = _item_of(items, str(entry.get("name")), host)
            if built is not None and item is not None and (patch := merge_patch(built, entry)):
                _into(item.setdefault("overrides", {}).setdefault(host, {}), patch)
    for host, found in patches.items():
        shared = {k: v for k, v in found[0].items() if all(p.get(k, ...) == v for p in found)}
        if shared:
            overrides = market.setdefault("overrides", {}).setdefault(host, {})
            _into(overrides, {MARKETPLACE: shared})


def _order_step(imported: RepoImport, tree: Tree, docs: Documents) -> None:
    for hub, path, host in _manifests(imported, tree):
        order = order_of(_repo(tree, path), docs.get(path))
        if order:
            hub.read.extra.setdefault(host, {}).setdefault(KEY_ORDER, {})[MANIFEST] = order
    for hub, _ in imported.plugins:  # Claude's .mcp.json (claude.py writes it)
        path = f"{hub.folder}/{MCP_FILE}" if hub.folder else MCP_FILE
        if path in tree and (order := order_of(_repo(tree, path), docs.get(path))):
            hub.read.extra.setdefault("claude", {}).setdefault(KEY_ORDER, {})[MCP] = order
    market = imported.market_hub
    for path, host in _marketplaces(imported, tree):
        order = order_of(_repo(tree, path), docs.get(path))
        if order:  # one order for all of a host's files: the first (the root's) wins
            overrides = market.setdefault("overrides", {}).setdefault(host, {})
            order = overrides.setdefault(KEY_ORDER, {}).setdefault(MARKETPLACE, order)
        _entry_orders(imported, _repo(tree, path), docs.get(path), order or [], host)


def _entry_orders(imported: RepoImport, mine: Any, ours: Any, order: list[Any], host: str) -> None:
    """An entry's own `overrides.<host>.key_order` (its keys as the repository orders them)
    where the file's one order for its entries does not give its order back (the objects of
    one list in contradicting orders)."""
    inner: list[Any] = next(
        (i["plugins"] for i in order if isinstance(i, dict) and "plugins" in i), []
    )
    items = _items(imported)
    for entry in _entries(mine):
        built = next((e for e in _entries(ours) if e.get("name") == entry.get("name")), None)
        item = _item_of(items, str(entry.get("name")), host)
        if built is None or item is None or set(built) != set(entry):
            continue
        if list(ordered(built, inner)) != list(entry):
            item.setdefault("overrides", {}).setdefault(host, {})[KEY_ORDER] = list(entry)


def _manifests(imported: RepoImport, tree: Tree) -> list[tuple[PluginHub, str, str]]:
    """Each plugin's manifests the repository holds: (hub, path, host)."""
    from memhub.compiler.importing.repo_trim import manifest_path

    found = []
    for hub, _ in imported.plugins:
        for host in hub.read.hosts:
            path = manifest_path(hub, host)
            if path in tree and isinstance(_repo(tree, path), dict):
                found.append((hub, path, host))
    return found


def _marketplaces(imported: RepoImport, tree: Tree) -> list[tuple[str, str]]:
    """The repository's marketplace files the marketplace hub writes: (path, host)."""
    found = []
    for path in imported.marketplace_files:
        reader = next((r for r in (*READERS, copilot_repo) if path.endswith(r.MARKETPLACE)), None)
        if reader is not None and path in tree and isinstance(_repo(tree, path), dict):
            found.append((path, reader.name))
    return found


def _items(imported: RepoImport) -> dict[str, list[tuple[dict[str, Any], list[str]]]]:
    """The marketplace hub's `plugins:` items by plugin name, each with its hub's hosts
    (one name may have a plugin hub per host)."""
    hubs = {into: hub for hub, into in imported.plugins}
    out: dict[str, list[tuple[dict[str, Any], list[str]]]] = {}
    for item in imported.market_hub.get(PLUGINS, []):
        hub = hubs.get(item.get("hub", ""))
        name = str(item.get("name") or (hub.name if hub else item.get("hub")))
        out.setdefault(name, []).append((item, list(hub.read.hosts) if hub else []))
    aliases: dict[str, list[tuple[dict[str, Any], list[str]]]] = {}
    for item in imported.market_hub.get(PLUGINS, []):  # and by a host's own entry name
        hub = hubs.get(item.get("hub", ""))  # (repo_entries.ALIAS)
        for host in (item.get("overrides") or {}).values():
            if isinstance(host, dict) and isinstance(host.get("name"), str):
                hosts = list(hub.read.hosts) if hub else []
                aliases.setdefault(host["name"], []).append((item, hosts))
    return aliases | out


def _item_of(
    items: dict[str, list[tuple[dict[str, Any], list[str]]]], name: str, host: str
) -> dict[str, Any] | None:
    """The item of plugin `name` whose entry `host`'s marketplace files write."""
    found = items.get(name) or []
    return next((i for i, hosts in found if host in hosts), found[0][0] if found else None)


def _entries(doc: Any) -> list[dict[str, Any]]:
    entries = doc.get(PLUGINS) if isinstance(doc, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _without(doc: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != key}


def _into(into: dict[str, Any], data: dict[str, Any]) -> None:
    """`data` merged into `into` (objects key by key; a null stays a null)."""
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _into(into[key], value)
        else:
            into[key] = value


def _repo(tree: Tree, path: str) -> Any:
    return _json(tree[path].content)


def _json(content: bytes) -> Any:
    try:
        return json.loads(content)
    except (ValueError, RecursionError):  # a file shipped as it is may be any bytes
        return None
