"""The Gemini CLI extension read back into a hub: the inverse of gemini.py's bundle output.

memhub writes a plugin's extension at `gemini/<name>/` (gemini.ROOT_DIR); its
`gemini-extension.json` gives the plugin's fields, every other key goes to
`overrides.gemini.manifest`. Its skills and shipped files are the plugin's own, compared only.
A published extension keeps its files in the plugin folder itself (the repository root, or
beside another host's manifest): that is `plugin.gemini_folder: shared`, read in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memhub.compiler.hosts import gemini
from memhub.compiler.importing.repo_hooks import HookFormat
from memhub.compiler.importing.repo_parts import ReadPlugin
from memhub.compiler.importing.repo_tree import Tree, json_file

if TYPE_CHECKING:
    from memhub.compiler.importing.repo import PluginHub

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


# --- a published extension: gemini-extension.json in the plugin folder itself ----------------
SHARED = "shared"  # plugin.gemini_folder: the build writes the extension there (gemini_shared)


def is_extension(path: str) -> bool:
    """A `gemini-extension.json` of a published extension: any but memhub's own apart
    folder's (`gemini/<name>/`, read by repo_other.py)."""
    if path != MANIFEST and not path.endswith("/" + MANIFEST):
        return False
    folder = path[: -len(MANIFEST)].rstrip("/")
    return not (folder.startswith(FOLDER + "/") and folder.count("/") == 1)


def read_shared(hub: PluginHub, tree: Tree) -> None:
    """The extension in plugin folder `hub.folder`: its manifest read (`plugin.gemini_folder:
    shared`), and its hooks file, unless another host's reader took that file (Claude Code
    loads hooks/hooks.json too: the hub's hooks for it give the file back)."""
    from memhub.compiler.importing.repo import read_hooks  # the readers come first

    prefix = f"{hub.folder}/" if hub.folder else ""
    doc = json_file(tree, prefix + MANIFEST)
    if not isinstance(doc, dict):
        hub.read.cannot(prefix + MANIFEST, "is not a JSON object")
        return
    read_manifest(doc, hub.read)
    hub.read.consumed.add(MANIFEST)
    hub.gemini_shared = True
    if HOOKS.auto_file not in hub.read.consumed:
        read_hooks(hub, HOOKS, None, tree, hub.folder)
    if _context_file(doc) == CONTEXT_FILE and prefix + CONTEXT_FILE in tree:
        hub.read.consumed.add(CONTEXT_FILE)  # the hub's instructions (shared_instructions)


def shared_instructions(hub: PluginHub, tree: Tree) -> None:
    """The extension's GEMINI.md as the hub's instructions, once its files are placed."""
    from memhub.compiler.importing.repo_other import instructions

    if hub.gemini_shared and CONTEXT_FILE in hub.read.consumed:
        instructions(hub, tree, f"{hub.folder}/{CONTEXT_FILE}" if hub.folder else CONTEXT_FILE)


def _context_file(doc: Mapping[str, Any]) -> Any:
    """The context file Gemini CLI loads: `contextFileName`, GEMINI.md when it names none."""
    return doc.get("contextFileName", CONTEXT_FILE)
