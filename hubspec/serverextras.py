"""A server's `extra: {<host>: {key: value}}`: host-only MCP server keys, checked here against
the keys that host's server writer lists (compiler/hosts/server_extras.py), then handed to
the build as `overrides.<host>.mcp_servers.<server>`, which only that host's adapter writes."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .checks import Checker
from .yamlsrc import KeyPath


def _known() -> Mapping[str, Mapping[str, Any]]:
    from memhub.compiler.hosts.server_extras import known_keys  # the adapters import hubspec

    return known_keys()


class ServerExtraChecks(Checker):
    """`mcp.servers.<name>.extra`."""

    def _server_extras(
        self, servers: Mapping[str, Any], overrides: Mapping[str, Any]
    ) -> dict[str, Any]:
        """`overrides` with every server's valid `extra` keys merged in."""
        merged: dict[str, Any] = copy.deepcopy(dict(overrides))
        for name, spec in servers.items():
            for host, keys in (spec.get("extra") or {}).items():
                path: KeyPath = ("mcp", "servers", name, "extra", host)
                if "hosts" in spec and host not in spec["hosts"]:
                    self.problem(
                        path,
                        f"keys for {host}, which this server's `hosts` leaves out",
                        f"add {host} to `hosts`, or remove `extra.{host}`",
                        at_key=True,
                    )
                    continue
                self._check_overrides(path, keys)  # written as they are: no literal secrets
                given = overrides.get(host, {}).get("mcp_servers", {}).get(name, {})
                for key, value in self._host_keys(path, host, keys, given).items():
                    servers_of = merged.setdefault(host, {}).setdefault("mcp_servers", {})
                    servers_of.setdefault(name, {})[key] = value
        return merged

    def _host_keys(
        self, path: KeyPath, host: str, keys: Mapping[str, Any], given: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The keys of `extra.<host>` that host knows, each of its type (the others are
        problems); `given`: the server's `overrides.<host>.mcp_servers` entry."""
        from memhub.compiler.hosts.server_extras import type_problem

        known = _known().get(host, {})
        valid: dict[str, Any] = {}
        for key, value in keys.items():
            where = (*path, key)
            if key not in known:
                choices = ", ".join(known) or f"none ({host} takes no extra server keys)"
                self.problem(
                    where,
                    f"{host} has no MCP server key {key!r}",
                    f"use one of: {choices}",
                    at_key=True,
                )
                continue
            wanted = type_problem(known[key], value)
            if wanted is not None:
                self.problem(where, f"{key} must be {wanted}", f"write {wanted}")
            elif key in given:
                self.problem(
                    where,
                    f"{key} is also given in overrides.{host}.mcp_servers",
                    "keep one of the two",
                    at_key=True,
                )
            else:
                valid[key] = value
        return valid
