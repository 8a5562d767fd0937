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

__all__ = ["Named", "connect", "counts", "memory_md_top", "naming"]

CANDIDATES = 200  # rows FTS5 ranks before the exact-token check
MAX_MD_BYTES = 64 * 1024
_SKIP_MD = ("<!-- memhub:memory:begin", "<!-- memhub:memory:end", "<!-- Derived by memhub")


class Named:
    """A document that names identifiers: record or session, id, kind, title, what it names."""

    __slots__ = ("id", "idents", "kind", "source", "title", "updated")

    def __init__(self, source: str, id: str, kind: str, title: str, updated: str) -> None:
        self.source, self.id, self.kind, self.title, self.updated = source, id, kind, title, updated
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


def memory_md_top(files: Sequence[str], limit: int) -> list[str]:
    """The first `limit` meaningful lines of the MEMORY.md files (markers and blanks left out)."""
    out: list[str] = []
    for path in files:
        try:
            with open(path, "rb") as handle:
                text = handle.read(MAX_MD_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        for line in text.splitlines():
            line = line.rstrip()
            if not line.strip() or line.lstrip().startswith(_SKIP_MD):
                continue
            out.append(line)
            if len(out) >= limit:
                return out
    return out


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
    return ranked[:limit]
