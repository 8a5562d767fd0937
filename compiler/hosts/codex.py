"""OpenAI Codex: `.agents/plugins/marketplace.json`, `.codex-plugin/plugin.json`, hooks JSON.

Codex reads no `${VAR}` references in MCP settings; secrets travel as environment
variable *names* (`env_vars`, `bearer_token_env_var`, `env_http_headers`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhub.compiler.artifact import Artifact
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
from memhub.compiler.hosts.claude_mcp import named_mcp_json
from memhub.compiler.hosts.codex_marketplace import (
    DEFAULT_CATEGORY,
    MARKETPLACE_FILE,
    marketplace_document,
    plugin_entry,
)
from memhub.compiler.hosts.codex_servers import DATA, ROOT, STARTS, hub_spec, server_spec
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
    LAUNCHED_BY,
    LAUNCHER_EXECUTABLE,
    install_launcher,
    launcher_artifact,
    relative_bundle_launcher,
)
from memhub.compiler.hosts.shipped import Shipping, with_shipped
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, RemoteServer, StdioServer

if TYPE_CHECKING:
    from memhub.compiler.importing.hostconfig import Installed

name = "codex"
title = "OpenAI Codex"
# CLIs whose presence on PATH makes `memhub apply` pick this host by default
executables: tuple[str, ...] = ("codex",)
# variables that move where this host keeps its files (scope.env_dir)
HOME_ENV = "CODEX_HOME"
placing_env: tuple[str, ...] = (HOME_ENV,)
summary = "Codex plugin (.codex-plugin/) + marketplace (.agents/plugins/), hooks/codex-hooks.json"

bundle_root = NATIVE_ROOT
# Codex 0.171 loads such a skill but lists it to the model (`debug prompt-input`) with its
# description cut to 1021 characters and "..."
SKILL_DESCRIPTION_MAX = DescriptionMax(
    1024, "caveat", "Codex 0.171 lists it to the model cut to its first 1021 characters and '...'"
)
runs_hooks = True
shows_icon = True
HOOKS_FILE = "hooks/codex-hooks.json"
# skills/<group>/<name>/SKILL.md loads: Codex 0.171 lists it (`debug prompt-input`,
# tests/e2e/test_skill_groups_hosts.py)
SKILL_GROUPS: str | None = None
# the file Codex loads when its manifest names none (codex 0.171, and not beside a named one:
# tests/e2e/test_codex_default_hooks_file.py); Claude Code loads it too, so memhub writes its own
AUTO_HOOKS = "hooks/hooks.json"

EVENTS = {
    "session_start": EventSupport("SessionStart"),
    "session_end": EventSupport(
        "SessionEnd", caveat="Codex caps SessionEnd hooks at 3 s and always reports reason 'other'"
    ),
    "prompt_submit": EventSupport("UserPromptSubmit"),
    "before_tool": EventSupport("PreToolUse"),
    "after_tool": EventSupport("PostToolUse"),
    "after_tool_failure": EventSupport(
        "PostToolUse",
        caveat="Codex has no failure event; the hook runs after every call and must check the "
        "result itself",
    ),
    "turn_end": EventSupport("Stop"),
    "pre_compact": EventSupport("PreCompact"),
}
# Every hook event of Codex (hosts.md 2.2): `event: {codex: <name>}` binds one natively.
NATIVE_EVENTS: tuple[str, ...] = (
    "SessionStart", "SessionEnd", "SubagentStart", "SubagentStop", "UserPromptSubmit",
    "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "Stop",
    "Interrupt",
)  # fmt: skip
# hub option -> Codex's command handler key
HOOK_OPTIONS: dict[str, str] = {
    "command_windows": "commandWindows",
    "additional_context_limit": "additionalContextLimit",
}
# what Codex sets for a plugin's hook commands (CLAUDE_* are its aliases)
HOOK_ENV = frozenset({"PLUGIN_ROOT", "PLUGIN_DATA", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"})

# Codex reports its shell tools as Bash (older builds: shell, local_shell); apply_patch
# also matches Edit/Write. Reads, searches and hosted web tools are not hookable.
TOOLS: dict[str, tuple[str, ...] | None] = {
    "shell": ("Bash", "shell", "local_shell"),
    "edit": ("apply_patch", "Edit", "Write"),
    "read": None,
    "search": None,
    "web": None,
    "mcp": ("mcp__.*",),
    "agent": ("spawn_agent", "Agent"),
}


def matcher(names: list[str]) -> str:
    """Codex matchers are regular expressions; anchor them so `Bash` is not `xBashy`."""
    return "^(?:" + "|".join(names) + ")$"


def _short(text: str, limit: int = 120) -> str:
    first = text.split(". ")[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def install_steps(hub: Hub) -> list[str]:
    return [
        "codex plugin marketplace add <this repository or folder>",
        f"codex plugin add {hub.plugin.name}@{hub.marketplace.name}",
    ]


def _plugin_servers(hub: Hub, rows: list[CoverageRow]) -> dict[str, Any]:
    """The plugin manifest's `mcpServers`, with a coverage row per server added to `rows`."""
    servers: dict[str, Any] = {}
    # Codex expands no ${PLUGIN_ROOT} in a plugin server's command line (0.171, proven in
    # tests/e2e/test_mcp_matrix.py) but starts a relative cwd in the plugin folder.
    launcher = relative_bundle_launcher(hub)
    for server in hub.mcp_servers:
        spec, reason = server_spec(hub, server, launcher)
        if spec is None:
            rows.append(server_row(name, server.name, "unsupported", "-", reason))
            continue
        servers[server.name] = deep_merge(
            spec, hub.override(name, "mcp_servers").get(server.name, {})
        )
        status: CoverageStatus = "caveat" if reason else "mapped"
        where = ".codex-plugin/plugin.json mcpServers"
        rows.append(server_row(name, server.name, status, where, reason))
    return servers


CARRY_NONE = "Codex plugins carry no {}"
SHIPPING = Shipping(name, NATIVE_ROOT, CARRY_NONE.format("agents"), CARRY_NONE.format("commands"))


def build(hub: Hub) -> HostBuild:
    base = plugin_dir(hub)
    plugin = hub.plugin
    mapped, rows = map_hooks(
        hub, host=name, events=EVENTS, tools=TOOLS, matcher=matcher, root=ROOT, data=DATA
    )
    hooked = bool(mapped) or name in hub.hooks_kept  # a kept file is named too
    servers = _plugin_servers(hub, rows)
    manifest = compact(
        {
            **plugin_metadata(plugin),
            "skills": "./skills/" if hub.skills else None,
            "mcpServers": servers,
            "hooks": f"./{hooks_path(hub, name, HOOKS_FILE)}" if hooked else None,
            "interface": compact(
                {
                    "displayName": plugin.title,
                    "shortDescription": _short(plugin.description),
                    "longDescription": plugin.description,
                    "developerName": plugin.author.name if plugin.author else None,
                    "category": plugin.category or DEFAULT_CATEGORY,
                    # Read: skills and MCP reads; Write: servers or hooks that can act.
                    "capabilities": ["Read", "Write"] if hub.mcp_servers or mapped else ["Read"],
                    "websiteURL": plugin.homepage,
                    "privacyPolicyURL": plugin.privacy_policy,
                    "composerIcon": icon_path(hub),
                    "logo": icon_path(hub),
                    "defaultPrompt": [f"What can {plugin.title} do?"],
                }
            ),
        }
    )
    marketplace = marketplace_document(
        hub.marketplace, None, [plugin_entry(hub, {"source": "local", "path": plugin_source(hub)})]
    )
    artifacts = [
        json_artifact(hub, name, MARKETPLACE_FILE, marketplace, override="marketplace"),
        json_artifact(
            hub, name, f"{base}/.codex-plugin/plugin.json", manifest, override="manifest"
        ),
    ]
    artifacts += named_mcp_json(hub, base, name)  # the .mcp.json a manifest names
    if mapped:
        hooks = hooks_document(hub, name, grouped_hooks(mapped, command_handler))
        path = f"{base}/{hooks_path(hub, name, HOOKS_FILE)}"
        artifacts.append(Artifact(path, json_bytes(hooks), owners=(name,)))
    if any(r.reason.startswith(LAUNCHED_BY) for r in rows if r.component == "mcp"):
        artifacts.append(launcher_artifact(hub, NATIVE_ROOT))
    rows += instructions_row(
        hub,
        name,
        "unsupported",
        "-",
        "Codex plugins carry no AGENTS.md; install it with an install target (memhub apply)",
    )
    return with_shipped(hub, SHIPPING, artifacts, rows)


def _codex_home(scope: Scope) -> Path:
    """$CODEX_HOME (default ~/.codex) at user scope, the project's .codex folder otherwise."""
    if scope.kind == "user":
        return scope.env_dir(HOME_ENV, scope.home / ".codex")
    return scope.base / ".codex"


def locations(scope: Scope) -> Locations:
    """User scope: $CODEX_HOME/config.toml, hooks.json and AGENTS.md, ~/.agents/skills;
    project scope: .codex/config.toml and hooks.json (read only in trusted projects),
    .agents/skills, AGENTS.md (read from the repository root down)."""
    codex_home = _codex_home(scope)
    agents = codex_home / "AGENTS.md" if scope.kind == "user" else scope.base / "AGENTS.md"
    return Locations(
        codex_home / "config.toml",
        "toml-table",
        "mcp_servers",
        codex_home / "hooks.json",
        scope.base / ".agents" / "skills",
        agents,
    )


def install_entries(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's servers, hooks, skills and instructions where Codex reads them."""
    where = locations(scope)
    config = where.mcp_file

    launcher = install_launcher(hub, scope.script(LAUNCHER_EXECUTABLE))

    def spec_of(server: StdioServer | RemoteServer) -> tuple[dict[str, Any] | None, CoverageRow]:
        spec, reason = server_spec(hub, server, launcher)
        if spec is None:
            return None, server_row(name, server.name, "unsupported", "-", reason)
        spec = deep_merge(spec, hub.override(name, "mcp_servers").get(server.name, {}))
        status: CoverageStatus = "caveat" if reason else "mapped"
        where = f"{config.name} [mcp_servers.{server.name}]"
        return spec, server_row(name, server.name, status, where, reason)

    entries, rows = mcp_entries(hub, name, config, where.mcp_kind, where.mcp_key, spec_of)
    mapped, hook_rows = map_install_hooks(
        hub, scope, host=name, events=EVENTS, tools=TOOLS, matcher=matcher
    )
    entries += hook_entries(name, where.hooks_file, mapped, command_handler)
    entries += skill_entries(hub, name, where.skills)
    blocks, block_rows = instruction_entries(
        hub,
        name,
        where.instructions,
        caveat="Codex reads AGENTS.override.md instead when one exists there",
    )
    return entries + blocks, [*hook_rows, *rows, *block_rows]


def after_install_steps(hub: Hub, scope: Scope | None = None) -> list[str]:
    """What only Codex's UI can do after an install (memhub never trusts hooks for you)."""
    steps = ["restart Codex"]
    if hub.hooks:
        steps.append(
            "open /hooks and trust only memhub's handlers (never 'Trust all'); "
            "untrusted hooks never run"
        )
    return steps


# --- doctor: what decides whether Codex runs the hooks memhub installed (hosts.md 2.2) ------

# Codex leaves the matcher of these events out of a hook's identity (it ignores it there).
_MATCHERLESS_EVENTS = frozenset({"UserPromptSubmit", "Stop"})
DEFAULT_HOOK_TIMEOUT_S = 600


def hooks_switched_off(scope: Scope, read: ReadDocument) -> list[str]:
    """Settings that turn every hook off: `[features] hooks = false` (or the older alias
    `codex_hooks`) in the user's config.toml, or in the project's for project scope.
    `read(path)` gives a file's data, None when it is absent or does not parse."""
    codex_home = scope.env_dir(HOME_ENV, scope.home / ".codex")
    files = [codex_home / "config.toml"]
    if scope.kind == "project":
        files.append(scope.base / ".codex" / "config.toml")
    found = []
    for file in files:
        features = (read(file) or {}).get("features")
        for key in ("hooks", "codex_hooks"):
            if isinstance(features, dict) and features.get(key) is False:
                found.append(f"{file}: [features] {key} = false")
    return found


def hook_trust_key(source: str, event: str, group: int, handler: int) -> str:
    """The key of `[hooks.state."<key>"]`: the hooks file, the event in snake case and the
    position of the handler (Codex identifies hooks by position, not by content)."""
    import re

    label = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
    return f"{source}:{label}:{group}:{handler}"


def hook_trust_hash(event: str, matcher: str | None, handler: dict[str, Any]) -> str:
    """The hash /hooks records as `trusted_hash`: sha256 of the canonical JSON (sorted keys, no
    spaces) of the hook's normalized identity: snake-case event, matcher (not for events that
    ignore it) and the handler with its default timeout filled in. Matches codex 0.171
    (tests/e2e/test_doctor_codex_trust.py compares it with the real `hooks/list`)."""
    import re

    from memhub.compiler.digest import value_digest

    timeout = handler.get("timeout")
    normalized: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(1, DEFAULT_HOOK_TIMEOUT_S if timeout is None else int(timeout)),
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {
        "event_name": re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower(),
        "hooks": [normalized],
    }
    if matcher is not None and event not in _MATCHERLESS_EVENTS:
        identity["matcher"] = matcher
    return value_digest(identity)  # the same canonical JSON codex hashes


def hook_trust(
    scope: Scope, source: str, event: str, index: int, group: dict[str, Any], read: ReadDocument
) -> list[tuple[str, str]]:
    """(trust key, status) of each handler in the hook group at `index` of `hooks.<event>` in
    hooks file `source`. Codex runs a non-managed hook only when the user's config.toml holds
    `[hooks.state."<key>"] trusted_hash` equal to its current hash (Codex reads that state
    from the user layer only). Status: trusted, untrusted (no hash), modified (the hook
    changed since it was trusted) or disabled (`enabled = false`). Only read, never written."""
    codex_home = scope.env_dir(HOME_ENV, scope.home / ".codex")
    hooks = (read(codex_home / "config.toml") or {}).get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    states = states if isinstance(states, dict) else {}
    found = []
    for position, handler in enumerate(group.get("hooks") or []):
        key = hook_trust_key(source, event, index, position)
        state = states.get(key)
        if not isinstance(state, dict):
            state = {}
        trusted = state.get("trusted_hash")
        if state.get("enabled") is False:
            status = "disabled"
        elif trusted is None:
            status = "untrusted"
        elif trusted == hook_trust_hash(event, group.get("matcher"), handler):
            status = "trusted"
        else:
            status = "modified"
        found.append((key, status))
    return found


# --- doctor: Codex's own loader (tests/e2e/test_doctor_host_loaders.py) --------------------

# Parses the whole config as every codex command does (and starts no server): 0.171 exits 1
# and loads nothing when one entry is wrong, naming it on stderr.
LOADER_ARGS = ("mcp", "list", "--json")


def loader_refusal(returncode: int, stdout: str, stderr: str) -> str | None:
    """Codex's own message when it refuses its config, else None."""
    if returncode == 0:
        return None
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    words = " ".join(line for line in lines if not line.startswith("WARNING:"))
    return words or f"codex {' '.join(LOADER_ARGS)} exited {returncode}"


hook_switches = HookSwitches(all_off=hooks_switched_off, trust=hook_trust)
loader: Loader | None = Loader(LOADER_ARGS, loader_refusal, starts=STARTS)


def read_installed(scope: Scope) -> Installed:
    """What Codex has installed in `scope`, for `memhub import`: `[mcp_servers.*]` of
    $CODEX_HOME/config.toml (user) or .codex/config.toml (project), the .agents/skills
    folder, and AGENTS.override.md or else AGENTS.md (converted by codex_servers.hub_spec)."""
    where = locations(scope)
    from memhub.compiler.importing.hostconfig import Reader  # for `memhub import` alone

    reader = Reader(name, scope)
    servers = (reader.toml(where.mcp_file) or {}).get(where.mcp_key)
    reader.servers(where.mcp_file, servers, (where.mcp_key,), where.mcp_kind, hub_spec)
    reader.skills(where.skills)
    docs = where.instructions.parent if where.instructions else scope.base
    # Codex reads AGENTS.override.md instead of AGENTS.md when it holds text.
    if not reader.instructions(docs / "AGENTS.override.md"):
        reader.instructions(docs / "AGENTS.md")
    return reader.result()
