"""A server's `extra: {<host>: {key: value}}`: host-only MCP server keys, checked against the
keys that host's server writer lists (`EXTRA_KEYS` in compiler/hosts/<host>_servers.py).

A key spec is the JSON type a value must have: `boolean`, `integer` (a positive whole
number), `number` (positive), `string`, `strings` (a list of strings), `object`, or a tuple
of the allowed strings. hubspec/serverextras.py reads these when it loads a hub; the build
writes each host's keys into that host's server entry only (as `overrides.<host>.mcp_servers`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KeySpec = str | tuple[str, ...]


def known_keys() -> Mapping[str, Mapping[str, KeySpec]]:
    """host -> {key: spec}, for every host; an empty mapping where a host takes none."""
    from memhub.compiler.hosts import (
        ADAPTERS,
        claude_servers,
        codex_servers,
        copilot_servers,
        cursor_servers,
        gemini_servers,
        opencode_servers,
    )

    lists: dict[str, Mapping[str, KeySpec]] = {
        "claude": claude_servers.EXTRA_KEYS,
        "codex": codex_servers.EXTRA_KEYS,
        "copilot": copilot_servers.EXTRA_KEYS,
        "cursor": cursor_servers.EXTRA_KEYS,
        "gemini": gemini_servers.EXTRA_KEYS,
        "opencode": opencode_servers.EXTRA_KEYS,
    }
    return {host: lists.get(host, {}) for host in ADAPTERS}


def type_problem(spec: KeySpec, value: Any) -> str | None:
    """Why `value` does not fit `spec` ("" never: None when it fits)."""
    if isinstance(spec, tuple):
        return None if value in spec else f"one of {', '.join(spec)}"
    fits = {
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool) and value > 0,
        "number": isinstance(value, int | float) and not isinstance(value, bool) and value > 0,
        "string": isinstance(value, str) and value != "",
        "strings": isinstance(value, list) and all(isinstance(v, str) and v for v in value),
        "object": isinstance(value, dict),
    }[spec]
    wanted = {
        "boolean": "true or false",
        "integer": "a positive whole number",
        "number": "a positive number",
        "string": "a non-empty string",
        "strings": "a list of non-empty strings",
        "object": "a mapping",
    }[spec]
    return None if fits else wanted
