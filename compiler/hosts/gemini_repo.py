"""The Gemini CLI extension read back into a hub: the inverse of gemini.py's bundle output.

memhub writes a plugin's extension at `gemini/<name>/` (gemini.ROOT_DIR); its
`gemini-extension.json` gives the plugin's fields, every other key goes to
`overrides.gemini.manifest`. Its skills and shipped files are the plugin's own, compared only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memhub.compiler.hosts import gemini
from memhub.compiler.importing.repo_parts import ReadPlugin

name = "gemini"
FOLDER = gemini.ROOT_DIR  # the extension's folder is FOLDER/<name>
MANIFEST = gemini.MANIFEST
WRITTEN = ("name", "version", "description")  # the plugin fields gemini.py writes


def read_manifest(doc: Mapping[str, Any], read: ReadPlugin) -> None:
    read.manifest(name, doc, written=WRITTEN)
