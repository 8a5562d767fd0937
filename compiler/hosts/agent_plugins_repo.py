"""An Agent Plugins package read back into a hub: the inverse of agent_plugins.py's output.

memhub writes the package at `agent-plugins/<name>/` (agent_plugins.ROOT_DIR): its
`plugin.json` gives the plugin's fields, every other key goes to
`overrides.agent-plugins.manifest`. Its skills and `mcp.json` are compared only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts.agent_plugins import ROOT_DIR
from memhub.compiler.importing.repo_parts import ReadPlugin

name = "agent-plugins"
FOLDER = ROOT_DIR  # the package's folder is FOLDER/<name>
MANIFEST = "plugin.json"
MCP_FILE = "mcp.json"


def read_manifest(doc: Mapping[str, Any], read: ReadPlugin) -> None:
    read.manifest(name, doc)
