"""memhub.hubspec: load and validate canonical hub YAML into a typed, frozen model."""

from .errors import HubError, MemhubError, Origin, Problem
from .load import BUNDLE_HOSTS, HUB_FILE, find_hub_file, load
from .model import Hook, Hub, RemoteServer, Skill, StdioServer

__all__ = [
    "BUNDLE_HOSTS",
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
