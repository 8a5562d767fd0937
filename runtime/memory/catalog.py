"""Records as the index holds them: metadata without YAML, scoped listing in SQL.

The scanner stores each record's front matter fields as JSON beside its index document, so
listing, getting and recalling records on an unchanged memory rebuilds `Record`s from the
index alone: no file is read, no YAML parsed. Every query joins on the caller's (scope,
project) grants in SQL. Stdlib only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from typing import Any

from . import fts
from .memorymd import Line
from .records import Record, Source, Triggers

__all__ = ["Stored", "count_by_kind", "count_tags", "fields_json", "lines", "record_from", "select"]

_FIELDS = (
    *("id", "title", "kind", "scope", "project", "created", "updated", "tags", "status"),
    *("supersedes", "superseded_by", "name"),
)
_ALL = tuple(f.name for f in dataclass_fields(Record))


@dataclass(frozen=True)
class Stored:
    """A record from the index: the record, its file and its revision."""

    record: Record
    path: str
    revision: str


def fields_json(record: Record) -> str:
    """A record's fields except its body, as JSON (what `record_from` reads back)."""
    data: dict[str, Any] = {key: getattr(record, key) for key in _FIELDS}
    data["tags"] = list(record.tags)
    data["source"] = {k: v for k, v in vars(record.source).items() if v is not None}
    data["triggers"] = {k: list(v) for k, v in vars(record.triggers).items() if v}
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def record_from(fields: str, body: str) -> Record:
    """The record `fields_json` described, with its body.

    Not validated again: the scanner stored these fields from a record that parsed and
    validated (doing it per row made listing 10k records take ~0.8 s, mostly strptime).
    """
    data = json.loads(fields)
    data["tags"] = tuple(data["tags"])
    data["source"] = Source(**data["source"])
    data["triggers"] = Triggers(**{k: tuple(v) for k, v in data["triggers"].items()})
    data["body"] = body
    record = object.__new__(Record)
    for key in _ALL:
        object.__setattr__(record, key, data.get(key))
    return record


def _scoped(pairs: list[tuple[str, str]]) -> tuple[str, list[object]]:
    clause = f"(d.scope, d.project) IN (VALUES {','.join(['(?, ?)'] * len(pairs))})"
    return clause, [value for pair in pairs for value in pair]


def select(
    db: Any,
    allowed: Sequence[tuple[str, str | None]],
    *,
    record_id: str | None = None,
    kinds: Sequence[str] = (),
    tags: Sequence[str] = (),
    statuses: Sequence[str] = ("active", "proposed"),
    limit: int | None = None,
) -> list[Stored]:
    """The records within `allowed` matching the filters, newest first (a project's record
    before a shared one of the same id)."""
    pairs = fts.grants(allowed)
    if not pairs or not statuses or (record_id is not None and not fts.utf8(record_id)):
        return []
    scoped, params = _scoped(pairs)
    clauses = ["d.source = 'record'", scoped, f"d.status IN ({','.join('?' * len(statuses))})"]
    params += list(statuses)
    if record_id is not None:
        clauses.append("d.id = ?")
        params.append(record_id)
    if kinds:
        clauses.append(f"d.kind IN ({','.join('?' * len(kinds))})")
        params += [str(kind) for kind in kinds]
    for tag in tags:
        clauses.append("EXISTS (SELECT 1 FROM doc_tags t WHERE t.doc = d.rowid AND t.tag = ?)")
        params.append(str(tag).casefold())
    sql = (
        "SELECT f.fields, d.body, d.path, d.revision FROM docs d JOIN scan_files f"
        f" ON f.path = d.path WHERE {' AND '.join(clauses)}"
        " ORDER BY d.scope = 'project' DESC, d.updated DESC, d.id"
    )
    if limit is not None:
        sql += " LIMIT ?"
        params.append(max(int(limit), 0))
    return [
        Stored(record_from(str(fields), str(body)), str(path), str(rev))
        for fields, body, path, rev in db.execute(sql, params)
    ]


def lines(db: Any, allowed: Sequence[tuple[str, str | None]]) -> list[Line]:
    """Every record within `allowed` as MEMORY.md lists it (no parsing: index columns only)."""
    pairs = fts.grants(allowed)
    if not pairs:
        return []
    scoped, params = _scoped(pairs)
    return [
        Line(str(i), str(k), str(t), str(st), str(sc))
        for i, k, t, st, sc in db.execute(
            "SELECT d.id, d.kind, d.title, d.status, d.scope FROM docs d"
            f" WHERE d.source = 'record' AND {scoped}",
            params,
        )
    ]


def count_by_kind(db: Any, allowed: Sequence[tuple[str, str | None]]) -> dict[str, dict[str, int]]:
    """status -> kind -> number of records within `allowed`."""
    out: dict[str, dict[str, int]] = {}
    # One query per scope: each reads its stretch of docs_kinds in (status, kind) order and
    # counts without sorting; one query over all the scopes sorted 100k entries first.
    for scope, project in dict.fromkeys(fts.grants(allowed)):
        for status, kind, n in db.execute(
            "SELECT d.status, d.kind, count(*) FROM docs d WHERE d.source = 'record'"
            " AND d.scope = ? AND d.project = ? GROUP BY d.status, d.kind",
            (scope, project),
        ):
            kinds = out.setdefault(str(status), {})
            kinds[str(kind)] = kinds.get(str(kind), 0) + int(n)
    return out


def count_tags(db: Any, allowed: Sequence[tuple[str, str | None]]) -> list[tuple[str, int]]:
    """(tag, records carrying it) over the active and proposed records within `allowed`, most
    used first (tags as the index keeps them: casefolded, as a tag filter matches them)."""
    pairs = fts.grants(allowed)
    if not pairs:
        return []
    scoped, params = _scoped(pairs)
    rows = db.execute(
        "SELECT t.tag, count(*) FROM doc_tags t JOIN docs d ON d.rowid = t.doc"
        f" WHERE d.source = 'record' AND d.status IN ('active', 'proposed') AND {scoped}"
        " GROUP BY t.tag ORDER BY count(*) DESC, t.tag",
        params,
    )
    return [(str(tag), int(n)) for tag, n in rows]
