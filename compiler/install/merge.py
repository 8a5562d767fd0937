"""Merging an install's entries into one host document: every owned entry that goes is
removed (or its pre-image put back), every wanted one is put, the rest of the file stays.

The document is parsed once and its edits are made in one batch (`editors`); each entry's
reading and writing is its kind's (`kinds`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from memhub.compiler.formats.document import MISSING
from memhub.compiler.install.changes import (
    Claim,
    Drift,
    TargetChange,
    TargetParseError,
    kind_of_change,
    pre_of,
    restored_owner,
)
from memhub.compiler.install.editors import PARSE_ERRORS, Editor, TextEditor, editor_for
from memhub.compiler.install.entries import Entry, EntryKey, key_format, value_digest
from memhub.compiler.install.kinds import KINDS, TextBlock
from memhub.compiler.install.state import Container, Owned
from memhub.compiler.safewrite import targetfs
from memhub.compiler.safewrite.fsops import fingerprint

Merged = tuple[TargetChange, list[str], dict[str, Owned]]  # the change, conflicts, owned after
_BLOCK = TextBlock()


def format_of(desired: list[Entry], mine: dict[str, Owned]) -> str:
    """The format of a target from its entries (wanted, else owned)."""
    return desired[0].format if desired else key_format(next(iter(mine)))


def read_target(path: Path) -> bytes | None:
    """A target's bytes, None when absent; never blocks on a FIFO (see targetfs)."""
    return targetfs.read_file(path)[0]


def plan_document(
    target: str,
    desired: list[Entry],
    mine: dict[str, Owned],
    claim: Claim,
    before: Any = None,
    made: set[Container] | None = None,
) -> Merged:
    """`before`: None reads the file; MISSING means absent; bytes are the current content.
    `made`: the JSON containers memhub made in it (State.made_in), updated in place as
    entries create and prune them; None lets a removal prune any container left empty."""
    before = (
        read_target(Path(target)) if before is None else (None if before is MISSING else before)
    )
    text = before.decode("utf-8") if before is not None else ""
    fmt = format_of(desired, mine)
    try:
        editor = editor_for(fmt, text, made)
        return _edit(target, editor, before, desired, mine, claim)
    except PARSE_ERRORS as exc:
        raise TargetParseError(
            f"{target}: {exc}. Fix: repair the file (memhub writes nothing to it until it parses)"
        ) from None


def _edit(
    target: str,
    editor: Editor,
    before: bytes | None,
    desired: list[Entry],
    mine: dict[str, Owned],
    claim: Claim,
) -> Merged:
    drift: list[Drift] = []
    keep = _remove_unwanted(editor, desired, mine, drift)
    conflicts: list[str] = []
    for entry in desired:
        owned = _put(target, editor, entry, mine.get(entry.key), claim, conflicts, drift)
        if owned is not None:
            keep[entry.key] = owned
    after_text = editor.text
    after = after_text.encode("utf-8") if after_text or before is not None else None
    if (before is None and not keep) or (editor.format == "text" and not after_text):
        after = None  # a Markdown file left empty was memhub's alone: it goes
    change = TargetChange(
        target,
        kind_of_change(before, after),
        editor.format,
        fingerprint(Path(target)),
        before,
        after,
        entries=tuple(sorted(set(keep) | set(mine))),
        drift=tuple(drift),
    )
    return change, conflicts, keep


def _remove_unwanted(
    editor: Editor, desired: list[Entry], mine: dict[str, Owned], drift: list[Drift]
) -> dict[str, Owned]:
    """Remove the owned entries no longer wanted (or put an adopted one's pre-image back);
    the owners given back their entries."""
    keep: dict[str, Owned] = {}
    wanted = {e.key for e in desired}
    for key, owned in mine.items():
        if key in wanted:
            continue
        parsed = EntryKey.parse(key)
        kind = KINDS[parsed.kind]
        _note_drift(drift, key, None, owned, _digest_now(editor, kind, parsed))
        pre = pre_of(owned)
        if owned.adopted is not None and isinstance(editor, TextEditor):
            _BLOCK.unwrap(editor, parsed, owned.adopted)  # the person's text it wrapped stays
        elif pre is None:
            kind.remove(editor, parsed, owned.digest)
        else:  # an adopted entry: what was there comes back, with its owner
            kind.restore(editor, parsed, owned.digest, pre["value"])
            keep.update(restored_owner(key, pre))
    return keep


def _put(
    target: str,
    editor: Editor,
    entry: Entry,
    previous: Owned | None,
    claim: Claim,
    conflicts: list[str],
    drift: list[Drift],
) -> Owned | None:
    """Put one wanted entry; its state record, None when it conflicts."""
    kind = KINDS[entry.kind]
    current = kind.get(editor, entry)
    if current is MISSING and isinstance(editor, TextEditor) and previous is None:
        adopted = _BLOCK.adopt(editor, entry)
        if adopted is not None:
            return replace(claim.own(target, entry), adopted=adopted)
    if entry.kind == "json-default":
        if current is MISSING:
            kind.put(editor, entry)
        return None
    if current is not MISSING and claim.blocked(target, entry):
        owner = claim.state.owner(target, entry.key)
        who = f"memhub plugin {owner.hub}" if owner else "you or the host"
        what = "an identical hook in " if entry.kind == "json-item" else ""
        conflicts.append(
            f"{target}: {what}{'/'.join(entry.path)} exists and is owned by {who} "
            "(apply with --adopt to take it over)"
        )
        return None
    digest = None if current is MISSING else value_digest(current)
    if digest != entry.digest:
        if previous is not None and entry.kind != "json-item":
            _note_drift(drift, entry.key, entry.digest, previous, digest)
        kind.put(editor, entry)
    adopted = previous.adopted if previous is not None else None
    owned = claim.own(target, entry, None if current is MISSING else current)
    return owned if adopted is None else replace(owned, adopted=adopted)


def _digest_now(editor: Editor, kind: Any, key: EntryKey) -> str | None:
    """The digest of what an owned entry holds in the editor's document now (read from
    its one parse, not the text again)."""
    if key.kind in ("json-item", "json-default"):
        return None  # content-addressed, or never removed: no hand edit to lose
    probe = Entry("", "", key.kind, (key.name,) if key.kind == "text-block" else key.path, None)
    current = kind.get(editor, probe)
    return None if current is MISSING else value_digest(current)


def _note_drift(
    drift: list[Drift], key: str, target: str | None, owned: Owned, actual: str | None
) -> None:
    """Record `key` as edited by hand when it holds something memhub did not write."""
    if actual is not None and actual != owned.digest:
        drift.append(Drift(key, target, owned.digest, actual))
