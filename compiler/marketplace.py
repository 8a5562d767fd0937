"""`build_marketplace(market) -> MarketplaceBuild`: every plugin hub of a marketplace hub built
as it always is, and one marketplace file per marketplace and host listing them all. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memhub.compiler import build as building
from memhub.compiler import links, rootplugin
from memhub.compiler.artifact import Artifact
from memhub.compiler.build import Build, _merge, select_hosts
from memhub.compiler.hosts import CoverageRow
from memhub.compiler.hosts.common import deep_merge, json_bytes, plugin_dir, root_of
from memhub.compiler.hosts.keyorder import KEY_ORDER, ordered
from memhub.compiler.marketplace_hosts import ROOT_FILES, WRITERS, MarketplaceWriter
from memhub.hubspec.bundlepaths import relative_to
from memhub.hubspec.errors import HubError
from memhub.hubspec.marketplace import MarketEntry, MarketplaceFile, MarketplaceHub
from memhub.hubspec.model import thaw


@dataclass(frozen=True, slots=True)
class MarketplaceBuild:
    """The files of a marketplace bundle: every plugin's, and the marketplace files."""

    market: MarketplaceHub
    hosts: tuple[str, ...]
    artifacts: tuple[Artifact, ...]
    coverage: tuple[CoverageRow, ...]
    builds: tuple[Build, ...]

    @property
    def name(self) -> str:
        return self.market.marketplace.name

    @property
    def warnings(self) -> tuple[CoverageRow, ...]:
        """Components (or marketplace entries) a host could not carry."""
        return tuple(row for row in self.coverage if row.status == "unsupported")

    def artifact(self, path: str) -> Artifact | None:
        return next((a for a in self.artifacts if a.path == path), None)


def build_marketplace(
    market: MarketplaceHub, hosts: Sequence[str] | None = None
) -> MarketplaceBuild:
    """Compile every plugin of `market` and its marketplace files. Same input, same bytes."""
    selected = select_hosts(market, hosts)
    builds: list[Build] = []
    for entry in market.entries:
        if entry.hub is None:
            continue
        wanted = [h for h in selected if h in entry.hub.hosts]
        if wanted:
            # the plugin's README names the marketplace it is installed from: this one
            plugin_hub = replace(entry.hub, marketplace=market.marketplace)
            builds.append(building.build(plugin_hub, wanted, settle=False))
    clashes = rootplugin.market_problems(market, builds)
    if clashes:
        raise HubError(clashes)
    produced = [a for b in builds for a in b.artifacts if a.path not in ROOT_FILES]
    coverage = [row for b in builds for row in b.coverage]
    built = {(b.hub.plugin.name, plugin_dir(b.hub)): b.hosts for b in builds}
    for file in market.marketplaces:
        for host in (h for h in selected if h in file.hosts and h in WRITERS):
            artifact, rows = _marketplace_file(market, file, WRITERS[host], built)
            coverage += rows
            if artifact is not None:
                produced.append(artifact)
    artifacts = links.settle(_merge(produced))  # a link may reach a sibling plugin
    return MarketplaceBuild(market, selected, artifacts, tuple(coverage), tuple(builds))


def marketplace_path(file: MarketplaceFile, writer: MarketplaceWriter) -> str:
    name = file.file or writer.MARKETPLACE_FILE  # `file:` is Copilot's only (the loader)
    return f"{file.path}/{name}" if file.path else name


def _marketplace_file(
    market: MarketplaceHub,
    file: MarketplaceFile,
    writer: MarketplaceWriter,
    built: dict[tuple[str, str], tuple[str, ...]],
) -> tuple[Artifact | None, list[CoverageRow]]:
    """One host's file for one marketplace (None when it would list no plugin)."""
    path = marketplace_path(file, writer)
    entries: list[dict[str, Any]] = []
    orders: list[Any] = []  # each entry's own key order (its overrides.<host>.key_order)
    rows: list[CoverageRow] = []
    for name in file.plugins:
        entry = market.entry(name, writer.name)  # a name with a folder per host: this host's
        owner = market.builder_of(entry)  # the hub, or the one building its ./folder
        key = (owner.plugin.name, plugin_dir(owner)) if owner else ("", "")
        if owner is not None and writer.name not in built.get(key, ()):
            continue  # the plugin has no files for this host: nothing to list
        kind = entry.source_for(writer.name)
        folder = plugin_dir(owner, root_of(owner, writer)) if owner else None
        relative = relative_to(folder, file.path) if folder else None
        source, reason = writer.marketplace_source(kind, relative)
        if source is None:
            rows.append(CoverageRow(writer.name, "marketplace", name, "unsupported", "-", reason))
            continue
        entries.append(_entry(entry, writer, source))
        orders.append(entry.overrides.get(writer.name, {}).get(KEY_ORDER, ()))
        rows.append(CoverageRow(writer.name, "marketplace", name, "mapped", f"{path} {kind.kind}"))
    if not entries:
        return None, rows
    document = writer.marketplace_document(market.market_of(file), file.description, entries)
    document = _without_nulls(deep_merge(document, market.override(writer.name, "marketplace")))
    document = ordered(document, market.override(writer.name, KEY_ORDER).get("marketplace", ()))
    if any(orders) and isinstance(document.get("plugins"), list):  # after the file's order
        document["plugins"] = [
            ordered(e, o) for e, o in zip(document["plugins"], orders, strict=False)
        ]
    return Artifact(path, json_bytes(document), owners=(writer.name,)), rows


def _entry(entry: MarketEntry, writer: MarketplaceWriter, source: Any) -> dict[str, Any]:
    if entry.hub is None:
        item = writer.listed_entry(entry.name, entry.description, source)
    else:
        item = writer.plugin_entry(entry.hub, source)
        if "description" in item and entry.description != entry.hub.plugin.description:
            item["description"] = entry.description
    over = {k: v for k, v in entry.overrides.get(writer.name, {}).items() if k != KEY_ORDER}
    return _without_nulls(deep_merge(item, thaw(over)))


def _without_nulls(value: Any) -> Any:
    """An override's `key: null` takes the key out of the entry (a plugin's metadata the
    published entry does not repeat, e.g. its version)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    return value


def compile_any(hub_path: Path, hosts: Sequence[str]) -> Build | MarketplaceBuild:
    """Load and build a plugin hub or a marketplace hub (`memhub build|diff|validate`)."""
    from memhub.hubspec.marketplace_loader import load_any

    loaded = load_any(hub_path)
    if isinstance(loaded, MarketplaceHub):
        return build_marketplace(loaded, hosts or None)
    return building.build(loaded, hosts or None)
