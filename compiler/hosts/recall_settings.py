"""The hub's `memory.recall.remote`, compiled into the file the runtime's recall reads.

The runtime reads `recall.json` (runtime/memory/remote_settings.py): a bundle's beside its
vendored runtime (`<plugin>/memhub_runtime/recall.json`, the same for every host of the
bundle), an install's under `$MEMHUB_HOME` (the installed runtime is shared, the home is the
person's), as owned JSON entries an uninstall removes. A hub without the setting writes
nothing, and its hooks recall locally.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memhub.compiler.artifact import FILE_MODE, Artifact
from memhub.compiler.hosts.common import RUNTIME_PACKAGE, SHARED, plugin_dir
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, RemoteRecall
from memhub.runtime.memory.remote_settings import FILE, render

__all__ = ["bundle_artifacts", "install_entries", "remote_of", "settings_value"]


def remote_of(hub: Hub) -> RemoteRecall | None:
    """The hub's remote recall, None when recall is local."""
    return hub.memory.recall if hub.memory is not None else None


def settings_value(remote: RemoteRecall) -> dict[str, Any]:
    """The `remote` member of the settings file."""
    value: dict[str, Any] = {"url": remote.url}
    if remote.key_env:
        value["key_env"] = remote.key_env
    if remote.timeout_ms is not None:
        value["timeout_ms"] = remote.timeout_ms
    return value


def bundle_artifacts(hub: Hub, root: str) -> list[Artifact]:
    """The settings file beside a bundle's vendored runtime (none when recall is local)."""
    remote = remote_of(hub)
    if remote is None or not hub.needs_runtime:
        return []
    text = render(remote.url, remote.key_env, remote.timeout_ms)
    path = f"{plugin_dir(hub, root)}/{RUNTIME_PACKAGE}/{FILE}"
    return [Artifact(path, text.encode("utf-8"), FILE_MODE, (SHARED,))]


def settings_path(scope: Scope) -> Path:
    """An install's settings file: `$MEMHUB_HOME/recall.json` of the install's environment."""
    from memhub.compiler.install.state import memhub_home

    return memhub_home(dict(scope.env) or None) / FILE


def install_entries(hub: Hub, scope: Scope, host: str) -> list[Entry]:
    """The settings file's entries for an install on `host` (every host of the install wants
    the same ones; the planner writes them once)."""
    remote = remote_of(hub)
    if remote is None or not any(hook.handler for hook in hub.hooks):
        return []
    target = str(settings_path(scope))
    return [
        Entry(host, target, "json-default", ("version",), 1),
        Entry(host, target, "json-key", ("remote",), settings_value(remote)),
    ]
