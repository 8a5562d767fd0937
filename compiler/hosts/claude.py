"""Claude Code: `.claude-plugin/` marketplace and manifest, `.mcp.json`, hooks JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhub.compiler.artifact import Artifact
from memhub.compiler.errors import BuildError
from memhub.compiler.hosts import user_config
from memhub.compiler.hosts.base import (
    CoverageRow,
    CoverageStatus,
    DescriptionMax,
    HookSwitches,
    HostBuild,
    Loader,
    Locations,
    ReadDocument,
)
from memhub.compiler.hosts.claude_marketplace import (
    MARKETPLACE_FILE,
    marketplace_document,
    plugin_entry,
)
from memhub.compiler.hosts.claude_mcp import mcp_json
from memhub.compiler.hosts.claude_servers import STARTS, hub_spec
from memhub.compiler.hosts.common import (
    NATIVE_ROOT,
    compact,
    deep_merge,
    icon_path,
    json_artifact,
    json_bytes,
    plugin_dir,
    plugin_metadata,
    plugin_source,
    without,
)
from memhub.compiler.hosts.entries import (
    instruction_entries,
    instructions_row,
    mcp_entries,
    server_row,
    skill_entries,
)
from memhub.compiler.hosts.hook_files import grouped_hooks, hooks_document, hooks_path
from memhub.compiler.hosts.hooks import (
    EventSupport,
    command_handler,
    hook_entries,
    map_hooks,
    map_install_hooks,
)
from memhub.compiler.hosts.launcher import (
    HTTP_NOT_LAUNCHED,
    LAUNCH_BY_HUB,
    LAUNCHED_BY,
    LAUNCHER_EXECUTABLE,
    Launcher,
    install_launcher,
    launched,
)
from memhub.compiler.hosts.shipped import Shipping, as_markdown, with_shipped
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import shell_default, shell_ref, substitute

if TYPE_CHECKING:
    from memhub.compiler.importing.hostconfig import Installed

name = "claude"
title = "Claude Code"
# CLIs whose presence on PATH makes `memhub apply` pick this host by default
executables: tuple[str, ...] = ("claude",)
# variables that move where this host keeps its files (scope.env_dir)
CONFIG_DIR_ENV = "CLAUDE_CONFIG_DIR"
placing_env: tuple[str, ...] = (CONFIG_DIR_ENV,)
summary = "Claude Code plugin + marketplace (.claude-plugin/), .mcp.json, hooks/claude-hooks.json"

ROOT = "${CLAUDE_PLUGIN_ROOT}"
DATA = "${CLAUDE_PLUGIN_DATA}"
bundle_root = NATIVE_ROOT
runs_hooks = True
shows_icon = True
USER_CONFIG = ".claude-plugin/plugin.json userConfig"  # plugin.user_config (user_config.py)
HOOKS_FILE = "hooks/claude-hooks.json"
SKILL_GROUPS = (  # tests/e2e/test_skill_groups_hosts.py
    "Claude Code 2.1 loads only skills/<name>/SKILL.md of a plugin (plugin details lists no "
    "skill of a group folder)"
)

EVENTS = {
    "session_start": EventSupport("SessionStart"),
    "session_end": EventSupport(
        "SessionEnd", caveat="SessionEnd hooks share a 1.5 s budget unless a longer timeout is set"
    ),
    "prompt_submit": EventSupport("UserPromptSubmit"),
    "before_tool": EventSupport("PreToolUse"),
    "after_tool": EventSupport("PostToolUse"),
    "after_tool_failure": EventSupport("PostToolUseFailure"),
    # a subagent's turn ends with SubagentStop: capture binds it too, so a subagent's
    # transcript is captured when it finishes (the runtime names it as its own session)
    "turn_end": EventSupport("Stop", handler_also=("SubagentStop",)),
    "pre_compact": EventSupport("PreCompact"),
}
# Every hook event of Claude Code (hosts.md 1.3): `event: {claude: <name>}` binds one natively.
NATIVE_EVENTS: tuple[str, ...] = (
    "SessionStart", "Setup", "InstructionsLoaded", "UserPromptSubmit", "UserPromptExpansion",
    "MessageDisplay", "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure",
    "PostToolBatch", "PermissionDenied", "Notification", "SubagentStart", "SubagentStop",
    "TaskCreated", "TaskCompleted", "Stop", "StopFailure", "TeammateIdle", "ConfigChange",
    "CwdChanged", "DirectoryAdded", "FileChanged", "WorktreeCreate", "WorktreeRemove",
    "PreCompact", "PostCompact", "SessionEnd", "Elicitation", "ElicitationResult",
)  # fmt: skip
# hub option -> Claude Code's command handler key
HOOK_OPTIONS: dict[str, str] = {
    "if": "if",
    "async_rewake": "asyncRewake",
    "rewake_message": "rewakeMessage",
    "rewake_summary": "rewakeSummary",
    "shell": "shell",
}
# what Claude Code sets for a plugin's hook commands
HOOK_ENV = frozenset(
    {"CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA", "CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE"}
)
# Claude Code 2.1 loads a SKILL.md without `name` and any name: no SKILL_NAMES. 2.1.332 loads
# a longer description but lists it to the model cut to 1535 characters and "\u2026"
SKILL_DESCRIPTION_MAX = DescriptionMax(
    1536, "caveat", "Claude Code 2.1.332 lists it to the model cut to 1535 characters"
)


TOOLS: dict[str, tuple[str, ...] | None] = {
    "shell": ("Bash",),
    "edit": ("Edit", "MultiEdit", "Write", "NotebookEdit"),
    "read": ("Read",),
    "search": ("Grep", "Glob"),
    "web": ("WebFetch", "WebSearch"),
    "mcp": ("mcp__.*",),
    "agent": ("Task", "Agent"),
}
_PLAIN = re.compile(r"^[A-Za-z0-9_]+$")


def matcher(names: list[str]) -> str:
    """An exact `A|B` list when every name is plain, else one anchored regex."""
    if all(_PLAIN.match(n) for n in names):
        return "|".join(names)
    return "^(?:" + "|".join(names) + ")$"


def _env(value: str) -> str:
    """`value` in Claude Code's syntax (it expands `${VAR:-default}` in .mcp.json too)."""
    return substitute(
        value, env=shell_ref, env_default=shell_default, plugin_root=ROOT, plugin_data=DATA
    )


def server_spec(
    hub: Hub, server: StdioServer | RemoteServer, launcher: Launcher
) -> tuple[dict[str, Any], CoverageRow]:
    extra = hub.override("claude", "mcp_servers").get(server.name, {})
    by_launcher = hub.runtime.secrets == "launcher"
    if isinstance(server, StdioServer) and by_launcher:
        # Claude Code expands ${VAR} itself, but only from the environment it was started
        # with; the launcher also reads the hub's .env (a desktop start has no shell env).
        run = launched(server, launcher, plain=_env, plugin_root=ROOT, plugin_data=DATA)
        spec: dict[str, Any] = compact(
            {"type": "stdio", "command": run.command, "args": run.args, "env": run.env}
        )
        reason = f"{LAUNCHED_BY}: {LAUNCH_BY_HUB}"
        return deep_merge(spec, extra), server_row(
            name, server.name, "caveat", ".mcp.json stdio", reason
        )
    if isinstance(server, StdioServer):
        spec = {"type": "stdio", "command": _env(server.command)}
        if server.args:
            spec["args"] = [_env(a) for a in server.args]
        if server.env:
            spec["env"] = {k: _env(v) for k, v in server.env.items()}
        row = server_row(name, server.name, "mapped", ".mcp.json stdio")
        if server.cwd:
            row = server_row(
                name,
                server.name,
                "caveat",
                ".mcp.json stdio",
                "Claude Code has no cwd for stdio servers; the server starts in the "
                "session's folder",
            )
        return deep_merge(spec, extra), row
    spec = {"type": server.transport, "url": _env(server.url)}
    if server.headers:
        spec["headers"] = {k: _env(v) for k, v in server.headers.items()}
    if server.oauth:
        spec["oauth"] = compact(
            {
                "clientId": server.oauth.client_id,
                "callbackPort": server.oauth.callback_port,
                "authServerMetadataUrl": server.oauth.auth_server_metadata_url,
                "scopes": " ".join(server.oauth.scopes),
            }
        )
    status: CoverageStatus
    status, reason = ("caveat", HTTP_NOT_LAUNCHED) if by_launcher else ("mapped", "")
    return deep_merge(spec, extra), server_row(
        name, server.name, status, f".mcp.json {server.transport}", reason
    )


def install_steps(hub: Hub) -> list[str]:
    return [
        "claude plugin marketplace add <this repository or folder>",
        f"claude plugin install {hub.plugin.name}@{hub.marketplace.name}",
    ]


SHIPPING = Shipping(
    name, NATIVE_ROOT, agents=as_markdown("agents"), commands=as_markdown("commands")
)


AUTO_HOOKS = "hooks/hooks.json"  # loaded without a manifest key (naming it loads it twice)
# Claude Code loads AUTO_HOOKS beside the file its manifest names: another host's hooks file
# there would run in Claude Code too (hubspec's HookFileChecks refuses it)
LOADS_BESIDE = AUTO_HOOKS


def _manifest_hooks(hub: Hub) -> str | None:
    """The manifest's `hooks`: the hooks file, unless it is the one Claude Code loads itself."""
    path = hooks_path(hub, name, HOOKS_FILE)
    return None if path == AUTO_HOOKS else f"./{path}"


def build(hub: Hub) -> HostBuild:
    base = plugin_dir(hub)
    plugin = hub.plugin
    mapped, rows = map_hooks(
        hub, host=name, events=EVENTS, tools=TOOLS, matcher=matcher, root=ROOT, data=DATA
    )
    manifest: dict[str, Any] = compact(
        {
            **plugin_metadata(plugin),
            "icon": icon_path(hub),
            "privacyPolicyUrl": plugin.privacy_policy,
            "hooks": _manifest_hooks(hub) if mapped or name in hub.hooks_kept else None,
            "userConfig": user_config.manifest_value(hub),
        }
    )
    marketplace = marketplace_document(
        hub.marketplace,
        hub.marketplace.description or plugin.description,
        [plugin_entry(hub, plugin_source(hub))],
    )
    artifacts = [json_artifact(hub, name, MARKETPLACE_FILE, marketplace, override="marketplace")]
    if not _without_manifest(hub, bool(mapped)):
        path = f"{base}/.claude-plugin/plugin.json"
        artifacts.append(json_artifact(hub, name, path, manifest, override="manifest"))
    artifacts += mcp_json(hub, base, rows, name)
    if mapped:
        hooks = hooks_document(hub, name, grouped_hooks(mapped, command_handler))
        path = f"{base}/{hooks_path(hub, name, HOOKS_FILE)}"
        artifacts.append(Artifact(path, json_bytes(hooks), owners=(name,)))
    rows += instructions_row(
        hub,
        name,
        "unsupported",
        "-",
        "Claude Code does not load CLAUDE.md from plugins; install it with an install target "
        "(memhub apply) or ship the guidance as a skill",
    )
    return with_shipped(hub, SHIPPING, artifacts, rows)


def _without_manifest(hub: Hub, hooked: bool) -> bool:
    """`overrides.claude.manifest: null`: no plugin.json. Claude Code loads a plugin folder
    without one (its default folders, `.mcp.json`; the marketplace entry describes it), but
    then finds no hooks file but hooks/hooks.json, and memhub writes hooks/claude-hooks.json."""
    if not without(hub, name, "manifest"):
        return False
    if hooked:
        raise BuildError(
            f"{hub.plugin.origin.file}: overrides.claude.manifest is null, but Claude Code "
            f"finds {HOOKS_FILE} only through the manifest. Fix: keep the manifest, or limit "
            "the hooks to other hosts (hosts:)"
        )
    return True


def _user_files(scope: Scope) -> tuple[Path, Path]:
    """(config folder, .claude.json) at user scope. Claude keeps .claude.json beside its
    config folder, or inside a moved one; an empty CLAUDE_CONFIG_DIR moves nothing, as in
    Claude Code itself (`CLAUDE_CONFIG_DIR= claude mcp add -s user` writes ~/.claude.json)."""
    config = scope.env_dir(CONFIG_DIR_ENV, scope.home / ".claude")
    moved = bool(scope.env.get(CONFIG_DIR_ENV))
    return config, (config / ".claude.json" if moved else scope.home / ".claude.json")


def locations(scope: Scope) -> Locations:
    """User scope: ~/.claude.json, ~/.claude/settings.json, ~/.claude/skills, ~/.claude/CLAUDE.md
    (CLAUDE_CONFIG_DIR moves them); project scope: .mcp.json, .claude/settings.json,
    .claude/skills, CLAUDE.md."""
    if scope.kind == "user":
        config, mcp_file = _user_files(scope)
        memory = config / "CLAUDE.md"
    else:
        config, mcp_file = scope.base / ".claude", scope.base / ".mcp.json"
        memory = scope.base / "CLAUDE.md"
    return Locations(
        mcp_file, "json-key", "mcpServers", config / "settings.json", config / "skills", memory
    )


def install_entries(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's servers, hooks, skills and instructions where Claude Code reads them."""
    where = locations(scope)
    launcher = install_launcher(hub, scope.script(LAUNCHER_EXECUTABLE))
    entries, rows = mcp_entries(
        hub,
        name,
        where.mcp_file,
        where.mcp_kind,
        where.mcp_key,
        lambda s: server_spec(hub, s, launcher),
    )
    mapped, hook_rows = map_install_hooks(
        hub, scope, host=name, events=EVENTS, tools=TOOLS, matcher=matcher
    )
    entries += hook_entries(name, where.hooks_file, mapped, command_handler)
    entries += skill_entries(hub, name, where.skills)
    blocks, block_rows = instruction_entries(hub, name, where.instructions)
    return entries + blocks, [*hook_rows, *rows, *block_rows]


def after_install_steps(hub: Hub, scope: Scope | None = None) -> list[str]:
    """What only Claude Code's UI can do after an install."""
    steps = ["restart Claude Code (or run /reload-plugins) so it reads the new settings"]
    if any(isinstance(s, RemoteServer) and s.oauth for s in hub.mcp_servers):
        steps.append("open /mcp, select each OAuth server and choose Authenticate")
    return steps


# --- doctor: what decides whether Claude Code runs the hooks memhub installed (hosts.md 1.3) --


def hooks_switched_off(scope: Scope, read: ReadDocument) -> list[str]:
    """Settings that turn every hook off: `disableAllHooks: true` in the user's settings.json,
    or for project scope also in the project's settings.json and settings.local.json.
    `read(path)` gives a file's data, None when it is absent or does not parse."""
    config = scope.env_dir(CONFIG_DIR_ENV, scope.home / ".claude")
    files = [config / "settings.json"]
    if scope.kind == "project":
        files += [scope.base / ".claude" / "settings.json"]
        files += [scope.base / ".claude" / "settings.local.json"]
    return [
        f"{file}: disableAllHooks is true"
        for file in dict.fromkeys(files)
        if (read(file) or {}).get("disableAllHooks") is True
    ]


# --- doctor: Claude Code's own loader (tests/e2e/test_doctor_host_loaders.py) --------------

# `claude mcp list` prints "MCP config diagnostics" naming each entry Claude skips, with its
# own reason. (It also health-checks each server, as Claude does when it starts.)
LOADER_ARGS = ("mcp", "list")
LOADER_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
_SKIPPED = re.compile(r"\[(?:Warning|Error)\] (?:\[[^\]]*\] )?(.*(?:Skipped|[Ii]nvalid).*)$")


def loader_refusal(returncode: int, stdout: str, stderr: str) -> str | None:
    """Claude Code's words for each config entry it refuses, else None."""
    found = [m.group(1).strip() for line in stdout.splitlines() if (m := _SKIPPED.search(line))]
    if returncode != 0:
        found.append(stderr.strip() or f"claude {' '.join(LOADER_ARGS)} exited {returncode}")
    return "; ".join(found) or None


hook_switches = HookSwitches(all_off=hooks_switched_off)
loader: Loader | None = Loader(LOADER_ARGS, loader_refusal, LOADER_ENV, STARTS)


def read_installed(scope: Scope) -> Installed:
    """What Claude Code has installed in `scope`, for `memhub import`: the MCP servers of
    ~/.claude.json (user scope), or of .mcp.json and the project's local servers in
    ~/.claude.json (project scope); skill folders; CLAUDE.md (converted by
    claude_servers.hub_spec)."""
    from memhub.compiler.importing.hostconfig import Reader  # for `memhub import` alone

    reader = Reader(name, scope)
    config, user_file = _user_files(scope)
    if scope.kind == "user":
        servers = (reader.json(user_file) or {}).get("mcpServers")
        reader.servers(user_file, servers, ("mcpServers",), "json-key", hub_spec)
        reader.skills(config / "skills")
        reader.instructions(config / "CLAUDE.md")
        return reader.result()
    project_file = scope.base / ".mcp.json"
    servers = (reader.json(project_file) or {}).get("mcpServers")
    reader.servers(project_file, servers, ("mcpServers",), "json-key", hub_spec)
    # `claude mcp add` without --scope keeps a project's servers in ~/.claude.json (local).
    local = ((reader.json(user_file) or {}).get("projects") or {}).get(str(scope.base))
    if isinstance(local, Mapping):
        key = ("projects", str(scope.base), "mcpServers")
        reader.servers(user_file, local.get("mcpServers"), key, "json-key", hub_spec)
    reader.skills(scope.base / ".claude" / "skills")
    for memory in (scope.base / "CLAUDE.md", scope.base / ".claude" / "CLAUDE.md"):
        reader.instructions(memory)
    return reader.result()
