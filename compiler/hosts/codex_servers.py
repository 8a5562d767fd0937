"""Hub MCP servers as Codex config.toml [mcp_servers] entries, and when Codex needs the launcher.

Codex reads no `${VAR}` references in MCP settings; secrets travel as environment
variable *names* (`env_vars`, `bearer_token_env_var`, `env_http_headers`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts.base import ServerStarts
from memhub.compiler.hosts.common import compact
from memhub.compiler.hosts.launcher import (
    LAUNCH_BY_HUB,
    LAUNCH_FOR_DEFAULT,
    LAUNCHED_BY,
    PLUGIN_ROOT_TEMPLATE,
    Launcher,
    env_names,
    launched,
    oauth_not_carried,
)
from memhub.compiler.importing.shapes import (
    ENV_NAME,
    NotImportable,
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
from memhub.hubspec.memory import forwarded_env
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import env_only, has_default, references, substitute

# Codex's plugin folder variables, in the only places it expands them (hooks, not servers).
ROOT = "${PLUGIN_ROOT}"
DATA = "${PLUGIN_DATA}"
# Host-only server keys a hub server may give under `extra: {codex: ...}` (server_extras.py)
EXTRA_KEYS: dict[str, str | tuple[str, ...]] = {
    "enabled": "boolean",
    "required": "boolean",
    "startup_timeout_sec": "number",
    "tool_timeout_sec": "number",
    "enabled_tools": "strings",
    "disabled_tools": "strings",
    "default_tools_approval_mode": ("auto", "prompt", "approve"),
    "tools": "object",
    "supports_parallel_tool_calls": "boolean",
    "environment_id": "string",
}


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
    if has_default(values):
        return LAUNCH_FOR_DEFAULT
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
            "env_vars": _forwarded(run.names, server),
            "cwd": run.cwd,
        }
        if launcher.cwd is not None and not server.cwd:
            reason += "; the server starts in the plugin folder, not the session's"
        return compact(spec), f"{LAUNCHED_BY}: {reason}"
    spec = {
        "command": _plain(server.command),
        "args": [_plain(a) for a in server.args],
        "env": {k: _plain(v) for k, v in server.env.items() if env_only(v) is None},
        "env_vars": _forwarded(
            [k for k, v in server.env.items() if env_only(v) is not None], server
        ),
        "cwd": _plain(server.cwd) if server.cwd else None,
    }
    return compact(spec), ""


def _forwarded(names: list[str], server: StdioServer) -> list[str]:
    """`names`, then what the server itself reads from its environment (memhub's memory
    server: MEMHUB_HOME, else Codex's server and the hooks would use two memories)."""
    return [*names, *(n for n in forwarded_env(server) if n not in names)]


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
                f"header {key}: Codex cannot build a value around ${{env:...}} or give it a "
                "default; left out"
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


def server_spec(
    hub: Hub, server: StdioServer | RemoteServer, launcher: Launcher
) -> tuple[dict[str, Any] | None, str]:
    """Codex's `[mcp_servers.<name>]` table for `server` and its caveat, or None and why not."""
    if isinstance(server, StdioServer):
        return _stdio(hub, server, launcher)
    return _remote(hub, server)


def _plain(value: str) -> str:
    return substitute(value, env=lambda n: "${" + n + "}", plugin_root=ROOT, plugin_data=DATA)


# -- read back, for `memhub import` ----------------------------------------------------------

_PLAIN_REF = re.compile(r"\$\{(" + ENV_NAME + r")\}")  # what installs write for ${env:NAME}


def _value(text: str) -> str:
    return to_env_refs(text, _PLAIN_REF)


def hub_spec(server: str, raw: Mapping[str, Any]) -> Any:
    """A Codex `[mcp_servers.<name>]` table read back as a hub server, for `memhub import`.

    Environment names come back as references: `env_vars` as env `${env:NAME}`,
    `bearer_token_env_var` as an Authorization header, `env_http_headers` as headers; an
    absolute `cwd` and Codex-only keys (`enabled`, timeouts, tool lists, ...) are kept as
    overrides (the second value)."""
    if "command" in raw:
        env = {k: _value(v) for k, v in string_map(raw.get("env"), "env").items()}
        for item in raw.get("env_vars") or []:
            if isinstance(item, str):
                env[item] = "${env:" + item + "}"
            elif isinstance(item, Mapping) and isinstance(item.get("name"), str):
                env[item["name"]] = "${env:" + str(item.get("source") or item["name"]) + "}"
            else:
                raise NotImportable("env_vars holds an entry that is not a variable name")
        cwd = raw.get("cwd")
        relative = cwd_for_hub(_value(cwd)) if isinstance(cwd, str) else None
        spec = stdio_spec(
            _value(nonempty(raw.get("command"), "command")),
            [_value(a) for a in strings(raw.get("args"), "args")],
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
    spec = remote_spec(_value(nonempty(raw.get("url"), "url")), "http", headers, oauth)
    mapped = ("url", "http_headers", "env_http_headers", "bearer_token_env_var", "bearer_token")
    if oauth:
        mapped += ("oauth", "scopes")
    return spec, extras_of(raw, mapped), []


# --- doctor: which servers start, as Codex (0.171) reports it -------------------------------
# `codex mcp list` only lists its config; the app-server's `mcpServerStatus/list` starts each
# enabled server and answers `data: [{name, tools, toolsError, ...}]`, `toolsError` holding
# Codex's words for one that did not start ("MCP startup failed: No such file or directory
# (os error 2)"). It answers nothing once its stdin is closed, so doctor keeps it open.
_STATUS_ID = 2
_STATUS_ASKED = (
    '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"memhub-doctor","version":"1"}}}',
    '{"method":"initialized"}',
    f'{{"id":{_STATUS_ID},"method":"mcpServerStatus/list","params":{{}}}}',
)


def _status_answer(line: str) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    ok = isinstance(message, dict) and message.get("id") == _STATUS_ID
    return message if ok else None


def started(stdout: str, stderr: str) -> dict[str, str | None]:
    """Each server Codex's app-server started: None when it did, else Codex's words."""
    del stderr
    for line in stdout.splitlines():
        answer = _status_answer(line)
        data = (answer or {}).get("result", {}).get("data") if answer else None
        if isinstance(data, list):
            return {
                s["name"]: (str(s["toolsError"]) if s.get("toolsError") else None)
                for s in data
                if isinstance(s, dict) and isinstance(s.get("name"), str)
            }
    return {}


STARTS = ServerStarts(
    started,
    args=("app-server", "--listen", "stdio://"),
    send=_STATUS_ASKED,
    answered=lambda line: _status_answer(line) is not None,
    label="codex app-server mcpServerStatus/list",
)
