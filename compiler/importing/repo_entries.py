"""A repository's marketplace files as a marketplace hub's `plugins:`, `marketplaces:` and
`overrides.<host>.marketplace` (the inverse of compiler/marketplace.py's writer)."""

from __future__ import annotations

import posixpath
from typing import Any

from memhub.compiler.hosts import claude_repo, codex_repo, copilot_repo, cursor_repo
from memhub.compiler.importing.repo import PluginHub

Found = list[tuple[Any, str, dict[str, Any]]]
_MARKET_HOSTS = {r.name for r in (claude_repo, codex_repo, cursor_repo, copilot_repo)}


def entries_and_markets(
    found: Found, plugins: list[PluginHub], market: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None, dict[str, Any]]:
    """`plugins:`, `marketplaces:` ([] when the repository has no marketplace file, None
    when the default one fits) and `overrides.<host>.marketplace` of the marketplace hub."""
    named: dict[str, list[PluginHub]] = {}
    for hub in plugins:  # one name in a folder per host: a plugin hub each (plugin_hub_of)
        named.setdefault(hub.name, []).append(hub)
    seen: dict[tuple[str, int], dict[str, tuple[dict[str, Any], str]]] = {}
    lists: dict[tuple[Any, str], list[str]] = {}  # each file's plugins, in its order
    groups: dict[tuple[str, Any, Any], dict[str, Any]] = {}
    overrides: dict[str, Any] = {}
    for reader, folder, doc in found:
        read = reader.read_marketplace(doc)
        file = getattr(reader, "MARKETPLACE", None)
        own = file == copilot_repo.ROOT_MARKETPLACE  # Copilot's root file: a group of its own
        key = (folder, (read.get("name"), file) if own else read.get("name"), None)
        group = groups.setdefault(key, {"name": read.get("name"), "hosts": [], "plugins": []})
        if own:
            group["file"] = file
        group["hosts"].append(reader.name)
        if read.get("description"):
            group.setdefault("description", read["description"])
        if read.get("display_name") and read["display_name"] != market.get("display_name"):
            group.setdefault("display_name", read["display_name"])
        if read.get("owner") and read["owner"] != market.get("owner"):
            # null takes a key of the default owner out of this host's files
            owner = {k: None for k in market.get("owner") or {}} | read["owner"]
            overrides.setdefault(reader.name, {}).setdefault("marketplace", {})["owner"] = owner
        in_file = {str(e.get("name")) for e in read["entries"]}
        order = lists.setdefault((key, reader.name), [])  # entry names, aliases resolved
        for entry in read["entries"]:
            if str(entry.get("name")) not in named:
                others = {h.folder: h for k, hs in named.items() if k not in in_file for h in hs}
                entry = _by_folder(entry, folder, others)
            name = str(entry.get("name"))
            order.append(name)
            of = plugin_hub_of(named.get(name, []), reader.name)
            which = (name, plugins.index(of) if of else -1)
            seen.setdefault(which, {})[reader.name] = (entry, folder)
            if name not in group["plugins"]:
                group["plugins"].append(name)
        if read["extra"]:
            overrides.setdefault(reader.name, {}).setdefault("marketplace", {}).update(
                read["extra"]
            )
    _apart(groups, lists, named)
    listed = [
        _item(name, hosts, plugins[at] if at >= 0 else None, found)
        for (name, at), hosts in seen.items()
    ]
    unlisted = [hub for at, hub in enumerate(plugins) if (hub.name, at) not in seen]
    listed += [{"hub": hub.place} for hub in unlisted]
    # the default marketplace lists every plugin, for every host of theirs that has one
    marketed = {h for hub in plugins for h in hub.read.hosts if h in _MARKET_HOSTS}
    filed = {h for group in groups.values() for h in group["hosts"]}
    partial = bool(unlisted) or bool(marketed - filed)
    names = list(dict.fromkeys(name for name, _ in seen))
    return listed, _marketplaces(groups, names, market, partial) if groups else [], overrides


def _apart(
    groups: dict[tuple[str, Any, Any], dict[str, Any]],
    lists: dict[tuple[Any, str], list[str]],
    named: dict[str, list[PluginHub]],
) -> None:
    """A marketplace of its own for each host whose file lists other plugins, or in another
    order, than the shared marketplace gives it (its plugins built for that host, in order)."""
    for key, group in list(groups.items()):
        for host in list(group["hosts"]):
            built = [n for n in group["plugins"] if _built_for(named.get(n, []), host)]
            if lists[(key, host)] == built or len(group["hosts"]) == 1:
                continue
            group["hosts"].remove(host)
            own = {**group, "hosts": [host], "plugins": lists[(key, host)]}
            groups[(key[0], key[1], host)] = own
        if len(group["hosts"]) == 1:  # the last host left: its own list
            group["plugins"] = lists[(key, group["hosts"][0])]


def _built_for(hubs: list[PluginHub], host: str) -> bool:
    """Whether a plugin of these hubs is listed in `host`'s files (a listed-only one is)."""
    return not hubs or any(host in hub.read.hosts for hub in hubs)


def plugin_hub_of(hubs: list[PluginHub], host: str) -> PluginHub | None:
    """Of the plugin hubs of one name, the one a `host` marketplace entry lists: the one
    built for that host (a folder per host), else the first."""
    return next((h for h in hubs if host in h.read.hosts), hubs[0] if hubs else None)


ALIAS = "name"  # an entry's own name for a plugin hub of another name, as its override


def _by_folder(entry: dict[str, Any], folder: str, by_name: dict[str, PluginHub]) -> dict[str, Any]:
    """`entry` under the name of the plugin hub its `./folder` source names, when its own
    name is no plugin's (Copilot lists a plugin by the entry's name; the manifest names it
    otherwise) and the file lists no entry of the hub's name (`by_name`: those hubs): its
    own name kept as `_alias`, which becomes its `overrides.<host>.name`."""
    source = entry.get("source")
    if not isinstance(source, str):
        return entry
    path = posixpath.normpath(posixpath.join(folder, source))
    path = "" if path == "." else path
    hub = next((h for h in by_name.values() if h.folder == path), None)
    if hub is None:
        return entry
    return {**entry, "name": hub.name, "_alias": entry.get("name")}


def _item(
    name: str,
    hosts: dict[str, tuple[dict[str, Any], str]],
    hub: PluginHub | None,
    found: Found,
) -> dict[str, Any]:
    """One `plugins:` item: a plugin hub with per-host sources and entry overrides, or a
    plugin listed only (its git source)."""
    keys = {r.name: r.ENTRY_KEYS for r, _, _ in found}
    defaults = {r.name: getattr(r, "ENTRY_DEFAULTS", {}) for r, _, _ in found}
    if hub is None:
        entry, _ = next(iter(hosts.values()))
        item: dict[str, Any] = {"name": name, "source": entry.get("source")}
        if entry.get("description"):
            item["description"] = entry["description"]
        return item
    item = {"hub": hub.place}
    described = hub.read.plugin.get("description")
    claude = hosts.get("claude", (None, ""))[0] or next(iter(hosts.values()))[0]
    if claude.get("description") and claude["description"] != described:
        item["description"] = described = claude["description"]
    sources: dict[str, Any] = {}
    per_host: dict[str, Any] = {}
    for host, (entry, _) in hosts.items():
        if isinstance(entry.get("source"), dict):
            sources[host] = entry["source"]
        plugin = {**defaults.get(host, {}), **hub.read.plugin, "description": described}
        rest = _entry_overrides(entry, keys.get(host, ()), plugin)
        if rest:
            per_host[host] = rest
    if sources:
        item["sources"] = sources
    if per_host:
        item["overrides"] = per_host
    return item


def _entry_overrides(
    entry: dict[str, Any], written: tuple[str, ...], plugin: dict[str, Any]
) -> dict[str, Any]:
    """An entry's `overrides.<host>`: its keys the writer would not give it from the plugin
    hub, and null for each key the writer would add that the entry lacks."""
    rest = {
        k: v
        for k, v in entry.items()
        if k not in ("name", "source", "_alias") and not (k in written and plugin.get(k) == v)
    }
    if "_alias" in entry:
        rest[ALIAS] = entry["_alias"]
    rest |= {k: None for k in written if k not in entry and plugin.get(k) is not None}
    return rest


def _marketplaces(
    groups: dict[tuple[str, Any, Any], dict[str, Any]],
    seen: list[str],
    defaults: dict[str, Any],
    partial: bool,
) -> list[dict[str, Any]] | None:
    """`marketplaces:`, None when one root marketplace lists every plugin for its hosts
    (`partial`: a plugin folder no marketplace file lists, or a host of the plugins with a
    marketplace kind the repository has no file of)."""
    (only, *rest) = list(groups.values())
    root = not rest and next(iter(groups))[0] == "" and only["plugins"] == seen
    root = root and not partial
    same = only["name"] == defaults["name"] and only.get("description") == defaults.get(
        "description"
    )
    if root and same and "file" not in only:
        return None
    out = []
    for (folder, _, _), group in groups.items():
        market = {k: v for k, v in group.items() if v}
        if market.get("description") == defaults.get("description"):
            market.pop("description", None)
        if folder:
            market["path"] = folder
        out.append(market)
    return out
