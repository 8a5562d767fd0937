"""The whole repository as hub files: one plugin hub, or a marketplace hub over plugin hubs.

A repository with several plugins or any marketplace file becomes a marketplace hub (INTO's
hub.yaml) listing a plugin hub per plugin folder (INTO/<folder>/hub.yaml); one plugin and no
marketplace file become a plugin hub at INTO. Pure: the files are returned, not written.
"""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml
from memhub.compiler.artifact import LINK_MODE
from memhub.compiler.hosts import copilot_repo
from memhub.compiler.importing.repo import (
    FOLDERS,
    HUB_FILE,
    READERS,
    PluginHub,
    hints,
    plugin_folders,
    plugin_yaml,
    read_plugin,
    unreproduced,
)
from memhub.compiler.importing.repo_carry import ship_uncarried
from memhub.compiler.importing.repo_links import keep_links, unread_rows
from memhub.compiler.importing.repo_listed import adopt_listed, listed_folders, local_folder
from memhub.compiler.importing.repo_other import read_other_hosts
from memhub.compiler.importing.repo_parts import Unreproduced, _under_root
from memhub.compiler.importing.repo_tree import RepoError, Tree, files_of, json_file, unread_of
from memhub.compiler.importing.repo_unship import unship_built
from memhub.hubspec.vocabulary import bundle_hosts

EXEC, FILE = 0o755, 0o644
DEFAULT_OWNER = {"name": "unknown"}
# what a plugin at the repository root does not hold: the build record, and the folders
# memhub writes for the hosts that do not share the plugin folder (their files are read
# apart, repo_other.py, or left out as files of no plugin)
APART = (
    ".memhub-build.json",
    "gemini/",
    "agent-plugins/",
    "opencode/",
    "copilot/",
    ".github/plugin/",
)
Found = list[tuple[Any, str, dict[str, Any]]]


@dataclass
class RepoImport:
    """What `import --from-repo` writes into INTO, and what it cannot give back."""

    plugins: list[tuple[PluginHub, str]]  # each plugin hub and its folder in INTO
    market: dict[str, Any]  # the `marketplace:` every hub gets
    market_hub: dict[str, Any]  # the marketplace hub's data (INTO/hub.yaml)
    marketplace_files: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)  # repository files of no plugin
    through: list[str] = field(default_factory=list)  # files reached through kept links
    dropped: list[Unreproduced] = field(default_factory=list)  # taken out so the hub builds
    rows: list[Unreproduced] = field(default_factory=list)  # marketplace entries left out

    @property
    def hubs(self) -> list[str]:
        """Every hub.yaml in INTO, the one to build first."""
        return [HUB_FILE] + [_join(into, HUB_FILE) for _, into in self.plugins]

    @property
    def files(self) -> dict[str, tuple[bytes, int]]:
        """Every file to write in INTO (hub.yaml files and what they hold)."""
        out: dict[str, tuple[bytes, int]] = {}
        out[HUB_FILE] = (_dump(self.market_hub), FILE)
        for hub, into in self.plugins:
            _add(out, _join(into, HUB_FILE), _dump(plugin_yaml(hub, self.market)), FILE)
            for rel, entry in hub.files.items():
                _add(out, _join(into, rel), entry.content, EXEC if entry.executable else FILE)
            for rel, target in hub.links.items():
                _add(out, _join(into, rel), target.encode("utf-8"), LINK_MODE)
        return out

    @property
    def links(self) -> dict[str, str]:
        """The repository's links the hubs keep as links (repository path -> target)."""
        return {
            _join(hub.folder, rel): t for hub, _ in self.plugins for rel, t in hub.links.items()
        }

    @property
    def compared(self) -> list[str]:
        """The repository files the build of the hub should give back."""
        return self.marketplace_files + [p for hub, _ in self.plugins for p in _paths(hub)]

    @property
    def unreproduced(self) -> list[Unreproduced]:
        return unreproduced([hub for hub, _ in self.plugins]) + self.rows + self.dropped

    @property
    def hints(self) -> dict[str, str]:
        return hints([hub for hub, _ in self.plugins])

    @property
    def notes(self) -> list[str]:
        return [note for hub, _ in self.plugins for note in hub.read.notes]

    def drop(self, into_path: str, key: str, reason: str) -> bool:
        """Take the skill folder, agent, command or icon the loader refused (at INTO path
        `into_path`, hub key `key`) out of the hub, listing its repository files with
        `reason`; False if it is none of those."""
        for hub, into in self.plugins:
            if into and not into_path.startswith(into + "/"):
                continue
            parts = (into_path[len(into) + 1 :] if into else into_path).split("/")
            if parts == [HUB_FILE] and key.startswith("plugin.icon") and hub.icon:
                del hub.files[hub.icon]
                hub.read.cannot(_join(hub.folder, hub.icon), reason)
                hub.icon = None
                return True
            if parts[0] not in FOLDERS or len(parts) < 2:
                continue
            unit = _unit(parts)
            gone = [r for r in hub.files if r == unit or r.startswith(unit + "/")]
            shipped_too = key.startswith("files")  # refused as a shipped file too
            if gone and unit in hub.as_is and not shipped_too:
                return True  # another problem of a component already shipped as it is
            linked = any(p == unit or p.startswith(unit + "/") for p in hub.links)
            if gone and not shipped_too and not linked:  # a kept link cannot ship as it is
                as_is(hub, unit, gone, reason)  # given back as it is, not as a component
                return True
            if unit in hub.as_is:
                hub.as_is.remove(unit)
            hub.shipped = [r for r in hub.shipped if r not in gone]
            for rel in gone:
                del hub.files[rel]
                hub.read.cannot(_join(hub.folder, rel), reason)
            links = [r for r in hub.links if r == unit or r.startswith(unit + "/")]
            for rel in links:  # a kept link inside it goes with it (else: "missing SKILL.md")
                del hub.links[rel]
                hub.read.cannot(_join(hub.folder, rel), reason)
            if gone or links:
                return True
        return False


def _unit(parts: list[str]) -> str:
    """The component a loader problem at hub path `parts` names: a skill's folder (the one
    holding the SKILL.md named, else skills/<name>), an agent, command or rule file."""
    if parts[0] == "skills" and parts[-1] == "SKILL.md" and len(parts) > 2:
        return "/".join(parts[:-1])
    return "/".join(parts[:2])


def as_is(hub: PluginHub, unit: str, files: list[str], reason: str) -> None:
    """The component at `unit` shipped as it is (`files:`), with why it is no hub component:
    every host that read it from the repository reads the same bytes from the build."""
    hub.as_is.append(unit)
    hub.shipped += [r for r in files if r not in hub.shipped]
    where = _join(hub.folder, unit)
    hub.read.note(f"{where}: shipped as it is, not as a hub component ({reason})")


def markets(tree: Tree) -> Found:
    """Every marketplace file: (host reader, its folder, what it says), root first."""
    found: Found = []
    readers = (*READERS, copilot_repo)  # Copilot's plugins sit apart (repo_other.OTHERS)
    for path in tree:
        for reader in readers:
            if path == reader.MARKETPLACE or path.endswith("/" + reader.MARKETPLACE):
                doc = json_file(tree, path)
                if not isinstance(doc, Mapping):
                    raise RepoError(f"{path}: is not a JSON object. Fix: correct the marketplace")
                found.append((reader, path[: -len(reader.MARKETPLACE)].rstrip("/"), dict(doc)))
    root = copilot_repo.root_market(tree)
    if root is not None:
        found.append((copilot_repo.root_marketplace, "", root))  # Copilot reads it first
    hosts = [r.name for r in readers]
    return sorted(
        found, key=lambda m: (m[1].count("/") if m[1] else -1, m[1], hosts.index(m[0].name))
    )


def import_repo(tree: Tree) -> RepoImport:
    """The hub files for `tree` (a plugin repository read by repo_tree.read_tree)."""
    whole, tree = tree, files_of(tree)  # the readers see files; links are kept at the end
    found = markets(tree)
    plugins = [read_plugin(tree, folder) for folder in plugin_folders(tree)]
    plugins += copilot_repo.standalone(tree, plugins)
    plugins += copilot_repo.root_plugin(tree, plugins)
    known = {hub.folder for hub in plugins} | copilot_repo.folders(tree)
    plugins += listed_folders(tree, found, known)
    adopt_listed(found, plugins)
    copilot_repo.through_others(found, plugins)
    listed, (found, dropped) = found, _resolved(tree, found, {hub.name for hub in plugins})
    plugins, clashes = _one_per_host(plugins, _listed(found))
    _root_apart(plugins, {_join(f, r.MARKETPLACE) for r, f, _ in found})
    read_other_hosts(tree, plugins)
    ship_uncarried(plugins)  # after every host is known
    unship_built(plugins)  # likewise: GEMINI.md and .mcp.json its hub's build writes
    if not plugins and not _catalogue(found):
        raise RepoError(_no_plugin(listed))
    keep_links(plugins, whole)
    market = _market_defaults(found, plugins[0] if plugins else None)
    # always a marketplace hub: a plugin hub writes marketplace files, which a repository
    # without any (`marketplaces: []`) or a root plugin would not give back
    placed = _placed(plugins)  # before the marketplace hub, which names each hub's folder
    result = RepoImport(placed, market, _market_hub(found, plugins, market))
    _settle_clashes(result)
    result.marketplace_files = [_join(f, r.MARKETPLACE) for r, f, _ in found]
    result.rows = dropped + clashes + unread_rows(plugins, whole)  # one path each
    kept = tuple(f"{link}/" for link in result.links)
    result.through = [p for p in tree if p.startswith(kept)] if kept else []
    covered = set(result.compared) | {u.path for u in result.unreproduced}
    covered |= set(result.links) | set(result.through)
    result.outside = [p for p in sorted({*tree, *unread_of(whole)}) if p not in covered]
    return result


def _placed(plugins: list[PluginHub]) -> list[tuple[PluginHub, str]]:
    """Each plugin hub with its folder in INTO: its repository folder, and for a root plugin
    its name, unless a plugin folder of the repository has that name (then `<name>-root`)."""
    taken = {hub.folder for hub in plugins if hub.folder}
    for hub in (h for h in plugins if not h.folder):
        hub.into = next(c for c in _candidates(hub.name) if c not in taken)
        taken.add(hub.into)
    return [(hub, hub.place) for hub in plugins]


def _candidates(name: str) -> Iterator[str]:
    yield name
    yield f"{name}-root"
    yield from (f"{name}-root-{n}" for n in itertools.count(2))


def _settle_clashes(result: RepoImport) -> None:
    """Each hub file two plugins would write written for the first only: the other's file
    becomes a row naming both (the import must never refuse the whole repository for it).
    The plugin of the deepest folder writes it: a file inside a nested plugin is its own."""
    owners: dict[str, str] = {HUB_FILE: "the marketplace hub"}
    for hub, into in result.plugins:
        owners.setdefault(_join(into, HUB_FILE), f"the hub of plugin {hub.name!r}")
    deepest = sorted(result.plugins, key=lambda p: -len(p[0].folder.split("/")))
    for hub, into in deepest:
        mine = f"plugin {hub.name!r} ({hub.folder or '.'}/)"
        for rel in [*hub.files, *hub.links]:
            where = _join(into, rel)
            if owners.setdefault(where, mine) == mine:
                continue
            hub.files.pop(rel, None)
            hub.links.pop(rel, None)
            hub.shipped = [r for r in hub.shipped if r != rel]
            hub.read.cannot(
                _join(hub.folder, rel),
                f"its hub file {where} is written for {owners[where]} too: one hub folder "
                "cannot hold both. Fix: rename one",
            )


def _root_apart(plugins: list[PluginHub], marketplaces: set[str]) -> None:
    """Each plugin without the files of the plugin folders nested in its own (those a
    marketplace lists without a manifest too), and a plugin at the repository root
    (`plugin.path: .`) without the marketplace files and what is APART either."""
    for hub in plugins:
        prefix = f"{hub.folder}/" if hub.folder else ""
        inside = [o.folder for o in plugins if o.folder and o.folder.startswith(prefix)]
        others = [f"{folder[len(prefix) :]}/" for folder in inside]
        apart = () if hub.folder else APART
        mine = () if hub.folder else marketplaces  # a root `marketplace.json` too
        for rel in [r for r in hub.files if r.startswith((*apart, *others)) or r in mine]:
            del hub.files[rel]
        hub.shipped = [r for r in hub.shipped if r in hub.files]
        if not hub.folder:
            hub.read.consumed -= marketplaces


def _resolved(tree: Tree, found: Found, names: set[str]) -> tuple[Found, list[Unreproduced]]:
    """`found` with each entry's folder source as the `./folder` it names from its
    marketplace's folder (repo_listed.local_folder: under `metadata.pluginRoot`, or from the file's
    own folder; the build writes the entry's own `source` back as an override), and without
    the entries naming no folder of the repository and no plugin of the import (a row each:
    the hub cannot list a folder it does not build)."""
    out: Found = []
    rows: list[Unreproduced] = []
    for reader, folder, doc in found:
        kept, lost = [], []
        for index, raw in enumerate(doc.get("plugins") or []):
            source = _under_root(doc, raw.get("source")) if isinstance(raw, Mapping) else None
            if not isinstance(source, str):
                kept.append(raw)
                continue
            named = local_folder(tree, reader, folder, doc, source)
            if named is None and raw.get("name") in names:
                kept.append(raw)  # the plugin of that name: its entry's source an override
            elif named is None:
                lost.append(
                    f"plugins/{index}/source: {source!r} names no folder of the repository "
                    "and no plugin of this import, so the marketplace hub cannot list it "
                    "(no host installs it either). Fix: name the plugin's folder"
                )
            else:
                relative = posixpath.relpath(named or ".", folder or ".")
                kept.append({**raw, "source": "./" if relative == "." else f"./{relative}"})
        if lost:
            rows.append(Unreproduced(_join(folder, reader.MARKETPLACE), "; ".join(lost)))
        out.append((reader, folder, {**doc, "plugins": kept} if "plugins" in doc else doc))
    return out, rows


def _one_per_host(
    plugins: list[PluginHub], listed: frozenset[str] = frozenset()
) -> tuple[list[PluginHub], list[Unreproduced]]:
    """The plugins, but one of a name per host: a folder per host under one name is a plugin
    hub each, while two folders of one name for one host cannot both be listed (the one a
    marketplace lists, which the host installs, else the first, is kept; each file of the
    other is a row naming both folders)."""
    kept: list[PluginHub] = []
    rows: list[Unreproduced] = []
    for hub in plugins:
        hosts = set(hub.read.hosts)
        rival = next((k for k in kept if k.name == hub.name and hosts & set(k.read.hosts)), None)
        if rival is None:
            kept.append(hub)
            continue
        if hub.folder in listed and rival.folder not in listed:
            kept[kept.index(rival)], hub, rival = hub, rival, hub  # the host installs this one
            hosts = set(hub.read.hosts)
        shared = ", ".join(sorted(hosts & set(rival.read.hosts)))
        why = (
            f"plugin {hub.name!r} is also in {rival.folder or '.'}/ for {shared}: a marketplace "
            f"lists one plugin of a name per host, so the import keeps {rival.folder or '.'}/. "
            "Fix: rename one plugin, or keep each host's copy in its own folder"
        )
        own = [*hub.files, *sorted(hub.read.consumed)]
        rows += [Unreproduced(_join(hub.folder, rel), why) for rel in own]
        rows += unreproduced([hub])
    return kept, rows


def _listed(found: Found) -> frozenset[str]:
    """The repository folders the marketplace files list (their `./` sources, resolved)."""
    named = {
        posixpath.normpath(posixpath.join(folder or ".", entry["source"]))
        for _, folder, doc in found
        for entry in doc.get("plugins") or []
        if isinstance(entry, Mapping) and isinstance(entry.get("source"), str)
    }
    return frozenset("" if path == "." else path for path in named)


def _catalogue(found: Found) -> bool:
    """Whether the marketplace files list plugins published elsewhere only (every source a
    git one): a marketplace hub without plugin hubs, which builds the files back."""
    entries = [e for reader, _, doc in found for e in reader.read_marketplace(doc)["entries"]]
    return bool(entries) and not any(isinstance(e.get("source"), str) for e in entries)


def _no_plugin(found: Found) -> str:
    """Why the repository holds no plugin: no manifest, and what its marketplaces list."""
    text = (
        "no plugin found: no folder holds .claude-plugin/plugin.json, "
        ".codex-plugin/plugin.json, .cursor-plugin/plugin.json or gemini-extension.json, the "
        "repository root no Copilot CLI plugin.json, and no marketplace file lists a folder"
    )
    for reader, folder, doc in found:
        path = _join(folder, reader.MARKETPLACE)
        sources = [e.get("source") for e in reader.read_marketplace(doc)["entries"]]
        local = [s for s in sources if isinstance(s, str)]
        listed = "no plugin" if not sources else "only plugins of other repositories"
        if local:
            listed = f"folders holding no file of the repository ({', '.join(local)})"
        text += f"; {path} lists {listed}"
    return text + ". Fix: name a plugin repository (a folder holding plugin folders)"


def _join(folder: str, rel: str) -> str:
    return f"{folder}/{rel}" if folder else rel


def _add(out: dict[str, tuple[bytes, int]], rel: str, content: bytes, mode: int) -> None:
    if rel in out:
        raise RepoError(f"{rel}: two sources would write this hub file. Fix: rename one")
    out[rel] = (content, mode)


def _paths(hub: PluginHub) -> list[str]:
    own = [_join(hub.folder, rel) for rel in (*hub.files, *sorted(hub.read.consumed))]
    return own + hub.elsewhere


def _market_defaults(found: Found, first: PluginHub | None) -> dict[str, Any]:
    """The `marketplace:` of every hub: the root marketplace's name, owner and description."""
    for reader, _, doc in found:
        read = reader.read_marketplace(doc)
        if read.get("name"):
            market = {"name": read["name"], "owner": read.get("owner") or DEFAULT_OWNER}
            if read.get("description"):
                market["description"] = read["description"]
            shown = [r.read_marketplace(d).get("display_name") for r, _, d in found]
            shown = [s for s in shown if s and s != read["name"]]
            if shown:
                market["display_name"] = shown[0]
            return market
    name = first.name if first else "plugins"
    return {"name": f"{name}-market", "owner": DEFAULT_OWNER}


def _market_hub(found: Found, plugins: list[PluginHub], market: dict[str, Any]) -> dict[str, Any]:
    """The marketplace hub: every plugin (listed ones too), its marketplaces and overrides."""
    from memhub.compiler.importing.repo_entries import entries_and_markets

    listed, marketplaces, overrides = entries_and_markets(found, plugins, market)
    hosts = {h for hub in plugins for h in hub.read.hosts} | {r.name for r, _, _ in found}
    order = list(bundle_hosts())
    data: dict[str, Any] = {"version": 1, "marketplace": market}
    data["hosts"] = sorted(hosts, key=order.index)
    data["plugins"] = listed
    if marketplaces is not None:
        data["marketplaces"] = marketplaces  # [] for plugin folders without a marketplace
    if overrides:
        data["overrides"] = overrides
    return data


def _dump(data: dict[str, Any]) -> bytes:
    head = "# Imported by `memhub import --from-repo`; see the import's round-trip report.\n"
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    return (head + body).encode("utf-8")
