"""`recall.brief` on session_start: name the project's memory and where it meets this branch.

Map (what the memory holds), Apply (directives whose triggers meet the files the branch
touches), Recall & Consult (records and captured sessions naming the branch's files, `PR #N`
or `ENG-N` as exact tokens), rendered under one budget (brief_render.py) as the model's
additional context. Everything shown joins the session's served list (served.py), so neither
prompt pointers nor directive recall show it again. The user gets a system message only when
the memory this checkout resolves to changed since the last session start there; a folder
with no memory gets nothing at all.

The hook runs no git and, when its caches are current, opens no SQLite (brief_cache.py):
the Map comes from the map cache (rebuilt here when a stat key moved), Apply and Recall
from the branch's pointer cache. When that one is stale or missing the brief shows what it
held, if anything, and hands the work to ONE detached child (brief_pointers.refresh via
`out.detach`); the session's first prompt then delivers what the child found and the
brief did not show (prompt_recall.py, brief_pending.py). `MEMHUB_BRIEF_POINTERS=0` turns
the child off: a stale cache is then recomputed here, in the hook, locally. No network:
with remote recall (remote_brief.py) the child asks the server, the Map shows the overview
it cached, and a checkout with no local memory still gets a brief naming the remote.
Stdlib only.
"""

from __future__ import annotations

import os

from . import brief_cache, brief_render, served
from .brief_where import UNSURE, Where, checkout

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..dispatch import Output
    from ..events import Event
    from .recall_scope import Scope

__all__ = ["ANNOUNCED", "POINTERS_ENV", "run"]

NAME = "recall.brief"
BUDGET_ENV = "MEMHUB_BRIEF_TOKEN_BUDGET"
POINTERS_ENV = "MEMHUB_BRIEF_POINTERS"  # "0": no detached child; stale pointers worked out here
ANNOUNCED = "announced"  # in $MEMHUB_HOME/hooks/recall/: `<toplevel>\t<signature>` lines
MAX_ANNOUNCED = 500
WAIT_S = 20.0  # how long after the session start the first prompt still waits for the child
JOB = "memory.brief_pointers.refresh"


def _head(doc: dict[str, Any]) -> list[str]:
    if doc.get("remote"):
        where = f"the remote server at {doc['remote']}"
    elif not doc.get("project_id"):
        where = "shared memory only (this checkout is not connected: `memhub project connect`)"
    else:
        seen = " + ".join(str(pair[0]) for pair in doc.get("allowed") or ())
        where = f"**{doc.get('project_name')}** (`{doc.get('project_id')}`; {seen})"
    return [
        f"## 🧠 memhub memory: {where}",
        "The memory tools (`search_memory`, `get_memory`) answer from it; below is what it"
        " holds and where it meets this branch.",
    ]


def rulebook_block(scope: Scope | None) -> str:
    """The rulebook's session-start block (issue 11, rulebooks), which shares the budget
    one part in three: empty until rulebooks exist."""
    return ""


class Pointers:
    """Apply and Recall items for the brief, the remote's overview (if), and the cache the
    child is refreshing (if)."""

    __slots__ = ("apply", "key", "overview", "path", "recall")

    def __init__(
        self, document: dict[str, Any] | None, path: str = "", key: str = ""
    ) -> None:  # fmt: skip
        self.apply, self.recall = _items(document)
        overview = (document or {}).get("overview")
        self.overview = overview if isinstance(overview, str) else ""
        self.path, self.key = path, key


def _map(home: str, root: str, where: Where | bool | None, cwd: str) -> tuple[Any, Any]:
    """(map document, the scope when it had to be resolved) or (None, None): no memory."""
    common = where.common_dir if isinstance(where, Where) else None
    if where is not UNSURE:
        doc = brief_cache.load(brief_cache.map_path(home, common))
        if brief_cache.valid_map(root, doc, common):
            return doc, None
    from .recall_scope import resolve

    scope = resolve(home, cwd, where)
    if scope is None:
        return None, None
    doc = brief_cache.build_map(scope)
    brief_cache.save(brief_cache.map_path(home, scope.common_dir), doc)
    return doc, scope


def _remote_only(home: str, cwd: str) -> tuple[dict[str, Any] | None, Any]:
    """The map of a checkout with no local memory when recall is remote: it names the
    remote (what it holds is the overview the child caches); (None, None) otherwise."""
    from .remote_settings import configured

    remote = configured(home)
    where = checkout(cwd) if remote is not None else None
    if remote is None or not isinstance(where, Where):
        return None, None
    doc = {"remote": remote.url, "counts": {}, "signature": f"remote:{remote.url}",
           "toplevel": where.toplevel, "total": "what the remote server holds: its overview"
           " below, or with the first prompt once fetched"}  # fmt: skip
    return doc, where


def _items(document: dict[str, Any] | None) -> tuple[list[Any], list[Any]]:
    if not document:
        return [], []
    apply = [i for i in document.get("apply") or () if isinstance(i, dict) and "line" in i]
    recall = [i for i in document.get("recall") or () if isinstance(i, dict) and "line" in i]
    return apply, recall


def _pointers(out: Output, event: Event, where: Any, doc: dict[str, Any], scope: Any) -> Pointers:
    """The branch's pointers: cached, worked out here, or handed to the child."""
    from .recall_scope import account_name, resolve

    cwd = event.cwd or ""
    if not isinstance(where, Where):
        if where is UNSURE and scope is not None and scope.toplevel:  # git alone knows: here
            from .brief_pointers import compute

            return Pointers(compute(scope, ""))
        return Pointers(None)
    state = brief_cache.pointers_of(out.home, where, str(doc.get("signature")), account_name())
    if state.fresh:
        return Pointers(state.cached)
    if os.environ.get(POINTERS_ENV, "").strip() == "0":  # here, so local: no network
        scope = scope or resolve(out.home, cwd, where)
        if scope is None:
            return Pointers(None)
        from .brief_pointers import compute

        cached = compute(scope, state.key)
        brief_cache.save(state.path, cached)
        return Pointers(cached)
    return Pointers(state.cached, path=state.path, key=state.key)


def _pending(out: Output, event: Event, pointers: Pointers, room: int) -> None:
    """Hand the pointers to the child; once it exists, leave the first prompt a note."""
    import time

    from ..dispatch import carries

    if not event.session_id or not carries(event.host, "prompt_submit"):  # no prompt shows them
        out.detach({"call": JOB, "args": [out.home, event.cwd, pointers.path, pointers.key]})
        return
    note = {"cache": pointers.path, "key": pointers.key, "room": room, "at": time.time(),
            "until": time.time() + WAIT_S, "overview": not pointers.overview}  # fmt: skip
    from .brief_pending import path

    target = path(out.home, event.host, event.session_id)
    out.detach(
        {"call": JOB, "args": [out.home, event.cwd, pointers.path, pointers.key]},
        on_started=lambda: brief_cache.save(target, note),
    )


def _announce(home: str, key: str, doc: dict[str, Any], counts_text: str) -> str | None:
    """The system message when this checkout's memory changed since it was last announced."""
    signature = str(doc.get("signature"))
    path = os.path.join(home, "hooks", "recall", ANNOUNCED)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        lines = []
    known = dict(line.split("\t", 1) for line in lines if "\t" in line)
    if known.get(key) == signature:
        return None
    known.pop(key, None)
    known[key] = signature
    _save(path, [f"{k}\t{v}" for k, v in known.items()][-MAX_ANNOUNCED:])
    if doc.get("remote") and not doc.get("project_id"):
        return f"🧠 memhub: memory in this repo is the remote server at {doc['remote']}"
    if not doc.get("project_id"):
        return f"🧠 memhub: shared memory only in this checkout ({counts_text})"
    name, pid = doc.get("project_name"), doc.get("project_id")
    return f"🧠 memhub: memory in this repo is {name} ({pid}): {counts_text}"


def _save(path: str, lines: list[str]) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temp = f"{path}.{os.getpid()}.tmp"
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write("".join(line.replace("\n", " ") + "\n" for line in lines))
        os.replace(temp, path)
    except OSError:
        pass  # announcing again next time is the only cost


def _unshown(items: list[Any], shown: set[str]) -> list[Any]:
    return [i for i in items if str(i.get("id")) not in shown]


def run(event: Event, out: Output) -> None:
    """The handler: the brief as additional context, a system message on a change."""
    if not served.carries_context(event):
        return
    import time

    started = time.monotonic()
    root = os.path.join(out.home, "memory")
    if not event.cwd:
        return
    doc = scope = where = None
    if os.path.isfile(os.path.join(root, "index.sqlite")):
        where = checkout(event.cwd)
        doc, scope = _map(out.home, root, where, event.cwd)
    if doc is None or not any(doc["counts"].values()):  # no local memory: a remote's brief?
        doc, where = _remote_only(out.home, event.cwd)
        if doc is None:
            return  # no memory here, and recall is not remote: silent
        scope = None
    folder = served.folder(out.home, event.host, event.session_id) if event.session_id else ""
    shown = served.shown(folder) if folder else set()
    budget = brief_render.budget_chars(os.environ.get(BUDGET_ENV))
    pointers = _pointers(out, event, where, doc, scope)
    apply, recall = _unshown(pointers.apply, shown), _unshown(pointers.recall, shown)
    recall = [i for i in recall if i.get("id") not in {a.get("id") for a in apply[:5]}]
    md_top = [str(line) for line in doc.get("md_top") or ()]
    brief = brief_render.render_items(
        _head(doc), doc["counts"], md_top, apply, recall, budget, rulebook_block(scope),
        pointers.overview, doc.get("total"),
    )  # fmt: skip
    out.context(brief.text)
    if pointers.path:
        _pending(out, event, pointers, budget - budget // 3 - len(brief.text))
    if folder:
        served.mark(folder, brief.shown)
        recall_ids = [i for i in brief.shown if i not in {f["id"] for f in brief.fired}]
        served.account(
            folder,
            served.entry(NAME, event, brief.text, started, fired=brief.fired, shown=recall_ids,
                         cut=brief.cut, pending=bool(pointers.path)),
        )  # fmt: skip
    counts_text = brief.text.split("### Map\n", 1)[-1].split("\n", 1)[0]
    toplevel = where.toplevel if isinstance(where, Where) else doc.get("toplevel")
    message = _announce(out.home, str(toplevel or "-"), doc, counts_text)
    if message:
        out.system_message(message)
