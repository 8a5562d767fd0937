"""Hub MCP servers as OpenCode `mcp` entries (opencode.json), both ways.

OpenCode's shapes (its config schema, proven with opencode 1.18 in
tests/e2e/test_opencode_host.py): `{type: local, command: [cmd, ...args], environment}` and
`{type: remote, url, headers, oauth: {clientId, scope, redirectUri}}`. It expands
`{env:NAME}` in every string of the file (not `${NAME}`), has no `cwd` for a local server
(it starts one in the folder it works in) and no reference to the folder a config came from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts.common import compact
from memhub.compiler.hosts.launcher import (
    LAUNCHED_BY,
    Launcher,
    default_dropped,
    launch_reason,
    launched,
    remote_caveats,
)
from memhub.compiler.importing.shapes import (
    ENV_NAME,
    NotImportable,
    extras_of,
    nonempty,
    oauth_spec,
    remote_spec,
    stdio_spec,
    string_map,
    strings,
    to_env_refs,
)
from memhub.hubspec.model import Hub, RemoteServer, StdioServer
from memhub.hubspec.refs import references, substitute

HOST_TITLE = "OpenCode"
# OpenCode's OAuth callback (mcp/oauth-callback): its port comes from `redirectUri`.
REDIRECT = "http://127.0.0.1:{port}/mcp/oauth/callback"
NO_FOLDER = "OpenCode has no reference to a config folder for ${plugin_root} / ${plugin_data}"
NO_CWD = "OpenCode has no cwd for local servers; it starts them in the folder it works in"
# Host-only server keys a hub server may give under `extra: {opencode: ...}` (server_extras.py)
EXTRA_KEYS = {"enabled": "boolean", "timeout": "integer"}


def value(text: str) -> str:
    """`text` in OpenCode's syntax: `${env:NAME}` becomes `{env:NAME}`; the project folder
    is the one OpenCode starts a local server in (`.`)."""
    return substitute(text, env=lambda n: "{env:" + n + "}", plugin_root="", plugin_data="")


def _values(server: StdioServer | RemoteServer) -> list[str]:
    if isinstance(server, StdioServer):
        return [server.command, *server.args, *server.env.values(), server.cwd or ""]
    return [server.url, *server.headers.values()]


def server_spec(
    hub: Hub, server: StdioServer | RemoteServer, launcher: Launcher | None
) -> tuple[dict[str, Any] | None, str]:
    """OpenCode's server shape (before the hub's overrides), or None with the reason it
    cannot be expressed; a reason with a spec is a caveat. `launcher`: start a stdio server
    through memhub's launcher (an install of a hub with `runtime: secrets: launcher`)."""
    if any(
        r.kind in ("plugin_root", "plugin_data") for v in _values(server) for r in references(v)
    ):
        return None, NO_FOLDER
    launch = launch_reason(hub, server) if launcher is not None else ""
    if isinstance(server, StdioServer) and launch and launcher is not None:
        # The launcher takes the hub's cwd as an argument (OpenCode has none to give it).
        run = launched(
            server,
            Launcher(launcher.command, launcher.lead, "."),
            plain=value,
            plugin_root="",
            plugin_data="",
        )
        spec = compact(
            {"type": "local", "command": [run.command, *run.args], "environment": run.env}
        )
        return spec, f"{LAUNCHED_BY}: {launch}"
    if isinstance(server, StdioServer):
        spec = compact(
            {
                "type": "local",
                "command": [value(server.command), *(value(a) for a in server.args)],
                "environment": {k: value(v) for k, v in server.env.items()},
            }
        )
        caveats = [
            NO_CWD if server.cwd not in (None, ".") else "",
            default_dropped(HOST_TITLE, server),
        ]
        return spec, "; ".join(c for c in caveats if c)
    return _remote(server), _remote_caveat(hub, server)


def _remote(server: RemoteServer) -> dict[str, Any]:
    """OpenCode's entry for an HTTP or SSE server (it tries streamable HTTP, then SSE)."""
    oauth = server.oauth
    return compact(
        {
            "type": "remote",
            "url": value(server.url),
            "headers": {k: value(v) for k, v in server.headers.items()},
            "oauth": compact(
                {
                    "clientId": oauth.client_id,
                    "scope": " ".join(oauth.scopes),
                    "redirectUri": REDIRECT.format(port=oauth.callback_port)
                    if oauth.callback_port
                    else None,
                }
            )
            if oauth
            else None,
        }
    )


def _remote_caveat(hub: Hub, server: RemoteServer) -> str:
    return remote_caveats(hub, HOST_TITLE, server, ("scopes", "callback_port"))


# -- read back, for `memhub import` ----------------------------------------------------------

_REFERENCE = re.compile(r"\{env:(" + ENV_NAME + r")\}")
_REDIRECT = re.compile(re.escape(REDIRECT).replace(r"\{port\}", r"(\d+)"))


def hub_spec(server: str, raw: Mapping[str, Any]) -> Any:
    """An OpenCode `mcp` entry read back as a hub server: `{env:NAME}` becomes
    `${env:NAME}`, the rest (`enabled`, `timeout`, ...) is kept as overrides."""
    kind = raw.get("type")
    if kind == "local":
        words = strings(raw.get("command"), "command")
        if not words:
            raise NotImportable("command is an empty list")
        env = string_map(raw.get("environment"), "environment")
        refs = [to_env_refs(w, _REFERENCE) for w in words]
        spec = stdio_spec(
            nonempty(refs[0], "command"),
            refs[1:],
            {k: to_env_refs(v, _REFERENCE) for k, v in env.items()},
        )
        return spec, extras_of(raw, ("type", "command", "environment")), []
    if kind != "remote":
        raise NotImportable("only local and remote servers have a hub shape")
    auth = raw.get("oauth")
    auth = auth if isinstance(auth, Mapping) else {}
    redirect = _REDIRECT.fullmatch(str(auth.get("redirectUri")))
    port = int(redirect.group(1)) if redirect else None
    oauth = oauth_spec(auth.get("clientId"), port, scopes=auth.get("scope"))
    headers = string_map(raw.get("headers"), "headers")
    spec = remote_spec(
        to_env_refs(nonempty(raw.get("url"), "url"), _REFERENCE),
        "http",
        {k: to_env_refs(v, _REFERENCE) for k, v in headers.items()},
        oauth,
    )
    extras = extras_of(raw, ("type", "url", "headers", *(("oauth",) if oauth else ())))
    rest = extras_of(auth, ("clientId", "scope", *(("redirectUri",) if redirect else ())))
    if oauth and rest:
        extras["oauth"] = rest
    return spec, extras, []
