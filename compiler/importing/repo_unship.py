"""Once every host and the instructions of each plugin hub are known (repo_other.py adds
them after the plugin folder is placed): a GEMINI.md, .mcp.json or assets/icon.* shipped as a
plain file that the hub's build now writes becomes a cannot_reproduce row, never a hub whose
own build refuses it."""

from __future__ import annotations

from memhub.compiler.importing.repo import PluginHub
from memhub.hubspec.files import GEMINI_MD, ICON_PREFIX, MCP_JSON, built_paths, reserved


def unship_built(plugins: list[PluginHub]) -> None:
    """Move each such shipped file of `plugins` to the hub's cannot list."""
    for hub in plugins:
        read = hub.read
        built = built_paths(
            read.hosts,
            instructions=hub.instructions is not None,
            servers=bool(read.servers) or hub.mcp_file,
            mcp_named=any(v is None for v in read.carried.values()),  # a manifest names a file
            icon=bool(hub.icon),
        )
        named = [r for r in hub.shipped if r in (GEMINI_MD, MCP_JSON) or r.startswith(ICON_PREFIX)]
        for rel in named:
            why = reserved(rel, built)
            if why is not None:
                hub.shipped.remove(rel)
                hub.files.pop(rel, None)
                read.cannot(f"{hub.folder}/{rel}" if hub.folder else rel, why)
