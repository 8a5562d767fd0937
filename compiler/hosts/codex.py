"""OpenAI Codex: `.agents/plugins/marketplace.json`, `.codex-plugin/plugin.json`, hooks JSON.

Codex reads no `${VAR}` references in MCP settings; secrets travel as environment
variable *names* (`env_vars`, `bearer_token_env_var`, `env_http_headers`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts.base import CoverageRow, CoverageStatus, HostBuild
from memhub.compiler.hosts.common import (
    LAUNCH_BY_HUB,
    LAUNCHED_BY,
    LAUNCHER_EXECUTABLE,
    NATIVE_ROOT,
    PLUGIN_ROOT_TEMPLATE,
    EventSupport,
    Launcher,
    command_handler,
    compact,
    deep_merge,
    env_names,
    grouped_hooks,
    hook_entries,
    icon_path,
    install_launcher,
    instruction_entries,
    instructions_row,
    json_artifact,
    json_bytes,
    launched,
    launcher_artifact,
    map_hooks,
    map_install_hooks,
    mcp_entries,
    oauth_not_carried,
    plugin_dir,
    plugin_metadata,
    relative_bundle_launcher,
    server_row,
    skill_entries,
)
from memhub.compiler.importing.hostconfig import (
    ENV_NAME,
    Installed,
    NotImportable,
    Reader,
    cwd_for_hub,
    extras_of,
    nonempty,
    oauth_spec,
    remote_spec,
    stdio_spec,
    string_map,
    strings,
    to_env_refs,
)
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import env_only, references, substitute

name = "codex"
title = "OpenAI Codex"
# CLIs whose presence on PATH makes `memhub apply` pick this host by default
executables = ("codex",)
# variables that move where this host keeps its files (scope.env_dir)
HOME_ENV = "CODEX_HOME"
placing_env = (HOME_ENV,)
summary = "Codex plugin (.codex-plugin/) + marketplace (.agents/plugins/), hooks/codex-hooks.json"

ROOT = "${PLUGIN_ROOT}"
DATA = "${PLUGIN_DATA}"
bundle_root = NATIVE_ROOT
runs_hooks = True
shows_icon = True
HOOKS_FILE = "hooks/codex-hooks.json"
DEFAULT_CATEGORY = "Productivity"

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
EVENT_ORDER = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PreCompact",
    "Stop",
    "SessionEnd",
]

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


def _launch_reason(hub: Hub, server: StdioServer) -> str:
    """Why Codex must start `server` through memhub's launcher ("" when it need not).

    Codex expands no reference anywhere in config.toml and forwards a variable only under
    its own name (`env_vars`: its `source` is `local` or `remote`, not a variable; 0.171
    refuses the whole config otherwise), so only `KEY: ${env:KEY}` maps natively."""
    if hub.runtime.secrets == "launcher":
        return LAUNCH_BY_HUB
    values = [server.command, *server.args, *server.env.values(), server.cwd or ""]
    if any(ref.kind == "plugin_root" for v in values for ref in references(v)):
        return "Codex expands no ${PLUGIN_ROOT} in a plugin server's command line"
    for key, value in server.env.items():
        source = env_only(value)
        if source is not None and source != key:
            return f"env {key} reads ${{env:{source}}}: Codex passes a variable only under its own name"
        if source is None and env_names([value]):
            return f"env {key} builds a value around ${{env:...}}, which Codex does not expand"
    words = [("command", server.command), *(("args", a) for a in server.args)]
    for what, value in [*words, ("cwd", server.cwd or "")]:
        if env_names([value]):
            return f"{what} holds ${{env:...}}, which Codex does not expand"
    return ""


def _stdio(hub: Hub, server: StdioServer, launcher: Launcher) -> tuple[dict[str, Any] | None, str]:
    values = [server.command, *server.args, *server.env.values(), server.cwd or ""]
    if any(ref.kind == "plugin_data" for v in values for ref in references(v)):
        return None, (
            "Codex gives a plugin's MCP server no data folder (no ${PLUGIN_DATA} expansion or "
            "variable in 0.171); left out"
        )
    reason = _launch_reason(hub, server)
    if reason:
        root = PLUGIN_ROOT_TEMPLATE if launcher.cwd is not None else ROOT
        run = launched(server, launcher, plain=_plain, plugin_root=root, plugin_data=DATA)
        spec: dict[str, Any] = {
            "command": run.command,
            "args": run.args,
            "env": run.env,
            # Codex starts servers with a filtered environment: forward what the launcher reads
            "env_vars": run.names,
            "cwd": run.cwd,
        }
        if launcher.cwd is not None and not server.cwd:
            reason += "; the server starts in the plugin folder, not the session's"
        return compact(spec), f"{LAUNCHED_BY}: {reason}"
    spec = {
        "command": _plain(server.command),
        "args": [_plain(a) for a in server.args],
        "env": {k: _plain(v) for k, v in server.env.items() if env_only(v) is None},
        "env_vars": [k for k, v in server.env.items() if env_only(v) is not None],
        "cwd": _plain(server.cwd) if server.cwd else None,
    }
    return compact(spec), ""


def _remote(hub: Hub, server: RemoteServer) -> tuple[dict[str, Any] | None, str]:
    """Codex's streamable-HTTP entry, or None with the reason when it cannot be expressed.

    Codex has names-only fields for a whole-value header (`env_http_headers`) and a bearer
    token (`bearer_token_env_var`); a reference anywhere else cannot be carried, and an HTTP
    server cannot be started through the (stdio) launcher."""
    if env_names([server.url]):
        return None, (
            "the URL holds ${env:...}, which Codex does not expand (and an HTTP server cannot "
            "go through memhub's launcher); left out. Fix: write the URL literally, or move "
            "the secret into a header"
        )
    reasons = []
    if server.transport == "sse":
        reasons.append("Codex speaks streamable HTTP only; the SSE server is reached as HTTP")
    if hub.runtime.secrets == "launcher":
        reasons.append(
            "an HTTP server cannot go through memhub's launcher; Codex reads its variables "
            "from its own environment"
        )
    spec: dict[str, Any] = {"url": server.url}
    headers: dict[str, str] = {}
    env_headers: dict[str, str] = {}
    for key, value in server.headers.items():
        bearer = value.split(" ", 1)
        source = env_only(value)
        if (
            key.lower() == "authorization"
            and bearer[0].lower() == "bearer"
            and len(bearer) == 2
            and env_only(bearer[1])
        ):
            spec["bearer_token_env_var"] = env_only(bearer[1])
        elif source is not None:
            env_headers[key] = source
        elif references(value):
            reasons.append(
                f"header {key}: Codex cannot build a value around ${{env:...}}; left out"
            )
        else:
            headers[key] = value
    spec["http_headers"] = headers
    spec["env_http_headers"] = env_headers
    if server.oauth:
        spec["oauth"] = {"client_id": server.oauth.client_id}
        spec["scopes"] = list(server.oauth.scopes)
        # Codex's callback port is one top-level setting (mcp_oauth_callback_port).
        reasons.append(oauth_not_carried("Codex", server, ("scopes",)))
    return compact(spec), "; ".join(r for r in reasons if r)


def _server(
    hub: Hub, server: StdioServer | RemoteServer, launcher: Launcher
) -> tuple[dict[str, Any] | None, str]:
    if isinstance(server, StdioServer):
        return _stdio(hub, server, launcher)
    return _remote(hub, server)


def _plain(value: str) -> str:
    return substitute(value, env=lambda n: "${" + n + "}", plugin_root=ROOT, plugin_data=DATA)


def _short(text: str, limit: int = 120) -> str:
    first = text.split(". ")[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def install_steps(hub: Hub) -> list[str]:
    return [
        "codex plugin marketplace add <this repository or folder>",
        f"codex plugin add {hub.plugin.name}@{hub.marketplace.name}",
    ]


def build(hub: Hub) -> HostBuild:
    base = plugin_dir(hub)
    plugin = hub.plugin
    mapped, rows = map_hooks(
        hub, host=name, events=EVENTS, tools=TOOLS, matcher=matcher, root=ROOT, data=DATA
    )
    servers: dict[str, Any] = {}
    # Codex expands no ${PLUGIN_ROOT} in a plugin server's command line (0.171, proven in
    # tests/e2e/test_mcp_matrix.py) but starts a relative cwd in the plugin folder.
    launcher = relative_bundle_launcher(hub)
    for server in hub.mcp_servers:
        spec, reason = _server(hub, server, launcher)
        if spec is None:
            rows.append(server_row(name, server.name, "unsupported", "-", reason))
            continue
        servers[server.name] = deep_merge(
            spec, hub.override(name, "mcp_servers").get(server.name, {})
        )
        rows.append(
            server_row(
                name,
                server.name,
                "caveat" if reason else "mapped",
                ".codex-plugin/plugin.json mcpServers",
                reason,
            )
        )
    author = plugin.author
    manifest = compact(
        {
            **plugin_metadata(plugin),
            "skills": "./skills/" if hub.skills else None,
            "mcpServers": servers,
            "hooks": f"./{HOOKS_FILE}" if mapped else None,
            "interface": compact(
                {
                    "displayName": plugin.title,
                    "shortDescription": _short(plugin.description),
                    "longDescription": plugin.description,
                    "developerName": author.name if author else None,
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
    market = hub.marketplace
    entry = {
        "name": plugin.name,
        "source": {"source": "local", "path": f"./{base}"},
        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        "category": plugin.category or DEFAULT_CATEGORY,
    }
    marketplace = {
        "name": market.name,
        "interface": {"displayName": market.display_name or market.name},
        "plugins": [deep_merge(entry, hub.override(name, "marketplace_entry"))],
    }
    artifacts = [
        json_artifact(
            hub, name, ".agents/plugins/marketplace.json", marketplace, override="marketplace"
        ),
        json_artifact(
            hub, name, f"{base}/.codex-plugin/plugin.json", manifest, override="manifest"
        ),
    ]
    if mapped:
        hooks = {"hooks": grouped_hooks(mapped, command_handler, order=EVENT_ORDER)}
        artifacts.append(Artifact(f"{base}/{HOOKS_FILE}", json_bytes(hooks), owners=(name,)))
    if any(r.reason.startswith(LAUNCHED_BY) for r in rows if r.component == "mcp"):
        artifacts.append(launcher_artifact(hub, NATIVE_ROOT))
    rows += instructions_row(
        hub,
        name,
        "unsupported",
        "-",
        "Codex plugins carry no AGENTS.md; install it with an install target (memhub apply)",
    )
    return HostBuild(tuple(artifacts), tuple(rows))


def install_entries(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
    """User scope: $CODEX_HOME/config.toml and hooks.json, ~/.agents/skills; project scope:
    .codex/config.toml and hooks.json (read only in trusted projects), .agents/skills."""
    if scope.kind == "user":
        codex_home = scope.env_dir(HOME_ENV, scope.home / ".codex")
    else:
        codex_home = scope.base / ".codex"
    config, hooks_file = codex_home / "config.toml", codex_home / "hooks.json"

    launcher = install_launcher(hub, scope.script(LAUNCHER_EXECUTABLE))

    def spec_of(server: StdioServer | RemoteServer) -> tuple[dict[str, Any] | None, CoverageRow]:
        spec, reason = _server(hub, server, launcher)
        if spec is None:
            return None, server_row(name, server.name, "unsupported", "-", reason)
        spec = deep_merge(spec, hub.override(name, "mcp_servers").get(server.name, {}))
        status: CoverageStatus = "caveat" if reason else "mapped"
        where = f"{config.name} [mcp_servers.{server.name}]"
        return spec, server_row(name, server.name, status, where, reason)

    entries, rows = mcp_entries(hub, name, config, "toml-table", "mcp_servers", spec_of)
    mapped, hook_rows = map_install_hooks(
        hub, scope, host=name, events=EVENTS, tools=TOOLS, matcher=matcher
    )
    entries += hook_entries(name, hooks_file, mapped, command_handler)
    entries += skill_entries(hub, name, scope.base / ".agents" / "skills")
    # The global file sits in CODEX_HOME; a project's is read from the repository root down.
    agents = codex_home / "AGENTS.md" if scope.kind == "user" else scope.base / "AGENTS.md"
    blocks, block_rows = instruction_entries(
        hub, name, agents, caveat="Codex reads AGENTS.override.md instead when one exists there"
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


def hooks_switched_off(scope: Scope, read: Any) -> list[str]:
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
    scope: Scope, source: str, event: str, index: int, group: dict[str, Any], read: Any
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


def read_installed(scope: Scope) -> Installed:
    """What Codex has installed in `scope`, for `memhub import`: `[mcp_servers.*]` of
    $CODEX_HOME/config.toml (user) or .codex/config.toml (project), the .agents/skills
    folder, and AGENTS.override.md or else AGENTS.md. Environment names come back as
    references: `env_vars` as env `${env:NAME}`, `bearer_token_env_var` as an Authorization
    header, `env_http_headers` as headers; an absolute `cwd` and Codex-only keys (`enabled`,
    timeouts, tool lists, ...) are kept as overrides."""
    import re

    plain = re.compile(r"\$\{(" + ENV_NAME + r")\}")  # what installs write for ${env:NAME}

    def value(text: str) -> str:
        return to_env_refs(text, plain)

    def convert(server: str, raw: Mapping[str, Any]) -> Any:
        if "command" in raw:
            env = {k: value(v) for k, v in string_map(raw.get("env"), "env").items()}
            for item in raw.get("env_vars") or []:
                if isinstance(item, str):
                    env[item] = "${env:" + item + "}"
                elif isinstance(item, Mapping) and isinstance(item.get("name"), str):
                    env[item["name"]] = "${env:" + str(item.get("source") or item["name"]) + "}"
                else:
                    raise NotImportable("env_vars holds an entry that is not a variable name")
            cwd = raw.get("cwd")
            relative = cwd_for_hub(value(cwd)) if isinstance(cwd, str) else None
            spec = stdio_spec(
                value(nonempty(raw.get("command"), "command")),
                [value(a) for a in strings(raw.get("args"), "args")],
                env,
                relative,
            )
            mapped = ("command", "args", "env", "env_vars", *(("cwd",) if relative else ()))
            return spec, extras_of(raw, mapped), []
        headers = string_map(raw.get("http_headers"), "http_headers")
        for header, variable in string_map(raw.get("env_http_headers"), "env_http_headers").items():
            headers[header] = "${env:" + variable + "}"
        token = raw.get("bearer_token_env_var")
        if isinstance(token, str) and token:
            headers["Authorization"] = "Bearer ${env:" + token + "}"
        elif isinstance(raw.get("bearer_token"), str):  # refused by Codex; moved to .env here
            headers["Authorization"] = "Bearer " + raw["bearer_token"]
        auth = raw.get("oauth")
        if not isinstance(auth, Mapping):
            auth = {}
        oauth = oauth_spec(auth.get("client_id"), scopes=raw.get("scopes"))
        spec = remote_spec(value(nonempty(raw.get("url"), "url")), "http", headers, oauth)
        mapped = ("url", "http_headers", "env_http_headers", "bearer_token_env_var", "bearer_token")
        if oauth:
            mapped += ("oauth", "scopes")
        return spec, extras_of(raw, mapped), []

    reader = Reader(name, scope)
    if scope.kind == "user":
        folder = scope.env_dir(HOME_ENV, scope.home / ".codex")
        config, docs = folder / "config.toml", folder
    else:
        config, docs = scope.base / ".codex" / "config.toml", scope.base
    servers = (reader.toml(config) or {}).get("mcp_servers")
    reader.servers(config, servers, ("mcp_servers",), "toml-table", convert)
    reader.skills(scope.base / ".agents" / "skills")
    # Codex reads AGENTS.override.md instead of AGENTS.md when it holds text.
    if not reader.instructions(docs / "AGENTS.override.md"):
        reader.instructions(docs / "AGENTS.md")
    return reader.result()
