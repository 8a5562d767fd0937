"""`plan(artifacts, root) -> Plan`: what writing a build into `root` would change. Read-only."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memhub.compiler.artifact import LINK_MODE, Artifact, is_link_entry
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
            self.kind == "update"
            and self.target is not None
            and self.target.link is None
            and not is_link_entry(self.before_mode or 0)
            and self.before == self.target.content
        )

    @property
    def is_link(self) -> bool:
        """A link is written or was there (diff shows `-> target`, not bytes)."""
        return (self.target is not None and self.target.link is not None) or is_link_entry(
            self.before_mode or 0
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
    """Regular files and links under `root` by POSIX relative path (skipping .git); a
    linked folder is listed as the link, never walked into."""
    if not root.is_dir():
        return {}
    found: dict[str, Path] = {}
    for folder, dirs, names in os.walk(root):  # os.walk does not follow links
        base = Path(folder)
        if base == root:
            dirs[:] = [d for d in dirs if d not in _IGNORED_DIRS]
        for name in dirs + names:
            path = base / name
            if path.is_symlink() or (name in names and path.is_file()):
                found[path.relative_to(root).as_posix()] = path
    return found


def _read(path: Path) -> tuple[bytes, int]:
    """(bytes, mode) of what is there: a link as its target text and LINK_MODE."""
    if path.is_symlink():
        return os.fsencode(os.readlink(path)), LINK_MODE
    return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)


def _digest(content: bytes, mode: int) -> str:
    return f"link:{os.fsdecode(content)}" if is_link_entry(mode) else file_digest(content)


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
        content, mode = _read(path)
        same = (content, is_link_entry(mode)) == (artifact.entry[0], artifact.link is not None)
        if artifact.link is None and not is_link_entry(mode):
            same = same and bool(mode & 0o100) == artifact.is_executable
        changes.append(
            Change(
                artifact.path,
                "unchanged" if same else "update",
                artifact,
                _digest(content, mode),
                content,
                mode,
            )
        )
    if prune:
        for rel, path in present.items():
            content, mode = _read(path)
            changes.append(Change(rel, "delete", None, _digest(content, mode), content, mode))
    return Plan(str(root), tuple(sorted(changes, key=lambda c: c.path)))
