"""OpenCode's config folder read back into a hub: the inverse of opencode.py's bundle output.

memhub writes a plugin's OpenCode copy at `opencode/<name>/` (opencode.BUNDLE_DIR), a config
folder OpenCode reads through OPENCODE_CONFIG_DIR. Its `opencode.json` holds no plugin fields:
its `mcp` entries are the hub's servers (`{env:NAME}` as `${env:NAME}`, OpenCode-only keys as
`extra.opencode` or overrides), every other key goes to `overrides.opencode.manifest` (the
section opencode.py applies to that file). AGENTS.md, skills, the generated hooks plugin and
shipped files are compared only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts import opencode
from memhub.compiler.hosts.opencode_servers import hub_spec
from memhub.compiler.importing.repo_parts import ReadPlugin, read_server_map

name = "opencode"
FOLDER = opencode.BUNDLE_DIR  # the plugin's config folder is FOLDER/<name>
MANIFEST = opencode.CONFIG_FILE
CONTEXT_FILE = "AGENTS.md"  # the hub's instructions (opencode.py writes them there)
SERVERS = "mcp"


def read_config(doc: Mapping[str, Any], read: ReadPlugin, where: str) -> None:
    """`opencode.json` at `where`: its servers, and the rest as manifest overrides."""
    read.fields({}, name, written=())  # a host of the plugin, with no say on its fields
    read.override(name, "manifest", {k: v for k, v in doc.items() if k != SERVERS})
    servers = doc.get(SERVERS)
    if servers is None:
        return
    if not isinstance(servers, Mapping):
        read.cannot(where, "its `mcp` is not an object, the only shape memhub writes")
        return
    read_server_map(servers, read, where, name, hub_spec, {})
