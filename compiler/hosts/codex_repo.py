"""Codex's plugin files read back into a hub: the inverse of codex.py's bundle output.

`.codex-plugin/plugin.json` gives the plugin's fields (a value other than the first host's,
and every key the hub has no field for, go to `overrides.codex.manifest`);
`.agents/plugins/marketplace.json` gives its marketplace's entries and extras.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts import codex
from memhub.compiler.hosts.claude_repo import COMMAND_KEYS, COMMAND_ORDER
from memhub.compiler.hosts.codex_servers import DATA, ROOT
from memhub.compiler.importing.repo_hooks import HookFormat
from memhub.compiler.importing.repo_parts import (
    ReadPlugin,
    from_git_source,
    marketplace_entries,
    url_source,
)

name = "codex"
MANIFEST = ".codex-plugin/plugin.json"
MARKETPLACE = ".agents/plugins/marketplace.json"
HOOKS_FILES = ("hooks/codex-hooks.json",)
# how codex.py writes its hooks file (Claude's command handler), for import --from-repo
HOOKS = HookFormat(
    host=name,
    events=codex.NATIVE_EVENTS,
    keys=COMMAND_KEYS,
    options={v: k for k, v in codex.HOOK_OPTIONS.items()},
    order=COMMAND_ORDER,
    roots={ROOT: "${plugin_root}", DATA: "${plugin_data}"},
    default_file=codex.HOOKS_FILE,
    auto_file=codex.AUTO_HOOKS,  # only when the manifest names none (codex 0.171)
    auto_beside=False,
)


def read_manifest(doc: Mapping[str, Any], read: ReadPlugin) -> None:
    read.manifest(name, doc)


def read_marketplace(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The marketplace's name, display name, entries (policy, category kept as extras)."""
    entries = marketplace_entries(doc, _source)
    interface = doc.get("interface")
    shown = interface.get("displayName") if isinstance(interface, Mapping) else None
    extra = {k: v for k, v in doc.items() if k not in ("name", "interface", "plugins")}
    if isinstance(interface, Mapping) and set(interface) - {"displayName"}:
        extra["interface"] = {k: v for k, v in interface.items() if k != "displayName"}
    return {"name": doc.get("name"), "display_name": shown, "entries": entries, "extra": extra}


def _source(raw: Any) -> Any:
    """The inverse of codex_marketplace.marketplace_source."""
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("source")
    if kind == "local":
        return raw.get("path")
    if kind == "url":
        return url_source(raw)
    if kind == "git-subdir":
        return from_git_source({"git": raw.get("url"), "path": raw.get("path")}, raw)
    return None


# entry keys codex_marketplace.plugin_entry always writes
ENTRY_KEYS = ("policy", "category")
# what it writes when the hub says nothing (codex_marketplace._entry)
ENTRY_DEFAULTS = {
    "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
    "category": "Productivity",
}
