"""Claude Code's plugin files read back into a hub: the inverse of claude.py's bundle output.

`memhub import --from-repo` calls these per plugin folder and per marketplace file. What the
hub has a field for becomes that field; every other key goes to `overrides.claude.<section>`
(`manifest`, `mcp_servers`, `marketplace`, `marketplace_entry`) so the build writes it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts import claude
from memhub.compiler.hosts.claude_servers import hub_spec
from memhub.compiler.importing.repo_hooks import HookFormat
from memhub.compiler.importing.repo_parts import (
    ReadPlugin,
    from_git_source,
    marketplace_entries,
    person,
    read_server_map,
    url_source,
)

name = "claude"
MANIFEST = ".claude-plugin/plugin.json"
MARKETPLACE = ".claude-plugin/marketplace.json"
MCP_FILE = ".mcp.json"
HOOKS_FILES = ("hooks/hooks.json", "hooks/claude-hooks.json")
ROOT_VAR, DATA_VAR = "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"
FOLDER_REFS = {ROOT_VAR: "${plugin_root}", DATA_VAR: "${plugin_data}"}  # as the hub spells them
# the command handler hooks.command_handler writes (Codex shares it)
COMMAND_KEYS = {
    "command": "command",
    "timeout": "timeout",
    "async": "async",
    "statusMessage": "status_message",
}
COMMAND_ORDER = ("type", "command", "timeout", "async", "statusMessage")
# how claude.py writes its hooks file, for import --from-repo (importing/repo_hooks.py)
HOOKS = HookFormat(
    host=name,
    events=claude.NATIVE_EVENTS,
    keys=COMMAND_KEYS,
    options={v: k for k, v in claude.HOOK_OPTIONS.items()},
    order=COMMAND_ORDER,
    roots={claude.ROOT: "${plugin_root}", claude.DATA: "${plugin_data}"},
    default_file=claude.HOOKS_FILE,
    auto_file=claude.AUTO_HOOKS,
)
# manifest keys claude.py writes from hub fields (the rest are overrides)
_FIELDS = {"privacyPolicyUrl": "privacy_policy", "userConfig": "user_config"}


def read_manifest(doc: Mapping[str, Any], read: ReadPlugin) -> None:
    """.claude-plugin/plugin.json: the plugin's fields, the rest as `overrides.claude.manifest`."""
    read.manifest(name, doc, _FIELDS)


WRONG_SHAPE = (
    "holds neither an `mcpServers` object nor servers at its top level (objects with a "
    "`command` or `url`), the two shapes memhub writes (`mcp.flat`)"
)


def read_servers(doc: Any, read: ReadPlugin, where: str) -> None:
    """.mcp.json `mcpServers`: hub servers, Claude-only keys as `extra.claude` (or overrides)."""
    servers = doc.get("mcpServers") if isinstance(doc, Mapping) else None
    if servers is None and _flat(doc):  # the servers at the top level (`mcp.flat`)
        servers, read.mcp_flat = doc, True
    if not isinstance(servers, Mapping):
        read.cannot(where, WRONG_SHAPE)
        return
    read_server_map(servers, read, where, name, hub_spec, FOLDER_REFS)
    for server, raw in servers.items():  # the build names the transport; Claude Code infers it
        if isinstance(raw, Mapping) and "type" not in raw and str(server) in read.servers:
            read.override(name, "mcp_servers", {str(server): {"type": None}})


def _flat(doc: Any) -> bool:
    """A .mcp.json holding the servers at its top level: objects, one with a command or url
    (an empty or keyless object is no server file of either shape)."""
    if not isinstance(doc, Mapping) or not doc:
        return False
    servers = doc.values()
    return all(isinstance(s, Mapping) for s in servers) and any(
        "command" in s or "url" in s for s in servers
    )


def read_marketplace(doc: Mapping[str, Any]) -> dict[str, Any]:
    """.claude-plugin/marketplace.json as a marketplace: its fields, entries, and extras."""
    owner = doc.get("owner")
    entries = marketplace_entries(doc, entry_source)
    return {
        "name": doc.get("name"),
        "owner": person(owner) if isinstance(owner, Mapping) else None,
        "description": doc.get("description"),
        "entries": entries,
        "extra": {
            k: v
            for k, v in doc.items()
            if k not in ("$schema", "name", "owner", "description", "plugins")
        },
    }


def entry_source(raw: Any) -> Any:
    """An entry's `source` in the hub's shape (the inverse of claude_marketplace.py; Copilot's
    marketplace takes Claude Code's kinds too)."""
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("source")
    if kind == "github":
        return from_git_source({"github": raw.get("repo")}, raw)
    if kind == "url":
        return url_source(raw)
    if kind == "git-subdir":
        return from_git_source({"git": raw.get("url"), "path": raw.get("path")}, raw)
    return None


# entry keys claude_marketplace.plugin_entry writes from the plugin hub (null takes one out)
ENTRY_KEYS = (
    "description",
    "version",
    "author",
    "homepage",
    "repository",
    "license",
    "keywords",
    "category",
)
