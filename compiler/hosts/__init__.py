"""Host adapters: one module per host, registered here once. Nothing else branches on host.

The two tuples below are the one host list: `ADAPTERS` (every host `memhub build` knows, in
this order), `INSTALLERS` (those `memhub apply` writes to), the hub schema's host names and
hubspec's default `hosts:` all derive from them. Each module is typed as the role it fills,
so mypy checks it against the contract in base.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from memhub.compiler.hosts import agent_plugins, claude, codex, copilot, cursor, gemini, opencode
from memhub.compiler.hosts.base import BundleHost, CoverageRow, HostBuild, InstallHost

# Add a host: one line in one of these tuples (an install host also builds a bundle).
INSTALL_HOSTS: tuple[InstallHost, ...] = (claude, codex, cursor, gemini, opencode, copilot)
BUNDLE_ONLY_HOSTS: tuple[BundleHost, ...] = (agent_plugins,)
# Hosts a hub gets only when its `hosts:` names them (a hub without `hosts:` builds as before).
OPT_IN_HOSTS: tuple[str, ...] = ("copilot",)


def registries(
    install: Iterable[InstallHost], bundle_only: Iterable[BundleHost]
) -> tuple[dict[str, BundleHost], dict[str, InstallHost]]:
    """(ADAPTERS, INSTALLERS) for these adapters: by name, install hosts first."""
    installers = {adapter.name: adapter for adapter in install}
    adapters: dict[str, BundleHost] = {**installers}
    for adapter in bundle_only:
        adapters[adapter.name] = adapter
    return adapters, installers


ADAPTERS, INSTALLERS = registries(INSTALL_HOSTS, BUNDLE_ONLY_HOSTS)

__all__ = [
    "ADAPTERS",
    "BUNDLE_ONLY_HOSTS",
    "INSTALLERS",
    "INSTALL_HOSTS",
    "OPT_IN_HOSTS",
    "BundleHost",
    "CoverageRow",
    "HostBuild",
    "InstallHost",
    "registries",
]
