"""The hub's MCP servers and hooks: checked and built into the model."""

from __future__ import annotations

from typing import Any

from .model import (
    Hook,
    OAuth,
    RemoteServer,
    StdioServer,
    frozen_map,
)
from .perhost import PerHostChecks, host_tables, split
from .refs import reference_problems
from .vocabulary import TOOL_EVENTS
from .yamlsrc import KeyPath


class ComponentChecks(PerHostChecks):
    """`mcp.servers` and `hooks`."""

    def _spaced_server_names(self, raw: dict[str, Any], hub_hosts: tuple[str, ...]) -> None:
        """A server name with a space, which Claude Code alone loads (`claude plugin validate`
        provides it), for a server no other host gets."""
        for name, spec in raw.items():
            hosts = (_hosts(spec) if isinstance(spec, dict) else None) or hub_hosts
            others = [h for h in hosts if h != "claude"]
            if " " in name and others:
                self.problem(
                    ("mcp", "servers", name),
                    f"server name {name!r} holds a space, which only Claude Code loads "
                    f"({', '.join(others)} would get it too)",
                    "rename it with '-' or '_', or limit the server with `hosts: [claude]`",
                    at_key=True,
                )

    def _servers(self, raw: dict[str, Any]) -> tuple[StdioServer | RemoteServer, ...]:
        servers: list[StdioServer | RemoteServer] = []
        for name, spec in raw.items():
            path: KeyPath = ("mcp", "servers", name)
            origin = self.positions.of_key(path)
            if "command" in spec:
                for key in ("transport", "headers", "oauth"):
                    if key in spec:
                        self.problem(
                            (*path, key),
                            f"{key!r} applies to remote servers only",
                            "remove it, or give the server a `url` instead of `command`",
                            at_key=True,
                        )
                self._check_refs((*path, "command"), spec["command"])
                for index, arg in enumerate(spec.get("args", [])):
                    self._check_refs((*path, "args", index), arg, tokens=False)
                self._check_args((*path, "args"), spec.get("args", []))
                self._check_secret_map((*path, "env"), spec.get("env", {}), allow_plugin=True)
                cwd = spec.get("cwd")
                if cwd is not None:
                    self._check_refs((*path, "cwd"), cwd)
                    self._check_cwd((*path, "cwd"), cwd)
                servers.append(
                    StdioServer(
                        name=name,
                        command=spec["command"],
                        args=tuple(spec.get("args", ())),
                        env=frozen_map(spec.get("env", {})),
                        cwd=cwd,
                        description=spec.get("description"),
                        origin=origin,
                        hosts=_hosts(spec),
                    )
                )
            else:
                for key in ("args", "env", "cwd"):
                    if key in spec:
                        self.problem(
                            (*path, key),
                            f"{key!r} applies to stdio servers only",
                            "remove it, or give the server a `command` instead of `url`",
                            at_key=True,
                        )
                userinfo = "@" in spec["url"].split("//", 1)[-1].split("/", 1)[0]
                self._check_refs(
                    (*path, "url"), spec["url"], allow_plugin=False, tokens=not userinfo
                )
                if userinfo:
                    self.problem(
                        (*path, "url"),
                        "the URL carries user credentials",
                        "remove user:password@ and send credentials in a header as ${env:NAME}",
                    )
                self._check_secret_map(
                    (*path, "headers"), spec.get("headers", {}), allow_plugin=False
                )
                oauth = spec.get("oauth")
                servers.append(
                    RemoteServer(
                        name=name,
                        url=spec["url"],
                        transport=spec.get("transport", "http"),
                        headers=frozen_map(spec.get("headers", {})),
                        oauth=OAuth(
                            client_id=oauth["client_id"],
                            callback_port=oauth.get("callback_port"),
                            auth_server_metadata_url=oauth.get("auth_server_metadata_url"),
                            scopes=tuple(oauth.get("scopes", ())),
                        )
                        if oauth
                        else None,
                        description=spec.get("description"),
                        origin=origin,
                        hosts=_hosts(spec),
                    )
                )
        return tuple(servers)

    def _hooks(self, raw: list[dict[str, Any]], hub_hosts: tuple[str, ...]) -> tuple[Hook, ...]:
        from memhub.runtime.handlers import HANDLERS

        seen: dict[str, int] = {}
        hooks = []
        for index, spec in enumerate(raw):
            path: KeyPath = ("hooks", index)
            hook_id = spec["id"]
            if hook_id in seen:
                self.problem(
                    (*path, "id"),
                    f"duplicate hook id {hook_id!r} (also hooks[{seen[hook_id]}])",
                    "give every hook its own id",
                )
            seen.setdefault(hook_id, index)
            event = split(spec["event"])[0]
            if "tools" in spec and event not in TOOL_EVENTS:
                self.problem(
                    (*path, "tools"),
                    f"`tools` only applies to tool events, not {event or 'native events'!r}",
                    f"remove `tools`, or use one of: {', '.join(sorted(TOOL_EVENTS))} "
                    "(a native event takes `matcher: {<host>: ...}`)",
                    at_key=True,
                )
            handler = spec.get("handler")
            if handler is not None and handler not in HANDLERS:
                known = ", ".join(sorted(HANDLERS)) or "none yet"
                self.problem(
                    (*path, "handler"),
                    f"unknown runtime handler {handler!r}",
                    f"use a known handler ({known}) or a `command:`",
                )
            default, commands = split(spec.get("command"))
            for host, command in [(None, default), *commands.items()]:
                if command is None:
                    continue
                where = (*path, "command") if host is None else (*path, "command", host)
                self._check_token(where, command)
                for why in reference_problems(command, allow_plugin=True, allow_unknown=True):
                    self.problem(where, why, "write ${env:NAME} or ${plugin_root}")
            hooks.append(
                Hook(
                    id=hook_id,
                    tools=tuple(spec.get("tools", ())),
                    handler=handler,
                    required=spec.get("required", False),
                    origin=self.positions.of_value(path),
                    key_origins=frozen_map(
                        {key: self.positions.of_key((*path, key)) for key in spec}
                    ),
                    **self._hook_per_host(path, spec, hub_hosts),
                )
            )
        return tuple(hooks)


def _hosts(spec: dict[str, Any]) -> tuple[str, ...] | None:
    """A component's `hosts:` (None: every host)."""
    return tuple(spec["hosts"]) if "hosts" in spec else None


class HookFileChecks(PerHostChecks):
    """`hook_files`: each host's hooks file a place of its own in its plugin folder."""

    def _shipped_at(self, origin: Any) -> KeyPath:
        """The `files:` entry written at `origin` (its key path), `files` when none is."""
        for key in self.positions.values:
            if len(key) == 2 and key[0] == "files" and self.positions.of_value(key) == origin:
                return key
        return ("files",)

    def _hook_files(
        self,
        raw: dict[str, str],
        hub_hosts: tuple[str, ...],
        shipped: tuple[Any, ...],
        kept: tuple[str, ...] = (),
    ) -> Any:
        """`hook_files`; hosts of `kept` (`hooks_kept`) may share one file, shipped as is."""
        from .files import RESERVED_FOLDERS

        tables = host_tables()
        places: dict[tuple[str, str], str] = {}  # (bundle folder, path) -> the host there
        landed = {item.path: item for item in shipped}
        for host in raw:
            if host not in hub_hosts or not hasattr(tables.get(host), "HOOKS_FILE"):
                has = [h for h in hub_hosts if hasattr(tables.get(h), "HOOKS_FILE")]
                self.problem(
                    ("hook_files", host),
                    f"{host} writes no hooks file for this hub"
                    + ("" if host in hub_hosts else " (it is not in `hosts:`)"),
                    f"name one of: {', '.join(has) or 'none (no host here has a hooks file)'}",
                    at_key=True,
                )
        for host in hub_hosts:
            adapter = tables.get(host)
            default = getattr(adapter, "HOOKS_FILE", None)
            if adapter is None or default is None:
                continue
            path = raw.get(host, default)
            where: KeyPath = ("hook_files", host)
            if host in raw and path.split("/", 1)[0] in RESERVED_FOLDERS:
                self.problem(
                    where,
                    f"{path} is in {path.split('/', 1)[0]}/, a folder memhub writes itself",
                    "put the hooks file elsewhere, e.g. hooks/<name>.json",
                )
            if path in landed:
                item = landed[path]
                self.problem(
                    where if host in raw else self._shipped_at(item.origin),
                    f"{item.source} would land on {path}, where memhub writes {host}'s hooks file",
                    "give the shipped file another `to`"
                    + (
                        ""
                        if host in raw
                        else f", or move the hooks file: `hook_files: {{{host}: ...}}`"
                    ),
                )
            other = places.setdefault((adapter.bundle_root, path), host)
            if other != host and not {host, other} <= set(kept):
                self.problem(
                    where if host in raw else ("hook_files", other),
                    f"{host} and {other} would both write their hooks to {path}",
                    "give each host its own hooks file",
                )
        self._loaded_beside(hub_hosts, places, kept)
        return frozen_map(raw)

    def _loaded_beside(
        self, hub_hosts: tuple[str, ...], places: dict[tuple[str, str], str], kept: tuple[str, ...]
    ) -> None:
        """A host that loads a hooks file by itself beside its own (Claude Code's
        hooks/hooks.json: `LOADS_BESIDE`) would run another host's hooks written there (a
        file kept as it is (`hooks_kept`) ran there in the repository it came from too)."""
        tables = host_tables()
        for host in hub_hosts:
            adapter = tables.get(host)
            beside = getattr(adapter, "LOADS_BESIDE", None)
            if adapter is None or beside is None:
                continue
            other = places.get((adapter.bundle_root, beside))
            if other is None or other == host or other in kept:
                continue
            self.problem(
                ("hook_files", other),
                f"{host} loads {beside} by itself, beside its own hooks file: {other}'s hooks "
                f"written there would run in {host} too",
                f"give {other} another hooks file, or leave {host} out of `hosts:`",
            )
