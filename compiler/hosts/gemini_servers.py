"""Hub MCP servers as Gemini CLI `mcpServers` entries (settings.json, extensions), both ways."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from memhub.compiler.hosts.base import ServerStarts
from memhub.compiler.hosts.claude_servers import env_refs
from memhub.compiler.hosts.common import compact
from memhub.compiler.hosts.launcher import (
    HTTP_NOT_LAUNCHED,
    LAUNCH_BY_HUB,
    LAUNCHED_BY,
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
)
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import references, shell_default, shell_ref, substitute

# Host-only server keys a hub server may give under `extra: {gemini: ...}` (server_extras.py)
EXTRA_KEYS = {
    "timeout": "integer",
    "trust": "boolean",
    "includeTools": "strings",
    "excludeTools": "strings",
}
EXTENSION_TRUST = (
    "Gemini CLI drops `trust` from an extension's servers (it reads it from settings.json: an "
    "install)"
)
# Gemini's OAuth callback path; its port comes from `redirectUri` (default: a free port).
REDIRECT_PATH = "/oauth/callback"


def server_spec(
    hub: Hub,
    server: StdioServer | RemoteServer,
    root: str | None = None,
    launcher: Launcher | None = None,
) -> tuple[dict[str, Any] | None, str]:
    """Gemini's server shape (before the hub's overrides), or None with the reason it
    cannot be expressed.

    `root` is the extension folder's reference (`${extensionPath}`); None for a
    settings.json install, which has no plugin folder. `launcher`: start a stdio server
    through memhub's launcher (the hub says `runtime: secrets: launcher`). A reason with a
    spec is a caveat.
    """

    def value(text: str) -> str:
        # Gemini (0.61) expands ${VAR:-default} too (resolveEnvVarsInString).
        return substitute(
            text,
            env=shell_ref,
            env_default=shell_default,
            plugin_root=root or "",
            plugin_data="",
        )

    if isinstance(server, StdioServer):
        values = [server.command, *server.args, *server.env.values(), server.cwd or ""]
    else:
        values = [server.url, *server.headers.values()]
    # Gemini (0.61) expands $VAR and ${VAR} in every string of settings.json and of
    # gemini-extension.json when it loads them, so env references may go anywhere.
    if root is not None and any(ref.kind == "plugin_data" for v in values for ref in references(v)):
        return None, "Gemini extensions have no plugin data folder for ${plugin_data}"
    if isinstance(server, StdioServer) and launcher is not None:
        # Gemini expands ${VAR} itself, but only from its own environment, and with
        # secret-looking variables (…_TOKEN, …_KEY) redacted first; the launcher falls back
        # to the hub's .env for what does not reach it.
        run = launched(server, launcher, plain=value, plugin_root=root or "", plugin_data="")
        spec: dict[str, Any] = compact(
            {
                "command": run.command,
                "args": run.args,
                "env": run.env,
                "cwd": value(server.cwd) if server.cwd and not env_names([server.cwd]) else None,
                "description": server.description,
            }
        )
        return spec, f"{LAUNCHED_BY}: {LAUNCH_BY_HUB}"
    if isinstance(server, StdioServer):
        cwd = server.cwd
        if cwd is not None and root is not None and (cwd == "." or cwd.startswith("./")):
            cwd = root + cwd[1:]  # the hub's ./x is inside the plugin; Gemini's is the session's
        spec = compact(
            {
                "command": value(server.command),
                "args": [value(a) for a in server.args],
                "env": {k: value(v) for k, v in server.env.items()},
                "cwd": value(cwd) if cwd else None,
                "description": server.description,
            }
        )
    else:
        spec = _remote(server, value)
    caveats = [HTTP_NOT_LAUNCHED if hub.runtime.secrets == "launcher" else ""]
    if isinstance(server, RemoteServer):
        caveats.append(oauth_not_carried("Gemini CLI", server, ("scopes", "callback_port")))
    caveat = "; ".join(c for c in caveats if c)
    return spec, caveat


def _remote(server: RemoteServer, value: Callable[[str], str]) -> dict[str, Any]:
    """Gemini's entry for an HTTP or SSE server (values through `value`)."""
    # Gemini 0.61 connects a bare `url` as streamable HTTP (createUrlTransport); SSE
    # needs `type: sse` beside it.
    url_key = "httpUrl" if server.transport == "http" else "url"
    return compact(
        {
            url_key: value(server.url),
            "type": "sse" if server.transport == "sse" else None,
            "headers": {k: value(v) for k, v in server.headers.items()},
            "oauth": compact(
                {
                    "enabled": True,
                    "clientId": server.oauth.client_id,
                    "scopes": list(server.oauth.scopes),
                    # Gemini listens on the port of its redirect URI (oauth-flow.ts)
                    "redirectUri": f"http://localhost:{server.oauth.callback_port}{REDIRECT_PATH}"
                    if server.oauth.callback_port
                    else None,
                }
            )
            if server.oauth
            else None,
            "description": server.description,
        }
    )


# -- read back, for `memhub import` ----------------------------------------------------------

_REFERENCE = re.compile(
    r"\$\{(?P<name>" + ENV_NAME + r")(?P<default>:-[^}]*)?\}|\$(?P<bare>" + ENV_NAME + r")"
)


def hub_spec(server: str, raw: Mapping[str, Any]) -> Any:
    """A Gemini `mcpServers` entry read back as a hub server, for `memhub import`: `$VAR`,
    `${VAR}` and `${VAR:-default}` in env become `${env:VAR}` (`${env:VAR:-default}`); `type: sse` is SSE, `httpUrl` or any other `url`
    streamable HTTP; the rest is kept as overrides (the second value)."""
    description = raw.get("description") if isinstance(raw.get("description"), str) else None
    if "command" in raw:
        cwd = raw.get("cwd")
        relative = cwd_for_hub(cwd) if isinstance(cwd, str) else None
        env = string_map(raw.get("env"), "env")
        env_notes: list[str] = []
        spec = stdio_spec(
            nonempty(raw.get("command"), "command"),
            strings(raw.get("args"), "args"),
            {k: env_refs(v, _REFERENCE, env_notes) for k, v in env.items()},
            relative,
            description,
        )
        mapped = (
            "type",
            "command",
            "args",
            "env",
            "description",
            *(("cwd",) if relative else ()),
        )
        return spec, extras_of(raw, mapped), env_notes
    kind = raw.get("type")
    if kind not in (None, "http", "sse") or not ("url" in raw or "httpUrl" in raw):
        raise NotImportable("only stdio, SSE and streamable HTTP servers have a hub shape")
    url_key = "httpUrl" if "httpUrl" in raw else "url"
    transport = "sse" if kind == "sse" and url_key == "url" else "http"
    auth = raw.get("oauth")
    if not isinstance(auth, Mapping):
        auth = {}
    redirect = re.fullmatch(
        r"http://localhost:(\d+)" + re.escape(REDIRECT_PATH), str(auth.get("redirectUri"))
    )
    port = int(redirect.group(1)) if redirect else None
    oauth = oauth_spec(auth.get("clientId"), port, scopes=auth.get("scopes"))
    headers = string_map(raw.get("headers"), "headers")
    spec = remote_spec(nonempty(raw.get(url_key), url_key), transport, headers, oauth, description)
    notes: list[str] = []
    mapped = ("type", url_key, "headers", "description", *(("oauth",) if oauth else ()))
    extras = extras_of(raw, mapped)
    rest = extras_of(auth, ("clientId", "scopes", *(("redirectUri",) if redirect else ())))
    if oauth and rest:
        extras["oauth"] = rest
    return spec, extras, notes


# --- doctor: which servers start, as `gemini mcp list` (0.61) reports it ---------------------
# In a trusted folder (doctor's run trusts its own, GEMINI_CLI_TRUST_WORKSPACE) it starts each
# server and prints, on stderr: "✓ name: command args (stdio) - Connected", "✗ ... -
# Disconnected" (it gives no reason), "○ ... - Disabled" (not started: not reported here).
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LISTED = re.compile(
    r"^[✓✗○]\s+(?P<name>[A-Za-z0-9_.-]+)(?: \(from [^)]*\))?: .* - (?P<status>\w[\w ]*)$"
)


def started(stdout: str, stderr: str) -> dict[str, str | None]:
    """Each server `gemini mcp list` tried to start: None when connected, else its word."""
    found: dict[str, str | None] = {}
    for line in _ANSI.sub("", stderr + "\n" + stdout).splitlines():
        match = _LISTED.match(line.strip())
        if match and match["status"] != "Disabled":
            found[match["name"]] = None if match["status"] == "Connected" else match["status"]
    return found


STARTS = ServerStarts(started)
