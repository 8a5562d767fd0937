"""Install planning: the hub's entries for each host, merged into that host's own files.

`plan_install` only reads: it computes, per target file, the bytes after inserting,
replacing or removing exactly the entries this hub owns, and the conflicts that forbid
it. `apply_install` re-plans under the operation lock, refuses when a target changed
since the plan (exit 3), and writes through one journaled transaction.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memhub.compiler.artifact import EXEC_MODE, FILE_MODE
from memhub.compiler.digest import file_digest, tree_digest
from memhub.compiler.formats import jsonedit, textblock, tomledit
from memhub.compiler.formats.document import MISSING, Document
from memhub.compiler.hosts import INSTALLERS, CoverageRow
from memhub.compiler.hosts.common import HOOK_EXECUTABLE, LAUNCHER_EXECUTABLE
from memhub.compiler.install.entries import Entry, value_digest
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.secrets import env_file_warnings, refuse_leaks, secret_values
from memhub.compiler.install.state import STATE_FILE, Container, Owned, Owner, State
from memhub.compiler.install.treecache import TreeCache
from memhub.compiler.plan import ChangeKind
from memhub.compiler.safewrite import targetfs
from memhub.compiler.safewrite.errors import StaleTargetError
from memhub.compiler.safewrite.fsops import fingerprint, read_folder
from memhub.compiler.safewrite.lock import operation_lock
from memhub.compiler.safewrite.transaction import Transaction
from memhub.hubspec.errors import MemhubError
from memhub.hubspec.model import Hub


class InstallConflict(MemhubError):
    """An entry of the same name exists and memhub does not own it."""

    exit_code = 2


class TargetParseError(MemhubError):
    """A target file does not parse; it is left alone."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class TargetChange:
    """One target file or skill folder: what is there and what apply would leave there."""

    path: str
    kind: ChangeKind
    format: str
    actual: str
    before: bytes | None = None
    after: bytes | None = None
    files: tuple[tuple[str, bytes, int], ...] = ()
    entries: tuple[str, ...] = ()
    before_files: tuple[tuple[str, bytes, int], ...] = ()
    prune: tuple[str, ...] = ()  # empty folders memhub created for it, removed after it

    def to_json(self) -> dict[str, Any]:
        after = fingerprint_bytes(self.after) if self.after is not None else None
        return {
            "path": self.path,
            "kind": self.kind,
            "actual": self.actual,
            "after": after,
            "entries": list(self.entries),
            **({"prune": list(self.prune)} if self.prune else {}),
        }


@dataclass(frozen=True, slots=True)
class InstallPlan:
    hub: str
    revision: str
    scope: Scope
    hosts: tuple[str, ...]
    changes: tuple[TargetChange, ...]
    coverage: tuple[CoverageRow, ...]
    conflicts: tuple[str, ...]
    state_after: State = field(repr=False, default_factory=State)
    # what re-merging a document needs when a host rewrites it under us (CAS): the
    # entries, the owned ones, and the base it returns to when nothing else changed it
    inputs: dict[str, tuple[list[Entry], dict[str, Owned], dict[str, Any] | None]] = field(
        repr=False, default_factory=dict
    )
    state: State = field(repr=False, default_factory=State)
    # per document, the bytes the plan read and what merging the entries made of them:
    # apply's compare-and-swap finding the same bytes takes that result, not a second pass
    merged: dict[str, tuple[bytes | None, bytes | None]] = field(repr=False, default_factory=dict)
    adopt: bool = False
    warnings: tuple[str, ...] = ()
    owner: Owner = Owner("")

    @property
    def pending(self) -> tuple[TargetChange, ...]:
        return tuple(c for c in self.changes if c.kind != "unchanged")


@dataclass(frozen=True, slots=True)
class _Claim:
    """Who plans: the ownership state read, and the owner, scope and --adopt of this run."""

    state: State
    owner: Owner
    scope: str
    adopt: bool

    def blocked(self, target: str, entry: Entry) -> bool:
        """Whether an existing entry of this name belongs to someone else (a conflict)."""
        owner = self.state.owner(target, entry.key)
        return (owner is None or not self.owner.owns(owner.hub)) and not self.adopt

    def own(self, target: str, entry: Entry, current: Any = None) -> Owned:
        """The state record for `entry`; taking over what is there (`current`, not None)
        keeps its pre-image, which removing the entry puts back."""
        owner = self.state.owner(target, entry.key)
        if owner is not None and self.owner.owns(owner.hub):
            pre = owner.pre
        elif current is None:
            pre = None
        else:
            pre = _pre_image(current, owner)
        return Owned(self.owner.id, entry.host, entry.digest, self.scope, pre)


def _pre_image(current: Any, owner: Owned | None) -> str:
    """What an adopted entry was and who owned it, as JSON for the state (its key order
    kept, so that it comes back exactly as it was)."""
    record = {"value": current, "owner": owner.to_json() if owner else None}
    return json.dumps(record, ensure_ascii=False, default=str)


def _pre(owned: Owned) -> dict[str, Any] | None:
    return None if owned.pre is None else json.loads(owned.pre)


def _tree_value(files: Iterable[tuple[str, bytes, int]]) -> dict[str, Any]:
    """A folder as JSON data (a pre-image in the state)."""
    return {rel: [base64.b64encode(data).decode(), mode] for rel, data, mode in files}


def _tree_files(value: dict[str, Any]) -> tuple[tuple[str, bytes, int], ...]:
    return tuple((rel, base64.b64decode(d), mode) for rel, (d, mode) in sorted(value.items()))


def _restored_owner(key: str, pre: dict[str, Any] | None) -> dict[str, Owned]:
    """The previous owner of an adopted entry, given back its entry."""
    if pre is None or not pre.get("owner"):
        return {}
    return {key: Owned(**pre["owner"])}


def fingerprint_bytes(content: bytes) -> str:
    return "sha256:" + hashlib.sha256(content).hexdigest()


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
    hub: Hub, scope: Scope, hosts: Sequence[str]
) -> tuple[list[Entry], list[CoverageRow]]:
    entries: list[Entry] = []
    coverage: list[CoverageRow] = []
    for host in hosts:
        found, rows = INSTALLERS[host].install_entries(hub, scope)
        entries += found
        coverage += rows
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
    wanted, coverage = ([], []) if remove_all else gather_entries(hub, scope, hosts)
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


def bare_script_warnings(entries: Iterable[Entry], scope: Scope) -> list[str]:
    """One warning per console script the entries name bare, with the files naming it.

    A memhub started from a source tree that pip never installed has no `memhub-hook`
    beside its interpreter (Scope.scripts is None), so hooks and launched servers name the
    script bare; a host runs them with its own PATH, which need not hold one, and then every
    hook and launched server fails to start. Saying so beats writing it silently."""
    if scope.scripts is not None:
        return []
    found: dict[str, set[str]] = {}
    for entry in entries:
        if entry.format in ("json", "toml"):
            for name in _bare_scripts(entry.value):
                found.setdefault(name, set()).add(entry.target)
    here = Path(sys.executable).parent
    return [
        f"{', '.join(sorted(found[name]))}: {_RUN_BY[name]} `{name}` by bare "
        f"name, because this memhub is not installed (no `{name}` script beside its "
        f"interpreter in {here}); a host whose PATH lacks `{name}` cannot run them. Fix: "
        f"install memhub with pip (`pip install .` in its source tree) so its scripts exist, "
        f"then apply again"
        for name in sorted(found)
    ]


_RUN_BY = {
    HOOK_EXECUTABLE: "hooks run",
    LAUNCHER_EXECUTABLE: "servers started through memhub's launcher run",
}


def _bare_scripts(value: Any) -> Iterable[str]:
    """The console scripts a value names bare as a command (a hook's command line, a
    server's `command`): strings that are the script's name or start with it and a space."""
    if isinstance(value, str):
        word = value.split(" ", 1)[0]
        if word in (HOOK_EXECUTABLE, LAUNCHER_EXECUTABLE):
            yield word
    elif isinstance(value, dict):
        for item in value.values():
            yield from _bare_scripts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _bare_scripts(item)


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
    claim = _Claim(state, owner, scope.id, adopt)
    by_target: dict[str, list[Entry]] = {}
    for entry in _merge_shared(wanted):
        by_target.setdefault(entry.target, []).append(entry)
    changes: list[TargetChange] = []
    conflicts: list[str] = []
    inputs: dict[str, tuple[list[Entry], dict[str, Owned], dict[str, Any] | None]] = {}
    new_state = State(
        {t: dict(e) for t, e in state.targets.items()},
        {t: dict(b) for t, b in state.bases.items()},
        made={t: set(m) for t, m in state.made.items()},
    )
    made = {folder for base in state.bases.values() for folder in base.get("dirs", ())}
    folders: targetfs.Folders = {}
    merged: dict[str, tuple[bytes | None, bytes | None]] = {}
    for target in sorted(set(by_target) | set(owned)):
        desired = by_target.get(target, [])
        mine = owned.get(target, {})
        kind = desired[0].format if desired else _format_of(mine)
        # Before anything is read: a FIFO, a link loop, a link out of the project or a
        # dangling link is refused here, so plan, diff and apply alike stop (exit 2).
        targetfs.check(target, folder=kind == "tree", within=_project(scope), folders=folders)
        if kind == "tree":
            change, target_conflicts, keep = _plan_tree(target, desired, mine, claim, trees)
        else:
            # JSON only: tomledit already keeps every table the person wrote
            containers = state.made_in(target) if kind == "json" else None  # updated below
            change, target_conflicts, keep = _plan_document(
                target, desired, mine, claim, made=containers
            )
            merged[target] = (change.before, change.after)
            if containers is not None:
                new_state.made[target] = containers
        conflicts += target_conflicts
        entries = {k: o for k, o in new_state.targets.get(target, {}).items() if k not in mine}
        entries.update(keep)
        new_state.targets[target] = entries
        change, base, restore = _settle_base(change, state, bool(entries), made)
        if base is None:
            new_state.bases.pop(target, None)
        else:
            new_state.bases[target] = base
        inputs[target] = (desired, mine, restore)
        if change.kind != "unchanged":
            targetfs.require_writable(Path(target))  # stat follows a link to its file
        changes.append(change)
    trees.save()  # a cache of folder signatures, not an install write
    return InstallPlan(
        hub=owner.id,
        revision="",
        scope=scope,
        hosts=tuple(hosts),
        changes=tuple(changes),
        coverage=(),
        conflicts=tuple(conflicts),
        state_after=new_state,
        inputs=inputs,
        state=state,
        merged=merged,
        adopt=adopt,
        owner=owner,
    )


def _settle_base(
    change: TargetChange, state: State, owned_after: bool, made: set[str]
) -> tuple[TargetChange, dict[str, Any] | None, dict[str, Any] | None]:
    """(the change, the target's base after it, the base it returns to) for one target.

    A base is what the target was before memhub's first write (its bytes, and the folders
    memhub made for it) and the digest of memhub's last write. While the target still has
    that digest nobody else changed it, so when memhub's last entry goes the target returns
    to its base byte for byte; once someone else changed it, only entries are removed.
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
        change = replace(change, after=after, kind=_kind(change.before, after), prune=prune)
        return change, None, base
    if state.targets.get(target):  # memhub wrote here before: the base stays the first one
        if base is None or not document:
            return change, base, None
        return change, {**base, "last": file_digest(change.after)}, None
    first: dict[str, Any] = {"dirs": [str(d) for d in _made_parents(Path(target), made)]}
    if document:
        pre = None if change.before is None else base64.b64encode(change.before).decode()
        first.update(pre=pre, last=file_digest(change.after))
    return change, first, None


def _made_parents(path: Path, made: set[str]) -> list[Path]:
    """The folders above `path` that memhub makes for it, or made for another target
    (`made`), innermost first: whichever of their targets goes last removes them."""
    found = []
    folder = path.parent
    while folder != folder.parent and (str(folder) in made or not os.path.lexists(folder)):
        found.append(folder)
        folder = folder.parent
    return found


def _project(scope: Scope) -> Path | None:
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
    """Hosts that read the same folder (Codex and Gemini: .agents/skills) share one entry."""
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


def _format_of(owned: dict[str, Owned]) -> str:
    key = next(iter(owned))
    return "tree" if key.startswith("tree:") else key.split("-")[0]


def _read(path: Path) -> bytes | None:
    """A target's bytes, None when absent; never blocks on a FIFO (see targetfs)."""
    return targetfs.read_file(path)[0]


def _kind(before: bytes | None, after: bytes | None) -> ChangeKind:
    if before == after:
        return "unchanged"
    if after is None:
        return "delete"
    return "create" if before is None else "update"


def _plan_document(
    target: str,
    desired: list[Entry],
    mine: dict[str, Owned],
    claim: _Claim,
    before: Any = None,
    made: set[Container] | None = None,
) -> tuple[TargetChange, list[str], dict[str, Owned]]:
    """`before`: None reads the file; _MISSING means absent; bytes are the current content.
    `made`: the JSON containers memhub made in it (State.made_in), updated in place as
    entries create and prune them; None lets a removal prune any container left empty."""
    path = Path(target)
    before = _read(path) if before is None else (None if before is _MISSING else before)
    text = before.decode("utf-8") if before is not None else ""
    fmt = desired[0].format if desired else _format_of(mine)
    try:
        return _edit_document(target, text, before, fmt, desired, mine, claim, made)
    except PARSE_ERRORS as exc:
        raise TargetParseError(
            f"{target}: {exc}. Fix: repair the file (memhub writes nothing to it until it parses)"
        ) from None


def _edit_document(
    target: str,
    text: str,
    before: bytes | None,
    fmt: str,
    desired: list[Entry],
    mine: dict[str, Owned],
    claim: _Claim,
    made: set[Container] | None,
) -> tuple[TargetChange, list[str], dict[str, Owned]]:
    path = Path(target)
    editor = _JsonEditor(text, target, made) if fmt == "json" else _EDITORS[fmt](text, target)
    conflicts: list[str] = []
    keep: dict[str, Owned] = {}
    desired_keys = {e.key for e in desired}
    for key, owned in mine.items():
        if key in desired_keys:
            continue
        pre = _pre(owned)
        if owned.adopted is not None and isinstance(editor, _TextEditor):
            editor.unwrap(key, owned.adopted)  # the person's text it wrapped stays
        elif pre is None:
            editor.remove(key, owned.digest)
        else:  # an adopted entry: what was there comes back, with its owner
            editor.restore(key, owned.digest, pre["value"])
            keep.update(_restored_owner(key, pre))
    for entry in desired:
        current = editor.current(entry)
        if current is _MISSING and isinstance(editor, _TextEditor) and entry.key not in mine:
            adopted = editor.adopt(entry)
            if adopted is not None:
                keep[entry.key] = replace(claim.own(target, entry), adopted=adopted)
                continue
        owner = claim.state.owner(target, entry.key)
        if entry.kind == "json-default":
            if current is _MISSING:
                editor.put(entry)
            continue
        if current is not _MISSING and claim.blocked(target, entry):
            who = f"memhub plugin {owner.hub}" if owner else "you or the host"
            what = "an identical hook in " if entry.kind == "json-item" else ""
            conflicts.append(
                f"{target}: {what}{'/'.join(entry.path)} exists and is owned by {who} "
                "(apply with --adopt to take it over)"
            )
            continue
        if current is _MISSING or value_digest(current) != entry.digest:
            editor.put(entry)
        previous = mine.get(entry.key)
        adopted = previous.adopted if previous is not None else None
        taken = None if current is _MISSING else current
        keep[entry.key] = replace(claim.own(target, entry, taken), adopted=adopted)
    after_text = editor.text
    after = after_text.encode("utf-8") if after_text or before is not None else None
    if (before is None and not keep) or (fmt == "text" and not after_text):
        after = None  # a Markdown file left empty was memhub's alone: it goes
    change = TargetChange(
        target,
        _kind(before, after),
        fmt,
        fingerprint(path),
        before,
        after,
        entries=tuple(sorted(set(keep) | set(mine))),
    )
    return change, conflicts, keep


def _plan_tree(
    target: str,
    desired: list[Entry],
    mine: dict[str, Owned],
    claim: _Claim,
    trees: TreeCache,
) -> tuple[TargetChange, list[str], dict[str, Owned]]:
    path = Path(target)
    if os.path.islink(path):
        return _linked_tree(target, desired)
    known = trees.lookup(target)
    # A folder as it was when it last held exactly the wanted files need not be read again.
    trusted = known is not None and bool(desired) and known[0] == desired[0].digest
    current: dict[str, tuple[bytes, int]] | None = None
    if known is not None and trusted:
        actual, before_files = known[1], desired[0].files
        exists = True
    else:
        current = read_folder(path)
        actual = tree_digest(current) if current is not None else fingerprint(path)
        before_files = tuple(
            (rel, data, mode) for rel, (data, mode) in sorted((current or {}).items())
        )
        if current is not None:
            trees.record(target, tree_value_digest(current), actual)
        exists = path.exists()
    if not desired:
        return _tree_removal(target, mine, exists, actual, before_files)
    (entry,) = desired
    if exists and claim.blocked(target, entry):
        message = f"{target}: the folder exists and memhub does not own it (apply with --adopt)"
        return TargetChange(target, "unchanged", "tree", actual), [message], {}
    same = trusted or (current is not None and _same_files(current, entry.files))
    change = TargetChange(
        target,
        "unchanged" if same else ("update" if exists else "create"),
        "tree",
        actual,
        files=entry.files,
        entries=(entry.key,),
        before_files=before_files,
    )
    taken = {"files": _tree_value(before_files)} if exists else None
    return change, [], {entry.key: claim.own(target, entry, taken)}


def _linked_tree(
    target: str, desired: list[Entry]
) -> tuple[TargetChange, list[str], dict[str, Owned]]:
    """A skill folder that is a link is the person's (a dotfiles checkout, say): memhub
    neither writes through it into what it points to nor replaces it, even with --adopt,
    and an uninstall leaves it (and what it points to) alone."""
    change = TargetChange(target, "unchanged", "tree", fingerprint(Path(target)))
    if not desired:
        return change, [], {}
    message = (
        f"{target}: is a link to {os.readlink(target)}; memhub neither writes through a "
        "link nor replaces one (not even with --adopt). Fix: remove the link (what it "
        "points to stays) and apply again, or rename the skill in the hub"
    )
    return change, [message], {}


def _tree_removal(
    target: str,
    mine: dict[str, Owned],
    exists: bool,
    actual: str,
    before_files: tuple[tuple[str, bytes, int], ...],
) -> tuple[TargetChange, list[str], dict[str, Owned]]:
    """Removing an owned folder: it goes, or, if memhub adopted it, its pre-image returns."""
    pre = next((p for p in map(_pre, mine.values()) if p is not None), None)
    if pre is None:
        kind: ChangeKind = "delete" if exists else "unchanged"
        change = TargetChange(target, kind, "tree", actual, entries=tuple(mine))
        return replace(change, before_files=before_files), [], {}
    files = _tree_files(pre["value"]["files"])
    same = exists and {r: (d, m) for r, d, m in before_files} == {r: (d, m) for r, d, m in files}
    change = TargetChange(
        target,
        "unchanged" if same else ("update" if exists else "create"),
        "tree",
        actual,
        files=files,
        entries=tuple(mine),
        before_files=before_files,
    )
    return change, [], _restored_owner(next(iter(mine)), pre)


def _same_files(
    current: dict[str, tuple[bytes, int]], files: tuple[tuple[str, bytes, int], ...]
) -> bool:
    if len(current) != len(files):
        return False
    for rel, data, mode in files:
        found = current.get(rel)
        if found is None or found[0] != data or bool(found[1] & 0o100) != bool(mode & 0o100):
            return False
    return True


_MISSING: Any = MISSING


class _JsonEditor:
    """Entry edits on one JSON document, through the format-preserving jsonedit.

    Lookups read the document parsed once, and members are set in one batch
    (formats.document); hook items and removals splice the text at once.

    `made` (see _plan_document) is what lets a removal tell memhub's containers from the
    person's: an object or array an entry's put created is recorded there, and a removal
    prunes only recorded ones (all of them when it is None: an old state)."""

    def __init__(self, text: str, target: str, made: set[Container] | None = None) -> None:
        self.target = target
        self.doc = Document("json", text)
        self.made = made
        self._present: set[Container] = set()  # containers known to exist in the text

    @property
    def text(self) -> str:
        return self.doc.text

    def _get(self, path: tuple[str, ...]) -> Any:
        return self.doc.get(path)

    def current(self, entry: Entry) -> Any:
        value = self._get(entry.path)
        if entry.kind != "json-item":
            return value
        items = value if isinstance(value, list) else []
        return next((item for item in items if value_digest(item) == entry.digest), _MISSING)

    def _record(self, kind: str, path: tuple[str, ...]) -> list[Container]:
        """The containers of an entry at `path` that are missing now (its put makes them).
        Innermost first, stopping at one that exists (all above it do)."""
        missing: list[Container] = []
        if self.made is None:
            return missing
        for container in reversed(_containers(kind, path)):
            if container in self._present or self._get(container) is not _MISSING:
                break
            missing.append(container)
        self._present.update(_containers(kind, path))  # the put that follows makes them
        return missing

    def _made(self, created: list[Container], pruned: Iterable[Container] = ()) -> None:
        self._present.difference_update(pruned)
        if self.made is not None:
            self.made.update(created)
            self.made.difference_update(pruned)

    def _may_prune(self, container: Container) -> bool:
        return self.made is None or container in self.made

    def put(self, entry: Entry) -> None:
        created = self._record(entry.kind, entry.path)
        if entry.kind == "json-item":
            self.doc.replace(jsonedit.append_item(self.doc.text, entry.path, entry.value))
        else:
            self.doc.set(entry.path, entry.value)
        self._made(created)

    def remove(self, key: str, digest: str) -> None:
        kind, _, rest = key.partition(":")
        path = tuple(rest.split("#", 1)[0].split("/"))
        pruned: list[Container] = []
        if kind == "json-item":
            items = self._get(path)
            for item in items if isinstance(items, list) else []:
                if value_digest(item) == digest:
                    text, pruned = _remove_hook_item(self.doc.text, path, item, self._may_prune)
                    self.doc.replace(text)
                    break
        elif kind == "json-key" and self._get(path) is not _MISSING:
            text, pruned = _remove_key(self.doc.text, path, self._may_prune)
            self.doc.replace(text)
        self._made([], pruned)

    def restore(self, key: str, digest: str, value: Any) -> None:
        """Put an adopted entry's pre-image back (an adopted hook was identical: it stays)."""
        kind, _, rest = key.partition(":")
        path = tuple(rest.split("#", 1)[0].split("/"))
        created = self._record(kind, path)
        if kind == "json-item":
            items = self._get(path)
            if not any(
                value_digest(i) == digest for i in (items if isinstance(items, list) else [])
            ):
                self.doc.replace(jsonedit.append_item(self.doc.text, path, value))
        else:
            self.doc.set(path, value)
        self._made(created)


class _TomlEditor:
    """Entry edits on one TOML document: parsed once, every table edit made in one batch
    (formats.document, tomledit: comments and layout kept)."""

    def __init__(self, text: str, target: str) -> None:
        self.target = target
        self.doc = Document("toml", text)

    @property
    def text(self) -> str:
        return self.doc.text

    def current(self, entry: Entry) -> Any:
        return self.doc.get(entry.path)

    def put(self, entry: Entry) -> None:
        self.doc.set(entry.path, entry.value)

    def remove(self, key: str, digest: str) -> None:
        self.doc.remove(tuple(key.partition(":")[2].split("/")))

    def restore(self, key: str, digest: str, value: Any) -> None:
        self.doc.set(tuple(key.partition(":")[2].split("/")), value)


class _TextEditor:
    """Entry edits on one Markdown file: memhub's marked blocks, every other byte kept."""

    def __init__(self, text: str, target: str) -> None:
        self.target = target
        self.text = text
        textblock.blocks(text)  # broken markers refuse the file before any edit

    def current(self, entry: Entry) -> Any:
        body = textblock.get(self.text, entry.path[0])
        return _MISSING if body is None else body

    def put(self, entry: Entry) -> None:
        self.text = textblock.put(self.text, entry.path[0], entry.value)

    def remove(self, key: str, digest: str) -> None:
        self.text = textblock.remove(self.text, key.partition(":")[2])

    def restore(self, key: str, digest: str, value: Any) -> None:
        self.text = textblock.put(self.text, key.partition(":")[2], value)

    def adopt(self, entry: Entry) -> str | None:
        """Wrap the person's own copy of the block's text in place; the text wrapped."""
        found = textblock.adopt(self.text, entry.path[0], entry.value)
        if found is None:
            return None
        self.text, original = found
        return original

    def unwrap(self, key: str, original: str) -> None:
        """An adopted block goes: the person's text it wrapped stays, as it was."""
        self.text = textblock.unwrap(self.text, key.partition(":")[2], original)


_EDITORS: dict[str, Any] = {"json": _JsonEditor, "toml": _TomlEditor, "text": _TextEditor}
PARSE_ERRORS = (jsonedit.JsonEditError, tomledit.TomlEditError, textblock.TextBlockError)


def plan_record(plan: InstallPlan) -> dict[str, Any]:
    """The saved plan: fingerprints and the hub revision, never file contents or secrets."""
    return {
        "memhub_plan": 1,
        "hub": plan.hub,
        "revision": plan.revision,
        "scope": plan.scope.kind,
        "project": str(plan.scope.project) if plan.scope.project else None,
        "hosts": list(plan.hosts),
        "targets": [c.to_json() for c in plan.changes],
    }


def check_fresh(saved: dict[str, Any], fresh: InstallPlan) -> None:
    """Refuse (exit 3) when the hub or any target changed since `saved` was made."""
    if saved.get("revision") != fresh.revision:
        raise StaleTargetError(
            f"{fresh.hub}: the hub changed since the plan was made. Fix: run `memhub plan` again"
        )
    actual = {t["path"]: t["actual"] for t in saved.get("targets", [])}
    for change in fresh.changes:
        if actual.get(change.path, "absent") != change.actual:
            raise StaleTargetError(
                f"{change.path}: changed since the plan was made. Fix: run `memhub plan` again"
            )


def apply_install(
    home: Path,
    make_plan: Callable[[], InstallPlan],
    *,
    saved: dict[str, Any] | None = None,
) -> InstallPlan:
    """Plan and write under one operation lock; each document is re-merged right before it
    is replaced (compare-and-swap), and a saved plan must still match (else exit 3)."""
    home.mkdir(parents=True, exist_ok=True)
    with operation_lock(home):
        fresh = make_plan()
        if fresh.conflicts:
            raise InstallConflict("conflicts:\n  " + "\n  ".join(fresh.conflicts))
        if saved is not None:
            check_fresh(saved, fresh)
        state_path = home / STATE_FILE
        quiet = fresh.state.same_entries(fresh.state_after) and not fresh.state.migrated
        if not fresh.pending and quiet:
            return fresh  # nothing to write: no journal, no run to undo
        with Transaction(home, command="apply", within=_project(fresh.scope)) as tx:
            for change in fresh.pending:
                target = Path(change.path)
                if change.format == "tree":
                    if change.kind == "delete":
                        tx.delete_tree(target)
                    else:
                        tx.write_tree(
                            target, {rel: (data, mode) for rel, data, mode in change.files}
                        )
                elif change.kind == "delete":
                    tx.delete(target, expect=change.actual)
                else:
                    tx.write_merged(target, _remerge(fresh, change.path))
            for folder in prune_order(fresh.pending):
                tx.remove_empty_dir(Path(folder))
            tx.write(state_path, fresh.state_after.to_bytes(), mode=0o600)
    return replace(fresh)


def _untouched(current: bytes | None, base: dict[str, Any]) -> bool:
    """Whether a file still holds exactly what memhub last wrote to it."""
    return file_digest(current) == base.get("last")


def prune_order(changes: Iterable[TargetChange]) -> list[str]:
    """The folders to remove if empty, deepest first, each once."""
    folders = {folder for change in changes for folder in change.prune}
    return sorted(folders, key=lambda f: (-len(Path(f).parts), f))


def _remerge(plan: InstallPlan, target: str) -> Any:
    """The CAS merge for one document: the same entry edits, on whatever bytes are there now
    (or the target's base, while it still holds exactly what memhub last wrote)."""
    desired, mine, restore = plan.inputs[target]

    def merge(current: bytes | None) -> bytes:
        if restore is not None and restore.get("pre") is not None and _untouched(current, restore):
            return base64.b64decode(restore["pre"])
        planned = plan.merged.get(target)
        if planned is not None and planned[0] == current:
            return planned[1] or b""  # the bytes the plan merged into: its result stands
        before: Any = _MISSING if current is None else current
        made = plan.state.made_in(target)  # a copy: state_after already holds the outcome
        change, conflicts, _ = _plan_document(
            target,
            desired,
            mine,
            _Claim(plan.state, plan.owner, plan.scope.id, plan.adopt),
            before=before,
            made=made,
        )
        if conflicts:
            raise InstallConflict("conflicts:\n  " + "\n  ".join(conflicts))
        return change.after or b""

    return merge


def load_saved_plan(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise MemhubError(
            f"{path}: not a memhub plan ({exc}). Fix: create one with `memhub plan --out`"
        ) from None
    if data.get("memhub_plan") != 1:
        raise MemhubError(f"{path}: not a memhub plan. Fix: create one with `memhub plan --out`")
    return data


class UndoEntryConflict(MemhubError):
    """An entry memhub wrote was changed after the run being undone."""

    exit_code = 3


def undo_install(home: Path) -> list[Path]:
    """Undo the last run; where a host rewrote a file since, revert only memhub's entries."""
    from memhub.compiler.safewrite.store import load_file, run_store
    from memhub.compiler.safewrite.undo import undo_last

    def state_before(run: Any) -> State:
        entry = next((e for e in run.entries if e["path"] == str(home / STATE_FILE)), None)
        if entry is None or entry["before"] == "absent":
            return State()
        store = run_store(home, run.run_id)
        return State.from_bytes(load_file(store, entry["pre"], entry["before"]))

    def resolve(run: Any, path: Path, pre: bytes | None, now: bytes | None) -> bytes | None:
        target = str(path)
        earlier, later = state_before(run), State.load(home)
        before, after = earlier.targets.get(target, {}), later.targets.get(target, {})
        if now is None or not (after or before):
            return None
        try:
            may_prune = _made_by_the_run(earlier.made_in(target), later.made_in(target))
            reverted, conflicts = _revert_entries(target, pre, now, before, after, may_prune)
        except (*PARSE_ERRORS, UnicodeDecodeError) as exc:
            # The host (or a person) left the file unparseable since the run: its entries
            # cannot be found to revert, and writing the pre-image would lose their edits.
            raise TargetParseError(
                f"{target}: cannot undo, the file no longer parses ({exc}). Fix: repair the "
                "file and run `memhub undo` again, or run `memhub restore --originals` "
                "(nothing was written)"
            ) from None
        if conflicts:
            raise UndoEntryConflict(
                "cannot undo: entries changed after memhub wrote them:\n  "
                + "\n  ".join(conflicts)
                + "\nFix: revert those edits, or run `memhub restore --originals`"
            )
        return reverted

    return undo_last(home, resolve)


def _made_by_the_run(before: set[Container] | None, after: set[Container] | None) -> Pruner:
    """Which containers undoing a run may prune: those the run made (any, for an old state)."""
    if after is None:
        return lambda container: True
    return lambda container: container in after and container not in (before or set())


def _revert_entries(
    target: str,
    pre: bytes | None,
    now: bytes,
    before: dict[str, Owned],
    after: dict[str, Owned],
    may_prune: Pruner,
) -> tuple[bytes, list[str]]:
    """`now` with every entry the run changed put back as it was in `pre`; a container
    the run's entries leave empty goes only when `may_prune` says the run made it."""
    is_json = not target.endswith(".toml")
    text, old = now.decode("utf-8"), (pre or b"").decode("utf-8")
    conflicts: list[str] = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) == after.get(key):
            continue
        kind, _, rest = key.partition(":")
        path = tuple(rest.split("#", 1)[0].split("/"))
        if kind == "json-default":
            continue
        if kind == "text-block":
            body = textblock.get(text, rest)
            if key in after and (body is None or value_digest(body) != after[key].digest):
                conflicts.append(f"{target}: memhub block {rest}")
                continue
            old_body = textblock.get(old, rest)
            adopted = after[key].adopted if key in after else None
            unwrapped = before[key].adopted if key in before and body is None else None
            if old_body is not None and unwrapped is not None:
                # The run gave the person's adopted text back: wrap it again where it
                # stands; appending the block would put the text in the file twice.
                found = textblock.rewrap(text, rest, old_body, unwrapped)
                if found is None:
                    conflicts.append(f"{target}: memhub block {rest} (the text it adopted)")
                    continue
                text = found[0]
            elif old_body is not None:
                text = textblock.put(text, rest, old_body)
            elif adopted is not None:
                text = textblock.unwrap(text, rest, adopted)
            else:
                text = textblock.remove(text, rest)
            continue
        if kind == "json-item":
            if key in after:
                items = _json_get(text, path)
                match = [i for i in items or [] if value_digest(i) == after[key].digest]
                if match:
                    text = _remove_hook_item(text, path, match[0], may_prune)[0]
            if key in before:
                olds = [
                    i for i in _json_get(old, path) or [] if value_digest(i) == before[key].digest
                ]
                if olds:
                    text = jsonedit.append_item(text, path, olds[0])
            continue
        get = _json_get if is_json else tomledit.get_table
        current = get(text, path)
        if key in after and (current is None or value_digest(current) != after[key].digest):
            conflicts.append(f"{target}: {'/'.join(path)}")
            continue
        previous = get(old, path) if old.strip() else None
        if is_json:
            text = (
                jsonedit.set_key(text, path, previous)
                if previous is not None
                else _remove_key(text, path, may_prune)[0]
            )
        else:
            text = (
                tomledit.set_table(text, path, previous)
                if previous is not None
                else tomledit.remove_table(text, path)
            )
    return text.encode("utf-8"), conflicts


Pruner = Callable[[Container], bool]  # whether an empty container is memhub's to remove


def _containers(kind: str, path: tuple[str, ...]) -> list[Container]:
    """The objects (and, for a hook, the array) an entry at `path` sits in, outermost first."""
    depth = len(path) if kind == "json-item" else len(path) - 1
    return [path[:i] for i in range(1, depth + 1)]


def _remove_hook_item(
    text: str, path: tuple[str, ...], item: Any, may_prune: Pruner
) -> tuple[str, list[Container]]:
    """Remove one array item; the array and parents it leaves empty go too, when memhub
    made them (`may_prune`). The text, and the containers pruned."""
    text = jsonedit.remove_item(text, path, item)
    return _prune_empty(text, _containers("json-item", path), may_prune)


def _remove_key(text: str, path: tuple[str, ...], may_prune: Pruner) -> tuple[str, list[Container]]:
    """Remove one member; the parents it leaves empty go too, when memhub made them."""
    text = jsonedit.remove_key(text, path, prune=False)
    return _prune_empty(text, _containers("json-key", path), may_prune)


def _prune_empty(
    text: str, containers: list[Container], may_prune: Pruner
) -> tuple[str, list[Container]]:
    """`text` without the empty ones of `containers`, innermost first, up to the first that
    is not empty or is the person's (an empty `"hooks": {}` they wrote stays theirs)."""
    pruned: list[Container] = []
    for container in reversed(containers):
        if _json_get(text, container) not in ({}, []) or not may_prune(container):
            break
        text = jsonedit.remove_key(text, container, prune=False)
        pruned.append(container)
    return text, pruned


def _json_get(text: str, path: tuple[str, ...]) -> Any:
    if not text.strip():
        return None
    try:
        return jsonedit.get_key(text, path)
    except KeyError:
        return None


def tree_value_digest(files: dict[str, tuple[bytes, int]]) -> str:
    """A folder's files as the digest its skill entry would have (only exec bits count)."""
    value = {
        rel: [hashlib.sha256(data).hexdigest(), EXEC_MODE if mode & 0o100 else FILE_MODE]
        for rel, (data, mode) in files.items()
    }
    return value_digest(value)


def current_digest(target: str, key: str) -> str | None:
    """The digest of what owned entry `key` of `target` holds now, None when it is gone.

    Drift is a digest that differs from the one the state recorded when memhub wrote it.
    """
    kind, _, rest = key.partition(":")
    if kind == "tree":
        files = read_folder(Path(target))
        return None if files is None else tree_value_digest(files)
    data = _read(Path(target))
    if data is None:
        return None
    text = data.decode("utf-8")
    where, _, item_digest = rest.partition("#")
    path = tuple(where.split("/"))
    value: str | dict[str, Any] | None  # a block's text, or a JSON/TOML value
    try:
        if kind == "json-item":
            items = _json_get(text, path)
            found = any(value_digest(i) == item_digest for i in items or [])
            return item_digest if found else None
        if kind == "text-block":
            value = textblock.get(text, where)
        elif kind.startswith("json"):
            value = _json_get(text, path)
        else:
            value = tomledit.get_table(text, path)
    except PARSE_ERRORS as exc:
        raise TargetParseError(f"{target}: {exc}. Fix: repair the file") from None
    return None if value is None else value_digest(value)
