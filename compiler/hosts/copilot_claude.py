"""Copilot CLI loading a plugin through another host's manifest in the plugin folder, as
repositories publishing one plugin folder for several hosts have it (a Copilot marketplace
listing a Claude Code plugin folder, or an Agent Plugins package):

- `plugin.copilot_manifest: .claude-plugin/plugin.json`, the last of the four places Copilot
  looks (a hub naming claude);
- `plugin.copilot_manifest: plugin.json` with `plugin.agent_plugins_folder: shared`: the
  package's root `plugin.json`, the second place it looks.

memhub then writes no Copilot manifest or hooks file: the Copilot build is the marketplace
entry pointing at the native plugin folder, and the folder's files (shared with the other
host). Each hook and server row says that Copilot reads them from that host's files."""

from __future__ import annotations

from dataclasses import replace

from memhub.compiler.hosts.base import CoverageRow
from memhub.hubspec.model import Hub

CLAUDE_MANIFEST = ".claude-plugin/plugin.json"
PACKAGE_MANIFEST = "plugin.json"  # the Agent Plugins package's, with agent_plugins_folder: shared
THROUGH = (
    "Copilot CLI loads this plugin through {}'s manifest (plugin.copilot_manifest: {}): it "
    "gets what that host's files in the plugin folder carry, in Copilot's reading of them"
)


def borrowed(hub: Hub) -> str | None:
    """The other host whose manifest Copilot reads for `hub` (None: its own manifest)."""
    manifest = hub.plugin.copilot_manifest
    if manifest == CLAUDE_MANIFEST:
        return "Claude Code"
    if manifest == PACKAGE_MANIFEST and hub.plugin.agent_plugins_folder == "shared":
        return "the Agent Plugins package"
    return None


def through(rows: list[CoverageRow], hub: Hub, folder: str) -> list[CoverageRow]:
    """The hook and server rows of a plugin Copilot reads through another host's files."""
    manifest = hub.plugin.copilot_manifest
    reason = THROUGH.format(borrowed(hub), manifest)
    out = []
    for row in rows:
        if row.component in ("hook", "mcp") and row.status != "unsupported":
            row = replace(row, status="caveat", target=f"{folder}/{manifest}", reason=reason)
        out.append(row)
    return out
