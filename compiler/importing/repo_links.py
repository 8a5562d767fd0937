"""The links of a plugin repository kept as links by `import --from-repo` (`files:` entries
with `link: true`, the link itself written into the hub folder).

A link inside a plugin folder is kept when its target is relative and, resolved in the
repository (each link on the way followed), lands inside a plugin folder the import builds,
on something the repository holds and the import does not leave out, and the link is not
inside a skill, agent or command folder (the hub's copies of those hold files, not links; a
whole skill folder that is a link is kept, as a shipped link beside the hub's skills).
What it reaches then comes through the link: its files leave the plugin hub (the build checks that what the hub still generates there, a hooks
file, is the target's), and the round trip compares them at the link's path. Any other
link is read as today: its target's bytes, shipped as files (repo_tree.py). A link that was not
followed (it dangles, loops or leaves the repository) is not kept either: the build refuses a
link that reaches nothing in the bundle; it is one `cannot_reproduce` row (unread_rows).
"""

from __future__ import annotations

from memhub.compiler.importing.repo import FOLDERS, PluginHub
from memhub.compiler.importing.repo_parts import Unreproduced
from memhub.compiler.importing.repo_tree import Tree, links_of, unread_of
from memhub.compiler.links import resolve
from memhub.hubspec.files import link_problem

KEPT_NOT = (
    "a link memhub ships as its target's files: its target is absolute, leaves the plugin "
    "folders the import builds, reaches nothing or a file the import leaves out, or lies inside "
    "a skill, agent or command folder (the hub's copies of those are files, not links)"
)


def keepable(
    path: str, tree: Tree, folders: list[str], left_out: frozenset[str] = frozenset()
) -> bool:
    """Whether the link at `path` can come back as a link (see the module docstring); not
    when it reaches a file the import leaves out (`left_out`: the build would not write it,
    so the link would dangle)."""
    links = links_of(tree)
    if link_problem(links[path]) is not None:
        return False
    folder = path.rpartition("/")[0]
    try:
        reached = resolve(f"{folder}/{links[path]}" if folder else links[path], links)
    except ValueError:
        return False
    if not reached or not any(f == "" or reached.startswith(f + "/") for f in folders):
        return False
    if reached in left_out:
        return False
    return reached in tree or any(p.startswith(reached + "/") for p in tree)


def keep_links(hubs: list[PluginHub], tree: Tree) -> None:
    """Each hub's keepable links recorded (`hub.links`), the files under them taken out."""
    folders = [hub.folder for hub in hubs]
    left_out = frozenset(u.path for hub in hubs for u in hub.read.unreproduced)
    for path in sorted(links_of(tree)):
        owner = _owner(path, hubs)
        kept = keepable(path, tree, folders, left_out)
        if owner is None or not kept or _under_kept(path, hubs):
            continue
        rel = path[len(owner.folder) + 1 :] if owner.folder else path
        parts = rel.split("/")
        # a whole skill folder that is a link (`skills/x -> ../../y/skills/x`) stays a link,
        # shipped beside the hub's skills: Copilot CLI loads none of two copies of one skill
        whole_skill = len(parts) == 2 and parts[0] == "skills"
        if len(parts) > 1 and parts[0] in FOLDERS and not whole_skill:
            continue  # a SKILL.md that is a link: the skill's copy holds its target's bytes
        owner.links[rel] = str(tree[path].link)
        gone = [r for r in owner.files if r == rel or r.startswith(rel + "/")]
        for r in gone:
            del owner.files[r]
        owner.shipped = [r for r in owner.shipped if r in owner.files]


def _owner(path: str, hubs: list[PluginHub]) -> PluginHub | None:
    """The plugin hub whose folder holds `path` (the deepest one)."""
    holding = [h for h in hubs if h.folder == "" or path.startswith(h.folder + "/")]
    return max(holding, key=lambda h: len(h.folder), default=None)


def _under_kept(path: str, hubs: list[PluginHub]) -> bool:
    """`path` lies under a link already kept (it comes through that one)."""
    for hub in hubs:
        base = f"{hub.folder}/" if hub.folder else ""
        if any(path.startswith(f"{base}{rel}/") for rel in hub.links):
            return True
    return False


def unread_rows(hubs: list[PluginHub], tree: Tree) -> list[Unreproduced]:
    """A row for each path of a plugin folder that was neither followed nor read (a link that
    dangles, loops or leaves the repository, a FIFO, an over-size file): that path alone is
    lost, never the repository. One of no plugin folder is listed with the files of none."""
    return [
        Unreproduced(path, why)
        for path, why in unread_of(tree).items()
        if _owner(path, hubs) is not None
    ]
