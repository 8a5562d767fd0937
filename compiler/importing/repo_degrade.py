"""The import's safety net: what the build of the imported hub refuses is taken out at the
smallest unit that holds it, each repository file it stood for listed as `cannot_reproduce`
with the build's own words, so that the hub the import writes always builds.

The units, smallest first: a skill, agent, command or icon (RepoImport.drop); a shipped file
or a kept link (`files:`); an MCP server; a marketplace file of the marketplace hub; at worst
one plugin hub (its every repository file listed), never the whole repository.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from memhub.compiler.hosts import copilot_repo
from memhub.compiler.importing.repo import HUB_FILE, READERS, PluginHub, plugin_yaml
from memhub.compiler.importing.repo_market import RepoImport
from memhub.compiler.importing.repo_parts import Unreproduced

Problems = list[tuple[str, str, str]]  # each problem's INTO-relative file, key, text
_INDEX = re.compile(r"^(\w+)\[(\d+)\]")
_NAMED = re.compile(r"plugin '([^']+)'")
_MARKET_READERS = (*READERS, copilot_repo)


def degrade(imported: RepoImport, message: str, problems: Problems) -> bool:
    """Take out what `problems` (or, without any, `message`) name; False if nothing could be."""
    # components first: a problem that is no component may follow from one (a plugin hub
    # refused for its skill leaves its folder unbuilt), so it is tried again once they are out
    done = [file for file, key, text in problems if imported.drop(file, key, text)]
    if not done:  # one at a time: a list index of the next problem may have moved
        done = next(([f] for f, key, text in problems if _drop_unit(imported, f, key, text)), [])
    if not done and not problems:
        hub = _named_plugin(imported, message)
        if hub is not None:
            drop_plugin(imported, hub, f"the imported hub does not build: {message}")
            return True
    return bool(done)


def culprit(imported: RepoImport, builds: Callable[[RepoImport], bool]) -> PluginHub | None:
    """The plugin whose build, with those before it, first fails: a bisection of the plugins
    (log2(n) builds; a marketplace of no plugin is not built: the hub needs one); None when
    there is no plugin."""
    hubs = [hub for hub, _ in imported.plugins]
    low, high = 0, len(hubs)  # builds with hubs[:low] (taken for 0); fails with hubs[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if builds(_only(imported, hubs[:middle])):
            low = middle
        else:
            high = middle
    return hubs[high - 1] if high else None


def drop_plugin(imported: RepoImport, hub: PluginHub, reason: str) -> None:
    """Take plugin `hub` out of the import: each repository file it stood for is listed with
    `reason`, and the marketplace hub lists it no more."""
    into = next(i for h, i in imported.plugins if h is hub)
    paths = set(_join(hub.folder, r) for r in (*hub.files, *hub.read.consumed, *hub.links))
    paths |= {u.path for u in hub.read.unreproduced} | set(hub.elsewhere)
    imported.dropped += [Unreproduced(p, reason) for p in sorted(paths)]
    imported.plugins = [(h, i) for h, i in imported.plugins if h is not hub]
    market = imported.market_hub
    market["plugins"] = [item for item in market.get("plugins", []) if item.get("hub") != into]
    for group in market.get("marketplaces") or []:
        group["plugins"] = [n for n in group.get("plugins", []) if n != hub.name]


def _only(imported: RepoImport, hubs: list[PluginHub]) -> RepoImport:
    """A copy of `imported` holding only `hubs` (a probe of the bisection)."""
    probe = copy.deepcopy(imported)
    keep = {id(h) for h in hubs}
    for (hub, _), (theirs, _) in zip(imported.plugins, list(probe.plugins), strict=True):
        if id(hub) not in keep:
            drop_plugin(probe, theirs, "")
    return probe


def _drop_unit(imported: RepoImport, file: str, key: str, text: str) -> bool:
    """The smallest unit a problem at INTO path `file`, hub key `key` names, taken out."""
    why = f"the imported hub does not build: {key + ': ' if key else ''}{text}"
    if file == HUB_FILE:
        return _drop_in_market(imported, key, why)
    holding = [(h, i) for h, i in imported.plugins if file.startswith(i + "/")]
    if not holding:
        return False
    hub, into = max(holding, key=lambda p: len(p[1]))  # the deepest: plugins may nest
    rel = file[len(into) + 1 :]
    if rel == HUB_FILE:
        if not (_drop_entry(hub, key, text, why) or _drop_server(hub, key, why)):
            drop_plugin(imported, hub, why)
    elif not _drop_files(hub, rel, why):
        drop_plugin(imported, hub, why)
    return True


def _drop_files(hub: PluginHub, rel: str, why: str) -> bool:
    """The kept link holding plugin path `rel`, or the shipped files at or under it, out."""
    for link in list(hub.links):
        if rel == link or rel.startswith(link + "/"):
            del hub.links[link]
            hub.read.cannot(_join(hub.folder, link), why)
            return True
    gone = [r for r in hub.files if r == rel or r.startswith(rel + "/")]
    for r in gone:
        del hub.files[r]
        hub.read.cannot(_join(hub.folder, r), why)
    hub.shipped = [r for r in hub.shipped if r in hub.files]
    if hub.icon is not None and hub.icon not in hub.files:
        hub.icon = None
    return bool(gone)


def _drop_entry(hub: PluginHub, key: str, text: str, why: str) -> bool:
    """The `files:` entry a problem of the plugin's hub.yaml names (by index, or a link by
    the path its message starts with), out."""
    match = _INDEX.match(key)
    if match and match.group(1) == "files":
        entries = plugin_yaml(hub, {}).get("files") or []
        index = int(match.group(2))
        return index < len(entries) and _drop_files(hub, str(entries[index]["from"]), why)
    if key == "files" and " -> " in text:
        return _drop_files(hub, text.split(" -> ", 1)[0], why)
    return False


def _drop_server(hub: PluginHub, key: str, why: str) -> bool:
    """The MCP server a problem at `mcp.servers.<name>` names, out: its file is listed."""
    parts = key.split(".")
    if parts[:2] != ["mcp", "servers"] or len(parts) < 3 or parts[2] not in hub.read.servers:
        return False
    del hub.read.servers[parts[2]]
    hub.read.server_extra.pop(parts[2], None)
    held = ".mcp.json" if ".mcp.json" in hub.read.consumed else None
    held = held or next((r.MANIFEST for r in READERS if r.MANIFEST in hub.read.consumed), HUB_FILE)
    hub.read.cannot(_join(hub.folder, held), f"MCP server {parts[2]!r}: {why}")
    return True


def _drop_in_market(imported: RepoImport, key: str, why: str) -> bool:
    """A marketplace file (`marketplaces[N]`) or a plugin (`plugins[N]`) of the marketplace
    hub, out; or its overrides (the files they reach then differ, and say so)."""
    market = imported.market_hub
    match = _INDEX.match(key)
    if match and match.group(1) == "marketplaces":
        groups = market.get("marketplaces") or []
        index = int(match.group(2))
        if index >= len(groups):
            return False
        group = groups.pop(index)
        hosts = set(group.get("hosts") or [r.name for r in _MARKET_READERS])
        files = {_join(group.get("path", ""), r.MARKETPLACE) for r in _MARKET_READERS}
        files &= {f for f in imported.marketplace_files}
        files = {f for f in files if any(f.endswith(r.MARKETPLACE) for r in _of(hosts))}
        imported.marketplace_files = [f for f in imported.marketplace_files if f not in files]
        imported.dropped += [Unreproduced(f, why) for f in sorted(files)]
        return True
    if match and match.group(1) == "plugins":
        items = market.get("plugins") or []
        index = int(match.group(2))
        if index >= len(items):
            return False
        into = items[index].get("hub")
        hub = next((h for h, i in imported.plugins if i == into), None)
        if hub is None:
            items.pop(index)
        else:
            drop_plugin(imported, hub, why)
        return True
    if key.startswith("overrides") and market.pop("overrides", None) is not None:
        return True
    named = {hub.name: hub for hub, _ in imported.plugins}
    hub = next((named[n] for n in _NAMED.findall(why) if n in named), None)
    if hub is not None:  # a problem of `plugins` as a whole that names one plugin
        drop_plugin(imported, hub, why)
        return True
    return False


def _of(hosts: set[str]) -> list[Any]:
    return [r for r in _MARKET_READERS if r.name in hosts]


def _named_plugin(imported: RepoImport, message: str) -> PluginHub | None:
    """The plugin whose INTO folder a problem-less refusal starts with (`<into>/<file>: ...`)."""
    head = message.split(": ", 1)[0]
    holding = [(h, i) for h, i in imported.plugins if i and head.startswith(i + "/")]
    return max(holding, key=lambda p: len(p[1]))[0] if holding else None


def _join(folder: str, rel: str) -> str:
    return f"{folder}/{rel}" if folder else rel
