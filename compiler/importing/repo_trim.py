"""Keep only the manifest overrides the build needs: a key the adapter writes itself with the
same value is taken out of `overrides.<host>.manifest` (a merge patch against one build made
without them), so an imported hub holds what is the plugin's own, not memhub's defaults. A
README.md the build would generate byte for byte is not shipped either (the repository was
built by memhub: its generated README differs per bundle folder, one shipped would not)."""

from __future__ import annotations

import json
from typing import Any

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts import agent_plugins_repo, copilot_repo, gemini_repo
from memhub.compiler.importing.repo import READERS, PluginHub
from memhub.compiler.importing.repo_market import RepoImport
from memhub.compiler.importing.repo_other import OTHERS
from memhub.hubspec.files import README

NATIVE = {r.name: r.MANIFEST for r in READERS}
APART = {r.name: (r.FOLDER, r.MANIFEST) for r in OTHERS}
SECTION = "manifest"


def trim(imported: RepoImport, build: Any) -> None:
    """Drop the manifest override keys that `build` (a callable building `imported` into
    {path: Artifact} or an error) reproduces without them."""
    saved = {id(hub): _take(hub.read.extra) for hub, _ in imported.plugins}
    readmes = {id(hub): hub.files.pop(README) for hub, _ in imported.plugins if README in hub.files}
    shipped = {id(hub): list(hub.shipped) for hub, _ in imported.plugins}
    for hub, _ in imported.plugins:
        hub.shipped = [rel for rel in hub.shipped if id(hub) not in readmes or rel != README]
    try:
        bare = build(imported)
    finally:
        for hub, _ in imported.plugins:
            for host, manifest in saved[id(hub)].items():
                hub.read.extra.setdefault(host, {})[SECTION] = manifest
            hub.shipped = shipped[id(hub)]
            if id(hub) in readmes:
                hub.files[README] = readmes[id(hub)]
    if not isinstance(bare, dict):
        return  # without its overrides the hub does not build: keep them all
    for hub, _ in imported.plugins:
        ours = bare.get(f"{hub.folder}/{README}" if hub.folder else README)
        if id(hub) in readmes and ours is not None and ours.content == readmes[id(hub)].content:
            del hub.files[README]
            hub.shipped.remove(README)
            hub.read.consumed.add(README)  # compared: the build's own is the same bytes
    for hub, _ in imported.plugins:
        for host, manifest in list(saved[id(hub)].items()):
            patch = _patch(_document(bare.get(manifest_path(hub, host))), manifest)
            if patch:
                hub.read.extra[host][SECTION] = patch
            else:
                del hub.read.extra[host][SECTION]
        hub.read.extra = {host: sections for host, sections in hub.read.extra.items() if sections}


def manifest_path(hub: PluginHub, host: str) -> str:
    """Where the build writes `host`'s manifest of `hub`'s plugin."""
    if host == copilot_repo.name and hub.copilot_manifest:  # in the plugin's own folder
        if copilot_repo.borrows(hub):
            return ""  # Copilot reads another host's: it has none of its own
        return f"{hub.folder}/{hub.copilot_manifest}" if hub.folder else hub.copilot_manifest
    shared = (hub.shared_package and host == agent_plugins_repo.name) or (
        hub.gemini_shared and host == gemini_repo.name
    )
    if host in APART and not shared:
        folder, manifest = APART[host]
        return f"{folder}/{hub.name}/{manifest}"
    name = NATIVE.get(host) or APART[host][1]  # a shared package: plugin.json in the folder
    return f"{hub.folder}/{name}" if hub.folder else name


def _take(extra: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every host's manifest extras, taken out of `extra`."""
    return {
        host: sections.pop(SECTION)
        for host, sections in extra.items()
        if sections.get(SECTION) is not None  # null (no manifest) is kept as it is
    }


def _document(artifact: Artifact | None) -> dict[str, Any]:
    if artifact is None:
        return {}
    try:
        data = json.loads(artifact.content)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _patch(base: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """The keys of `wanted` that `base` lacks or holds otherwise (objects compared key by key)."""
    out: dict[str, Any] = {}
    for key, value in wanted.items():
        if key not in base:
            out[key] = value
        elif isinstance(value, dict) and isinstance(base[key], dict):
            inner = _patch(base[key], value)
            if inner:
                out[key] = inner
        elif base[key] != value:
            out[key] = value
    return out
