"""`memhub import --from-repo DIR`: a plugin repository read into hub folders (pure on the tree).

Each plugin folder (one holding a host manifest) becomes a plugin hub: per host, that host's
`compiler/hosts/<host>_repo.py` reads what its adapter writes; skills, agents and commands
are copied as the hub's folders; every other file is shipped (`files:`). Marketplace files
make a marketplace hub (repo_market.py). What no hub can give back is listed, with why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from memhub.compiler.hosts import (
    agent_plugins,
    agent_plugins_repo,
    claude_repo,
    codex_repo,
    copilot_repo,
    cursor_repo,
    gemini_repo,
)
from memhub.compiler.importing.repo_hook_merge import merge_hosts
from memhub.compiler.importing.repo_hooks import (
    KEEPS,
    HookFormat,
    ReadHooks,
    hooks_file_of,
    read_hooks_file,
    take_hooks_file,
)
from memhub.compiler.importing.repo_parts import ReadPlugin, Unreproduced
from memhub.compiler.importing.repo_tree import RepoError, RepoFile, Tree, json_file
from memhub.hubspec.files import (
    GEMINI_COMMANDS,
    ICON_PREFIX,
    README,
    TOML,
    built_paths,
    reserved,
)

READERS: tuple[ModuleType, ...] = (claude_repo, codex_repo, cursor_repo)
HUB_FILE = "hub.yaml"
# files of hosts memhub builds elsewhere than the plugin folder (README "build"); a plugin
# folder's mcp.json without an Agent Plugins package beside it ships as a plain file (Cursor
# manifests name one: `"mcpServers": "./mcp.json"`, kept as a manifest override)
# An Agent Plugins package (its `$schema` names the standard) inside a plugin folder is read as
# `plugin.agent_plugins_folder: shared`: the build then says that Codex loads none of the
# plugin's hooks (agent_plugins_shared.py). Any other plugin.json there cannot come back.
ELSEWHERE = {
    "plugin.json": "a plugin.json that is neither an Agent Plugins package (its $schema) nor a "
    "Copilot CLI manifest (a JSON object with a `name`): memhub writes plugin.json itself",
    "gemini-extension.json": "memhub writes the Gemini extension in gemini/<name>/",
}
# files the build generates from the hub when the hub ships none (a repository's is shipped)
GENERATED = {"README.md": "memhub generates README.md from the hub"}
HOOKS_REASON = (
    "a hooks file no manifest of this plugin names and no host loads by itself: memhub "
    "writes each host's hooks file where its manifest names it (hub `hook_files`) and keeps "
    "this name for one, so it does not ship it as a plain file"
)
UNNAMED_HOOKS = (
    "the manifest's `hooks` is not one ./path to a .json file: memhub writes a host's hooks "
    "in one file (the manifest entry is kept as an override)"
)
FOLDERS = ("skills", "agents", "commands", cursor_repo.RULES)  # the hub keys of these names
# a marketplace file inside a plugin folder (one listing its own folder, `./`): the marketplace
# hub reads and writes it, so the plugin hub does not ship it too
MARKET_FILES = (
    ".claude-plugin/marketplace.json",
    ".cursor-plugin/marketplace.json",
    "plugins/marketplace.json",
    copilot_repo.MARKETPLACE,
)
# the manifests that make a folder a plugin folder (a published Gemini extension's too)
MARKERS = (*(r.MANIFEST for r in READERS), gemini_repo.MANIFEST)
MIXED_COMMANDS = (
    "a Gemini CLI command (TOML) beside Markdown commands in commands/: the hub's commands "
    "folder holds <name>.md files only, and a TOML command ships as a plain file only where "
    "commands/ holds no Markdown command"
)


@dataclass
class PluginHub:
    """One plugin hub to write: its folder in INTO, hub.yaml data and the files it holds."""

    folder: str  # '' is INTO itself
    read: ReadPlugin
    files: dict[str, RepoFile] = field(default_factory=dict)
    shipped: list[str] = field(default_factory=list)
    icon: str | None = None  # the plugin folder's assets/icon.<ext>, when a manifest names it
    elsewhere: list[str] = field(default_factory=list)  # its files in other hosts' folders
    readme: bool = True  # the plugin folder holds a README.md (else `plugin.readme: false`)
    shared_package: bool = False  # an Agent Plugins package in the plugin folder itself
    copilot_manifest: str | None = None  # Copilot's manifest in the folder (copilot_repo)
    hooks: ReadHooks = field(default_factory=ReadHooks)
    links: dict[str, str] = field(default_factory=dict)  # kept links: path -> target (repo_links)
    instructions: str | None = None  # the hub's instructions file, read from a host's copy
    # skill folders, agents, commands and rules shipped as they are (`files:`), not read as
    # hub components: the loader refused them, or no host takes them for components
    as_is: list[str] = field(default_factory=list)
    gemini_shared: bool = False  # a Gemini extension in the plugin folder (gemini_folder)
    mcp_file: bool = False  # an empty .mcp.json (`mcp.file`)
    into: str = ""  # its folder in INTO, when not its own (a root plugin's: repo_market)

    @property
    def place(self) -> str:
        """Its folder in INTO: its repository folder, a root plugin's is named after it."""
        return self.into or self.folder or self.name

    @property
    def name(self) -> str:
        return str(self.read.plugin.get("name") or self.folder.rsplit("/", 1)[-1] or "plugin")


def plugin_folders(tree: Tree) -> list[str]:
    """Folders holding a host manifest (Claude, Codex, Cursor), in path order."""
    found = set()
    for path in tree:
        for reader in READERS:
            if path == reader.MANIFEST or path.endswith("/" + reader.MANIFEST):
                found.add(path[: -len(reader.MANIFEST)].rstrip("/"))
        if gemini_repo.is_extension(path):
            found.add(path[: -len(gemini_repo.MANIFEST)].rstrip("/"))
    return sorted(found)


def read_plugin(tree: Tree, folder: str) -> PluginHub:
    """The plugin folder `folder` of `tree` as a plugin hub."""
    prefix = f"{folder}/" if folder else ""
    mine = {p[len(prefix) :]: f for p, f in tree.items() if p.startswith(prefix)}
    read = ReadPlugin(folder)
    hub = PluginHub(folder, read)
    for reader in READERS:
        doc = json_file(tree, prefix + reader.MANIFEST)
        if doc is None:
            continue
        if not isinstance(doc, dict):
            read.cannot(prefix + reader.MANIFEST, "is not a JSON object")
            continue
        reader.read_manifest(doc, read)
        read.consumed.add(reader.MANIFEST)
        if reader is not claude_repo:  # the servers this host's manifest carries
            read.carried[reader.name] = _carried(doc.get("mcpServers"))
        read_hooks(hub, reader.HOOKS, doc, tree, folder)
    if gemini_repo.MANIFEST in mine:
        gemini_repo.read_shared(hub, tree)
    for host, extras in hub.hooks.extras.items():  # a hooks file's top-level keys
        read.override(host, "hooks", extras)
    for where in hub.hooks.kept_paths:  # `hooks_kept`: the hub folder holds the file
        hub.files[where[len(prefix) :]] = tree[where]
    hub.shared_package = _shared_package(tree, prefix, read)
    copilot_repo.read_in_place(hub, tree)
    if claude_repo.MCP_FILE in mine and _mcp_loaded(read):
        servers = json_file(tree, prefix + claude_repo.MCP_FILE)
        claude_repo.read_servers(servers, read, prefix + ".mcp.json")
        hub.mcp_file = isinstance(servers, dict) and servers.get("mcpServers") == {}
        read.consumed.add(claude_repo.MCP_FILE)
    hub.readme = README in mine
    hub.icon = _icon(tree, prefix, mine)
    if hub.icon:
        hub.files[hub.icon] = mine[hub.icon]
    # the hooks file names of the hosts this plugin has: another host's is a plain file
    hooks = {h for r in READERS if r.name in read.hosts for h in r.HOOKS_FILES}
    markdown = any(_markdown_command(rel) for rel in mine)
    servers = bool(read.servers) or hub.mcp_file
    built = built_paths(  # with what is known so far: repo_unship.py checks once all is
        read.hosts, instructions=False, servers=servers, mcp_named=False, icon=bool(hub.icon)
    )
    for rel, entry in mine.items():
        if rel in read.consumed or rel == hub.icon or _in_other_plugin(rel, mine):
            continue
        if rel.startswith(GEMINI_COMMANDS + "/") and rel.endswith(TOML):
            _gemini_command(hub, rel, entry, prefix, markdown)
            continue
        _place(hub, rel, entry, prefix, hooks, built)
    gemini_repo.shared_instructions(hub, tree)
    return hub


def _markdown_command(rel: str) -> bool:
    return rel.startswith(GEMINI_COMMANDS + "/") and rel.count("/") == 1 and rel.endswith(".md")


def _gemini_command(hub: PluginHub, rel: str, entry: RepoFile, prefix: str, markdown: bool) -> None:
    """A Gemini CLI command (`commands/**/*.toml`): shipped as it is (the hub has no TOML
    command model), unless the hub's commands folder is there too."""
    if markdown:
        hub.read.cannot(prefix + rel, MIXED_COMMANDS)
        return
    hub.files[rel] = entry
    hub.shipped.append(rel)


def _shared_package(tree: Tree, prefix: str, read: ReadPlugin) -> bool:
    """An Agent Plugins package in the plugin folder itself, read (its mcp.json compared)."""
    try:
        doc = json_file(tree, prefix + agent_plugins_repo.MANIFEST)
    except RepoError:  # not JSON: a plugin.json of another kind, shipped as it is
        return False
    if not isinstance(doc, dict) or not str(doc.get("$schema", "")).startswith(agent_plugins.SPEC):
        return False
    agent_plugins_repo.read_manifest(doc, read)
    read.consumed.update({agent_plugins_repo.MANIFEST, agent_plugins_repo.MCP_FILE})
    return True


def _carried(inline: Any) -> set[str] | None:
    """The `.mcp.json` servers a manifest's `mcpServers` carries: those it holds inline, all
    (None) when it names a file, none when it has no `mcpServers`."""
    if isinstance(inline, Mapping):
        return {str(k) for k in inline}
    return None if isinstance(inline, str | list) else set()


def read_hooks(
    hub: PluginHub, fmt: HookFormat, manifest: dict[str, Any] | None, tree: Tree, folder: str
) -> None:
    """The hooks file `fmt`'s host loads from its plugin folder `folder` in the repository
    (the plugin's own, or Gemini's extension folder), read into `hub.hooks`; a file of the
    plugin's own folder is consumed: compared, not shipped."""
    rel = hooks_file_of(fmt, manifest)
    auto = f"{folder}/{fmt.auto_file}" if folder else str(fmt.auto_file)
    if fmt.auto_file and fmt.auto_beside and rel != fmt.auto_file and auto in tree:
        hub.read.consumed.add(fmt.auto_file)
        hub.hooks.problems.setdefault(auto, []).append(
            f"{fmt.host} loads it beside the hooks file its manifest names: memhub writes one "
            "hooks file per host"
        )
    if rel is False:
        hub.read.note(f"{folder or '.'}: {fmt.host}: {UNNAMED_HOOKS}")
        return
    where = f"{folder}/{rel}" if folder else str(rel)
    if not isinstance(rel, str) or where not in tree:
        return
    if folder == hub.folder and fmt.host in KEEPS:  # kept as it is where hooks cannot hold it
        hub.read.consumed.add(rel)
        beside = where in hub.hooks.problems and where not in hub.hooks.loaded
        take_hooks_file(fmt, tree[where].content, where, rel, hub.hooks, keep=beside)
        return
    if where in hub.hooks.problems:
        hub.hooks.problems[where].append(
            f"{fmt.host} loads it too: memhub writes one hooks file per host"
        )
        return
    if folder == hub.folder:
        hub.read.consumed.add(rel)
    if read_hooks_file(fmt, tree[where].content, where, hub.hooks) and rel != fmt.default_file:
        hub.hooks.files[fmt.host] = rel
    if fmt.host in hub.hooks.extras:
        hub.read.override(fmt.host, "hooks", hub.hooks.extras[fmt.host])


def _icon(tree: Tree, prefix: str, mine: dict[str, RepoFile]) -> str | None:
    """`assets/icon.<ext>` when a host manifest names it (`./assets/icon.<ext>`): the hub's
    `plugin.icon`, which every adapter writes back where it was."""
    for rel in mine:
        if rel.startswith(ICON_PREFIX) and "/" not in rel[len("assets/") :]:
            named = f'"./{rel}"'.encode()
            if any(named in tree.get(prefix + r.MANIFEST, RepoFile(b"")).content for r in READERS):
                return rel
    return None


def _in_other_plugin(rel: str, mine: dict[str, RepoFile]) -> bool:
    """A file of a plugin folder nested inside this one (read as its own plugin), the files
    right in that folder too (its LICENSE, not only its skills/...)."""
    parts = rel.split("/")
    for depth in range(1, len(parts)):
        sub = "/".join(parts[:depth])
        if any(f"{sub}/{marker}" in mine for marker in MARKERS):
            return True
    return False


def _place(
    hub: PluginHub, rel: str, entry: RepoFile, prefix: str, hooks: set[str], built: frozenset[str]
) -> None:
    """Where one plugin file goes in the hub: a hub folder, `files:`, or the cannot list
    (`built`: what the hub's build writes of GEMINI.md, .mcp.json and the icon)."""
    read, where = hub.read, prefix + rel
    top = rel.split("/", 1)[0]
    if rel in hooks or (rel.startswith("hooks/") and reserved(rel)):
        read.cannot(where, HOOKS_REASON)
    elif rel in ELSEWHERE:
        read.cannot(where, ELSEWHERE[rel])
    elif any(rel == m or rel.endswith(f"/{m}") for m in MARKET_FILES):
        read.consumed.add(rel)  # a marketplace file: the marketplace hub reads it
    elif top in FOLDERS and "/" in rel:
        hub.files[rel] = entry
        if _no_component(rel) or (top == cursor_repo.RULES and cursor_repo.name not in read.hosts):
            hub.shipped.append(rel)  # a plugin Cursor does not load has no Cursor rules
    elif (why := reserved(rel, built)) is not None:
        read.cannot(where, why)
    else:
        hub.files[rel] = entry
        hub.shipped.append(rel)


def _mcp_loaded(read: ReadPlugin) -> bool:
    """Whether a host of the plugin loads its .mcp.json: Claude Code by itself, Codex or
    Copilot CLI when the manifest's `mcpServers` names a file; else it is a plain file."""
    return "claude" in read.hosts or any(v is None for v in read.carried.values())


def _no_component(rel: str) -> bool:
    """A file of a component folder the hub's loader passes over, which only `files:` gives
    back: a dot file or dot folder there (`agents/.gitkeep`), a file beside the skill folders
    (`skills/README.md`)."""
    parts = rel.split("/")
    return parts[1].startswith(".") or (parts[0] == "skills" and len(parts) == 2)


def plugin_yaml(hub: PluginHub, marketplace: dict[str, Any]) -> dict[str, Any]:
    """hub.yaml of one plugin hub, as data."""
    read = hub.read
    plugin = dict(read.plugin)
    plugin.setdefault("name", hub.name)
    plugin.setdefault("version", "0.0.0")
    # the hub needs one; a manifest without it (Gemini's may) gets `description: null` (repo_fill)
    plugin["description"] = plugin.get("description") or f"The {plugin['name']} plugin."
    if hub.icon:
        plugin["icon"] = hub.icon
    if hub.folder != f"plugins/{plugin['name']}":
        plugin["path"] = hub.folder or "."  # '': the repository root
    if not hub.readme:
        plugin["readme"] = False
    if hub.shared_package:
        plugin["agent_plugins_folder"] = agent_plugins.SHARED
    if hub.copilot_manifest:
        plugin["copilot_manifest"] = hub.copilot_manifest
    if hub.gemini_shared:
        plugin["gemini_folder"] = gemini_repo.SHARED
    data: dict[str, Any] = {"version": 1, "plugin": plugin, "marketplace": marketplace}
    data["hosts"] = list(read.hosts)
    if read.servers:
        data["mcp"] = {"servers": {k: _limited(read, k, v) for k, v in read.servers.items()}}
        if read.mcp_flat:
            data["mcp"]["flat"] = True
    if hub.mcp_file:
        data.setdefault("mcp", {"servers": {}})["file"] = True
    shipped = set(hub.shipped)  # a shipped file under commands/ (TOML) makes no hub folder
    tops = {rel.split("/", 1)[0] for rel in hub.files if "/" in rel and rel not in shipped}
    data.update({name: name for name in FOLDERS if name in tops})
    others = [h for h in read.hosts if h != gemini_repo.name]
    if hub.gemini_shared and "commands" in data and others:
        # Gemini loads commands/*.toml alone: its TOML form of these would be a new file
        data["commands"] = {"from": "commands", "hosts": others}
    if hub.instructions:
        data["instructions"] = hub.instructions
    if hub.hooks.hooks:
        data["hooks"] = merge_hosts(hub.hooks.hooks)
    if hub.hooks.files:
        data["hook_files"] = hub.hooks.files
    if hub.hooks.kept:
        data["hooks_kept"] = hub.hooks.kept
    if hub.shipped or hub.links:
        data["files"] = [{"from": rel} for rel in shipped_entries(hub)]
        data["files"] += [{"from": rel, "link": True} for rel in hub.links]
    if read.overrides:
        data["overrides"] = read.overrides
    return data


def _limited(read: ReadPlugin, server: str, spec: Any) -> Any:
    """A `.mcp.json` server limited (`hosts:`) to the hosts whose manifests carry it: a Codex
    or Cursor manifest without it (inline or by file) does not."""
    if not isinstance(spec, dict):
        return spec
    if server in read.server_extra:  # host-only keys: `extra: {host: {...}}`
        spec = {**spec, "extra": read.server_extra[server]}
    hosts = [h for h, names in read.carried.items() if names is not None and server not in names]
    if not hosts:
        return spec
    return {**spec, "hosts": [h for h in read.hosts if h not in hosts]}


def shipped_entries(hub: PluginHub) -> list[str]:
    """`files:` sources: a whole top folder when every file under it is shipped, else each
    file (a folder holding a hooks file, a manifest or the icon cannot be shipped whole)."""
    shipped = set(hub.shipped)
    held = (
        {rel for rel in hub.read.consumed}
        | {hub.icon or ""}
        | {
            u.path.removeprefix(f"{hub.folder}/") if hub.folder else u.path
            for u in hub.read.unreproduced
        }
    )
    entries: list[str] = []
    for rel in hub.shipped:
        top = rel.split("/", 1)[0]
        unit = next((u for u in hub.as_is if rel == u or rel.startswith(u + "/")), None)
        if top in FOLDERS:  # beside the components: each as it is, never the whole folder
            entry = unit or rel
            entries += [] if entry in entries else [entry]
            continue
        whole = "/" in rel and not any(h.startswith(top + "/") for h in held)
        entry = top if whole else rel
        if entry not in entries and (whole or rel in shipped):
            entries.append(entry)
    return entries


def hints(hubs: list[PluginHub]) -> dict[str, str]:
    """Why a generated file may differ, by repository path."""
    return {path: why for hub in hubs for path, why in hub.read.hints.items()}


def unreproduced(hubs: list[PluginHub]) -> list[Unreproduced]:
    """What each plugin cannot give back: the reader's rows and each hooks file's problems."""
    out = [item for hub in hubs for item in hub.read.unreproduced]
    for hub in hubs:
        out += [Unreproduced(p, why) for p, why in hub.hooks.reasons().items() if why]
    return out
