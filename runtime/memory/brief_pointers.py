"""The session brief's Apply and Recall & Consult, worked out away from the session start.

`refresh` is the job the brief hands to the dispatcher's detached child (`out.detach`): it
runs git (brief_git.py) and reads the index (directives, brief_read.naming), then writes
the pointer cache (brief_cache.py) whole. The first prompt of a session whose start found
the cache stale delivers what it holds (prompt_recall.py). `compute` is the same work
in-process, for `MEMHUB_BRIEF_POINTERS=0` and checkouts whose cache key git alone can give.
`rewarm` is recall.refresh's job at turn_end (brief_refresh.py): both caches, where stale.

Where the pointers come from is decided in one place, `pointer_source`: the local index,
or, when recall is remote (remote_settings.py), the server's `recall_directives` and
`search_memory` and its `get_brain_overview` for the Map (remote_brief.py), asked by the
detached child only: the session start itself never opens a socket. Stdlib only.
"""

from __future__ import annotations

import os
import time

from . import brief_cache, brief_render

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .brief_git import Branch
    from .brief_read import Named
    from .brief_where import Where
    from .directives import Hit
    from .recall_scope import Scope
    from .remote_settings import Remote

__all__ = ["KEEP", "Source", "compute", "pointer_source", "refresh", "rewarm"]

KEEP = 2 * brief_render.MAX_APPLY  # items kept per checkpoint: a resumed session skips some
NICE = 10
DEFER_S = 0.03  # the hook prints its answer and exits within this (its fork is its last act)
RECALL_PATHS = 100  # of the branch's files, the ones Recall & Consult looks for by name


def _idents(branch: Branch) -> list[Any]:
    from .recall_ids import Ident, extract

    named = [Ident("path", f) for f in branch.files[:RECALL_PATHS]]
    # a branch is often named in lower case (`jane/eng-42-models`): its keys read upper
    for text in (branch.name.replace("/", " ").upper(), *branch.subjects):
        named += extract(text, 50, ("pr", "ticket"))
    return list(dict.fromkeys(named))


def _local(scope: Scope, branch: Branch, limit: int) -> tuple[list[Hit], list[Named]]:
    """Apply and Recall from the local index (the directives and `naming`)."""
    from . import brief_read, directives, directives_read
    from .recall_scope import account_name

    apply: list[Hit] = []
    if branch.files:
        call = directives.Call(paths=branch.files)
        stop = directives.blocked(account_name(), os.path.basename(scope.toplevel or ""))
        found = directives_read.candidates(scope.index, scope.allowed, call)
        apply = directives.select(found, call, stop, (), limit=limit)
    db = brief_read.connect(scope.index)
    try:
        skip = {h.directive.id for h in apply}
        recall = brief_read.naming(db, scope.allowed, _idents(branch), exclude=skip, limit=limit)
    finally:
        db.close()
    return apply, recall


def pointer_source(
    scope: Scope | None, branch: Branch, limit: int, remote: Remote | None = None,
    home: str = "", repo: str = "",
) -> Source:  # fmt: skip
    """Where Apply and Recall & Consult come from: (directives meeting the branch's files,
    records and sessions naming its identifiers), at most `limit` of each. The local index,
    or the remote server when recall is remote (`remote`: only the detached child passes
    it; its overview comes along). A remote that failed gives the local answer (if there is
    a local memory), marked not ok: it is not cached as current."""
    if remote is None:
        return Source(*_local(scope, branch, limit)) if scope else Source([], [])
    from .recall_scope import account_name
    from .remote_brief import for_branch

    found = for_branch(home, remote, branch.files, _idents(branch), repo=repo,
                       account=account_name(), limit=limit)  # fmt: skip
    if found.ok:
        return Source(found.apply, found.recall, found.overview)
    local = _local(scope, branch, limit) if scope and os.path.isfile(scope.index) else ([], [])
    return Source(*local, found.overview, ok=False)


class Source:
    """What `pointer_source` found: Apply hits, Recall documents, the remote's overview
    ("" when local) and whether it is the whole answer (False: a remote failed)."""

    __slots__ = ("apply", "ok", "overview", "recall")

    def __init__(
        self, apply: list[Hit], recall: list[Named], overview: str = "", ok: bool = True
    ) -> None:
        self.apply, self.recall, self.overview, self.ok = apply, recall, overview, ok


def compute(
    scope: Scope | None, key: str, remote: Remote | None = None, home: str = "",
    where: Where | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The pointer cache document for `scope`'s checkout (git and index reads; the remote's
    tools when `remote` is given: the detached child only). `where`: the checkout when
    there is no local memory (`scope` None) but a remote."""
    from .brief_git import branch_of

    toplevel = scope.toplevel if scope else where.toplevel if where else None
    if toplevel is None:
        return {"format": brief_cache.FORMAT, "key": key, "at": time.time(), "apply": [],
                "recall": []}  # fmt: skip
    common = scope.common_dir if scope else where.common_dir if where else None
    branch = branch_of(toplevel, common)
    found = pointer_source(scope, branch, KEEP, remote, home, os.path.basename(toplevel))
    doc = {
        "format": brief_cache.FORMAT,
        "key": key if found.ok else "",  # a failed remote: stale, so the next start asks again
        "at": time.time(),
        "branch": branch.name,
        "apply": [brief_render.apply_item(h) for h in found.apply],
        "recall": [brief_render.recall_item(n) for n in found.recall],
    }
    if found.overview:
        doc["overview"] = found.overview
    return doc


def _yield() -> None:
    """Let the hook that forked this child answer first: it still has its reply to print,
    and on a busy machine this work would compete with it for the CPU."""
    try:  # noqa: SIM105 (contextlib costs an import)
        os.nice(NICE)
    except (AttributeError, OSError):
        pass
    time.sleep(DEFER_S)


def refresh(home: str, cwd: str, path: str, key: str) -> bool:
    """The detached child's job: recompute the pointers of `cwd`'s checkout into `path`
    (`key`: what the session start saw). False when there is no memory to read there."""
    from .brief_where import Where, checkout
    from .recall_scope import resolve
    from .remote_settings import configured

    _yield()
    brief_cache.sweep(os.path.dirname(path), time.time())
    where = checkout(cwd)
    scope = resolve(home, cwd, where)
    remote = configured(home)
    if scope is None and (remote is None or not isinstance(where, Where)):
        return False
    place = where if isinstance(where, Where) else None
    return brief_cache.save(path, compute(scope, key, remote, home, place))


def rewarm(home: str, cwd: str) -> bool:
    """recall.refresh's job (turn_end): rebuild the map and the branch's pointer caches of
    `cwd`'s checkout where their keys moved. False when there is nothing to keep warm."""
    from .brief_where import Where, checkout
    from .recall_scope import account_name, resolve

    _yield()
    where = checkout(cwd)
    scope = resolve(home, cwd, where) if isinstance(where, Where) else None
    if scope is None or not isinstance(where, Where):
        return False
    path = brief_cache.map_path(home, where.common_dir)
    doc = brief_cache.load(path)
    if doc is None or not brief_cache.valid_map(scope.root, doc, where.common_dir):
        doc = brief_cache.build_map(scope)
        brief_cache.save(brief_cache.map_path(home, scope.common_dir), doc)
    if not any(doc["counts"].values()):
        return False
    state = brief_cache.pointers_of(home, where, str(doc.get("signature")), account_name())
    if state.fresh:
        return True
    brief_cache.sweep(os.path.dirname(state.path), time.time())
    from .remote_settings import configured

    return brief_cache.save(state.path, compute(scope, state.key, configured(home), home))
