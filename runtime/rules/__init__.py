"""Rulebooks: named sets of team rules that fire as advisories at the moment of a call.

`book.py` reads books (declared in a hub or held in memory) into Book and Rule; `fire.py`
decides which rules a call fires (both books when two match; caps and the session-start
budget spent widest book first) and renders them; `ledger.py` records the fires locally under
the session identity capture uses. Stdlib only, nothing at import: hooks import these.

Where books are is answered here alone (`books_dir`, `books_present`), without `os`: the
`rules.advise` handler asks `books_present` before importing anything else of rules.
"""

from ..lowos import join, listdir


def books_dir(home: str) -> str:
    """Where the locally held books are: `$MEMHUB_HOME/rules/books/` (store.py reads them)."""
    return join(home, "rules", "books")


def books_present(home: str) -> bool:
    """Whether any book exists: one listdir, so a person with no rulebooks pays no more."""
    names = listdir(books_dir(home))
    return any(n.endswith(".json") and not n.startswith(".") for n in names)
