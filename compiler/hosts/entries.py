"""Install entries every install adapter builds the same way: servers, skills, instructions."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from memhub.compiler.artifact import EXEC_MODE, FILE_MODE
from memhub.compiler.hosts.base import CoverageRow, CoverageStatus
from memhub.compiler.hosts.common import NO_PLUGIN_FOLDER
from memhub.compiler.install.entries import Entry, EntryKind
from memhub.hubspec.model import Hub, RemoteServer, Skill, StdioServer
from memhub.hubspec.refs import references


def server_row(
    host: str, name: str, status: CoverageStatus, target: str, reason: str = ""
) -> CoverageRow:
    return CoverageRow(host, "mcp", name, status, target, reason)


def instructions_row(
    hub: Hub, host: str, status: CoverageStatus, target: str, reason: str
) -> list[CoverageRow]:
    if hub.instructions is None:
        return []
    return [CoverageRow(host, "instructions", hub.instructions.source, status, target, reason)]


def instruction_entries(
    hub: Hub, host: str, target: Path | None, caveat: str = "", missing: str = ""
) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's instructions as one marked block of a Markdown file the host reads; with no
    such file (`target` None), an unsupported row saying why (`missing`)."""
    if hub.instructions is None:
        return [], []
    if target is None:
        return [], instructions_row(hub, host, "unsupported", "-", missing)
    text = hub.instructions.text
    body = text if text.endswith("\n") else text + "\n"
    entry = Entry(host, str(target), "text-block", (hub.plugin.name,), body)
    status: CoverageStatus = "caveat" if caveat else "mapped"
    return [entry], instructions_row(hub, host, status, f"{target.name} (memhub block)", caveat)


def uses_plugin_folder(server: StdioServer | RemoteServer) -> bool:
    """Whether a server names ${plugin_root} or ${plugin_data} (meaningless in an install)."""
    values = (
        [server.command, *server.args, *server.env.values(), server.cwd or ""]
        if isinstance(server, StdioServer)
        else [server.url, *server.headers.values()]
    )
    return any(ref.kind in ("plugin_root", "plugin_data") for v in values for ref in references(v))


@cache
def _skill_tree(skill: Skill) -> tuple[tuple[tuple[str, bytes, int], ...], dict[str, list[Any]]]:
    """A skill's files as (path, bytes, mode) and its digest value; computed once per skill."""
    files = tuple(
        (f.path, f.content, EXEC_MODE if f.executable else FILE_MODE) for f in skill.files
    )
    return files, {p: [hashlib.sha256(c).hexdigest(), m] for p, c, m in files}


def skill_entries(hub: Hub, host: str, folder: Path) -> list[Entry]:
    """One `tree` entry per skill: `<folder>/<skill>/` holds exactly the skill's files."""
    entries = []
    base = os.fspath(folder)  # os.path, not pathlib: this runs for every skill of every host
    for skill in hub.skills:
        files, digest = _skill_tree(skill)
        target = os.path.join(base, skill.name)
        entries.append(Entry(host, target, "tree", (), digest, files=files))
    return entries


def mcp_entries(
    hub: Hub,
    host: str,
    target: Path,
    kind: EntryKind,
    key: str,
    spec_of: Callable[[StdioServer | RemoteServer], tuple[dict[str, Any] | None, CoverageRow]],
) -> tuple[list[Entry], list[CoverageRow]]:
    """One entry per MCP server under `key` of `target`, with the host's spec and coverage."""
    entries: list[Entry] = []
    rows: list[CoverageRow] = []
    for server in hub.mcp_servers:
        if uses_plugin_folder(server):
            rows.append(server_row(host, server.name, "unsupported", "-", NO_PLUGIN_FOLDER))
            continue
        spec, row = spec_of(server)
        rows.append(row)
        if spec is not None:
            entries.append(Entry(host, str(target), kind, (key, server.name), spec))
    return entries, rows
