"""Claude Code `mcpServers` entries read back into the hub's shape, for `memhub import`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts.base import ServerStarts
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
    url_text,
)
from memhub.hubspec.refs import hub_env_ref

_REFERENCE = re.compile(r"\$\{(?P<name>" + ENV_NAME + r")(?P<default>:-[^}]*)?\}")
_TRANSPORTS = {"http": "http", "streamable-http": "http", "sse": "sse"}
# Host-only server keys a hub server may give under `extra: {claude: ...}` (server_extras.py)
EXTRA_KEYS = {"timeout": "integer", "alwaysLoad": "boolean", "headersHelper": "string"}


def env_refs(text: str, pattern: re.Pattern[str], notes: list[str]) -> str:
    """`text` with each host reference `pattern` matches (groups `name`, or `bare` for a
    `$NAME`, and an optional `default`, `:-...`) in hub syntax; a default that cannot be
    kept adds a note."""

    def replace(match: re.Match[str]) -> str:
        found = match.groupdict()
        default = found.get("default")
        name = found.get("name") or found["bare"]
        ref, note = hub_env_ref(name, default[2:] if default else None)
        if note and note not in notes:
            notes.append(note)
        return ref

    return pattern.sub(replace, text)


def hub_spec(server: str, raw: Mapping[str, Any]) -> Any:
    """A Claude Code `mcpServers` entry read back as a hub server, for `memhub import`:
    `${VAR}` and `${VAR:-default}` become `${env:VAR}` and `${env:VAR:-default}` (a default
    the hub refuses, a secret, is dropped with a note);
    `timeout`, `alwaysLoad` and other Claude-only keys are kept as overrides."""
    notes: list[str] = []

    def value(text: str) -> str:
        return env_refs(text, _REFERENCE, notes)

    kind = raw.get("type") or ("stdio" if "command" in raw else "http")
    if kind == "stdio":
        spec = stdio_spec(
            value(nonempty(raw.get("command"), "command")),
            [value(a) for a in strings(raw.get("args"), "args")],
            {k: value(v) for k, v in string_map(raw.get("env"), "env").items()},
        )
        # an empty `env` ({}) the hub would not write stays as written, a host key
        mapped = ("type", "command", "args", *(("env",) if raw.get("env") != {} else ()))
        return spec, extras_of(raw, mapped), notes
    if kind not in _TRANSPORTS:
        raise NotImportable(f"transport {kind!r} has no hub equivalent")
    auth = raw.get("oauth")
    if not isinstance(auth, Mapping):
        auth = {}
    oauth = oauth_spec(
        auth.get("clientId"),
        auth.get("callbackPort"),
        auth.get("authServerMetadataUrl"),
        auth.get("scopes"),
    )
    spec = remote_spec(
        value(url_text(raw.get("url"), "url")),
        _TRANSPORTS[kind],
        {k: value(v) for k, v in string_map(raw.get("headers"), "headers").items()},
        oauth,
    )
    extras = extras_of(raw, ("type", "url", "headers", *(("oauth",) if oauth else ())))
    rest = extras_of(auth, ("clientId", "callbackPort", "authServerMetadataUrl", "scopes"))
    if oauth and rest:
        extras["oauth"] = rest
    return spec, extras, notes


# --- doctor: which servers start, as `claude mcp list` (2.1) reports it ---------------------
# One line per server after "Checking MCP server health…", e.g.
#   memhub-memory: memhub mcp serve - ✘ Failed to connect — ENOENT: Executable not found in $PATH: "memhub"
#   github: https://api.example.com/mcp (HTTP) - ✔ Connected
_HEALTH = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+): .* - [✔✘⚠✓✗] (?P<status>.+)$")


def started(stdout: str, stderr: str) -> dict[str, str | None]:
    """Each server `claude mcp list` checked: None when connected, else its words."""
    del stderr
    found: dict[str, str | None] = {}
    for line in stdout.splitlines():
        match = _HEALTH.match(line.strip())
        if match:
            status = match["status"].strip()
            found[match["name"]] = None if status == "Connected" else status
    return found


STARTS = ServerStarts(started)  # the loader's own run (`claude mcp list`) checks each server
