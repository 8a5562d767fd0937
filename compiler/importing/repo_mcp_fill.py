"""The `.mcp.json` values the hub's server fields leave out, patched back: a server's
`"args": []` or `"env": {}` (the hub holds an empty list or map as none), or any value the
build writes otherwise, as `overrides.claude.mcp_servers.<name>` (a JSON merge patch the
Claude writer of .mcp.json, claude_mcp.py, applies last)."""

from __future__ import annotations

import json
from typing import Any

from memhub.compiler.importing.repo_tree import Tree
from memhub.hubspec.refs import has_credential

MCP_FILE = ".mcp.json"


def server_patches(plugins: list[Any], tree: Tree, docs: dict[str, Any]) -> None:
    """For each plugin hub whose .mcp.json the build wrote (`docs`, by repository path),
    each server's merge patch from the built entry to the repository's, into its overrides."""
    from memhub.compiler.importing.repo_fill import merge_patch

    for hub in plugins:
        path = f"{hub.folder}/{MCP_FILE}" if hub.folder else MCP_FILE
        if path not in tree or path not in docs:
            continue
        try:
            mine = _servers(json.loads(tree[path].content), hub.read.mcp_flat)
        except (ValueError, RecursionError):
            continue
        ours = _servers(docs[path], hub.read.mcp_flat)
        for name, spec in mine.items():
            built = ours.get(name)
            if not isinstance(spec, dict) or not isinstance(built, dict):
                continue
            patch = merge_patch(built, spec)
            if patch and not has_credential(json.dumps(patch)):  # a secret stays out of a hub
                extra = hub.read.extra.setdefault("claude", {}).setdefault("mcp_servers", {})
                extra.setdefault(name, {}).update(patch)


def _servers(doc: Any, flat: bool) -> dict[str, Any]:
    servers = doc if flat else doc.get("mcpServers") if isinstance(doc, dict) else None
    return servers if isinstance(servers, dict) else {}
