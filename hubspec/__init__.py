"""memhub.hubspec: load and validate canonical hub YAML into a typed, frozen model."""

from typing import TYPE_CHECKING, Any

from .errors import HubError, MemhubError, Origin, Problem

if TYPE_CHECKING:
    from .loader import HUB_FILE, find_hub_file, load
    from .model import Hook, Hub, RemoteServer, Skill, StdioServer

# name -> the module defining it, imported on first use: YAML and JSON Schema (the loader)
# cost ~70 ms to import and the model's classes ~7 ms, and a command that never reads a hub
# (a replayed no-op, `memhub hosts`) should pay neither.
_LAZY = {
    "HUB_FILE": "loader",
    "find_hub_file": "loader",
    "load": "loader",
    "Hook": "model",
    "Hub": "model",
    "RemoteServer": "model",
    "Skill": "model",
    "StdioServer": "model",
}


def __getattr__(name: str) -> Any:
    """A name of the loader or the model, imported with its module on first use."""
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"{__name__}.{where}")
    globals().update({n: getattr(module, n) for n, m in _LAZY.items() if m == where})
    return globals()[name]


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
