"""Agent Plugins 1.0: root `plugin.json` + `mcp.json` (skills and MCP only; no hooks)."""

from __future__ import annotations

from typing import Any

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts.base import CoverageRow, HostBuild, SkillNames
from memhub.compiler.hosts.common import (
    NATIVE_ROOT,
    compact,
    deep_merge,
    json_artifact,
    json_bytes,
    plugin_dir,
    plugin_metadata,
)
from memhub.compiler.hosts.entries import instructions_row, server_row
from memhub.compiler.hosts.hooks import EventSupport, map_hooks
from memhub.compiler.hosts.shipped import Shipping, with_shipped
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import references, substitute
from memhub.hubspec.vocabulary import EVENTS as LOGICAL_EVENTS

name = "agent-plugins"
title = "Agent Plugins 1.0"
summary = "Agent Plugins 1.0 root plugin.json + mcp.json (read by Codex, Cursor, Copilot, ...)"

SPEC = "https://agent-plugins.org/schemas/1.0.0"
# Its own folder: Codex (and possibly Cursor) prefer a root Agent Plugins plugin.json over
# their native manifest and then load no hooks, so the two must not share a plugin folder.
ROOT_DIR = "agent-plugins"
bundle_root = ROOT_DIR
# `plugin.agent_plugins_folder: shared` puts the package in the plugin's own folder instead, as
# some published repositories have it: an author's opt-in, paid for on Codex (agent_plugins_shared)
SHARED = "shared"
runs_hooks = False
shows_icon = False
SKILL_GROUPS = "Agent Plugins 1.0 reads skills/<name>/SKILL.md, immediate children only"
ROOT = "${PLUGIN_ROOT}"
DATA = "${PLUGIN_DATA}"
_NO_HOOKS = EventSupport(None, unsupported="Agent Plugins 1.0 defines no hooks")
EVENTS = dict.fromkeys(LOGICAL_EVENTS, _NO_HOOKS)
TOOLS: dict[str, tuple[str, ...] | None] = {}  # no hooks, so no tool names to match
NATIVE_EVENTS: tuple[str, ...] = ()  # and no events of its own
HOOK_OPTIONS: dict[str, str] = {}
HOOK_ENV: frozenset[str] = frozenset()
SKILL_FORMAT = (
    "the Agent Skills format asks for `name` in kebab-case, equal to the folder: a client "
    "that checks it may refuse the skill"
)
SKILL_NAMES = SkillNames(
    without_name=("caveat", SKILL_FORMAT),
    other_name=("caveat", SKILL_FORMAT),
)


def _fixed(value: str) -> str:
    return substitute(value, env=lambda n: "${env:" + n + "}", plugin_root=ROOT, plugin_data=DATA)


def _command(command: str) -> str:
    """A single command token: `${plugin_root}/bin/x` becomes the plugin-relative `./bin/x`."""
    if command.startswith("${plugin_root}/"):
        return "./" + command[len("${plugin_root}/") :]
    return command


def _server(server: StdioServer | RemoteServer) -> tuple[dict[str, Any] | None, CoverageRow]:
    if isinstance(server, StdioServer):
        values = [*server.args, *server.env.values(), server.cwd or "", server.command]
    else:
        values = [server.url, *server.headers.values()]
    if any(ref.kind == "env" for v in values for ref in references(v)):
        return None, server_row(
            name,
            server.name,
            "unsupported",
            "-",
            "Agent Plugins 1.0 allows literal values only; this server needs ${env:...}",
        )
    if isinstance(server, StdioServer):
        command = _command(server.command)
        if references(command) or " " in command:
            return None, server_row(
                name,
                server.name,
                "unsupported",
                "-",
                "Agent Plugins needs a single command token (a bare name or ./path)",
            )
        spec = compact(
            {
                "type": "stdio",
                "command": command,
                "args": [_fixed(a) for a in server.args],
                "env": {k: _fixed(v) for k, v in server.env.items()},
                "cwd": _fixed(server.cwd) if server.cwd else None,
            }
        )
        if server.project_option is not None or any(
            ref.kind == "project_dir" for v in values for ref in references(v)
        ):
            # the standard starts a server in the plugin folder and names no workspace
            return spec, server_row(
                name,
                server.name,
                "caveat",
                "mcp.json stdio",
                "Agent Plugins starts a stdio server in the plugin folder and names no workspace: "
                "the server is not told the project folder",
            )
        return spec, server_row(name, server.name, "mapped", "mcp.json stdio")
    kind = "streamable-http" if server.transport == "http" else "sse"
    spec = compact({"type": kind, "url": server.url, "headers": dict(server.headers)})
    reason = (
        "Agent Plugins has no OAuth fields; the client discovers OAuth itself"
        if server.oauth
        else ""
    )
    return spec, server_row(
        name, server.name, "caveat" if reason else "mapped", f"mcp.json {kind}", reason
    )


def root(hub: Hub) -> str:
    """The bundle folder holding the package: its own, or the native plugin folder's."""
    return NATIVE_ROOT if hub.plugin.agent_plugins_folder == SHARED else ROOT_DIR


def install_steps(hub: Hub) -> list[str]:
    return [f"point an Agent Plugins client at {plugin_dir(hub, root(hub))} (its plugin.json)"]


SKILLS_AND_SERVERS = "Agent Plugins 1.0 carries skills and MCP servers only"


def build(hub: Hub) -> HostBuild:
    base = plugin_dir(hub, root(hub))
    plugin = hub.plugin
    _, rows = map_hooks(
        hub, host=name, events=EVENTS, tools={}, matcher=lambda n: "", root=ROOT, data=DATA
    )
    manifest = compact(
        {
            "$schema": f"{SPEC}/plugin.schema.json",
            **plugin_metadata(plugin),
        }
    )
    artifacts = [
        json_artifact(hub, name, f"{base}/plugin.json", manifest, override="manifest"),
    ]
    servers: dict[str, Any] = {}
    for server in hub.mcp_servers:
        spec, row = _server(server)
        rows.append(row)
        if spec is not None:
            servers[server.name] = deep_merge(
                spec, hub.override(name, "mcp_servers").get(server.name, {})
            )
    if servers:
        document = {"$schema": f"{SPEC}/mcp.schema.json", "mcpServers": servers}
        artifacts.append(Artifact(f"{base}/mcp.json", json_bytes(document), owners=(name,)))
    rows += instructions_row(
        hub, name, "unsupported", "-", "Agent Plugins 1.0 carries skills and MCP servers only"
    )
    shipping = Shipping(name, root(hub), agents=SKILLS_AND_SERVERS, commands=SKILLS_AND_SERVERS)
    return with_shipped(hub, shipping, artifacts, rows)
