"""Agents and commands of a plugin none of whose hosts carries them (Codex plugins carry no
agents or commands): shipped as they are (`files:`), so the build gives them back byte for
byte; as hub components the build would write them for no host."""

from __future__ import annotations

from memhub.compiler.hosts import ADAPTERS
from memhub.compiler.importing.repo import PluginHub

KINDS = ("agents", "commands")


def carries(host: str, kind: str) -> bool:
    """Whether `host`'s build writes the hub's `kind` (a host without a module-level
    Shipping is taken to: only an explicit "carries no" counts)."""
    shipping = getattr(ADAPTERS.get(host), "SHIPPING", None)
    return shipping is None or not isinstance(getattr(shipping, kind), str)


def ship_uncarried(plugins: list[PluginHub]) -> None:
    """Each plugin's agents/ and commands/ files shipped as they are where no host of the
    plugin carries that kind."""
    for hub in plugins:
        hosts = hub.read.hosts
        for kind in KINDS:
            if not hosts or any(carries(host, kind) for host in hosts):
                continue
            files = [r for r in hub.files if r.startswith(kind + "/") and r not in hub.shipped]
            if not files:
                continue
            hub.shipped += files
            where = f"{hub.folder}/{kind}" if hub.folder else kind
            hub.read.note(f"{where}: shipped as plain files ({', '.join(hosts)} load no {kind})")
