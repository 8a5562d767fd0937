"""Install-time options (`plugin.user_config`) per host.

A host adapter that has them names where it writes them (`USER_CONFIG`, Claude Code's plugin
`userConfig`); on every other host, and in every install (no plugin manifest there), each
option gets an `unsupported` coverage row, and a server naming `${user_config.KEY}` is left
out with the reason: it would start with the reference as literal text. An adapter may say
why it has none (`NO_USER_CONFIG`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from memhub.compiler.hosts.base import CoverageRow
from memhub.compiler.hosts.launcher import server_values
from memhub.hubspec.model import Hub, thaw
from memhub.hubspec.refs import references

COMPONENT = "user_config"
IN_INSTALL = (
    "an install writes no plugin manifest; install-time options exist only in a Claude Code "
    "plugin (memhub build)"
)


def option_names(values: list[str]) -> list[str]:
    """The options `${user_config.KEY}` names in `values`, in order of first use."""
    found = (ref.name for v in values for ref in references(v) if ref.kind == "user_config")
    return list(dict.fromkeys(found))


def host_view(hub: Hub, adapter: Any, *, install: bool = False) -> tuple[Hub, list[CoverageRow]]:
    """`hub` as `adapter`'s host can carry its options, and their coverage rows."""
    options = hub.plugin.user_config
    if not options:
        return hub, []
    host = adapter.name
    target = None if install else getattr(adapter, "USER_CONFIG", None)
    if target is not None:
        return hub, [CoverageRow(host, COMPONENT, key, "mapped", target) for key in options]
    reason = IN_INSTALL if install else _no_options(adapter)
    rows = [CoverageRow(host, COMPONENT, key, "unsupported", "-", reason) for key in options]
    kept = []
    for server in hub.mcp_servers:
        names = option_names(server_values(server))
        if names:
            why = f"names ${{user_config.{names[0]}}}: {reason}"
            rows.append(CoverageRow(host, "mcp", server.name, "unsupported", "-", why))
        else:
            kept.append(server)
    return replace(hub, mcp_servers=tuple(kept)), rows


def _no_options(adapter: Any) -> str:
    own = getattr(adapter, "NO_USER_CONFIG", None)
    return own or f"{adapter.title} has no install-time plugin options"


def manifest_value(hub: Hub) -> dict[str, Any]:
    """The options as Claude Code's `userConfig` holds them: as written in the hub."""
    value: dict[str, Any] = thaw(hub.plugin.user_config)
    return value
