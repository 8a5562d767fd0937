"""Gemini CLI: an extension (`gemini/<plugin>/`: gemini-extension.json, hooks/hooks.json,
GEMINI.md, skills) and settings.json installs (MCP servers, hooks) with skills folders.

Hook timeouts are in milliseconds; events and tool names are Gemini's own (BeforeTool,
run_shell_command). Gemini 0.61 expands `$VAR` / `${VAR}` in every string of
gemini-extension.json (and of settings.json) when it loads it, and `${extensionPath}` in an
extension's files. Installs still write references only inside a server's `env`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts.base import (
    CoverageRow,
    CoverageStatus,
    HookSwitches,
    HostBuild,
    Loader,
    Locations,
    ReadDocument,
    SkillNames,
)
from memhub.compiler.hosts.common import (
    NATIVE_ROOT,
    compact,
    deep_merge,
    json_artifact,
    json_bytes,
    plugin_dir,
)
from memhub.compiler.hosts.entries import (
    instruction_entries,
    instructions_row,
    mcp_entries,
    server_row,
    skill_entries,
)
from memhub.compiler.hosts.gemini_servers import EXTENSION_TRUST, STARTS, hub_spec, server_spec
from memhub.compiler.hosts.gemini_shared import root, shared_hooks_clash, shipping, toml_clash
from memhub.compiler.hosts.hook_files import grouped_hooks, hooks_document, hooks_path
from memhub.compiler.hosts.hooks import (
    EventSupport,
    MappedHook,
    hook_entries,
    map_hooks,
    map_install_hooks,
)
from memhub.compiler.hosts.launcher import (
    LAUNCHED_BY,
    LAUNCHER_EXECUTABLE,
    Launcher,
    bundle_launcher,
    install_launcher,
    launcher_artifact,
)
from memhub.compiler.hosts.shipped import with_shipped
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, RemoteServer, StdioServer

if TYPE_CHECKING:
    from memhub.compiler.importing.hostconfig import Installed

name = "gemini"
title = "Gemini CLI"
# CLIs whose presence on PATH makes `memhub apply` pick this host by default
executables: tuple[str, ...] = ("gemini",)
# variables that move where this host keeps its files (its config is always under HOME)
placing_env: tuple[str, ...] = ("GEMINI_CLI_TRUSTED_FOLDERS_PATH",)  # named in next steps
summary = (
    "Gemini CLI extension (gemini/<plugin>/gemini-extension.json, hooks/hooks.json, GEMINI.md); "
    "settings.json and skills folders (installs)"
)

# Its own folder: an extension is installed from a folder holding gemini-extension.json at
# its root (`gemini extensions install <path>`), copied to ~/.gemini/extensions/<name>/.
ROOT_DIR = "gemini"
bundle_root = ROOT_DIR
runs_hooks = True
shows_icon = False
ROOT = "${extensionPath}"
MANIFEST = "gemini-extension.json"
HOOKS_FILE = "hooks/hooks.json"
# tests/e2e/test_skill_groups_hosts.py
SKILL_GROUPS = "Gemini CLI 0.61 loads only skills/<name>/SKILL.md (gemini skills list)"
CONTEXT_FILE = "GEMINI.md"

EVENTS = {
    "session_start": EventSupport("SessionStart"),
    "session_end": EventSupport("SessionEnd"),
    "prompt_submit": EventSupport("BeforeAgent"),
    "before_tool": EventSupport(
        "BeforeTool",
        caveat="Gemini's BeforeTool passes no additionalContext to the model (AfterTool does)",
    ),
    "after_tool": EventSupport("AfterTool"),
    "after_tool_failure": EventSupport(
        "AfterTool",
        caveat="Gemini has no failure event; the hook runs after every call and must check "
        "tool_response.error itself",
    ),
    "turn_end": EventSupport("AfterAgent"),
    "pre_compact": EventSupport(
        "PreCompress",
        caveat="Gemini runs PreCompress (trigger auto) before every model request, not only "
        "when it compresses",
    ),
}
# Every hook event of Gemini CLI (hosts.md 4.2): `event: {gemini: <name>}` binds one natively.
NATIVE_EVENTS: tuple[str, ...] = (
    "SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
    "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification",
)  # fmt: skip
HOOK_OPTIONS: dict[str, str] = {}  # Gemini's command hooks take no more keys memhub writes
# what Gemini CLI sets (extensionPath: written into an extension's files)
HOOK_ENV = frozenset({"extensionPath", "GEMINI_PROJECT_DIR", "GEMINI_SESSION_ID"})
TOOLS: dict[str, tuple[str, ...] | None] = {
    "shell": ("run_shell_command",),
    "edit": ("replace", "write_file"),
    "read": ("read_file", "read_many_files"),
    "search": ("grep_search", "glob", "search_file_content"),
    "web": ("web_fetch", "google_web_search"),
    "mcp": ("mcp_.*",),
    "agent": ("invoke_agent",),
}
MS_PER_SECOND = 1000
# Gemini CLI 0.61 lists a name that is not kebab-case as written
SKILL_NAMES = SkillNames(
    without_name=(
        "unsupported",
        "Gemini CLI 0.61 skips a SKILL.md without `name` (gemini skills list)",
    )
)


def matcher(names: list[str]) -> str:
    return "^(?:" + "|".join(names) + ")$"


def _server(
    hub: Hub,
    server: StdioServer | RemoteServer,
    root: str | None = None,
    launcher: Launcher | None = None,
) -> tuple[dict[str, Any] | None, str]:
    """server_spec with the hub's `overrides.gemini.mcp_servers.<name>` merged in last."""
    spec, reason = server_spec(hub, server, root, launcher)
    if spec is None:
        return None, reason
    extra = hub.override(name, "mcp_servers").get(server.name, {})
    if root is not None and "trust" in extra:  # its extension loader drops the key
        reason = "; ".join(r for r in (reason, EXTENSION_TRUST) if r)
    return deep_merge(spec, extra), reason


def _launcher(hub: Hub, launcher: Launcher) -> Launcher | None:
    """The launcher when the hub asks for it; Gemini expands every reference itself."""
    return launcher if hub.runtime.secrets == "launcher" else None


def _handler(item: MappedHook) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "name": item.hook.id, "command": item.command}
    if item.hook.timeout is not None:
        handler["timeout"] = item.hook.timeout * MS_PER_SECOND
    if item.hook.status_message:
        handler["description"] = item.hook.status_message
    return handler


def install_steps(hub: Hub) -> list[str]:
    folder = plugin_dir(hub, root(hub))
    where = "" if folder == "." else f"/{folder}"
    return [
        # Gemini installs a git URL from the repository's root only; the extension is a folder.
        f"gemini extensions install <a local copy of this repository>{where}",
    ]


def build(hub: Hub) -> HostBuild:
    """`gemini/<plugin>/`: the manifest with MCP servers inline, hooks/hooks.json and the
    instructions as the extension's context file (skills and runtime come from build.py)."""
    base = plugin_dir(hub, root(hub))
    how = shipping(hub)
    toml_clash(hub, how)
    plugin = hub.plugin
    mapped, rows = map_hooks(
        hub, host=name, events=EVENTS, tools=TOOLS, matcher=matcher, root=ROOT, data=None
    )
    servers: dict[str, Any] = {}
    for server in hub.mcp_servers:
        spec, reason = _server(hub, server, ROOT, _launcher(hub, bundle_launcher(hub, ROOT)))
        if spec is None:
            rows.append(server_row(name, server.name, "unsupported", "-", reason))
            continue
        servers[server.name] = spec
        kind = "stdio" if isinstance(server, StdioServer) else server.transport
        status: CoverageStatus = "caveat" if reason else "mapped"
        rows.append(server_row(name, server.name, status, f"{MANIFEST} mcpServers {kind}", reason))
    manifest = compact(
        {
            "name": plugin.name,  # installed as ~/.gemini/extensions/<name>/
            "version": plugin.version,
            "description": plugin.description,
            "contextFileName": CONTEXT_FILE if hub.instructions else None,
            "mcpServers": servers,
        }
    )
    artifacts = [json_artifact(hub, name, f"{base}/{MANIFEST}", manifest, override="manifest")]
    if mapped:
        hooks = hooks_document(hub, name, grouped_hooks(mapped, _handler))
        if root(hub) == NATIVE_ROOT:
            shared_hooks_clash(hub, hooks_path(hub, name, HOOKS_FILE))
        path = f"{base}/{hooks_path(hub, name, HOOKS_FILE)}"
        artifacts.append(Artifact(path, json_bytes(hooks), owners=(name,)))
    if any(r.reason.startswith(LAUNCHED_BY) for r in rows if r.component == "mcp"):
        artifacts.append(launcher_artifact(hub, root(hub)))
    if hub.instructions:
        text = hub.instructions.text.encode("utf-8")
        artifacts.append(Artifact(f"{base}/{CONTEXT_FILE}", text, owners=(name,)))
        rows += instructions_row(hub, name, "mapped", f"{CONTEXT_FILE} (contextFileName)", "")
    return with_shipped(hub, how, artifacts, rows)


def locations(scope: Scope) -> Locations:
    """~/.gemini (user) or .gemini (project) settings.json holds mcpServers and hooks; skills
    in the cross-agent .agents/skills folder; GEMINI.md in ~/.gemini or the project root."""
    folder = scope.base / ".gemini"
    settings = folder / "settings.json"
    memory = folder / CONTEXT_FILE if scope.kind == "user" else scope.base / CONTEXT_FILE
    # Gemini reads ~/.agents/skills (and .agents/skills) ahead of its own skills folder, so
    # the cross-agent folder it shares with Codex is the one copy that does not get shadowed.
    skills = scope.base / ".agents" / "skills"
    return Locations(settings, "json-key", "mcpServers", settings, skills, memory)


def install_entries(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's servers, hooks, skills and instructions where Gemini CLI reads them."""
    where = locations(scope)
    launcher = _launcher(hub, install_launcher(hub, scope.script(LAUNCHER_EXECUTABLE)))

    def spec_of(server: StdioServer | RemoteServer) -> tuple[dict[str, Any] | None, CoverageRow]:
        spec, reason = _server(hub, server, None, launcher)
        if spec is None:
            return None, server_row(name, server.name, "unsupported", "-", reason)
        status: CoverageStatus = "caveat" if reason else "mapped"
        return spec, server_row(name, server.name, status, "settings.json mcpServers", reason)

    entries, rows = mcp_entries(hub, name, where.mcp_file, where.mcp_kind, where.mcp_key, spec_of)
    mapped, hook_rows = map_install_hooks(
        hub, scope, host=name, events=EVENTS, tools=TOOLS, matcher=matcher
    )
    entries += hook_entries(name, where.hooks_file, mapped, _handler)
    entries += skill_entries(hub, name, where.skills)
    blocks, block_rows = instruction_entries(hub, name, where.instructions)
    return entries + blocks, [*hook_rows, *rows, *block_rows]


def after_install_steps(hub: Hub, scope: Scope | None = None) -> list[str]:
    """What only Gemini CLI can do after an install."""
    steps = ["restart Gemini CLI; project-level hooks ask for confirmation the first time"]
    if scope is not None and (hub.mcp_servers or hub.hooks):
        steps.append(trust_step(scope))
    return steps


def trusted_folders_file(scope: Scope) -> Path:
    """Where Gemini CLI keeps the folders a person trusts (gemini 0.61: Storage)."""
    configured = scope.env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(configured) if configured else scope.home / ".gemini" / "trustedFolders.json"


def trust_step(scope: Scope) -> str:
    """How to trust a folder. In one it has not trusted, Gemini CLI lists every MCP server
    (user-level ones too) as Disabled and starts none, and ignores the folder's settings and
    hooks; `/permissions`, the trust dialog and trustedFolders.json are its three ways in.
    The same words every run (no trust lookup): a no-op apply replays what it printed."""
    file = trusted_folders_file(scope)
    if scope.kind == "project" and scope.project is not None:
        folder = str(scope.project)
        return (
            f"trust {folder} in Gemini CLI, or it shows these MCP servers as Disabled there and "
            "ignores the folder's settings and hooks: start `gemini` in it and choose "
            f'"Trust folder", or run /permissions there, or add "{folder}": "TRUST_FOLDER" '
            f"to {file}"
        )
    return (
        "Gemini CLI starts MCP servers only in folders you trust (elsewhere `gemini mcp list` "
        'shows them Disabled): start `gemini` in each folder you work in and choose "Trust '
        'folder", or run /permissions there, or add "/path/to/folder": "TRUST_FOLDER" '
        f"(TRUST_PARENT for every folder beside it) to {file}"
    )


# --- doctor: what decides whether Gemini CLI runs the hooks memhub installed (hosts.md 4.2) --


def _hooks_config(scope: Scope, read: ReadDocument) -> list[tuple[Any, dict[str, Any]]]:
    """(settings file, its `hooksConfig`) for the user's and, in project scope, the project's."""
    files = [scope.home / ".gemini" / "settings.json"]
    if scope.kind == "project":
        files.append(scope.base / ".gemini" / "settings.json")
    found = []
    for file in dict.fromkeys(files):
        config = (read(file) or {}).get("hooksConfig")
        if isinstance(config, dict):
            found.append((file, config))
    return found


def hooks_switched_off(scope: Scope, read: ReadDocument) -> list[str]:
    """Settings that turn every hook off: `hooksConfig.enabled: false` in settings.json.
    `read(path)` gives a file's data, None when it is absent or does not parse."""
    return [
        f"{file}: hooksConfig.enabled is false"
        for file, config in _hooks_config(scope, read)
        if config.get("enabled") is False
    ]


def hook_switched_off(scope: Scope, group: dict[str, Any], read: ReadDocument) -> str | None:
    """Why Gemini skips this one hook group: a handler `name` listed in `hooksConfig.disabled`."""
    # Gemini matches `disabled` against handler names, which are strings.
    names = {
        h["name"]
        for h in group.get("hooks") or []
        if isinstance(h, dict) and isinstance(h.get("name"), str)
    }
    for file, config in _hooks_config(scope, read):
        disabled = config.get("disabled")
        listed = sorted(n for n in names if isinstance(disabled, list) and n in disabled)
        if listed:
            return f"{file}: hooksConfig.disabled lists {', '.join(listed)}"
    return None


# --- doctor: Gemini CLI's own loader (tests/e2e/test_doctor_host_loaders.py) ---------------

# `gemini mcp list` validates settings.json against its schema; in a trusted folder it starts
# each server too and says which connect (gemini_servers.STARTS). Doctor trusts the folder it
# runs it in (an empty one at user scope) for that run alone, writing no trustedFolders.json.
LOADER_ARGS = ("mcp", "list")
LOADER_ENV = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def loader_refusal(returncode: int, stdout: str, stderr: str) -> str | None:
    """Gemini CLI's words when it refuses a settings file, else None. A schema error is
    printed (exit 0, the entry ignored) as "Invalid configuration in FILE: ... Please fix";
    a file that does not parse exits non-zero."""
    text = _ANSI.sub("", stderr + "\n" + stdout)
    found, block = [], None
    for line in text.splitlines():
        if line.startswith("Invalid configuration in"):
            block = [line.strip()]
        elif block is not None and line.startswith("Please fix"):
            found.append(" ".join(block))
            block = None
        elif block is not None and line.strip():
            block.append(line.strip())
    if returncode != 0:
        found.append(_ANSI.sub("", stderr).strip() or f"gemini exited {returncode}")
    return "; ".join(found) or None


hook_switches = HookSwitches(all_off=hooks_switched_off, one_off=hook_switched_off)
loader: Loader | None = Loader(LOADER_ARGS, loader_refusal, LOADER_ENV, STARTS)


def read_installed(scope: Scope) -> Installed:
    """What Gemini CLI has installed in `scope`, for `memhub import`: `mcpServers` of
    ~/.gemini/settings.json or .gemini/settings.json (`$VAR` / `${VAR}` in env become
    `${env:VAR}`; `type: sse` is SSE, `httpUrl` or any other `url` streamable HTTP), the
    .agents/skills and .gemini/skills folders, and the context files (`context.fileName`,
    default GEMINI.md). Gemini-only keys (timeout, trust, tool lists) have no hub place."""
    from memhub.compiler.importing.hostconfig import Reader  # for `memhub import` alone

    reader = Reader(name, scope)
    folder = scope.base / ".gemini"
    settings = folder / "settings.json"
    data = reader.json(settings) or {}
    reader.servers(settings, data.get("mcpServers"), ("mcpServers",), "json-key", hub_spec)
    for skills in (scope.base / ".agents" / "skills", folder / "skills"):
        reader.skills(skills)
    names = (data.get("context") or {}).get("fileName") or "GEMINI.md"
    for file_name in [names] if isinstance(names, str) else names:
        if isinstance(file_name, str) and "/" not in file_name:
            reader.instructions((folder if scope.kind == "user" else scope.base) / file_name)
    return reader.result()
