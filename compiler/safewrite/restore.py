"""`memhub restore`: put back the first-touch originals, or an archive an earlier restore
made; the state it replaces is archived first, so a restore can itself be restored."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memhub.compiler.digest import ABSENT, file_digest, tree_digest
from memhub.compiler.formats import jsondump
from memhub.compiler.safewrite import fsops, store
from memhub.compiler.safewrite import journal as jr
from memhub.compiler.safewrite.durable import Tree, make_private_dir, write_private
from memhub.compiler.safewrite.errors import (
    StaleTargetError,
    UnknownArchiveError,
    WriteError,
    load_kept,
)
from memhub.compiler.safewrite.journal import Journal
from memhub.compiler.safewrite.lock import canonical_home, operation_lock
from memhub.compiler.safewrite.recovery import recover
from memhub.compiler.safewrite.transaction import Transaction

ORIGINALS = "originals"
"""The source of `memhub restore --originals`; any other source names an archive."""


def _archive(home: Path, paths: list[str]) -> tuple[Path, dict[str, str]]:
    """Copy the current state of `paths` under recovery/archives/<id>/; path -> fingerprint."""
    folder = make_private_dir(store.archives_dir(home))
    archive = make_private_dir(folder / store.new_id([p.name for p in folder.iterdir()]))
    manifest: dict[str, dict[str, Any]] = {}
    found: dict[str, str] = {}
    for number, path in enumerate(paths):
        target, name = Path(path), str(number)
        record: dict[str, Any]
        if os.path.isdir(target):
            files, mode = fsops.read_tree(target)
            assert files is not None
            store.store_tree(archive, name, files)
            modes = {rel: m for rel, (_, m) in files.items()}
            record = {"kind": "tree", "stored": name, "mode": mode, "modes": modes}
            record["sha"] = tree_digest(files)
        else:
            data, mode = fsops.read_file(target)
            if data is None:
                record = {"kind": ABSENT, "stored": None, "mode": None, "sha": ABSENT}
            else:
                store.store_file(archive, name, data)
                record = {"kind": "file", "stored": name, "mode": mode}
                record["sha"] = file_digest(data)
        manifest[path] = record
        found[path] = record["sha"]
    write_private(
        archive / "manifest.json",
        jsondump.dumps(manifest, indent=2, ensure_ascii=True).encode() + b"\n",
    )
    return archive, found


def _run_projects(home: Path, runs: set[str]) -> dict[str, Path | None]:
    """The project each of `runs` wrote inside (its journal's `within`), None at user scope."""
    found: dict[str, Path | None] = {}
    for path in jr.journal_paths(home):
        run = path.name.removesuffix(jr.JOURNAL_SUFFIX)
        if run in runs:
            within = Journal.load(path).meta.get("within")
            found[run] = Path(within) if within else None
    return found


@dataclass(frozen=True, slots=True)
class RestorePlan:
    """What a restore would change, read before asking: shown, confirmed, then re-checked.

    `records` holds the recorded state (kind, sha, stored, mode, modes) of every path the
    source knows; `current` the fingerprint of each now. Only paths whose two differ change.
    """

    source: str
    store: Path
    records: Mapping[str, Mapping[str, Any]]
    current: Mapping[str, str]
    folders: tuple[str, ...] = ()

    @property
    def changes(self) -> list[str]:
        """The paths the restore would write, in record order."""
        return [p for p, r in self.records.items() if self.current[p] != r["sha"]]

    def stored(self, path: str) -> bytes | Tree | None:
        """The recorded copy of `path`: bytes, a folder's files, or None when absent."""
        record = self.records[path]
        if record["sha"] == ABSENT or record["kind"] == ABSENT:
            return None
        if record["kind"] == "tree":
            return load_kept(
                lambda: store.load_tree(
                    self.store, record["stored"], record["modes"], record["sha"]
                )
            )
        return load_kept(lambda: store.load_file(self.store, record["stored"], record["sha"]))


@dataclass(frozen=True, slots=True)
class RestoreResult:
    changed: list[Path]
    archive: str | None
    """The id of the archive holding the state the restore replaced (None: nothing changed)."""


def archive_ids(home: Path) -> list[str]:
    """The archives `restore` made, oldest first (ids sort by time)."""
    folder = store.archives_dir(canonical_home(home))
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / "manifest.json").is_file())


def _plan_originals(home: Path) -> RestorePlan:
    """What `restore --originals` would do."""
    originals = store.Originals(home)
    all_records = originals.records()
    records = {p: r for p, r in all_records.items() if r["kind"] != "newdir"}
    folders = sorted(
        (p for p, r in all_records.items() if r["kind"] == "newdir"),
        key=lambda p: (-len(Path(p).parts), p),
    )
    current = {p: fsops.fingerprint(Path(p)) for p in records}
    return RestorePlan(ORIGINALS, originals.folder, records, current, tuple(folders))


def plan_restore(home: Path, archive: str | None = None, *, settle: bool = True) -> RestorePlan:
    """What `restore --originals` (or, with `archive`, `restore --archive ID`) would do.

    Finishes any run a crash left open first (unless not `settle`: a preview that writes
    nothing), so the preview shows what the restore meets.
    """
    home = canonical_home(home)
    if settle:
        recover(home)
    if archive is None:
        return _plan_originals(home)
    known = archive_ids(home)
    if archive not in known:
        listed = f"use one of: {', '.join(known)} (newest last)" if known else "none exists yet"
        raise UnknownArchiveError(
            f"{store.archives_dir(home) / archive}: no such archive. Fix: {listed}"
        )
    folder = store.archives_dir(home) / archive
    try:
        records = json.loads((folder / "manifest.json").read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise WriteError(
            f"{folder / 'manifest.json'}: unreadable ({err}); nothing was restored"
        ) from err
    current = {p: fsops.fingerprint(Path(p)) for p in records}
    return RestorePlan(archive, folder, records, current)


def restore(home: Path, shown: RestorePlan) -> RestoreResult:
    """Carry out a restore that was shown: refuse, writing nothing, if any path differs from
    what the preview read; archive the current state first, then put back each recorded one.
    """
    home = canonical_home(home)
    with operation_lock(home):
        fresh = plan_restore(home, None if shown.source == ORIGINALS else shown.source)
        for path in dict.fromkeys([*fresh.current, *shown.current]):
            if fresh.current.get(path) != shown.current.get(path):
                raise StaleTargetError(
                    f"{path}: changed since the preview was shown; nothing was written. "
                    "Fix: run `memhub restore` again and review the new preview",
                    Path(path),
                )
        if not fresh.changes and not fresh.folders:
            return RestoreResult([], None)
        try:
            archive, current = _archive(home, list(fresh.records))
        except OSError as err:
            raise WriteError(f"{store.archives_dir(home)}: cannot archive ({err})") from err
        meta = {"archive": archive.name, "source": fresh.source}
        runs = {r["run"] for p in fresh.changes if (r := fresh.records[p]).get("run")}
        projects = _run_projects(home, runs)
        with Transaction(home, command="restore", meta=meta) as tx:
            for path in fresh.changes:
                state = dict(fresh.records[path])
                # each original stays inside the project of the run that first touched it
                tx.within = projects.get(state.get("run", ""))
                tx._put_state(Path(path), state, fresh.store, current[path])
            tx.within = None
            for folder in fresh.folders:
                tx._remove_dir(Path(folder))
            changed = list(dict.fromkeys(tx.changed))
        return RestoreResult(changed, archive.name)


def restore_originals(home: Path) -> list[Path]:
    """Put back every first-touch original (current state archived first); returns changes."""
    return restore(home, plan_restore(home)).changed
