"""`plugin.copilot_manifest: .claude-plugin/plugin.json`: Copilot CLI loads the plugin through
Claude Code's manifest, the last of the four places it looks, as repositories publishing one
plugin folder for both hosts have it (a Copilot marketplace listing a Claude plugin folder).

memhub then writes no Copilot manifest or hooks file: the Copilot build is the marketplace
entry pointing at the native plugin folder, and the folder's files (shared with Claude Code).
Each hook and server row says that Copilot reads them from Claude Code's files."""

from __future__ import annotations

from dataclasses import replace

from memhub.compiler.hosts.base import CoverageRow

CLAUDE_MANIFEST = ".claude-plugin/plugin.json"
THROUGH_CLAUDE = (
    "Copilot CLI loads this plugin through Claude Code's manifest "
    "(plugin.copilot_manifest: .claude-plugin/plugin.json): it gets what Claude Code's "
    "plugin.json, .mcp.json and hooks/hooks.json carry, in Copilot's reading of them"
)


def through_claude(rows: list[CoverageRow], folder: str) -> list[CoverageRow]:
    """The hook and server rows of a plugin Copilot reads through Claude Code's files."""
    out = []
    for row in rows:
        if row.component in ("hook", "mcp") and row.status != "unsupported":
            row = replace(row, status="caveat", target=f"{folder}/{CLAUDE_MANIFEST}")
            row = replace(row, reason=THROUGH_CLAUDE)
        out.append(row)
    return out
