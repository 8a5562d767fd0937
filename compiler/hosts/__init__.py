"""Host adapters: one module per host, registered by name. Nothing else branches on host."""

from __future__ import annotations

from . import agent_plugins, claude, codex, cursor
from .base import CoverageRow, HostAdapter, HostBuild

ADAPTERS: dict[str, HostAdapter] = {
    claude.name: claude,
    codex.name: codex,
    cursor.name: cursor,
    agent_plugins.name: agent_plugins,
}

__all__ = ["ADAPTERS", "CoverageRow", "HostAdapter", "HostBuild"]
