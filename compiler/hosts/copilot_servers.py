"""GitHub Copilot CLI `mcpServers` entries, both ways: the hub's servers written in the shape
Copilot reads (mcp-config.json, a workspace .mcp.json, a plugin manifest), and those read
back for `memhub import`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts import claude_servers
from memhub.compiler.hosts.base import CoverageRow, CoverageStatus
from memhub.compiler.hosts.common import compact, deep_merge
from memhub.compiler.hosts.entries import server_row
from memhub.compiler.hosts.launcher import (
    HTTP_NOT_LAUNCHED,
    LAUNCH_BY_HUB,
    LAUNCHED_BY,
    Launcher,
    launched,
    oauth_not_carried,
)
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import references, shell_default, shell_ref, substitute

HOST = "copilot"
# What Copilot CLI sets for a plugin's servers and hooks (seen in their environment): the
# plugin folder as PLUGIN_ROOT (also COPILOT_PLUGIN_ROOT, CLAUDE_PLUGIN_ROOT).
ROOT = "${PLUGIN_ROOT}"
NO_DATA = "Copilot CLI gives MCP servers no plugin data folder for ${plugin_data}"
# Host-only server keys a hub server may give under `extra: {copilot: ...}` (server_extras.py)
EXTRA_KEYS = {"tools": "strings"}  # its own `copilot mcp add` writes `tools: ["*"]`


def value(text: str, root: str = ROOT) -> str:
    """`text` in Copilot's syntax: `${env:NAME}` as `${NAME}` (expanded from its environment),
    `${env:NAME:-default}` as `${NAME:-default}` (Copilot CLI 1.0 expands that too:
    tests/e2e/test_env_defaults_copilot.py)."""
    return substitute(
        text, env=shell_ref, env_default=shell_default, plugin_root=root, plugin_data=""
    )


def _uses_data(server: StdioServer | RemoteServer) -> bool:
    values = (
        [server.command, *server.args, *server.env.values(), server.cwd or ""]
        if isinstance(server, StdioServer)
        else [server.url, *server.headers.values()]
    )
    return any(ref.kind == "plugin_data" for v in values for ref in references(v))


def server_spec(
    hub: Hub, server: StdioServer | RemoteServer, launcher: Launcher, target: str
) -> tuple[dict[str, Any] | None, CoverageRow]:
    """One `mcpServers` entry in Claude's shape (`type`, `command`, `args`, `env`), which
    Copilot reads as it is, plus `cwd`, which it has; `target` names the file for coverage."""
    if _uses_data(server):
        return None, server_row(HOST, server.name, "unsupported", "-", NO_DATA)
    extra = hub.override(HOST, "mcp_servers").get(server.name, {})
    by_launcher = hub.runtime.secrets == "launcher"
    if isinstance(server, StdioServer) and by_launcher:
        run = launched(server, launcher, plain=value, plugin_root=ROOT, plugin_data="")
        spec = compact(
            {
                "type": "stdio",
                "command": run.command,
                "args": run.args,
                "env": run.env,
                "cwd": run.cwd,
            }
        )
        reason = f"{LAUNCHED_BY}: {LAUNCH_BY_HUB}"
        return deep_merge(spec, extra), server_row(
            HOST, server.name, "caveat", f"{target} stdio", reason
        )
    if isinstance(server, StdioServer):
        spec = compact(
            {
                "type": "stdio",
                "command": value(server.command),
                "args": [value(a) for a in server.args],
                "env": {k: value(v) for k, v in server.env.items()},
                "cwd": value(server.cwd) if server.cwd else None,
            }
        )
        return deep_merge(spec, extra), server_row(HOST, server.name, "mapped", f"{target} stdio")
    oauth = server.oauth
    spec = compact(
        {
            "type": server.transport,
            "url": value(server.url),
            "headers": {k: value(v) for k, v in server.headers.items()},
            # Copilot's own OAuth keys (it reads Claude's nested `oauth` as deprecated).
            "oauthClientId": oauth.client_id if oauth else None,
            "auth": {"redirectPort": oauth.callback_port}
            if oauth and oauth.callback_port
            else None,
        }
    )
    carried = ("callback_port",)
    reasons = [
        HTTP_NOT_LAUNCHED if by_launcher else "",
        oauth_not_carried("Copilot CLI", server, carried),
    ]
    reason = "; ".join(r for r in reasons if r)
    status: CoverageStatus = "caveat" if reason else "mapped"
    return deep_merge(spec, extra), server_row(
        HOST, server.name, status, f"{target} {server.transport}", reason
    )


def hub_spec(server: str, raw: Mapping[str, Any]) -> Any:
    """A Copilot `mcpServers` entry read back as a hub server, for `memhub import`. Copilot's
    own `copilot mcp add` writes `type: local` and `tools: ["*"]` (every tool, its default),
    OAuth is `oauthClientId` and `auth.redirectPort`; the rest is Claude's shape, read as
    Claude's is."""
    entry = dict(raw)
    if entry.get("type") == "local":
        entry["type"] = "stdio"
    if entry.get("tools") == ["*"]:
        del entry["tools"]
    auth = entry.get("auth")
    if "oauthClientId" in entry and "oauth" not in entry:  # Copilot's keys as Claude's
        oauth: dict[str, Any] = {"clientId": entry.pop("oauthClientId")}
        if isinstance(auth, Mapping) and set(auth) == {"redirectPort"}:
            oauth["callbackPort"] = entry.pop("auth")["redirectPort"]
        entry["oauth"] = oauth
    return claude_servers.hub_spec(server, entry)
