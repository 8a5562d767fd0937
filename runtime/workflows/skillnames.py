"""How the model names a skill this hook's plugin ships, in the workflow texts.

Claude Code names a plugin's skill `/<plugin>:<skill>` and a skill installed into the
person's or project's skills folder (what `memhub apply` writes) `/<skill>`: verified with
claude 2.1.332, whose `/memhub:x` resolves only for a plugin named `memhub`. A plugin's
hooks run with `CLAUDE_PLUGIN_ROOT` set, and the plugin's name is in its manifest there.
The other hosts keep the MemHub plugin's own spelling. Stdlib only; read only when a text
is about to be shown.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping

DEFAULT = "/memhub:"  # the published MemHub plugin's spelling
MAX_MANIFEST = 1 << 20  # a manifest larger than this is not a plugin.json worth reading


def skill_prefix(host: str, environ: Mapping[str, str] | None = None) -> str:
    """The text before a skill's name in a workflow instruction on `host`."""
    env = os.environ if environ is None else environ
    if host != "claude":
        return DEFAULT
    root = env.get("CLAUDE_PLUGIN_ROOT", "")
    if not root:
        return "/"  # hooks from settings.json: skills were installed as the person's own
    name = _plugin_name(os.path.join(root, ".claude-plugin", "plugin.json"))
    return f"/{name}:" if name else DEFAULT


def _plugin_name(path: str) -> str | None:
    """The `name` of a Claude plugin manifest, or None when it cannot be read."""
    try:
        # O_NONBLOCK: a FIFO planted where the manifest should be must not hang the hook
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, MAX_MANIFEST + 1)
        data = json.loads(raw) if len(raw) <= MAX_MANIFEST else None
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(name, str) and name and all(c.isalnum() or c in "-_." for c in name):
        return name
    return None
