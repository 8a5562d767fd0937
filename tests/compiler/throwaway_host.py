"""A throwaway host adapter, as a newcomer adds one (CONTRIBUTING.md, "Add a host").

It is the whole of a new host: this module, plus one line in compiler/hosts/__init__.py
(here `tests/compiler/test_host_registry.py` adds that line for the test's duration). It
writes a `.throwaway/` folder: mcp.json with the servers, hooks.json, skills/, NOTES.md.
"""

from __future__ import annotations

from typing import Any

from memhub.compiler.hosts.base import (
    CoverageRow,
    HookSwitches,
    HostBuild,
    Loader,
    Locations,
)
from memhub.compiler.hosts.common import json_artifact, plugin_dir, plugin_metadata
from memhub.compiler.hosts.entries import (
    instruction_entries,
    mcp_entries,
    server_row,
    skill_entries,
)
from memhub.compiler.hosts.hooks import (
    EventSupport,
    command_handler,
    hook_entries,
    map_hooks,
    map_install_hooks,
)
from memhub.compiler.importing.hostconfig import Installed, Reader
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.vocabulary import EVENTS as LOGICAL_EVENTS

name = "throwaway"
title = "Throwaway"
summary = "a test host: .throwaway-plugin/plugin.json, .throwaway/ in an install"
bundle_root = "throwaway"
runs_hooks = False
shows_icon = False
executables: tuple[str, ...] = ("throwaway-cli",)
placing_env: tuple[str, ...] = ()
EVENTS = {e: EventSupport("SessionStart" if e == "session_start" else None) for e in LOGICAL_EVENTS}
TOOLS: dict[str, tuple[str, ...] | None] = {}
NATIVE_EVENTS: tuple[str, ...] = ("SessionStart",)
HOOK_OPTIONS: dict[str, str] = {}
HOOK_ENV: frozenset[str] = frozenset()
hook_switches = HookSwitches()
loader: Loader | None = None


def _spec(server: StdioServer | RemoteServer) -> tuple[dict[str, Any] | None, CoverageRow]:
    if isinstance(server, RemoteServer):
        return {"url": server.url}, server_row(name, server.name, "mapped", "mcp.json")
    spec = {"command": server.command, "args": list(server.args)}
    return spec, server_row(name, server.name, "mapped", "mcp.json")


def install_steps(hub: Hub) -> list[str]:
    return [f"throwaway-cli add {plugin_dir(hub, bundle_root)}"]


def build(hub: Hub) -> HostBuild:
    base = plugin_dir(hub, bundle_root)
    manifest = {**plugin_metadata(hub.plugin), "mcpServers": {}}
    rows = []
    for server in hub.mcp_servers:
        spec, row = _spec(server)
        manifest["mcpServers"][server.name] = spec
        rows.append(row)
    path = f"{base}/.throwaway-plugin/plugin.json"
    artifact = json_artifact(hub, name, path, manifest, override="manifest")
    _, hook_rows = map_hooks(
        hub, host=name, events=EVENTS, tools=TOOLS, matcher=lambda n: "", root="", data=""
    )
    return HostBuild((artifact,), (*rows, *hook_rows))


def locations(scope: Scope) -> Locations:
    folder = scope.base / ".throwaway"
    return Locations(
        folder / "mcp.json",
        "json-key",
        "mcpServers",
        folder / "hooks.json",
        folder / "skills",
        folder / "NOTES.md",
    )


def install_entries(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
    where = locations(scope)
    entries, rows = mcp_entries(hub, name, where.mcp_file, where.mcp_kind, where.mcp_key, _spec)
    mapped, hook_rows = map_install_hooks(
        hub, scope, host=name, events=EVENTS, tools=TOOLS, matcher=lambda n: ""
    )
    entries += hook_entries(name, where.hooks_file, mapped, command_handler)
    entries += skill_entries(hub, name, where.skills)
    blocks, block_rows = instruction_entries(hub, name, where.instructions)
    return entries + blocks, [*hook_rows, *rows, *block_rows]


def after_install_steps(hub: Hub, scope: Scope | None = None) -> list[str]:
    return ["restart Throwaway"]


def read_installed(scope: Scope) -> Installed:
    reader = Reader(name, scope)
    reader.skills(locations(scope).skills)
    return reader.result()
