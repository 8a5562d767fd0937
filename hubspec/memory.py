"""The hub's `memory:` section, expanded into a server and instruction text the hosts carry.

`memory:` installs memhub's own memory MCP server (`memhub mcp serve`) into every host of the
hub and delivers the guidance that says when to search memory and when to propose saving.
It becomes an ordinary stdio server (`memhub-memory`) and part of the hub's instructions, so
the host adapters carry it like anything else and the coverage table reports a host that
cannot. The server serves the project of the folder it runs in, which is the session's folder
for Claude Code, Codex and Gemini CLI; a host that starts servers elsewhere passes
`--project ${project_dir}` in its own terms (Cursor: `${workspaceFolder}`), see
StdioServer.project_option.

`memory.recall.remote` sends the recall hooks to a MemHub-compatible server instead of the
local memory; compiler/hosts/recall_settings.py writes it where the runtime reads it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .checks import Checker
from .model import Hub, Instructions, McpServer, Memory, RemoteRecall, StdioServer
from .vocabulary import BLOCK_MARKER

SERVER_NAME = "memhub-memory"
# A bundle starts the server by this bare word (a plugin is installed on machines memhub never
# saw: there `memhub` must be on the host's PATH); an install names the memhub that applied it
# by absolute path (installed_command), as its hooks, since hosts start servers without the
# person's shell and the venv of the Quickstart is on nobody's PATH.
SERVER_COMMAND = "memhub"
# What the server reads from its environment (runtime/backends/base.py memhub_home,
# runtime/memory/scanwindow.py): a host that starts servers with a filtered environment
# (Codex: only the variables an entry names in `env_vars`) is told to pass them on.
SERVER_ENV = ("MEMHUB_HOME", "MEMHUB_MEMORY_TRUST_SECONDS")
DEFAULT_SCOPES = ("shared", "project")
GUIDANCE_TEMPLATE = "memory_instructions.md.tmpl"
GUIDANCE_SOURCE = "memory"  # the coverage id of guidance a hub without instructions gets
PROJECT_OPTION = "--project"  # given only where a host starts servers outside the project


def server_args(memory: Memory) -> tuple[str, ...]:
    """`memhub mcp serve`'s arguments for `memory`: write tools when asked, one `--scope`
    per allowed scope. The project is the server's working folder's; a host that starts the
    server elsewhere adds `--project` (StdioServer.project_option)."""
    args = ["mcp", "serve"]
    if memory.server == "write":
        args.append("--write")
    for scope in memory.scopes:
        args += ["--scope", scope]
    return tuple(args)


def is_memory_server(server: McpServer) -> bool:
    """Whether `server` is the one `memory:` adds (no hub server may take its name)."""
    return (
        isinstance(server, StdioServer)
        and server.name == SERVER_NAME
        and server.project_option == PROJECT_OPTION
        and server.args[:2] == ("mcp", "serve")
    )


def forwarded_env(server: McpServer) -> tuple[str, ...]:
    """The variables a host that filters its servers' environment must pass to `server`."""
    return SERVER_ENV if is_memory_server(server) else ()


def installed_command(hub: Hub, command: str) -> Hub:
    """`hub` with its memory server started by `command` (an install gives the absolute
    path of this installation's `memhub`; compiler/install/scope.py Scope.script)."""
    servers = tuple(
        replace(server, command=command)
        if is_memory_server(server) and isinstance(server, StdioServer)
        else server
        for server in hub.mcp_servers
    )
    return hub if servers == hub.mcp_servers else replace(hub, mcp_servers=servers)


def guidance(memory: Memory) -> str:
    """The instruction text telling the agent when to search memory and when to propose
    saving (the save half only when the server has write tools)."""
    from memhub.templates import fill

    if memory.server == "write":
        saving = fill("memory_saving.md.tmpl")
    else:
        saving = (
            "This memory server is read-only here: when something is worth keeping, tell the "
            "user and suggest `memhub memory add`.\n"
        )
    scopes = " and ".join(memory.scopes)
    return fill(GUIDANCE_TEMPLATE, server=SERVER_NAME, scopes=scopes, saving=saving)


class MemoryChecks(Checker):
    """`memory`: checked, then expanded into the hub's servers and instructions."""

    def _memory(self, raw: dict[str, Any] | None) -> Memory | None:
        if raw is None:
            return None
        server = raw.get("server", "read")
        return Memory(
            server="off" if server is False else server,  # YAML 1.1 reads a bare `off` as false
            instructions=raw.get("instructions", True),
            scopes=tuple(raw.get("scopes", DEFAULT_SCOPES)),
            origin=self.positions.of_value(("memory",)),
            recall=self._remote_recall((raw.get("recall") or {}).get("remote")),
        )

    def _remote_recall(self, raw: dict[str, Any] | None) -> RemoteRecall | None:
        """`memory.recall.remote`, checked as the runtime checks it (remote_settings.check):
        a usable URL with no secret in it."""
        if raw is None:
            return None
        from memhub.runtime.memory.remote_settings import check

        path = ("memory", "recall", "remote")
        url, key_env, timeout_ms = raw["url"], raw.get("key_env", ""), raw.get("timeout_ms")
        self._check_token((*path, "url"), url)
        problem = check(url, key_env, timeout_ms)
        if problem:
            field, _, why = problem.partition(": ")
            self.problem(
                (*path, field), why,
                "give the server's MCP endpoint, e.g. https://memhub.example.com/mcp (the key"
                " goes in the variable key_env names)",
            )  # fmt: skip
            return None
        return RemoteRecall(url=url, key_env=key_env, timeout_ms=timeout_ms)

    def _memory_server(
        self, memory: Memory | None, servers: tuple[McpServer, ...]
    ) -> tuple[McpServer, ...]:
        """`servers` with memhub's memory server appended (when `memory.server` is not off)."""
        if memory is None or memory.server == "off":
            return servers
        if any(server.name == SERVER_NAME for server in servers):
            self.problem(
                ("mcp", "servers", SERVER_NAME),
                f"{SERVER_NAME!r} is the name of the server `memory:` installs",
                "rename this server, or remove it and let `memory:` install memhub's",
                at_key=True,
            )
            return servers
        server = StdioServer(
            name=SERVER_NAME,
            command=SERVER_COMMAND,
            args=server_args(memory),
            project_option=PROJECT_OPTION,
            description="memhub's local memory: search, read and (when enabled) save records",
            origin=memory.origin,
        )
        return (*servers, server)

    def _memory_instructions(
        self, memory: Memory | None, instructions: Instructions | None
    ) -> Instructions | None:
        """`instructions` followed by the memory guidance (or the guidance alone)."""
        if memory is None or not memory.instructions or memory.server == "off":
            return instructions
        text = guidance(memory)
        assert BLOCK_MARKER.search(text) is None  # the template is memhub's own
        if instructions is None:
            return Instructions(text=text, source=GUIDANCE_SOURCE, origin=memory.origin)
        own = instructions.text if instructions.text.endswith("\n") else instructions.text + "\n"
        return Instructions(
            text=f"{own}\n{text}", source=instructions.source, origin=instructions.origin
        )
