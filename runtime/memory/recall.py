"""The server's directive recall (`recall_directives`): the hook's matcher and gate over records.

The MCP tool and the `recall.directives` hook answer alike: a record's triggers are read by
`directives.match` (paths, commands through the shell reader, identifiers and errors on
alphanumeric boundaries) against the call's handles (its file paths, its command, the failing
output), past the precision gate (`directives.blocked`: triggers shorter than four
characters, generic words, the account's and the repository's names never fire), at most
`MAX_FIRED`, longer matches first, none already fired. Stdlib.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import directives
from .records import Record

__all__ = ["MAX_FIRED", "directive_of", "match", "recall"]

MAX_FIRED = directives.MAX_DIRECTIVES


def directive_of(record: Record) -> directives.Directive:
    """The matcher's view of a record."""
    t = record.triggers
    triggers = {
        "paths": t.paths,
        "commands": t.commands,
        "identifiers": t.identifiers,
        "errors": t.errors,
    }
    return directives.Directive(
        record.id, record.kind, record.title, record.body, triggers, record.updated, 1,
        record.scope,
    )  # fmt: skip


def match(
    record: Record,
    args: Mapping[str, Any],
    output: str | None,
    stop: frozenset[str] = directives.GENERIC,
) -> str | None:
    """The trigger of `record` the call fires (its longest match past the gate), or None."""
    hit = directives.match(directive_of(record), directives.call_of(args, output), stop)
    return hit.trigger if hit is not None else None


def recall(
    records: Iterable[Record],
    args: Mapping[str, Any],
    output: str | None = None,
    already_fired: Sequence[str] = (),
    limit: int = MAX_FIRED,
    *,
    account: str = "",
    repo: str = "",
) -> list[tuple[Record, str]]:
    """The active directives the call fires (`directives.select`), each with its trigger."""
    pairs = [
        (directive_of(r), r) for r in records if r.status == "active" and not r.triggers.empty()
    ]
    of = {id(d): r for d, r in pairs}  # by object: a shared and a project record may share an id
    call = directives.call_of(args, output)
    stop = directives.blocked(account, repo)
    hits = directives.select([d for d, _ in pairs], call, stop, already_fired, limit)
    return [(of[id(h.directive)], h.trigger) for h in hits]
