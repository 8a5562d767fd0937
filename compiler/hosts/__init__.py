"""Host adapters: one module per host, registered by name. Nothing else branches on host."""

from __future__ import annotations

from memhub.compiler.hosts import agent_plugins, claude, codex, cursor, gemini
from memhub.compiler.hosts.base import CoverageRow, HostAdapter, HostBuild

ADAPTERS: dict[str, HostAdapter] = {
    claude.name: claude,
    codex.name: codex,
    cursor.name: cursor,
    gemini.name: gemini,
    agent_plugins.name: agent_plugins,
}

# Hosts an install (`memhub apply`) can write to; each module has install_entries().
INSTALLERS = {m.name: m for m in (claude, codex, cursor, gemini)}

__all__ = ["ADAPTERS", "INSTALLERS", "CoverageRow", "HostAdapter", "HostBuild"]
