"""Cursor's plugin files read back into a hub: the inverse of cursor.py's bundle output.

`.cursor-plugin/plugin.json` gives the plugin's fields, `tags` and `minClientVersions` among
them (other values and extra keys, such as inline `mcpServers`, go to
`overrides.cursor.manifest`);
`.cursor-plugin/marketplace.json` gives its marketplace's entries and extras; the plugin's
`rules/` folder is the hub's `rules:` (each rule copied byte for byte, hubspec/cursorrules.py
checks it; one the hub's loader refuses is listed with why).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts import cursor
from memhub.compiler.importing.repo_hooks import HookFormat
from memhub.compiler.importing.repo_parts import (
    SHARED_FIELDS,
    ReadPlugin,
    metadata_marketplace,
)

name = "cursor"
MANIFEST = ".cursor-plugin/plugin.json"
MARKETPLACE = ".cursor-plugin/marketplace.json"
HOOKS_FILES = ("hooks/cursor-hooks.json",)
AUTO_HOOKS = "hooks/hooks.json"
# how cursor.py writes its hooks file (`version: 1`, flat handlers with their matcher)
HOOKS = HookFormat(
    host=name,
    events=cursor.NATIVE_EVENTS,
    keys={"command": "command", "matcher": "matcher", "timeout": "timeout"},
    options={v: k for k, v in cursor.HOOK_OPTIONS.items()},
    order=("command", "matcher", "timeout"),
    roots={cursor.ROOT: "${plugin_root}"},
    default_file=cursor.HOOKS_FILE,
    auto_file=AUTO_HOOKS,  # Cursor's default discovery, when the manifest names none
    auto_beside=False,
    grouped=False,
    typed=False,
    leading={"version": 1},
)


# Cursor's own manifest keys the hub holds as plugin fields (cursor.py writes them)
OWN_FIELDS = {"tags": "tags", "minClientVersions": "min_client_versions"}

RULES = "rules"  # a plugin folder's rules/, read as the hub's `rules:` folder


def read_manifest(doc: Mapping[str, Any], read: ReadPlugin) -> None:
    read.manifest(name, doc, OWN_FIELDS, (*SHARED_FIELDS, *OWN_FIELDS.values()))


def read_marketplace(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The marketplace's name, owner, description (`metadata.description`) and entries."""
    # Cursor's entries name a folder; another kind of source is not read (reported)
    return metadata_marketplace(doc, lambda raw: raw if isinstance(raw, str) else None)


# entry keys cursor_marketplace.plugin_entry writes from the plugin hub
ENTRY_KEYS = ("description",)
