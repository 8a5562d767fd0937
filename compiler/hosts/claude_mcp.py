"""The plugin folder's `.mcp.json`, as Claude Code reads it: written by the Claude adapter, and
by the Codex and Copilot CLI adapters for a plugin without Claude whose manifest names it
(`"mcpServers": "./.mcp.json"`, kept as `overrides.<host>.manifest`: Codex 0.171 and Copilot
1.0.102 load the servers from it)."""

from __future__ import annotations

import posixpath

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts.base import CoverageRow
from memhub.compiler.hosts.common import json_bytes
from memhub.compiler.hosts.keyorder import KEY_ORDER, ordered
from memhub.compiler.hosts.launcher import LAUNCHED_BY, bundle_launcher, launcher_artifact
from memhub.hubspec.model import Hub

MCP_FILE = ".mcp.json"


def mcp_json(hub: Hub, base: str, rows: list[CoverageRow], owner: str) -> list[Artifact]:
    """`<base>/.mcp.json` with the hub's servers (a row each added to `rows`), and the
    launcher when a server starts through it; none without servers and `mcp.file`."""
    from memhub.compiler.hosts import claude  # claude imports this module

    if not hub.mcp_servers and not hub.mcp_file:
        return []
    servers = {}
    for server in hub.mcp_servers:
        servers[server.name], row = claude.server_spec(
            hub, server, bundle_launcher(hub, claude.ROOT)
        )
        rows.append(row)
    document = servers if hub.mcp_flat else {"mcpServers": servers}
    document = ordered(document, hub.override(claude.name, KEY_ORDER).get("mcp", ()))
    out = [Artifact(f"{base}/{MCP_FILE}", json_bytes(document), owners=(owner,))]
    if any(r.reason.startswith(LAUNCHED_BY) for r in rows if r.component == "mcp"):
        out.append(launcher_artifact(hub, claude.NATIVE_ROOT))
    return out


def named_mcp_json(hub: Hub, base: str, host: str) -> list[Artifact]:
    """`.mcp.json` for a `host` manifest (Codex's, or Copilot CLI's) naming `./.mcp.json`
    where no Claude adapter writes it (the host's own rows say where its servers go); none
    otherwise."""
    named = hub.override(host, "manifest").get("mcpServers")
    if "claude" in hub.hosts or not isinstance(named, str):
        return []
    return mcp_json(hub, base, [], host) if posixpath.normpath(named) == MCP_FILE else []
