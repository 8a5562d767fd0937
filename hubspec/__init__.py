"""memhub.hubspec: load and validate canonical hub YAML into a typed, frozen model."""

from typing import Any

from .errors import HubError, MemhubError, Origin, Problem
from .model import Hook, Hub, RemoteServer, Skill, StdioServer

_FROM_LOAD = ("HUB_FILE", "find_hub_file", "load")


def __getattr__(name: str) -> Any:
    """The loader on first use: YAML and JSON Schema cost ~70 ms to import, and a command
    that never reads a hub (a replayed no-op, `memhub hosts`) should not pay it."""
    if name in _FROM_LOAD:
        from . import loader

        globals().update({n: getattr(loader, n) for n in _FROM_LOAD})
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "HUB_FILE",
    "Hook",
    "Hub",
    "HubError",
    "MemhubError",
    "Origin",
    "Problem",
    "RemoteServer",
    "Skill",
    "StdioServer",
    "find_hub_file",
    "load",
]
