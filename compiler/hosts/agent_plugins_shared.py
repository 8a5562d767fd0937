"""What `plugin.agent_plugins_folder: shared` costs on Codex, said in its coverage rows.

With an Agent Plugins `plugin.json` at the root of the plugin folder, Codex (0.171) reads it
instead of `.codex-plugin/plugin.json` and loads none of the plugin's hooks
(tests/e2e/test_codex_agent_plugins_shared.py). The build still writes the Codex files as
the author publishes them, but every Codex hook row says so, and a required Codex hook
refuses the build (build.py fails on a required `unsupported` row).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from memhub.compiler.hosts import agent_plugins
from memhub.compiler.hosts.base import CoverageRow, CoverageStatus
from memhub.compiler.hosts.common import plugin_dir
from memhub.hubspec.model import Hub

CODEX_LOSES_HOOKS = (
    "the Agent Plugins plugin.json shares this plugin folder (plugin.agent_plugins_folder: "
    "shared): Codex reads it instead of .codex-plugin/plugin.json and loads none of the "
    "plugin's hooks; set plugin.agent_plugins_folder: apart to keep them"
)


def applies(hub: Hub, selected: Sequence[str]) -> bool:
    """Whether this build puts the two manifests in one folder Codex reads."""
    shared = hub.plugin.agent_plugins_folder == agent_plugins.SHARED
    return shared and "codex" in selected and agent_plugins.name in selected


def codex_rows(hub: Hub, selected: Sequence[str], rows: Sequence[CoverageRow]) -> list[CoverageRow]:
    """`rows` with each Codex hook row turned into that caveat (a required hook: unsupported,
    which refuses the build), and one row for the plugin, said even with no hooks."""
    if not applies(hub, selected):
        return list(rows)
    out = []
    for row in rows:
        if row.host == "codex" and row.component == "hook" and row.status != "unsupported":
            status: CoverageStatus = "unsupported" if row.required else "caveat"
            row = replace(row, status=status, reason=CODEX_LOSES_HOOKS)
        out.append(row)
    target = f"{plugin_dir(hub)}/plugin.json"
    out.append(CoverageRow("codex", "plugin", hub.plugin.name, "caveat", target, CODEX_LOSES_HOOKS))
    return out
