"""Cursor: `.cursor-plugin/` marketplace and manifest (MCP inline), hooks JSON, rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts.base import (
    CoverageRow,
    CoverageStatus,
    HookSwitches,
    HostBuild,
    Loader,
    Locations,
)
from memhub.compiler.hosts.common import (
    NATIVE_ROOT,
    compact,
    deep_merge,
    icon_path,
    json_artifact,
    json_bytes,
    plugin_dir,
    plugin_source,
    with_project,
    without,
)
from memhub.compiler.hosts.cursor_marketplace import (
    MARKETPLACE_FILE,
    marketplace_document,
    plugin_entry,
)
from memhub.compiler.hosts.cursor_rules import has_rules, rule_artifacts
from memhub.compiler.hosts.entries import (
    instruction_entries,
    mcp_entries,
    server_row,
    skill_entries,
)
from memhub.compiler.hosts.hook_files import flat_hooks, hooks_document, hooks_path
from memhub.compiler.hosts.hooks import EventSupport, MappedHook, map_hooks, map_install_hooks
from memhub.compiler.hosts.launcher import (
    LAUNCHED_BY,
    LAUNCHER_EXECUTABLE,
    Launcher,
    bundle_launcher,
    install_launcher,
    launch_reason,
    launched,
    launcher_artifact,
    remote_caveats,
)
from memhub.compiler.hosts.shipped import Shipping, as_markdown, with_shipped
from memhub.compiler.importing.shapes import (
    extras_of,
    nonempty,
    oauth_spec,
    remote_spec,
    stdio_spec,
    string_map,
    strings,
)
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import references, substitute

if TYPE_CHECKING:
    from memhub.compiler.importing.hostconfig import Installed

name = "cursor"
title = "Cursor"
NO_USER_CONFIG = "Cursor's plugin `variables` are not written: how a plugin names one is not proven"
# CLIs whose presence on PATH makes `memhub apply` pick this host by default
executables: tuple[str, ...] = ("cursor-agent", "cursor")
# variables that move where this host keeps its files (none: always under HOME)
placing_env: tuple[str, ...] = ()
summary = "Cursor plugin + marketplace (.cursor-plugin/), hooks/cursor-hooks.json, rules/*.mdc"

ROOT = "${CURSOR_PLUGIN_ROOT}"
bundle_root = NATIVE_ROOT
runs_hooks = True
shows_icon = True
HOOKS_FILE = "hooks/cursor-hooks.json"
CURSOR_RULES = True  # the hub's `rules:` go in its plugin's rules/ (cursor_rules.py)
# not run here (no Cursor CLI): its plugin format documents skills/*/SKILL.md discovery
SKILL_GROUPS = "Cursor finds a plugin's skills at skills/<name>/SKILL.md (its plugin docs)"

EVENTS = {
    "session_start": EventSupport("sessionStart"),
    "session_end": EventSupport("sessionEnd"),
    "prompt_submit": EventSupport(
        "beforeSubmitPrompt", caveat="beforeSubmitPrompt can block a prompt but cannot add context"
    ),
    "before_tool": EventSupport(
        "preToolUse",
        caveat="Cursor's preToolUse answers allow or deny only: no context reaches the model",
    ),
    "after_tool": EventSupport(
        "postToolUse", caveat="Cursor ignores the output of after-tool hooks (observe only)"
    ),
    "after_tool_failure": EventSupport(
        "postToolUseFailure", caveat="Cursor ignores the output of after-tool hooks (observe only)"
    ),
    "turn_end": EventSupport("stop"),
    "pre_compact": EventSupport("preCompact"),
}
# Every hook event of Cursor (hosts.md 3.2): `event: {cursor: <name>}` binds one natively.
NATIVE_EVENTS: tuple[str, ...] = (
    "sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure",
    "subagentStart", "subagentStop", "beforeShellExecution", "afterShellExecution",
    "beforeMCPExecution", "afterMCPExecution", "beforeReadFile", "afterFileEdit",
    "beforeSubmitPrompt", "preCompact", "stop", "afterAgentResponse", "afterAgentThought",
    "beforeTabFileRead", "afterTabFileEdit", "workspaceOpen",
)  # fmt: skip
# hub option -> Cursor's hook key
HOOK_OPTIONS: dict[str, str] = {"loop_limit": "loop_limit", "fail_closed": "failClosed"}
# what Cursor sets for a plugin's hook commands
HOOK_ENV = frozenset(
    {"CURSOR_PLUGIN_ROOT", "CURSOR_PROJECT_DIR", "CURSOR_VERSION", "CURSOR_TRANSCRIPT_PATH"}
)

TOOLS: dict[str, tuple[str, ...] | None] = {
    "shell": ("Shell",),
    "edit": ("Write", "Edit"),
    "read": ("Read",),
    "search": ("Grep", "Glob"),
    "web": ("WebFetch", "WebSearch"),
    "mcp": ("MCP:.*",),
    "agent": ("Task",),
}


def matcher(names: list[str]) -> str:
    return "^(?:" + "|".join(names) + ")$"


PROJECT_DIR = "${workspaceFolder}"  # Cursor's name for the workspace (project) folder


def _value(value: str) -> str:
    return substitute(
        value,
        env=lambda n: "${env:" + n + "}",
        plugin_root=ROOT,
        plugin_data="${plugin_data}",
        project_dir=PROJECT_DIR,
    )


def _server(
    hub: Hub, server: StdioServer | RemoteServer, launcher: Launcher
) -> tuple[dict[str, Any] | None, CoverageRow]:
    if isinstance(server, StdioServer):
        server = with_project(server)  # Cursor names its workspace; it does not start in it
    values = (
        [server.command, *server.args, *server.env.values(), server.cwd or ""]
        if isinstance(server, StdioServer)
        else [server.url, *server.headers.values()]
    )
    if any(ref.kind == "plugin_data" for v in values for ref in references(v)):
        return None, server_row(
            name,
            server.name,
            "unsupported",
            "-",
            "Cursor has no plugin data folder for ${plugin_data}",
        )
    extra = hub.override(name, "mcp_servers").get(server.name, {})
    launch = launch_reason(hub, server)  # Cursor is not proven to expand ${env:VAR:-default}
    if isinstance(server, StdioServer) and launch:
        # Cursor expands ${env:NAME} from its own environment only; a desktop start has no
        # shell environment, and the launcher also reads the hub's .env.
        run = launched(
            server,
            launcher,
            plain=_value,
            plugin_root=ROOT,
            plugin_data="",
            project_dir=PROJECT_DIR,
        )
        spec = compact({"command": run.command, "args": run.args, "env": run.env})
        reasons = [f"{LAUNCHED_BY}: {launch}"]
        if server.cwd:
            reasons.append("Cursor has no cwd for stdio servers")
        return deep_merge(spec, extra), server_row(
            name, server.name, "caveat", "plugin.json mcpServers stdio", "; ".join(reasons)
        )
    if isinstance(server, StdioServer):
        spec = compact(
            {
                "command": _value(server.command),
                "args": [_value(a) for a in server.args],
                "env": {k: _value(v) for k, v in server.env.items()},
            }
        )
        reason = "Cursor has no cwd for stdio servers" if server.cwd else ""
        return deep_merge(spec, extra), server_row(
            name,
            server.name,
            "caveat" if reason else "mapped",
            "plugin.json mcpServers stdio",
            reason,
        )
    spec = compact(
        {
            "url": _value(server.url),
            "headers": {k: _value(v) for k, v in server.headers.items()},
            "auth": {"CLIENT_ID": server.oauth.client_id, "scopes": list(server.oauth.scopes)}
            if server.oauth
            else None,
        }
    )
    if "auth" in spec:
        spec["auth"] = compact(spec["auth"])
    reason = remote_caveats(hub, "Cursor", server, ("scopes",))
    status: CoverageStatus = "caveat" if reason else "mapped"
    return deep_merge(spec, extra), server_row(
        name, server.name, status, "plugin.json mcpServers remote", reason
    )


def _handler(item: MappedHook) -> dict[str, Any]:
    handler: dict[str, Any] = {"command": item.command}
    if item.matcher:
        handler["matcher"] = item.matcher
    if item.hook.timeout is not None:
        handler["timeout"] = item.hook.timeout
    handler.update(item.options)  # HOOK_OPTIONS, in Cursor's spelling
    return handler


def install_steps(hub: Hub) -> list[str]:
    return [
        "cursor-agent plugin marketplace add <this repository>",
        f"then open Customize, find {hub.plugin.title} in {hub.marketplace.name}, select Add",
    ]


SHIPPING = Shipping(
    name, NATIVE_ROOT, agents=as_markdown("agents"), commands=as_markdown("commands")
)


def build(hub: Hub) -> HostBuild:
    base = plugin_dir(hub)
    plugin = hub.plugin
    mapped, rows = map_hooks(
        hub, host=name, events=EVENTS, tools=TOOLS, matcher=matcher, root=ROOT, data=None
    )
    hooked = bool(mapped) or name in hub.hooks_kept  # a kept file is named too
    servers: dict[str, Any] = {}
    for server in hub.mcp_servers:
        spec, row = _server(hub, server, bundle_launcher(hub, ROOT))
        rows.append(row)
        if spec is not None:
            servers[server.name] = spec
    author = plugin.author
    manifest = compact(
        {
            "name": plugin.name,
            "displayName": plugin.title,
            "version": plugin.version,
            "description": plugin.description,
            "author": compact({"name": author.name, "email": author.email}) if author else None,
            "homepage": plugin.homepage,
            "repository": plugin.repository,
            "license": plugin.license,
            "keywords": list(plugin.keywords),
            "logo": icon_path(hub),
            "category": plugin.category,
            "skills": "./skills/" if hub.skills else None,
            "rules": "./rules/" if has_rules(hub) else None,
            "hooks": f"./{hooks_path(hub, name, HOOKS_FILE)}" if hooked else None,
            "mcpServers": servers,
            "tags": list(plugin.tags),  # last, where overrides.cursor.manifest put them
            "minClientVersions": dict(plugin.min_client_versions),
        }
    )
    marketplace = marketplace_document(
        hub.marketplace,
        hub.marketplace.description or plugin.description,
        [plugin_entry(hub, plugin_source(hub))],
    )
    artifacts = [json_artifact(hub, name, MARKETPLACE_FILE, marketplace, override="marketplace")]
    if not without(hub, name, "manifest"):  # a marketplace entry may stand in for it
        path = f"{base}/.cursor-plugin/plugin.json"
        artifacts.append(json_artifact(hub, name, path, manifest, override="manifest"))
    if mapped:
        hooks = hooks_document(hub, name, flat_hooks(mapped, _handler), {"version": 1})
        path = f"{base}/{hooks_path(hub, name, HOOKS_FILE)}"
        artifacts.append(Artifact(path, json_bytes(hooks), owners=(name,)))
    rules, rule_rows = rule_artifacts(hub, base)
    artifacts += rules
    rows += rule_rows
    if any(r.reason.startswith(LAUNCHED_BY) for r in rows if r.component == "mcp"):
        artifacts.append(launcher_artifact(hub, NATIVE_ROOT))
    return with_shipped(hub, SHIPPING, artifacts, rows)


def locations(scope: Scope) -> Locations:
    """~/.cursor (user) or .cursor (project): mcp.json, hooks.json, skills/; a project's
    AGENTS.md (Cursor keeps user rules in its settings, not in a file)."""
    folder = scope.base / ".cursor"
    agents = scope.base / "AGENTS.md" if scope.kind == "project" else None
    return Locations(
        folder / "mcp.json",
        "json-key",
        "mcpServers",
        folder / "hooks.json",
        folder / "skills",
        agents,
    )


def install_entries(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's servers, hooks (hooks.json of version 1), skills and instructions."""
    where = locations(scope)
    hooks_file = where.hooks_file
    launcher = install_launcher(hub, scope.script(LAUNCHER_EXECUTABLE))
    entries, rows = mcp_entries(
        hub,
        name,
        where.mcp_file,
        where.mcp_kind,
        where.mcp_key,
        lambda s: _server(hub, s, launcher),
    )
    mapped, hook_rows = map_install_hooks(
        hub, scope, host=name, events=EVENTS, tools=TOOLS, matcher=matcher
    )
    if mapped:
        entries.append(Entry(name, str(hooks_file), "json-default", ("version",), 1))
    entries += [
        Entry(name, str(hooks_file), "json-item", ("hooks", item.host_event), _handler(item))
        for item in mapped
    ]
    entries += skill_entries(hub, name, where.skills)
    # In a project, Cursor reads AGENTS.md: the same block Codex gets there.
    blocks, block_rows = instruction_entries(
        hub,
        name,
        where.instructions,
        missing="Cursor keeps user rules in its settings, not in a file",
    )
    return entries + blocks, [*hook_rows, *rows, *block_rows]


def after_install_steps(hub: Hub, scope: Scope | None = None) -> list[str]:
    """What only Cursor's UI can do after an install."""
    return ["restart Cursor; enable the new MCP servers under Settings > MCP if they are off"]


# --- doctor: what decides whether Cursor runs the hooks memhub installed (hosts.md 3.2) ------


def hooks_file_problems(document: Any) -> list[str]:
    """What keeps Cursor from reading a hooks.json: it carries `"version": 1` beside `hooks`."""
    if not isinstance(document, dict) or document.get("version") != 1:
        return ['it has no "version": 1 (Cursor reads hooks.json of format version 1)']
    return []


hook_switches = HookSwitches(file_problems=hooks_file_problems)
loader: Loader | None = None  # cursor-agent has no command that only loads its config


def read_installed(scope: Scope) -> Installed:
    """What Cursor has installed in `scope`, for `memhub import`: the MCP servers of
    ~/.cursor/mcp.json or .cursor/mcp.json (already written with the hub's `${env:NAME}`),
    the matching skills folder, and a project's AGENTS.md and legacy .cursorrules (user
    rules live in Cursor's settings, not in a file). `.cursor/rules/*.mdc` rules are named,
    not imported: the hub holds one instructions file."""
    folder = scope.base / ".cursor"

    def convert(server: str, raw: Mapping[str, Any]) -> Any:
        if "command" in raw:
            spec = stdio_spec(
                nonempty(raw.get("command"), "command"),
                strings(raw.get("args"), "args"),
                string_map(raw.get("env"), "env"),
            )
            return spec, extras_of(raw, ("type", "command", "args", "env")), []
        auth = raw.get("auth")
        if not isinstance(auth, Mapping):
            auth = {}
        oauth = oauth_spec(auth.get("CLIENT_ID"), scopes=auth.get("scopes"))
        transport = "sse" if raw.get("type") == "sse" else "http"
        spec = remote_spec(
            nonempty(raw.get("url"), "url"),
            transport,
            string_map(raw.get("headers"), "headers"),
            oauth,
        )
        extras = extras_of(raw, ("type", "url", "headers", *(("auth",) if oauth else ())))
        rest = extras_of(auth, ("CLIENT_ID", "scopes"))
        if oauth and rest:
            extras["auth"] = rest
        return spec, extras, []

    from memhub.compiler.importing.hostconfig import Reader  # for `memhub import` alone

    reader = Reader(name, scope)
    mcp_file = folder / "mcp.json"
    servers = (reader.json(mcp_file) or {}).get("mcpServers")
    reader.servers(mcp_file, servers, ("mcpServers",), "json-key", convert)
    reader.skills(folder / "skills")
    if scope.kind == "project":
        reader.instructions(scope.base / "AGENTS.md")
        reader.instructions(scope.base / ".cursorrules")
        rules = folder / "rules"
        for rule in sorted(rules.rglob("*.md*")) if rules.is_dir() else []:
            reader.skip(
                "Cursor rule",
                rule,
                "a rule applies by its own globs and the hub holds one instructions file; "
                "merge it by hand",
            )
    return reader.result()
