"""`recall.refresh` on turn_end: keep the session brief's caches current between sessions.

What the seed's companion Stop hook does: after each turn, the map cache and this branch's
pointer cache are checked against their keys (stat calls and small reads; no git, no
SQLite), and when either moved (a commit this turn, a record added, MEMORY.md edited) the
dispatcher's detached child rebuilds them (`brief_pointers.rewarm`), so the next session
start here finds them current: the brief then shows everything at once and starts no child
of its own. Nothing when they are current, when there is no memory or no checkout, or with
`MEMHUB_BRIEF_POINTERS=0`. Stdlib only.
"""

from __future__ import annotations

import os

from . import brief_cache
from .brief_where import Where, checkout

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..dispatch import Output
    from ..events import Event

__all__ = ["JOB", "run"]

JOB = "memory.brief_pointers.rewarm"


def run(event: Event, out: Output) -> None:
    """The handler: one detached job when a brief cache of this checkout went stale."""
    if not event.cwd or os.environ.get("MEMHUB_BRIEF_POINTERS", "").strip() == "0":
        return
    root = os.path.join(out.home, "memory")
    if not os.path.isfile(os.path.join(root, "index.sqlite")):
        return
    where = checkout(event.cwd)
    if not isinstance(where, Where):
        return  # no checkout: nothing but the map, which a session start rebuilds at once
    doc = brief_cache.load(brief_cache.map_path(out.home, where.common_dir))
    if brief_cache.valid_map(root, doc, where.common_dir) and doc is not None:
        if not any(doc["counts"].values()):
            return  # nothing in memory here: no brief to keep warm
        from .recall_scope import account_name

        state = brief_cache.pointers_of(out.home, where, str(doc.get("signature")),
                                        account_name())  # fmt: skip
        if state.fresh:
            return
    out.detach({"call": JOB, "args": [out.home, event.cwd]})
