"""The session brief's and prompt pointers' reads: counts, MEMORY.md's top, who names what.

All from the derived index (`index.sqlite`, read-only, the caller's (scope, project) pairs
joined in SQL) and MEMORY.md's own text: no record file is parsed, no YAML. A document names
an identifier when FTS5 finds its words as a phrase in the title or body AND the text holds
it as an exact token (`recall_ids.names`): the index narrows, the token decides. Stdlib only;
SQLite's C core is imported on the first read.
"""

from __future__ import annotations

from .directives_read import _connect
from .recall_ids import Ident, names

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    Pairs = Sequence[tuple[str, str | None]]

__all__ = ["Named", "connect", "counts", "listed", "memory_md_top", "naming"]

CANDIDATES = 200  # rows FTS5 ranks before the exact-token check
MAX_MD_BYTES = 64 * 1024
_SKIP_MD = ("<!-- memhub:memory:begin", "<!-- memhub:memory:end", "<!-- Derived by memhub")
_BEGIN, _END = "<!-- memhub:memory:begin -->", "<!-- memhub:memory:end -->"  # memorymd's
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")  # layout's safe names
# memorymd's region: `- <kind>: <title> (<id>)` lines, and its own fixed lines
_REGION_LINES = ("(no records yet)", "## Proposed (waiting for `memhub memory accept ID`)")


class Named:
    """A document that names identifiers: record or session, id, kind, title, what it names,
    and who wrote it (`by`: a record's source kind, `session`, `remote`; "" unknown)."""

    __slots__ = ("by", "id", "idents", "kind", "source", "title", "updated")

    def __init__(
        self, source: str, id: str, kind: str, title: str, updated: str, by: str = ""
    ) -> None:
        self.source, self.id, self.kind, self.title, self.updated = source, id, kind, title, updated
        self.by = by or ("session" if source == "session" else "")
        self.idents: list[Ident] = []

    def __repr__(self) -> str:
        return f"Named({self.id!r}, {[i.text for i in self.idents]!r})"


def connect(index: str) -> Any:
    """A read-only connection to the index file."""
    return _connect(index)


def _pairs(allowed: Pairs) -> list[tuple[str, str]]:
    out = []
    for scope, project in allowed:
        if scope == "shared" and project is None:
            out.append(("shared", ""))
        elif scope == "project" and isinstance(project, str) and project:
            out.append(("project", project))
    return out


def _scoped(pairs: list[tuple[str, str]]) -> tuple[str, list[object]]:
    clause = f"(d.scope, d.project) IN (VALUES {','.join(['(?, ?)'] * len(pairs))})"
    return clause, [value for pair in pairs for value in pair]


def counts(db: Any, allowed: Pairs) -> dict[str, int]:
    """kind -> active records within `allowed`; `proposed` and `session` counted apart."""
    pairs = _pairs(allowed)
    if not pairs:
        return {}
    scoped, params = _scoped(pairs)
    out: dict[str, int] = {}
    for source, status, kind, n in db.execute(
        f"SELECT d.source, d.status, d.kind, count(*) FROM docs d WHERE {scoped}"
        " GROUP BY d.source, d.status, d.kind",
        params,
    ):
        if source == "session":
            key = "session"
        elif status == "active":
            key = str(kind)
        elif status == "proposed":
            key = "proposed"
        else:
            continue
        out[key] = out.get(key, 0) + int(n)
    return out


def memory_md_top(files: Sequence[str], limit: int) -> list[tuple[str, str | None]]:
    """The first `limit` meaningful lines of the MEMORY.md files (markers and blanks left
    out), each with the record id it lists: None for a person's line outside memhub's region
    and for memhub's own fixed lines in it; a line in the region that is neither is left out
    (memhub wrote none such: it cannot vouch for it)."""
    out: list[tuple[str, str | None]] = []
    for path in files:
        try:
            with open(path, "rb") as handle:
                text = handle.read(MAX_MD_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        inside = False
        for line in text.splitlines():
            line = line.rstrip()
            mark = line.strip()
            if mark in (_BEGIN, _END):
                inside = mark == _BEGIN
                continue
            if not mark or line.lstrip().startswith(_SKIP_MD):
                continue
            rid = _listed_id(line) if inside else None
            if inside and rid is None and line not in _REGION_LINES:
                continue
            out.append((line, rid))
            if len(out) >= limit:
                return out
    return out


def _listed_id(line: str) -> str | None:
    """The record id of a region line `- <kind>: <title> (<id>)`, else None (no `re`: the
    hooks import none for this)."""
    start = line.rfind(" (")
    kind, colon, _ = line[2:].partition(": ")
    rid = line[start + 2 : -1]
    if not (line.startswith("- ") and line.endswith(")") and colon and start > 0 and rid):
        return None
    if not (kind.isascii() and kind.isalpha() and kind.islower()):
        return None
    return rid if rid[0] != "-" and set(rid) <= _ID_CHARS else None


def listed(db: Any, allowed: Pairs, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """id -> (kind, title, status, source kind) of the records `ids` within `allowed`
    (source "" when it cannot be read: shown as unreviewed)."""
    out: dict[str, tuple[str, ...]] = {}
    marks = ",".join("?" * len(ids))
    # one query per (scope, project): each an index search on docs' unique key (a row-value
    # IN over the pairs made SQLite walk every record: 2 ms at 10,000)
    sql = (
        "SELECT d.id, d.kind, d.title, d.status, {source} FROM docs d {join}"
        f" WHERE d.source = 'record' AND d.scope = ? AND d.project = ? AND d.id IN ({marks})"
    )
    for pair in _pairs(allowed) if ids else ():
        for r in _provenance_rows(db, sql, [*pair, *ids]):
            out.setdefault(str(r[0]), (str(r[1]), str(r[2]), str(r[3]), str(r[4] or "")))
    return out


def _provenance_rows(db: Any, sql: str, params: list[object]) -> list[Any]:
    """`sql` with each record's source kind (from the scan table), or "" for all when the
    index has no scan table (an index not made by a scan: nothing vouches for any record)."""
    with_source = sql.format(
        source="json_extract(f.fields, '$.source.kind')",
        join="LEFT JOIN scan_files f ON f.path = d.path",
    )
    try:
        return list(db.execute(with_source, params))
    except Exception:  # sqlite3.OperationalError: no scan_files (the hook imports no sqlite3)
        return list(db.execute(sql.format(source="''", join=""), params))


def _phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _maybe(text: str, ident: Ident) -> bool:
    """A cheap necessary condition for `names(text, ident)` (a `str.find`, no loop)."""
    if ident.kind == "pr":
        return ident.text.rpartition("#")[2] in text
    return ident.kind == "error" or ident.text in text


def naming(
    db: Any,
    allowed: Pairs,
    idents: Sequence[Ident],
    *,
    exclude: set[str] | frozenset[str] = frozenset(),
    kinds: Sequence[str] = (),
    limit: int = 5,
) -> list[Named]:
    """Active records and captured sessions within `allowed` naming one of `idents` exactly:
    those naming more of them first, then the newest; none of `exclude` (ids)."""
    pairs = _pairs(allowed)
    words = [i for i in idents if any(ch.isalnum() for ch in i.text)]
    if not pairs or not words or limit <= 0:
        return []
    scoped, params = _scoped(pairs)
    match = "{title body} : (" + " OR ".join(_phrase(i.text) for i in words) + ")"
    where = [scoped, "d.status = 'active'"]
    if kinds:
        where.append(f"(d.source = 'session' OR d.kind IN ({','.join('?' * len(kinds))}))")
        params += list(kinds)
    rows = db.execute(
        "SELECT d.source, d.id, d.kind, d.title, d.body, d.updated"
        " FROM fts CROSS JOIN docs d ON d.rowid = fts.rowid"
        f" WHERE fts MATCH ? AND {' AND '.join(where)} ORDER BY fts.rank LIMIT ?",
        [match, *params, CANDIDATES],
    )
    found: dict[str, Named] = {}
    for source, rid, kind, title, body, updated in rows:
        rid = str(rid)
        if rid in exclude or rid in found:
            continue
        text = f"{title}\n{body}"
        hit = Named(str(source), rid, str(kind), str(title), str(updated))
        hit.idents = [i for i in words if _maybe(text, i) and names(text, i)]
        if hit.idents:
            found[rid] = hit
    ranked = sorted(found.values(), key=lambda n: n.updated, reverse=True)
    ranked.sort(key=lambda n: len(n.idents), reverse=True)  # stable: newest first within
    ranked = ranked[:limit]
    records = [n.id for n in ranked if n.source != "session"]
    known = listed(db, allowed, records) if records else {}
    for named in ranked:
        if named.source != "session":
            named.by = known[named.id][3] if named.id in known else ""
    return ranked
