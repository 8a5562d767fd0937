"""Rulebooks: named sets of team rules that fire as advisories at the moment of a call.

`book.py` reads books (declared in a hub or held in memory) into Book and Rule; `fire.py`
decides which rules a call fires (both books when two match; caps and the session-start
budget spent widest book first) and renders them; `ledger.py` records the fires locally under
the session identity capture uses. Stdlib only, nothing at import: hooks import these.
"""

import os as _os


def books_dir(home: str) -> str:
    """Where the locally held books are: `$MEMHUB_HOME/rules/books/` (store.py reads them)."""
    return _os.path.join(home, "rules", "books")
