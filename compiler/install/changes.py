"""What an install plan is made of: one change per target file or folder, the plan, and
who plans (the claim on entries that decides conflicts and pre-images)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from memhub.compiler.digest import file_digest
from memhub.compiler.hosts import CoverageRow
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.state import Owned, Owner, State
from memhub.compiler.plan import ChangeKind
from memhub.hubspec.errors import MemhubError

# How plan and diff name a target: a ChangeKind, or `conflict` for one memhub owns that
# was changed by hand since memhub last wrote it (apply refuses it without --force).
Word = ChangeKind | Literal["conflict"]


class InstallConflict(MemhubError):
    """An entry of the same name exists and memhub does not own it."""

    exit_code = 2


class TargetParseError(MemhubError):
    """A target file does not parse; it is left alone."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class Drift:
    """An owned entry changed by hand since memhub wrote it: target / last-written / actual
    (the digests of what apply would write, of what memhub wrote, of what is there)."""

    key: str
    target: str | None
    last_written: str
    actual: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.key,
            "target": self.target,
            "last_written": self.last_written,
            "actual": self.actual,
        }


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
    drift: tuple[Drift, ...] = ()  # owned entries edited by hand since memhub wrote them

    @property
    def word(self) -> Word:
        """What plan prints for it: `conflict` when apply would overwrite a hand edit."""
        return "conflict" if self.drift and self.kind != "unchanged" else self.kind

    def to_json(self) -> dict[str, Any]:
        after = file_digest(self.after) if self.after is not None else None
        return {
            "path": self.path,
            "kind": self.kind,
            "actual": self.actual,
            "after": after,
            "entries": list(self.entries),
            **({"prune": list(self.prune)} if self.prune else {}),
            # an update (or delete) that would overwrite a hand edit: plan's `conflict`
            **({"conflict": True} if self.word == "conflict" else {}),
            **({"drift": [d.to_json() for d in self.drift]} if self.drift else {}),
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

    def settled(self) -> InstallPlan:
        """This plan once applied: what planning the same run again finds (nothing to do)."""
        quiet = tuple(replace(c, kind="unchanged", drift=(), prune=()) for c in self.changes)
        return replace(self, changes=quiet)

    @property
    def drifted(self) -> tuple[TargetChange, ...]:
        """Pending changes that would overwrite an owned entry edited by hand."""
        return tuple(c for c in self.pending if c.word == "conflict")


@dataclass(frozen=True, slots=True)
class Claim:
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


def pre_of(owned: Owned) -> dict[str, Any] | None:
    """An adopted entry's pre-image record, None for an entry memhub created."""
    return None if owned.pre is None else json.loads(owned.pre)


def restored_owner(key: str, pre: dict[str, Any] | None) -> dict[str, Owned]:
    """The previous owner of an adopted entry, given back its entry."""
    if pre is None or not pre.get("owner"):
        return {}
    return {key: Owned(**pre["owner"])}


def tree_value(files: Iterable[tuple[str, bytes, int]]) -> dict[str, Any]:
    """A folder as JSON data (a pre-image in the state)."""
    return {rel: [base64.b64encode(data).decode(), mode] for rel, data, mode in files}


def tree_files(value: dict[str, Any]) -> tuple[tuple[str, bytes, int], ...]:
    return tuple((rel, base64.b64decode(d), mode) for rel, (d, mode) in sorted(value.items()))


def kind_of_change(before: bytes | None, after: bytes | None) -> ChangeKind:
    if before == after:
        return "unchanged"
    if after is None:
        return "delete"
    return "create" if before is None else "update"
