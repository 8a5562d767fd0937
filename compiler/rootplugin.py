"""A plugin at the bundle root (`plugin.path: .`, a repository that is one plugin): its files
share the root with the marketplace files, the build record, the other hosts' folders and,
in a marketplace, the other plugins' folders. What would land on one of them is refused
here, naming the hub key, before anything is written. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts import ADAPTERS
from memhub.compiler.hosts.common import NATIVE_ROOT, plugin_dir
from memhub.compiler.marketplace_hosts import ROOT_FILES, WRITERS
from memhub.compiler.plan import BUILD_MARKER
from memhub.hubspec.bundlepaths import ROOT
from memhub.hubspec.errors import Origin, Problem
from memhub.hubspec.files import RESERVED_FOLDERS
from memhub.hubspec.marketplace import MarketplaceHub
from memhub.hubspec.model import Hub

if TYPE_CHECKING:
    from memhub.compiler.build import Build

FIX = "ship it under another `to:` path, or give the plugin a folder of its own (plugin.path)"


def is_root(hub: Hub) -> bool:
    return plugin_dir(hub) == ROOT


def taken_at_root(selected: Sequence[str]) -> tuple[set[str], tuple[str, ...]]:
    """(files, folders) the build writes at the bundle root besides a root plugin's own: the
    marketplace files, the build record, and each other selected host's folder."""
    folders = {ADAPTERS[h].bundle_root for h in selected} - {NATIVE_ROOT}
    return set(ROOT_FILES) | {BUILD_MARKER}, tuple(sorted(f"{f}/" for f in folders))


def root_problems(hub: Hub, selected: Sequence[str], more: Iterable[str] = ()) -> list[Problem]:
    """Each shipped file of a root plugin that lands where the bundle has something else
    (`more`: further files written there, e.g. a marketplace's in a sub folder)."""
    if not is_root(hub):
        return []
    files, folders = taken_at_root(selected)
    files |= set(more)
    native = {h for h in selected if ADAPTERS[h].bundle_root == NATIVE_ROOT}
    problems = []
    for index, item in enumerate(hub.files):
        if item.hosts is not None and not native & set(item.hosts):
            continue  # never lands in the root plugin
        clash = _clash(item.path, files, folders)
        if clash is not None:
            message = (
                f"{item.source} lands on {item.path} of the root plugin (plugin.path: .), {clash}"
            )
            problems.append(Problem(item.origin, f"files[{index}]", message, FIX))
    return problems


def _clash(path: str, files: set[str], folders: Iterable[str]) -> str | None:
    if path in files:
        return "a file memhub writes there itself"
    folder = next((f for f in folders if path.startswith(f)), None)
    return f"inside {folder}, another host's folder" if folder else None


def market_problems(market: MarketplaceHub, builds: Sequence[Build]) -> list[Problem]:
    """A root plugin of a marketplace hub against the other plugins' folders and the
    marketplace files in sub folders."""
    problems: list[Problem] = []
    for build in (b for b in builds if is_root(b.hub)):
        entry = market.entry(build.hub.plugin.name)
        others = {e.name: e.folder for e in market.entries if e.folder and e.folder != ROOT}
        _, apart = taken_at_root(list(ADAPTERS))
        own = [a for a in build.artifacts if not a.path.startswith(apart)]
        problems += nested_problems(build.hub, entry.origin, own, others)
        markets = {
            f"{f.path}/{WRITERS[h].MARKETPLACE_FILE}"
            for f in market.marketplaces
            for h in f.hosts
            if f.path and h in WRITERS
        }
        problems += root_problems(build.hub, build.hosts, markets)
    return problems


# the root plugin's folders a host reads components or manifests from: another plugin's folder
# inside one of them would be read as the root plugin's own (a skill folder of its skills/);
# inside any other folder the root writes (`plugins/README.md` beside `plugins/x`) it is not
SCANNED = (*RESERVED_FOLDERS, "hooks")


def nested_problems(
    root: Hub, origin: Origin, built: Sequence[Artifact], others: dict[str, str]
) -> list[Problem]:
    """In a marketplace: a root plugin's files inside another plugin's folder, or another
    plugin's folder inside one the root plugin writes (`others`: plugin name -> folder)."""
    tops = {a.path.split("/", 1)[0] for a in built if "/" in a.path}
    problems = []
    for name, folder in others.items():
        inside = next((a.path for a in built if a.path.startswith(folder + "/")), None)
        if inside is not None:
            what = f"the root plugin {root.plugin.name!r} writes {inside}, inside plugin {name!r}"
        elif folder.split("/", 1)[0] in tops and folder.split("/", 1)[0] in SCANNED:
            what = (
                f"plugin {name!r} (folder {folder!r}) sits inside {folder.split('/', 1)[0]}/, "
                f"which the root plugin {root.plugin.name!r} writes"
            )
        else:
            continue
        fix = "give one of them another folder (plugin.path, or source: ./folder)"
        problems.append(Problem(origin, "plugins", what, fix))
    return problems
