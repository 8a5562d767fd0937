"""An install plan as the spine's Plan: what `memhub diff` renders for a bundle and an
install alike (one Plan for bundle diff, install diff, plan, apply and status)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from memhub.compiler.artifact import Artifact
from memhub.compiler.digest import bytes_hex
from memhub.compiler.install.changes import InstallPlan, TargetChange
from memhub.compiler.plan import Change, Plan


def as_plan(install: InstallPlan) -> Plan:
    """Every target as a Change rooted at `/`: documents with their bytes, skill folders as
    one line per file, unchanged ones counted without content; drift carried along."""
    return Plan("/", tuple(as_change(c) for c in install.changes))


def as_change(c: TargetChange) -> Change:
    rel = c.path.lstrip("/")
    if c.kind == "unchanged":
        # counted, never shown: no content to render (thousands of skill folders)
        suffix = "/ (folder)" if c.format == "tree" else ""
        return Change("/" + rel + suffix, c.kind, None, c.actual)
    if c.format == "tree":
        before = tree_listing(c.before_files) if Path(c.path).exists() else None
        after = tree_listing(c.files) if c.kind != "delete" else None
        name = rel + "/ (folder)"
    else:
        before, after, name = c.before, c.after, rel
    target = Artifact(name, after) if after is not None else None
    return Change("/" + name, c.kind, target, c.actual, before, drift=c.drift)


def tree_listing(files: Iterable[tuple[str, bytes, int]]) -> bytes:
    """A folder shown as one line per file (path, sha256, mode) so it diffs as text."""
    lines = [
        f"{rel}  sha256:{bytes_hex(data)[:16]}  {mode:o}\n" for rel, data, mode in sorted(files)
    ]
    return "".join(lines).encode()
