"""Install planning: the hub's entries for each host, merged into that host's own files.

`plan_install` only reads: it computes, per target file, the bytes after inserting,
replacing or removing exactly the entries this hub owns, the conflicts that forbid it,
and the owned entries edited by hand since memhub wrote them (drift). `apply` re-plans
under the operation lock and writes through one journaled transaction.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from memhub.compiler.digest import file_digest
from memhub.compiler.hosts import INSTALLERS, CoverageRow, recall_settings, user_config
from memhub.compiler.install.changes import (
    Claim,
    InstallPlan,
    TargetChange,
    kind_of_change,
)
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.merge import format_of, plan_document
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.scripts import bare_script_warnings
from memhub.compiler.install.secrets import env_file_warnings, refuse_leaks, secret_values
from memhub.compiler.install.state import Owned, Owner, State
from memhub.compiler.install.treecache import TreeCache
from memhub.compiler.install.trees import plan_tree
from memhub.compiler.safewrite import targetfs
from memhub.hubspec import memory, perhost
from memhub.hubspec.errors import MemhubError
from memhub.hubspec.model import Hub


def hub_revision(hub: Hub) -> str:
    """A digest of every hub input that shapes an install (YAML, skills, instructions)."""
    digest = hashlib.sha256()
    digest.update(Path(hub.root, "hub.yaml").read_bytes())
    for skill in hub.skills:
        for file in skill.files:
            digest.update(f"{skill.name}/{file.path}:{file.executable}".encode())
            digest.update(file.content)
    if hub.instructions:
        digest.update(hub.instructions.text.encode("utf-8"))
    return "sha256:" + digest.hexdigest()


def gather_entries(
    hub: Hub, scope: Scope, hosts: Sequence[str], home: Path | None = None
) -> tuple[list[Entry], list[CoverageRow]]:
    """Every host's entries and coverage; with `home` (memhub's own folder), the hub's
    rulebooks too (compiler/rulebooks.py: one folder there, shared by the hosts)."""
    from memhub.compiler import rulebooks

    entries: list[Entry] = []
    coverage: list[CoverageRow] = []
    folder = rulebooks.install_folder(hub, scope, home or Path("$MEMHUB_HOME"))
    hub = memory.installed_command(hub, scope.script(memory.SERVER_COMMAND))  # as hooks: absolute
    for host in hosts:
        seen, option_rows = user_config.host_view(
            perhost.view(hub, host), INSTALLERS[host], install=True
        )
        found, rows = INSTALLERS[host].install_entries(seen, scope)
        rows = [*rows, *option_rows]
        entries += found + recall_settings.install_entries(hub, scope, host)
        coverage += rows + rulebooks.coverage_rows(hub, host, rows, f"{folder}/{{}}")
    if home is not None:
        entries += rulebooks.install_entries(hub, scope, hosts, home)
    return entries, coverage


def plan_install(
    hub: Hub,
    scope: Scope,
    hosts: Sequence[str],
    home: Path,
    *,
    adopt: bool = False,
    remove_all: bool = False,
) -> InstallPlan:
    """What applying `hub` (or, with `remove_all`, uninstalling it) to `hosts` would change."""
    wanted, coverage = ([], []) if remove_all else gather_entries(hub, scope, hosts, home)
    plan = _plan_entries(Owner.of_hub(hub), wanted, scope, hosts, home, adopt)
    if not remove_all:
        # An uninstall only removes memhub's entries or puts back what the person had.
        refuse_leaks(_writes(list(plan.changes)), secret_values(hub, scope.env or None))
    return replace(
        plan,
        revision=hub_revision(hub),
        coverage=tuple(coverage),
        warnings=()
        if remove_all
        else (*env_file_warnings(hub, scope.env or None), *bare_script_warnings(wanted, scope)),
    )


def plan_uninstall_plugin(
    plugin: str, scope: Scope, hosts: Sequence[str], home: Path
) -> InstallPlan:
    """What removing every entry of `plugin` (any hub id) would change; needs no hub."""
    return _plan_entries(Owner(plugin), [], scope, hosts, home, adopt=False)


def _plan_entries(
    owner: Owner,
    wanted: list[Entry],
    scope: Scope,
    hosts: Sequence[str],
    home: Path,
    adopt: bool,
) -> InstallPlan:
    state = State.load(home)
    trees = TreeCache.load(home)
    owned = state.owned_by(owner.owns, tuple(hosts), scope.id)
    by_target: dict[str, list[Entry]] = {}
    for entry in _merge_shared(wanted):
        by_target.setdefault(entry.target, []).append(entry)
    run = _Run(state, Claim(state, owner, scope.id, adopt), trees, project_of(scope))
    for target in sorted(set(by_target) | set(owned)):
        run.plan_target(target, by_target.get(target, []), owned.get(target, {}))
    trees.save()  # a cache of folder signatures, not an install write
    return InstallPlan(
        hub=owner.id,
        revision="",
        scope=scope,
        hosts=tuple(hosts),
        changes=tuple(run.changes),
        coverage=(),
        conflicts=tuple(run.conflicts),
        state_after=run.new_state,
        inputs=run.inputs,
        state=state,
        merged=run.merged,
        adopt=adopt,
        owner=owner,
    )


class _Run:
    """One planning pass over the targets: the changes, conflicts and state it builds."""

    def __init__(self, state: State, claim: Claim, trees: TreeCache, within: Path | None) -> None:
        self.state, self.claim, self.trees, self.within = state, claim, trees, within
        self.changes: list[TargetChange] = []
        self.conflicts: list[str] = []
        self.inputs: dict[str, tuple[list[Entry], dict[str, Owned], dict[str, Any] | None]] = {}
        self.merged: dict[str, tuple[bytes | None, bytes | None]] = {}
        self.new_state = State(
            {t: dict(e) for t, e in state.targets.items()},
            {t: dict(b) for t, b in state.bases.items()},
            made={t: set(m) for t, m in state.made.items()},
        )
        self.made = {folder for base in state.bases.values() for folder in base.get("dirs", ())}
        self.folders: targetfs.Folders = {}
        self.absent: dict[str, bool] = {}  # folders found missing in this pass (lstat once)
        self.parents: dict[str, list[str]] = {}  # folder -> the folders made above it

    def plan_target(self, target: str, desired: list[Entry], mine: dict[str, Owned]) -> None:
        kind = format_of(desired, mine)
        # Before anything is read: a FIFO, a link loop, a link out of the project or a
        # dangling link is refused here, so plan, diff and apply alike stop (exit 2).
        info = targetfs.check(
            target, folder=kind == "tree", within=self.within, folders=self.folders
        )
        if kind == "tree":
            change, conflicts, keep = plan_tree(target, desired, mine, self.claim, self.trees)
        else:
            # JSON only: tomledit already keeps every table the person wrote
            containers = self.state.made_in(target) if kind == "json" else None
            change, conflicts, keep = plan_document(
                target, desired, mine, self.claim, made=containers
            )
            self.merged[target] = (change.before, change.after)
            if containers is not None:
                self.new_state.made[target] = containers
        self.conflicts += conflicts
        entries = {k: o for k, o in self.new_state.targets.get(target, {}).items() if k not in mine}
        entries.update(keep)
        self.new_state.targets[target] = entries
        change, base, restore = settle_base(
            change, self.state, bool(entries), self.made, self.absent, self.parents
        )
        if base is None:
            self.new_state.bases.pop(target, None)
        else:
            self.new_state.bases[target] = base
        self.inputs[target] = (desired, mine, restore)
        if change.kind != "unchanged":
            targetfs.writable(Path(target), info)  # the stat followed a link to its file
        self.changes.append(change)


def settle_base(
    change: TargetChange,
    state: State,
    owned_after: bool,
    made: set[str],
    absent: dict[str, bool] | None = None,
    parents: dict[str, list[str]] | None = None,
) -> tuple[TargetChange, dict[str, Any] | None, dict[str, Any] | None]:
    """(the change, the target's base after it, the base it returns to) for one target.

    A base is what the target was before memhub's first write (its bytes, and the folders
    memhub made for it) and the digest of memhub's last write. While the target still has
    that digest nobody else changed it, so when memhub's last entry goes the target returns
    to its base byte for byte; once someone else changed it, only entries are removed.
    `absent` and `parents` remember folders for one planning pass (see `_made_parents`).
    """
    target, document = change.path, change.format != "tree"
    base = state.bases.get(target)
    if document and base is not None and base.get("last") != change.actual:
        base = None  # changed by someone else since memhub's last write: no way back
    if not owned_after:
        if base is None:
            return change, None, None
        prune = tuple(base.get("dirs", ()))
        if not document:
            return replace(change, prune=prune), None, None
        pre = base.get("pre")
        after = None if pre is None else base64.b64decode(pre)
        change = replace(
            change, after=after, kind=kind_of_change(change.before, after), prune=prune
        )
        return change, None, base
    if state.targets.get(target):  # memhub wrote here before: the base stays the first one
        if base is None or not document:
            return change, base, None
        return change, {**base, "last": file_digest(change.after)}, None
    folder = os.path.dirname(os.fspath(Path(target)))
    known = None if parents is None else parents.get(folder)
    if known is None:
        known = _made_parents(folder, made, {} if absent is None else absent)
        if parents is not None:
            parents[folder] = known
    first: dict[str, Any] = {"dirs": list(known)}
    if document:
        pre = None if change.before is None else base64.b64encode(change.before).decode()
        first.update(pre=pre, last=file_digest(change.after))
    return change, first, None


def _made_parents(folder: str, made: set[str], absent: dict[str, bool]) -> list[str]:
    """`folder` and the folders above it that memhub makes for a target inside it, or made
    for another target (`made`), innermost first: whichever of their targets goes last
    removes them. `absent` remembers, for this planning pass, which folders are not there
    (so the answer for a folder holds for the whole pass)."""
    found = []
    name = folder
    while name != os.path.dirname(name):
        if name not in absent:
            absent[name] = not os.path.lexists(name)
        if not (name in made or absent[name]):
            break
        found.append(name)
        name = os.path.dirname(name)
    return found


def project_of(scope: Scope) -> Path | None:
    """The folder no project-scope write may leave through a link (None at user scope)."""
    return scope.project if scope.kind == "project" else None


def _writes(changes: list[TargetChange]) -> Iterable[tuple[str, bytes | None, bytes | None]]:
    """(file, before, after) for every file a plan would write, folders file by file."""
    for change in changes:
        if change.kind in ("unchanged", "delete"):
            continue
        if change.format != "tree":
            yield change.path, change.before, change.after
            continue
        old = {rel: data for rel, data, _ in change.before_files}
        for rel, data, _ in change.files:
            yield f"{change.path}/{rel}", old.get(rel), data


def _merge_shared(entries: list[Entry]) -> list[Entry]:
    """Hosts that read the same folder (Codex and Gemini: .agents/skills) share one entry,
    written once."""
    merged: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        seen = merged.get((entry.target, entry.key))
        if seen is None:
            merged[(entry.target, entry.key)] = entry
        elif seen.digest == entry.digest:
            merged[(entry.target, entry.key)] = replace(seen, host=f"{seen.host},{entry.host}")
        else:
            raise MemhubError(
                f"{entry.target}: {seen.host} and {entry.host} want different "
                "contents. Fix: this is a memhub bug; please report it"
            )
    return list(merged.values())
