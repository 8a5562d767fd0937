"""The marketplace hub: one hub.yaml listing several plugins (plugin hubs built into the bundle,
or plugins published elsewhere) and the marketplace files each host reads them from.

`Hub` stays the one plugin hub; a `MarketplaceHub` holds a `Hub` per plugin it builds, so the
compiler builds each plugin as it always has and only writes the marketplace files itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import Origin
from .model import Hub, Marketplace, frozen_map

SourceKind = Literal["path", "github", "git", "git-subdir"]


@dataclass(frozen=True, slots=True)
class PluginSource:
    """Where a host fetches a plugin from: a folder of the bundle, or a git repository."""

    kind: SourceKind
    path: str | None = None  # path: the folder (from the bundle root); git-subdir: the subfolder
    repo: str | None = None  # github: owner/repo
    url: str | None = None  # git, git-subdir: the clone URL
    ref: str | None = None  # a branch or tag
    sha: str | None = None  # the full 40-hex commit

    @property
    def is_local(self) -> bool:
        return self.kind == "path"


@dataclass(frozen=True, slots=True)
class MarketEntry:
    """One plugin of the marketplace: built from `hub` (when it has one) and listed with `source`."""

    name: str
    source: PluginSource
    hub: Hub | None = None  # None: listed only (published from another repository)
    description: str | None = None
    # host -> keys merged into that host's entry (after the plugin hub's own
    # `overrides.<host>.marketplace_entry`)
    overrides: Mapping[str, Any] = field(default_factory=frozen_map)
    origin: Origin = Origin("hub.yaml")
    # host -> the source that host's marketplace files give instead of `source` (e.g. a
    # pinned release for Claude Code while Codex and Cursor list the folder)
    host_sources: Mapping[str, PluginSource] = field(default_factory=frozen_map)

    def source_for(self, host: str) -> PluginSource:
        return self.host_sources.get(host, self.source)

    @property
    def folder(self) -> str | None:
        """The plugin's folder in the bundle (None for a listed-only plugin)."""
        if self.hub is None:
            return None
        from memhub.compiler.hosts.common import plugin_dir

        return plugin_dir(self.hub)

    def built_for(self, host: str) -> bool:
        """Whether this plugin has files for `host` (a listed-only one is listed everywhere)."""
        return self.hub is None or host in self.hub.hosts


@dataclass(frozen=True, slots=True)
class MarketplaceFile:
    """One marketplace: its name, the folder it is rooted at, its hosts and its plugins."""

    name: str
    path: str  # '' is the bundle root; relative sources resolve from here
    hosts: tuple[str, ...]
    plugins: tuple[str, ...]
    description: str | None = None
    display_name: str | None = None
    origin: Origin = Origin("hub.yaml")
    # Copilot CLI's file in `path` when not its default (`marketplace.json`, which it reads
    # before .github/plugin/marketplace.json)
    file: str | None = None


@dataclass(frozen=True, slots=True)
class MarketplaceHub:
    version: int
    root: str
    marketplace: Marketplace  # the defaults every marketplace file starts from
    entries: tuple[MarketEntry, ...]
    marketplaces: tuple[MarketplaceFile, ...]
    hosts: tuple[str, ...]
    overrides: Mapping[str, Any] = field(default_factory=frozen_map)

    def entry(self, name: str, host: str | None = None) -> MarketEntry:
        """The plugin `name`; with `host`, the one built for that host when the name has a
        plugin hub per host (else the first)."""
        named = [e for e in self.entries if e.name == name]
        return next((e for e in named if host and e.hub and host in e.hub.hosts), named[0])

    def builder_of(self, entry: MarketEntry) -> Hub | None:
        """The plugin hub building `entry`'s folder: its own, or for a listed `./folder`
        entry the plugin hub whose folder that is (None for a git source)."""
        if entry.hub is not None or not entry.source.is_local:
            return entry.hub
        return next(
            (e.hub for e in self.entries if e.hub is not None and e.folder == entry.source.path),
            None,
        )

    def override(self, host: str, section: str) -> Mapping[str, Any]:
        """The `overrides.<host>.<section>` mapping (empty when not given)."""
        return self.overrides.get(host, {}).get(section, {})

    def market_of(self, file: MarketplaceFile) -> Marketplace:
        """`file` as the Marketplace record the host writers take."""
        return Marketplace(
            name=file.name,
            owner=self.marketplace.owner,
            description=file.description,
            display_name=file.display_name,
            origin=file.origin,
        )
