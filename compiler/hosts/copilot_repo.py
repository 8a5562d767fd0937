"""GitHub Copilot CLI's plugin files read back into a hub: the inverse of copilot.py's bundle.

memhub writes a plugin's Copilot copy at `copilot/<name>/` (copilot.bundle_root) with its
manifest at `.github/plugin/plugin.json`, and the repository's Copilot marketplace at
`.github/plugin/marketplace.json`. The manifest gives the plugin's fields and, from its inline
`mcpServers`, the hub's servers; the folder keys copilot.py writes from the hub (`skills`,
`agents`, `commands`, and `hooks`, which names the hooks file read through `HOOKS`) are not
overrides; every other key goes to `overrides.copilot.manifest`. A plugin the repository has
only for Copilot becomes a plugin hub of its own (`standalone`); one the other hosts have too
joins it (repo_other.OTHERS).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memhub.compiler.hosts import agent_plugins, claude_repo, copilot
from memhub.compiler.hosts.copilot_claude import CLAUDE_MANIFEST, PACKAGE_MANIFEST
from memhub.compiler.hosts.copilot_servers import ROOT, hub_spec
from memhub.compiler.importing.repo_hooks import HookFormat, hooks_file_of
from memhub.compiler.importing.repo_parts import (
    SHARED_FIELDS,
    ReadPlugin,
    metadata_marketplace,
    read_server_map,
)
from memhub.compiler.importing.repo_tree import RepoError, json_file

if TYPE_CHECKING:
    from memhub.compiler.importing.repo import PluginHub
    from memhub.compiler.importing.repo_tree import Tree

name = "copilot"
FOLDER = copilot.bundle_root  # the plugin's Copilot copy is FOLDER/<name>
MANIFEST = copilot.MANIFEST
MARKETPLACE = copilot.MARKETPLACE
ROOT_MARKETPLACE = "marketplace.json"  # read by Copilot CLI 1.0.102 before MARKETPLACE
HOOKS_FILES = (copilot.HOOKS_FILE,)
ROOT_VAR = "PLUGIN_ROOT"  # copilot_servers.ROOT
# how copilot.py writes its hooks file (`version: 1`, flat handlers: `bash`, its matcher,
# `timeoutSec`, then the options: `powershell`, `cwd`)
HOOKS = HookFormat(
    host=name,
    events=copilot.NATIVE_EVENTS,
    keys={"bash": "command", "matcher": "matcher", "timeoutSec": "timeout"},
    options={v: k for k, v in copilot.HOOK_OPTIONS.items()},
    order=("type", "bash", "matcher", "timeoutSec"),
    roots={ROOT: "${plugin_root}", copilot.DATA: "${plugin_data}"},
    default_file=copilot.HOOKS_FILE,
    grouped=False,
    leading={"version": 1},
)
# manifest keys copilot.py writes from what the hub holds, with the value it writes
_GENERATED = {
    "agents": "./agents/",
    "skills": "./skills/",
    "commands": "./commands/",
}
SERVERS = "mcpServers"
_FIELDS = {"category": "category"}  # a hub field copilot.py writes beyond the shared ones


def read_manifest(doc: Mapping[str, Any], read: ReadPlugin, rel: str = MANIFEST) -> None:
    """.github/plugin/plugin.json: the plugin's fields, its servers, the rest as overrides.
    `hooks` as one `./path.json` is what copilot.py writes from the hooks file it names (hub
    `hook_files`); any other `hooks` (`hooks.json` without `./`) stays as written."""
    path = f"{read.folder}/{rel}" if read.folder else rel
    # `mcpServers` naming a file (`./.mcp.json`, read as the plugin's) stays as written
    named = isinstance(doc.get(SERVERS), str)
    rest = {
        k: v
        for k, v in doc.items()
        if (k != SERVERS or named)
        and _GENERATED.get(k) != v
        and not (k == "hooks" and isinstance(hooks_file_of(HOOKS, doc), str))
    }
    read.manifest(name, rest, _FIELDS, written=(*SHARED_FIELDS, "category"))
    if SERVERS in doc and not named:
        _read_servers(doc[SERVERS], read, path)


def _read_servers(servers: Any, read: ReadPlugin, where: str) -> None:
    """The manifest's `mcpServers`: hub servers, Copilot-only keys as `extra` or overrides."""
    if not isinstance(servers, Mapping):
        read.cannot(where, "its `mcpServers` is not an object, the only shape memhub writes")
        return
    read_server_map(servers, read, where, name, hub_spec, {ROOT_VAR: "${plugin_root}"})


def read_marketplace(doc: Mapping[str, Any]) -> dict[str, Any]:
    """.github/plugin/marketplace.json: Cursor's file shape (`metadata.description`) around
    Claude Code's entries (copilot_marketplace.py)."""
    return metadata_marketplace(doc, claude_repo.entry_source)


# entry keys copilot_marketplace.plugin_entry writes from the plugin hub
ENTRY_KEYS = ("description",)


def folders(tree: Tree) -> set[str]:
    """Every `copilot/<name>` folder holding a Copilot manifest (no other plugin's folder)."""
    found = {path.removesuffix("/" + MANIFEST) for path in tree if path.endswith("/" + MANIFEST)}
    return {f for f in found if f.count("/") == 1 and f.startswith(FOLDER + "/")}


def standalone(tree: Tree, plugins: list[PluginHub]) -> list[PluginHub]:
    """A plugin hub for each `copilot/<name>/` whose name no other host's plugin has: the
    repository publishes that plugin for Copilot alone."""
    # importing needs the readers first
    from memhub.compiler.importing.repo import read_hooks, read_plugin

    known = {hub.name for hub in plugins}
    hubs: list[PluginHub] = []
    for folder in sorted(folders(tree)):
        doc = json_file(tree, f"{folder}/{MANIFEST}")
        if not isinstance(doc, Mapping) or doc.get("name") in known:
            continue  # not an object: repo_other reports it; a known name: it joins that hub
        hub = read_plugin(tree, folder)
        read_manifest(doc, hub.read)
        hub.read.consumed.add(MANIFEST)
        read_hooks(hub, HOOKS, dict(doc), tree, folder)
        hub.shipped = [rel for rel in hub.shipped if rel != MANIFEST]
        hub.files.pop(MANIFEST, None)
        hubs.append(hub)
    return hubs


# Where Copilot CLI finds a manifest in a plugin's own folder, in its order: `.plugin/`, the
# root `plugin.json` (an Agent Plugins package there is read as one: repo._shared_package),
# `.github/plugin/plugin.json`. The one it reads is the hub's `plugin.copilot_manifest`; the
# others, which it never reads, ship as plain files.
ROOT_MANIFEST = "plugin.json"
IN_PLACE = (".plugin/plugin.json", ROOT_MANIFEST, MANIFEST)


def in_place_manifest(tree: Tree, folder: str, shared_package: bool) -> str | None:
    """The plugin-relative Copilot manifest of plugin folder `folder`, None without one."""
    prefix = f"{folder}/" if folder else ""
    for rel in IN_PLACE:
        if shared_package and rel == ROOT_MANIFEST:
            continue
        try:
            doc = json_file(tree, prefix + rel)
        except RepoError:  # not JSON: no manifest Copilot reads; shipped or listed as it is
            continue
        if isinstance(doc, Mapping) and isinstance(doc.get("name"), str):
            return rel
    return None


def read_in_place(hub: PluginHub, tree: Tree) -> None:
    """Copilot's manifest in the plugin's own folder (`plugin.copilot_manifest`): its fields,
    servers and overrides, and its hooks file unless another host of the plugin loads that
    same file (then the manifest's `hooks` stays as written, naming the other host's file)."""
    from memhub.compiler.importing.repo import read_hooks  # importing needs the readers first

    if hub.folder in folders(tree):
        return  # memhub's own layout, copilot/<name>/: read by `standalone`
    rel = in_place_manifest(tree, hub.folder, hub.shared_package)
    if rel is None:
        return
    prefix = f"{hub.folder}/" if hub.folder else ""
    doc = dict(json_file(tree, prefix + rel))
    hub.copilot_manifest = rel
    read_manifest(doc, hub.read, rel)
    hub.read.consumed.add(rel)
    named = hooks_file_of(HOOKS, doc)
    if isinstance(named, str) and (
        prefix + named in hub.hooks.problems or prefix + named not in tree
    ):
        # another host's hooks file (Copilot loads it as the manifest names it), or none
        hub.read.override(name, "manifest", {"hooks": doc["hooks"]})
        return
    read_hooks(hub, HOOKS, doc, tree, hub.folder)


def root_plugin(tree: Tree, plugins: list[PluginHub]) -> list[PluginHub]:
    """The repository as one Copilot plugin: a root `plugin.json` Copilot reads (no Agent
    Plugins `$schema`), when no other host's manifest makes the root a plugin folder."""
    from memhub.compiler.importing.repo import read_plugin  # importing needs the readers first

    if (
        any(not hub.folder for hub in plugins)
        or in_place_manifest(tree, "", False) != ROOT_MANIFEST
    ):
        return []
    if str(json_file(tree, ROOT_MANIFEST).get("$schema", "")).startswith(agent_plugins.SPEC):
        return []
    return [read_plugin(tree, "")]


def borrows(hub: PluginHub) -> bool:
    """Whether Copilot reads `hub`'s plugin through another host's manifest."""
    return hub.copilot_manifest == CLAUDE_MANIFEST or (
        hub.copilot_manifest == PACKAGE_MANIFEST and hub.shared_package
    )


def through_others(found: list[tuple[Any, str, dict[str, Any]]], plugins: list[PluginHub]) -> None:
    """Each plugin folder a Copilot marketplace lists that holds no Copilot manifest but an
    Agent Plugins package (`plugin.json`, the second place Copilot looks) or Claude Code's
    (`.claude-plugin/plugin.json`, the last): Copilot loads it through that one, and so does
    the hub (`plugin.copilot_manifest`), so the build writes that marketplace's entry."""
    by_folder = {hub.folder: hub for hub in plugins}
    for reader, folder, doc in found:
        if reader.name != name:
            continue
        for entry in read_marketplace(doc)["entries"]:
            source = entry.get("source")
            if not isinstance(source, str):
                continue
            path = posixpath.normpath(posixpath.join(folder, source))
            hub = by_folder.get("" if path == "." else path)
            if hub is None or hub.copilot_manifest or name in hub.read.hosts:
                continue
            claude = hub.read.extra.get(claude_repo.name, {})
            if hub.shared_package:
                hub.copilot_manifest = PACKAGE_MANIFEST
            elif claude_repo.name in hub.read.hosts and claude.get("manifest", {}) is not None:
                hub.copilot_manifest = CLAUDE_MANIFEST  # (a folder without one: not so)
            else:
                continue
            hub.read.host(name)


class RootMarketplace:
    """This reader for a marketplace at the repository root (`marketplace.json`, a JSON
    object with `name` and `plugins`), which Copilot CLI reads before MARKETPLACE: its hub
    marketplace names the file (`file: marketplace.json`)."""

    MARKETPLACE = ROOT_MARKETPLACE

    def __getattr__(self, key: str) -> Any:
        try:
            return globals()[key]
        except KeyError:
            raise AttributeError(key) from None


root_marketplace = RootMarketplace()


def root_market(tree: Tree) -> dict[str, Any] | None:
    """The repository's root `marketplace.json` when it is a marketplace (an object with
    `name` and `plugins`); any other file of that name stays a plain file."""
    try:
        doc = json_file(tree, ROOT_MARKETPLACE)
    except RepoError:
        return None
    ok = isinstance(doc, Mapping) and "plugins" in doc and "name" in doc
    return dict(doc) if ok else None
