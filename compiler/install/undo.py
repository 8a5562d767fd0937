"""Undoing an install run, and reading what an owned entry holds now (drift)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from memhub.compiler.install.changes import TargetParseError
from memhub.compiler.install.editors import PARSE_ERRORS, Pruner
from memhub.compiler.install.entries import EntryKey
from memhub.compiler.install.kinds import KINDS, TREE
from memhub.compiler.install.merge import read_target
from memhub.compiler.install.state import STATE_FILE, Container, Owned, State
from memhub.hubspec.errors import MemhubError


class UndoEntryConflict(MemhubError):
    """An entry memhub wrote was changed after the run being undone."""

    exit_code = 3


def undo_install(home: Path) -> list[Path]:
    """Undo the last run; where a host rewrote a file since, revert only memhub's entries."""
    from memhub.compiler.safewrite.undo import undo_last

    return undo_last(home, undo_resolver(home))


def undo_resolver(home: Path) -> Any:
    """The safewrite undo Resolver that reverts only memhub's entries of a file a host
    rewrote since the run (for undo and its --dry-run preview)."""
    from memhub.compiler.safewrite.store import load_file, run_store

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
            reverted, conflicts = revert_entries(target, pre, now, before, after, may_prune)
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

    return resolve


def _made_by_the_run(before: set[Container] | None, after: set[Container] | None) -> Pruner:
    """Which containers undoing a run may prune: those the run made (any, for an old state)."""
    if after is None:
        return lambda container: True
    return lambda container: container in after and container not in (before or set())


def revert_entries(
    target: str,
    pre: bytes | None,
    now: bytes,
    before: dict[str, Owned],
    after: dict[str, Owned],
    may_prune: Callable[[Container], bool],
) -> tuple[bytes, list[str]]:
    """`now` with every entry the run changed put back as it was in `pre`; a container
    the run's entries leave empty goes only when `may_prune` says the run made it."""
    text, old = now.decode("utf-8"), (pre or b"").decode("utf-8")
    conflicts: list[str] = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) == after.get(key):
            continue
        parsed = EntryKey.parse(key)
        kind = KINDS[parsed.kind]
        text, conflict = kind.revert(text, old, parsed, before.get(key), after.get(key), may_prune)
        if conflict is not None:
            conflicts.append(f"{target}: {conflict}")
    return text.encode("utf-8"), conflicts


def current_digest(target: str, key: str) -> str | None:
    """The digest of what owned entry `key` of `target` holds now, None when it is gone.

    Drift is a digest that differs from the one the state recorded when memhub wrote it.
    """
    parsed = EntryKey.parse(key)
    if parsed.kind == "tree":
        return TREE.digest_at(target)
    data = read_target(Path(target))
    if data is None:
        return None
    try:
        return KINDS[parsed.kind].digest(data.decode("utf-8"), parsed)
    except PARSE_ERRORS as exc:
        raise TargetParseError(f"{target}: {exc}. Fix: repair the file") from None
