"""The hosts whose plugin folder memhub writes apart (`gemini/<name>/`, `agent-plugins/<name>/`,
`copilot/<name>/`, `opencode/<name>/`):
their manifests join the plugin of the same name; their other files are compared only."""

from __future__ import annotations

from types import ModuleType

from memhub.compiler.hosts import (
    agent_plugins_repo,
    copilot_repo,
    cursor_rules,
    gemini_repo,
    opencode_repo,
)
from memhub.compiler.importing.repo import PluginHub, read_hooks
from memhub.compiler.importing.repo_tree import Tree, json_file

INSTRUCTIONS_DIR = "instructions"  # where the hub keeps them (as `memhub import` does)
OTHERS: tuple[ModuleType, ...] = (gemini_repo, agent_plugins_repo, copilot_repo, opencode_repo)


def read_other_hosts(tree: Tree, plugins: list[PluginHub]) -> None:
    """Each plugin's `<host folder>/<name>/` manifest read into it, its files compared."""
    for reader in OTHERS:
        for hub in plugins:
            folder = f"{reader.FOLDER}/{hub.name}"
            path = f"{folder}/{reader.MANIFEST}"
            doc = json_file(tree, path)
            if doc is None or hub.folder == folder:  # a Copilot-only plugin is its own hub
                continue
            if reader is gemini_repo and hub.gemini_shared:
                continue  # the extension is in the plugin folder: this one is a plain folder
            if not isinstance(doc, dict):
                hub.read.cannot(path, "is not a JSON object")
                continue
            if hasattr(reader, "read_config"):  # a config file, not a manifest (OpenCode)
                reader.read_config(doc, hub.read, path)
            else:
                reader.read_manifest(doc, hub.read)
            hub.elsewhere += [p for p in tree if p.startswith(folder + "/")]
            if hasattr(reader, "CONTEXT_FILE"):
                instructions(hub, tree, f"{folder}/{reader.CONTEXT_FILE}")
            if hasattr(reader, "HOOKS"):
                read_hooks(hub, reader.HOOKS, doc, tree, folder)  # where its manifest says


def instructions(hub: PluginHub, tree: Tree, path: str) -> None:
    """A host's instructions file (Gemini's GEMINI.md, OpenCode's AGENTS.md: the hub's
    `instructions` as they are) read as the hub's instructions; the first host's wins, and
    another's that differs is compared (and listed) as it is. The Cursor rule memhub writes
    from them is then no rule of the plugin's own; a rule of that name with other words keeps
    the file compared only (the hub cannot hold both)."""
    if hub.instructions is not None or path not in tree:
        return
    if any(rel.split("/", 1)[0] == INSTRUCTIONS_DIR for rel in hub.files):
        return  # the plugin ships a folder of that name: the file stays compared only
    rule = cursor_rules.instructions_rule_path(hub.name)
    title = str(hub.read.plugin.get("display_name") or hub.name)
    text = tree[path].content.decode("utf-8", "replace")
    if rule in hub.files:
        if hub.files[rule].content != cursor_rules.instructions_rule(title, text):
            return
        del hub.files[rule]
        hub.read.consumed.add(rule)
    hub.instructions = f"{INSTRUCTIONS_DIR}/{path.rsplit('/', 1)[-1]}"
    hub.files[hub.instructions] = tree[path]
