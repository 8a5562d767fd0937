"""The server-start check: each stdio MCP server memhub installed for a host starts, as the
host's own CLI reports it (the adapter's `loader.starts`: `claude mcp list`, Codex's
app-server `mcpServerStatus/list`, `gemini mcp list` in a folder trusted for that run).

A server that does not start fails with the host's own words (`ENOENT: Executable not found
in $PATH: "memhub"`). Remote servers are not asked about: doctor runs offline. A host whose
CLI is not on PATH, or that does not report a server, is skipped, never failed.
"""

from __future__ import annotations

from collections.abc import Mapping

from memhub.compiler.doctor.documents import at
from memhub.compiler.doctor.hostcli import Answer, ask, host_executable, shown
from memhub.compiler.doctor.places import Places
from memhub.compiler.doctor.records import STARTS, Run
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.install.entries import EntryKey
from memhub.compiler.install.state import Owned
from memhub.hubspec.memory import SERVER_NAME

_MEMORY_FIX = (
    "run `memhub apply` again with the memhub you use: it names its own `memhub` by absolute "
    "path (or put `memhub` on the PATH the host starts servers with)"
)
_FIX = (
    "check the server's command and environment as the host starts it; if memhub wrote it, "
    "`memhub undo` reverts the last apply"
)


def check_starts(run: Run, host: str, here: Places, owned: Mapping[str, Owned]) -> None:
    """One `server-start` finding per stdio server memhub owns in the host's MCP file."""
    loader = INSTALLERS[host].loader
    starts = loader.starts if loader is not None else None
    names = _stdio_servers(run, here, owned)
    exe = host_executable(host, run.env) if starts is not None and names else None
    if loader is None or starts is None or exe is None:
        return
    args = starts.args or loader.args
    said = starts.label or shown(exe, args)
    answer = ask(run, [exe, *args], loader.env, starts.send, starts.answered)
    if not isinstance(answer, Answer):
        run.add(host, STARTS, "warn", here.mcp[0], f"`{said}` {answer}")
        return
    reported = starts.read(answer.stdout, answer.stderr)
    for name in names:
        if name not in reported:
            continue  # not started by the host (disabled, or not in this folder's config)
        words = reported[name]
        if words is None:
            run.add(host, STARTS, "ok", here.mcp[0], f"`{said}`: {name} starts")
            continue
        fix = _MEMORY_FIX if name == SERVER_NAME else _FIX
        detail = f"`{said}`: {name} does not start: {words}"
        run.add(host, STARTS, "fail", here.mcp[0], detail, fix)


def _stdio_servers(run: Run, here: Places, owned: Mapping[str, Owned]) -> list[str]:
    """The servers memhub owns in the host's MCP file that the host starts as a process."""
    file, _, container = here.mcp
    servers = at(run.docs.read(file), container)
    names = []
    for key in owned:
        try:
            entry = EntryKey.parse(key)
        except ValueError:
            continue
        if entry.path[:-1] != tuple(container) or not isinstance(servers, dict):
            continue
        spec = servers.get(entry.path[-1])
        if isinstance(spec, dict) and "command" in spec:
            names.append(entry.path[-1])
    return sorted(names)
