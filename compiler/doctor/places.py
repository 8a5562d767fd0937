"""Where each host reads, as its adapter declares it (`locations`), and which owned entries
belong to a scope.

Which owned entries belong to a scope is decided by place: user scope holds the entries in the
files and folders each host reads for the user, plus entries in no place any host reads at
all; project scope holds those in the project's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from memhub.compiler.doctor.rulebooks import in_scope, is_rulebook_folder
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.state import Owned, Owner, State


@dataclass(frozen=True, slots=True)
class Places:
    """The files and folders one host reads in one scope."""

    files: frozenset[str]
    folders: frozenset[str]  # folders whose sub-folders it reads (skills)
    hook_files: frozenset[str]
    mcp: tuple[str, str, tuple[str, ...]]  # (file, entry kind, container key path)

    def holds(self, target: str) -> bool:
        return target in self.files or str(Path(target).parent) in self.folders


def places(host: str, scope: Scope) -> Places:
    """Where `host` reads in `scope`, from the adapter's own `locations`."""
    from memhub.compiler.hosts.recall_settings import settings_path

    where = INSTALLERS[host].locations(scope)
    # a hooks place without a suffix is a folder of hub folders, as skills is (OpenCode's)
    hooks_folder = {str(where.hooks_file)} if not where.hooks_file.suffix else set()
    return Places(
        where.files | {str(settings_path(scope))},  # the runtime its hooks run reads it
        frozenset({str(where.skills), *hooks_folder}),
        frozenset({str(where.hooks_file)}),
        (str(where.mcp_file), where.mcp_kind, (where.mcp_key,)),
    )


def _suffix_root(path: Path, place: str) -> Path | None:
    """The project root `path` sits in if it is `place` (a project-relative path), else None."""
    rel = Path(place).parts[1:]
    if not rel or len(path.parts) <= len(rel) or path.parts[-len(rel) :] != rel:
        return None
    return Path(*path.parts[: -len(rel)])


@cache
def _project_places(host: str) -> Places:
    """Where `host` reads in a project at the file system root: project-relative places."""
    return places(host, Scope("project", Path(os.sep), Path(os.sep), {}))


def _in_a_project(target: str, hosts: Iterable[str], home: Path) -> bool:
    """Whether a host reads `target` in some project other than the home folder."""
    path = Path(target)
    for host in hosts:
        probe = _project_places(host)
        roots = [_suffix_root(path, f) for f in probe.files]
        roots += [_suffix_root(path.parent, d) for d in probe.folders]
        if any(root is not None and root != home for root in roots):
            return True
    return False


def owned_in_scope(
    state: State,
    kind: str,
    read_places: Mapping[str, Places],
    home: Path,
    *,
    hub: Owner | None = None,
    hosts: Iterable[str] | None = None,
) -> dict[str, dict[str, Owned]]:
    """The owned entries of this scope (of one hub and some hosts, when given), by target."""
    chosen = set(INSTALLERS if hosts is None else hosts)
    found: dict[str, dict[str, Owned]] = {}
    for target, entries in sorted(state.targets.items()):
        for key, owned in sorted(entries.items()):
            owners = [h for h in owned.host.split(",") if h in INSTALLERS]
            if (hub is not None and not hub.owns(owned.hub)) or not chosen & set(owners):
                continue
            if is_rulebook_folder(target):
                if in_scope(owned, kind):
                    found.setdefault(target, {})[key] = owned
                continue
            held = any(read_places[h].holds(target) for h in owners if h in read_places)
            if held or (kind == "user" and not _in_a_project(target, owners, home)):
                found.setdefault(target, {})[key] = owned
    return found
