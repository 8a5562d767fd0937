"""`load_marketplace(path) -> MarketplaceHub`: read a marketplace hub.yaml and every plugin hub
it lists, check them, or raise with every problem (file:line:col, key path, fix).

`load_any` tells the two kinds apart: a marketplace hub has a top-level `plugins:` list.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from .bundlepaths import ROOT, bundle_path_problem, relative_to
from .checks import Checker
from .errors import HubError, Problem
from .marketplace import MarketEntry, MarketplaceFile, MarketplaceHub, PluginSource
from .marketplace_schema import schema_problems
from .model import Hub, Marketplace, Person, frozen_map
from .vocabulary import default_hosts
from .yamlsrc import KeyPath, YamlProblems, parse_yaml

_MARKETPLACE_HUB = re.compile(r"^plugins[ \t]*:", re.MULTILINE)
_PLUGIN_HUB = re.compile(r"^plugin[ \t]*:", re.MULTILINE)


def is_marketplace_text(text: str) -> bool:
    """Whether hub.yaml text is a marketplace hub (a top-level `plugins:` key and no
    `plugin:`: a plugin hub with a stray `plugins:` is told about its typo instead)."""
    return _MARKETPLACE_HUB.search(text) is not None and _PLUGIN_HUB.search(text) is None


def load_any(path: str | os.PathLike[str], *, cache: Path | None = None) -> Hub | MarketplaceHub:
    """The plugin hub or marketplace hub at `path` (a folder or its hub.yaml)."""
    from .loader import _hub_text, find_hub_file, load

    hub_file = find_hub_file(path)
    if is_marketplace_text(_hub_text(hub_file, str(hub_file))):
        return load_marketplace(hub_file, cache=cache)
    return load(hub_file, cache=cache)


def load_marketplace(path: str | os.PathLike[str], *, cache: Path | None = None) -> MarketplaceHub:
    """Load and check the marketplace hub at `path` and the plugin hubs it lists."""
    from .loader import _hub_text, find_hub_file

    hub_file = find_hub_file(path)
    shown = str(hub_file)
    try:
        data, positions = parse_yaml(_hub_text(hub_file, shown), shown)
    except YamlProblems as exc:
        raise HubError(exc.problems) from None
    if not isinstance(data, dict):
        raise HubError(
            [Problem(positions.of_value(()), "", "the hub must be a mapping of keys", _REF)]
        )
    problems = schema_problems(data, positions)
    if problems:
        raise HubError(problems)
    checker = _MarketChecker(hub_file.parent, positions)
    market = checker.build(data, cache)
    if checker.problems:
        raise HubError(checker.problems)
    assert market is not None
    return market


_REF = "see the README's marketplace hub section"


class _MarketChecker(Checker):
    """Semantic checks of a marketplace hub, and construction of its model."""

    def build(self, data: dict[str, Any], cache: Path | None) -> MarketplaceHub | None:
        hosts = tuple(data["hosts"]) if "hosts" in data else default_hosts()
        raw_market = data["marketplace"]
        owner = raw_market["owner"]
        market = Marketplace(
            name=raw_market["name"],
            owner=Person(owner["name"], owner.get("email"), owner.get("url")),
            description=raw_market.get("description"),
            display_name=raw_market.get("display_name"),
            origin=self.positions.of_value(("marketplace",)),
        )
        entries = [self._entry(i, raw, cache) for i, raw in enumerate(data["plugins"])]
        self._check_unique([e for e in entries if e is not None])
        self._check_shared_folders(entries)
        self._check_overrides(("overrides",), data.get("overrides", {}))
        if self.problems:
            return None
        built = tuple(e for e in entries if e is not None)
        files = self._marketplaces(data.get("marketplaces"), market, hosts, built)
        if self.problems:
            return None
        return MarketplaceHub(
            version=data["version"],
            root=str(self.root),
            marketplace=market,
            entries=built,
            marketplaces=files,
            hosts=hosts,
            overrides=frozen_map(data.get("overrides", {})),
        )

    def _entry(self, index: int, raw: dict[str, Any], cache: Path | None) -> MarketEntry | None:
        at: KeyPath = ("plugins", index)
        hub = self._plugin_hub((*at, "hub"), raw["hub"], cache) if "hub" in raw else None
        if "hub" in raw and hub is None:
            return None
        name = raw.get("name") or (hub.plugin.name if hub else None)
        if name is None:
            self.problem(at, "a plugin needs `hub:` or `name:`", "add `hub: <folder>` or `name:`")
            return None
        if hub is not None and name != hub.plugin.name:
            self.problem(
                (*at, "name"),
                f"{name!r} is not the name of the plugin in {raw['hub']!r} ({hub.plugin.name!r})",
                "remove `name:` (it comes from the plugin hub) or rename the plugin there",
            )
            return None
        source, hub = self._source((*at, "source"), raw.get("source"), hub)
        if source is None:
            return None
        host_sources = {}
        for host, item in raw.get("sources", {}).items():
            found = self._remote((*at, "sources", host), item)
            if found is None:
                return None
            host_sources[host] = found
        self._check_overrides((*at, "overrides"), raw.get("overrides", {}))
        return MarketEntry(
            name=name,
            source=source,
            hub=hub,
            description=raw.get("description") or (hub.plugin.description if hub else None),
            overrides=frozen_map(raw.get("overrides", {})),
            origin=self.positions.of_value(at),
            host_sources=frozen_map(host_sources),
        )

    def _plugin_hub(self, at: KeyPath, value: str, cache: Path | None) -> Hub | None:
        from .loader import load

        folder = self._hub_folder(at, value)
        if folder is None:
            return None
        try:
            return load(folder, cache=cache)
        except HubError as exc:
            self.problems.extend(exc.problems)
            return None

    def _hub_folder(self, at: KeyPath, value: str) -> Path | None:
        """`value` as a folder inside this hub's folder that holds a hub.yaml."""
        bad = bundle_path_problem(value, what="the plugin hub's folder")
        if value.rstrip("/") == ".":
            bad = (
                "a plugin hub cannot be the marketplace hub's own folder",
                "move the plugin hub into a folder of its own and name that folder",
            )
        if bad is not None:
            self.problem(at, *bad)
            return None
        target = self.root / value
        try:
            inside = target.resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError, ValueError) as exc:
            self.problem(at, f"{value!r} cannot be resolved ({exc})", "point at a real folder")
            return None
        if not inside:
            self.problem(
                at,
                f"{value!r} resolves outside the marketplace hub's folder (through a link)",
                "keep each plugin hub inside the marketplace hub's folder",
            )
            return None
        if not (target / "hub.yaml").is_file() or (target / "hub.yaml").is_symlink():
            self.problem(
                at,
                f"{value!r} holds no hub.yaml",
                "point at a plugin hub folder (create one with `memhub init`)",
            )
            return None
        return target

    def _source(
        self, at: KeyPath, raw: str | dict[str, Any] | None, hub: Hub | None
    ) -> tuple[PluginSource | None, Hub | None]:
        """The entry's source, and the plugin hub with its folder set by a ./folder source."""
        if isinstance(raw, str):
            folder = raw[2:].rstrip("/") or ROOT  # `./`: the bundle root
            bad = bundle_path_problem(folder, what="the plugin's folder", root_ok=True)
            if bad is not None:
                self.problem(at, *bad)
                return None, None
            if hub is None:  # another plugin's folder, or none: _check_shared_folders
                return PluginSource("path", path=folder), None
            if hub.plugin.path and hub.plugin.path != folder:
                self.problem(
                    at,
                    f"{raw!r} and the plugin hub's plugin.path {hub.plugin.path!r} disagree",
                    "give the folder once: remove one of them",
                )
                return None, None
            hub = replace(hub, plugin=replace(hub.plugin, path=folder))
            return PluginSource("path", path=folder), hub
        if raw is None:
            if hub is None:
                self.problem(
                    at[:-1],
                    "a plugin without `hub:` needs a `source:`",
                    "add source: {github: owner/repo} or {git: URL}",
                )
                return None, None
            from memhub.compiler.hosts.common import plugin_dir

            return PluginSource("path", path=plugin_dir(hub)), hub
        return self._remote(at, raw), hub

    def _remote(self, at: KeyPath, raw: dict[str, Any]) -> PluginSource | None:
        sub = raw.get("path")
        if sub is not None:
            bad = bundle_path_problem(sub.rstrip("/"), what="the repository folder", remote=True)
            if bad is not None:
                self.problem((*at, "path"), *bad)
                return None
            sub = sub.rstrip("/")
        pin = {"ref": raw.get("ref"), "sha": raw.get("sha")}
        if "github" in raw and sub is None:
            return PluginSource("github", repo=raw["github"], **pin)
        url = raw.get("git") or f"https://github.com/{raw['github']}.git"
        if sub is None:
            return PluginSource("git", url=url, **pin)
        return PluginSource("git-subdir", url=url, path=sub, **pin)

    def _check_shared_folders(self, entries: list[MarketEntry | None]) -> None:
        """A listed plugin with a `./folder` source and no `hub:` describes another plugin in
        a folder a plugin hub of this marketplace builds (Claude Code's `strict: false`
        entries naming their own `skills`); a folder no plugin hub builds is an error."""
        built = {e.folder for e in entries if e is not None and e.hub is not None}
        for index, entry in enumerate(entries):
            if entry is None or entry.hub is not None or not entry.source.is_local:
                continue
            if entry.source.path not in built:
                shown = "./" if entry.source.path == ROOT else f"./{entry.source.path}"
                self.problem(
                    ("plugins", index, "source"),
                    f"{shown!r} names a folder of this bundle, but no plugin hub builds it",
                    "add `hub: <folder of its hub.yaml>`, or give a {github:} or {git:} source",
                )

    def _check_unique(self, entries: list[MarketEntry]) -> None:
        seen: dict[str, MarketEntry] = {}
        folders: dict[str, MarketEntry] = {}
        for index, entry in enumerate(entries):
            if entry.name in seen and not _per_host(seen[entry.name], entry):
                self.problem(
                    ("plugins", index),
                    f"plugin {entry.name!r} is listed twice",
                    "list each plugin once (one name twice only as plugin hubs of no host "
                    "in common: a folder per host)",
                )
            seen[entry.name] = entry
            folder = entry.folder
            if folder is not None and folder in folders:
                self.problem(
                    ("plugins", index),
                    f"plugins {folders[folder].name!r} and {entry.name!r} share the folder "
                    f"{folder!r}",
                    "give one of them another folder (plugin.path, or source: ./folder)",
                )
            if folder is not None:
                folders[folder] = entry

    def _marketplaces(
        self,
        raw: list[dict[str, Any]] | None,
        market: Marketplace,
        hosts: tuple[str, ...],
        entries: tuple[MarketEntry, ...],
    ) -> tuple[MarketplaceFile, ...]:
        names = [e.name for e in entries]
        items = raw if raw is not None else [{}]
        files: list[MarketplaceFile] = []
        taken: dict[tuple[str, str], int] = {}
        for index, item in enumerate(items):
            at: KeyPath = ("marketplaces", index)
            path = item.get("path", "").rstrip("/")
            bad = bundle_path_problem(path, what="the marketplace's folder") if path else None
            if bad is not None:
                self.problem((*at, "path"), *bad)
                continue
            for host in item.get("hosts", ()):
                if host not in hosts:
                    self.problem(
                        (*at, "hosts"),
                        f"{host!r} is not one of this hub's hosts ({', '.join(hosts)})",
                        f"add {host} to `hosts:` or remove it here",
                    )
            listed = item.get("plugins", names)
            for name in listed:
                if name not in names:
                    self.problem(
                        (*at, "plugins"),
                        f"no plugin {name!r} in `plugins:`",
                        f"use some of: {', '.join(names)}",
                    )
            chosen = tuple(item.get("hosts", hosts))
            if "file" in item and chosen != ("copilot",):
                self.problem(
                    (*at, "file"),
                    "only Copilot CLI reads a marketplace from another file",
                    "give this marketplace `hosts: [copilot]`, or remove `file:`",
                )
            for host in chosen:
                where = (f"{path}/" if path else "") + item.get("file", "")
                if (where, host) in taken:
                    self.problem(
                        at,
                        f"marketplaces {taken[(where, host)]} and {index} both write {host}'s "
                        f"marketplace file in {path or 'the bundle root'}",
                        "give one of them another `path:` or other `hosts:`",
                    )
                taken[(where, host)] = index
            chosen_entries = [e for e in entries if e.name in listed]
            self._check_relative(at, path, chosen_entries, chosen)
            files.append(
                MarketplaceFile(
                    name=item.get("name", market.name),
                    path=path,
                    hosts=chosen,
                    plugins=tuple(dict.fromkeys(n for n in listed if n in names)),
                    description=item.get("description", market.description),
                    display_name=item.get("display_name", market.display_name),
                    origin=self.positions.of_value(at),
                    file=item.get("file"),
                )
            )
        return tuple(files)

    def _check_relative(
        self, at: KeyPath, path: str, entries: list[MarketEntry], hosts: tuple[str, ...]
    ) -> None:
        """Hosts resolve a ./ source from the marketplace's folder and refuse '..'."""
        for entry in entries:
            folder = entry.folder
            local = any(entry.source_for(h).is_local for h in hosts)
            if local and folder and relative_to(folder, path) is None:
                self.problem(
                    (*at, "path"),
                    f"plugin {entry.name!r} (folder {folder!r}) is not inside this marketplace's "
                    f"folder {path!r}, and hosts refuse '..' in a source",
                    f"move the plugin under {path}/ (source: ./{path}/{entry.name}), give it a "
                    "git source, or leave it out of this marketplace's `plugins:`",
                )


def _per_host(first: MarketEntry, second: MarketEntry) -> bool:
    """Two plugin hubs of one name whose hosts differ: one plugin kept in a folder per host
    (each host's marketplace files list the one built for it)."""
    if first.hub is None or second.hub is None:
        return False
    return not set(first.hub.hosts) & set(second.hub.hosts)
