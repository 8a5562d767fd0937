"""`plan(artifacts, root) -> Plan`: what writing a build into `root` would change. Read-only."""

from __future__ import annotations

import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memhub.compiler.artifact import Artifact
from memhub.compiler.digest import file_digest

ChangeKind = Literal["create", "update", "delete", "unchanged"]
BUILD_MARKER = ".memhub-build.json"
_IGNORED_DIRS = {".git"}


@dataclass(frozen=True, slots=True)
class Change:
    """One path: what should be there (`target`) against what is there (`actual`)."""

    path: str
    kind: ChangeKind
    target: Artifact | None
    actual: str | None
    before: bytes | None = None
    before_mode: int | None = None
    # install only: owned entries edited by hand since memhub wrote them (install.Drift:
    # target / last-written / actual), which make this change a `conflict`
    drift: tuple[Any, ...] = ()

    @property
    def word(self) -> str:
        """What plan and diff call it: the kind, or `conflict` over a hand edit."""
        return "conflict" if self.drift and self.kind != "unchanged" else self.kind

    @property
    def mode_only(self) -> bool:
        return (
            self.kind == "update" and self.target is not None and self.before == self.target.content
        )

    def to_json(self) -> dict[str, object]:
        item: dict[str, object] = {
            "path": self.path,
            "kind": self.kind,
            "actual": self.actual,
            "target": self.target.fingerprint if self.target else None,
        }
        if self.drift:
            item["conflict"] = self.word == "conflict"
            item["drift"] = [d.to_json() for d in self.drift]
        return item


@dataclass(frozen=True, slots=True)
class Plan:
    root: str
    changes: tuple[Change, ...]

    @property
    def pending(self) -> tuple[Change, ...]:
        """Changes that would write or delete something."""
        return tuple(c for c in self.changes if c.kind != "unchanged")

    def counts(self) -> dict[str, int]:
        out = {"create": 0, "update": 0, "delete": 0, "unchanged": 0}
        for change in self.changes:
            out[change.kind] += 1
        return out


def existing_files(root: Path) -> dict[str, Path]:
    """Regular files under `root` by POSIX relative path (skipping .git)."""
    if not root.is_dir():
        return {}
    found: dict[str, Path] = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if rel.parts[0] in _IGNORED_DIRS:
            continue
        if path.is_file() and not path.is_symlink():
            found[rel.as_posix()] = path
    return found


def plan(artifacts: Iterable[Artifact], root: Path, *, prune: bool = True) -> Plan:
    """Compare artifacts with the files under `root`; with `prune`, extra files are deletes."""
    present = existing_files(root)
    present.pop(BUILD_MARKER, None)
    changes: list[Change] = []
    for artifact in artifacts:
        path = present.pop(artifact.path, None)
        if path is None:
            changes.append(Change(artifact.path, "create", artifact, None))
            continue
        content = path.read_bytes()
        mode = stat.S_IMODE(path.stat().st_mode)
        same = content == artifact.content and bool(mode & 0o100) == artifact.is_executable
        changes.append(
            Change(
                artifact.path,
                "unchanged" if same else "update",
                artifact,
                file_digest(content),
                content,
                mode,
            )
        )
    if prune:
        for rel, path in present.items():
            content = path.read_bytes()
            changes.append(Change(rel, "delete", None, file_digest(content), content))
    return Plan(str(root), tuple(sorted(changes, key=lambda c: c.path)))
