"""The hosts whose plugin folder memhub writes apart (`gemini/<name>/`, `agent-plugins/<name>/`):
their manifests join the plugin of the same name; their other files are compared only."""

from __future__ import annotations

from types import ModuleType

from memhub.compiler.hosts import agent_plugins_repo, copilot_repo, gemini_repo
from memhub.compiler.importing.repo import PluginHub, read_hooks
from memhub.compiler.importing.repo_tree import Tree, json_file

OTHERS: tuple[ModuleType, ...] = (gemini_repo, agent_plugins_repo, copilot_repo)


def read_other_hosts(tree: Tree, plugins: list[PluginHub]) -> None:
    """Each plugin's `<host folder>/<name>/` manifest read into it, its files compared."""
    for reader in OTHERS:
        for hub in plugins:
            folder = f"{reader.FOLDER}/{hub.name}"
            path = f"{folder}/{reader.MANIFEST}"
            doc = json_file(tree, path)
            if doc is None or hub.folder == folder:  # a Copilot-only plugin is its own hub
                continue
            if not isinstance(doc, dict):
                hub.read.cannot(path, "is not a JSON object")
                continue
            reader.read_manifest(doc, hub.read)
            hub.elsewhere += [p for p in tree if p.startswith(folder + "/")]
            if hasattr(reader, "HOOKS"):
                read_hooks(hub, reader.HOOKS, doc, tree, folder)  # where its manifest says
