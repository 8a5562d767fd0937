"""The Gemini CLI extension read back into a hub: the inverse of gemini.py's bundle output.

memhub writes a plugin's extension at `gemini/<name>/` (gemini.ROOT_DIR); its
`gemini-extension.json` gives the plugin's fields, every other key goes to
`overrides.gemini.manifest`. Its skills and shipped files are the plugin's own, compared only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts import gemini
from memhub.compiler.importing.repo_hooks import HookFormat
from memhub.compiler.importing.repo_parts import ReadPlugin

name = "gemini"
FOLDER = gemini.ROOT_DIR  # the extension's folder is FOLDER/<name>
MANIFEST = gemini.MANIFEST
CONTEXT_FILE = gemini.CONTEXT_FILE  # the hub's instructions, as gemini.py writes them
WRITTEN = ("name", "version", "description")  # the plugin fields gemini.py writes
# how gemini.py writes the extension's hooks file: a handler's `name` is the hook id, its
# timeout in milliseconds, its status message as `description`; Gemini loads it unnamed
HOOKS = HookFormat(
    host=name,
    events=gemini.NATIVE_EVENTS,
    keys={"command": "command", "timeout": "timeout", "description": "status_message"},
    options={v: k for k, v in gemini.HOOK_OPTIONS.items()},
    order=("type", "name", "command", "timeout", "description"),
    roots={gemini.ROOT: "${plugin_root}"},
    default_file=gemini.HOOKS_FILE,
    auto_file=gemini.HOOKS_FILE,
    timeout_unit=gemini.MS_PER_SECOND,
    named=True,
)


def read_manifest(doc: Mapping[str, Any], read: ReadPlugin) -> None:
    read.manifest(name, doc, written=WRITTEN)
