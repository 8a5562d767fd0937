"""What the session brief and the prompt ask a remote server, when recall is remote.

- `for_branch`: the brief's detached child (brief_pointers.py), never the session start:
  Apply from `recall_directives`, one call per file the branch touches (the server answers
  a call's handles, at most two directives each; `already_fired` carries what earlier calls
  found), at most `MAX_APPLY_CALLS`; Recall & Consult from `search_memory`, one exact query
  per identifier of the branch (paths, `PR #N`, `ENG-N`), at most `MAX_SEARCH_CALLS`; and
  the server's `get_brain_overview`, clipped to brief_render.OVERVIEW_CHARS (the plugin's). All of it
  within `CHILD_BUDGET_S`, over one MCP session.
- `for_prompt`: `recall.prompt`'s pointers: the prompt's identifiers asked with
  `search_memory` (top `PROMPT_TOP_K` each) within `PROMPT_BUDGET_S`.

The server's answers pass the local gates: Apply through `directives.select` with the same
stop list a local brief uses (remote_recall.gate), a search hit counts only when its title
or body names the identifier as an exact token. Fail open: any failed call makes the answer
`ok=False` (logged once per call by remote_recall, never the key), so the caller caches
nothing that would stop the next try. Stdlib; imported only when recall is remote.
"""

from __future__ import annotations

import time

from ..dispatch import log
from . import directives
from .remote_recall import WHERE, _call, client_of, gate, items_of, overview_of

# typing.TYPE_CHECKING without importing typing
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from .brief_read import Named
    from .recall_ids import Ident
    from .remote_client import Client
    from .remote_settings import Remote

__all__ = ["Found", "for_branch", "for_prompt", "named_of"]

MAX_APPLY_CALLS = 8
MAX_SEARCH_CALLS = 8
CHILD_BUDGET_S = 10.0  # the child's whole conversation with the server
CALL_S = 4.0  # one call of it: a server holding a request does not take the whole budget
PROMPT_BUDGET_S = 2.0  # of the prompt hook's 3 s: the rest is for the brief's late part
PROMPT_TOP_K = 3
BRANCH_TOP_K = 3
TOOL = "Edit"  # the branch's files are asked as the files an edit would touch


class Found:
    """What the child found: Apply hits, Recall documents, the overview, and whether every
    call answered (False: not worth caching as current)."""

    __slots__ = ("apply", "ok", "overview", "recall")

    def __init__(
        self, apply: list[Any], recall: list[Named], overview: str, ok: bool
    ) -> None:  # fmt: skip
        self.apply, self.recall, self.overview, self.ok = apply, recall, overview, ok


def _within(deadline: float) -> float:
    """One call's deadline: CALL_S from now, within the whole `deadline`."""
    return min(deadline, time.monotonic() + CALL_S)


def _names(hay: str, text: str) -> bool:
    """Whether `hay` holds `text` as an exact token (alphanumeric boundaries)."""
    hay, text = hay.lower(), text.lower()
    start = hay.find(text)
    while start >= 0:
        end = start + len(text)
        before = hay[start - 1] if start else " "
        after = hay[end] if end < len(hay) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return True
        start = hay.find(text, start + 1)
    return False


def named_of(item: Mapping[str, Any], ident: Ident) -> Named | None:
    """A `search_memory` item as a Recall document naming `ident`; None when the item does
    not name it exactly (the server's search is full text, the brief's is exact)."""
    from .brief_read import Named

    rid = item.get("id")
    if not isinstance(rid, str) or not rid:
        return None
    title = str(item.get("title") or "")
    hay = "\n".join(str(item.get(k) or "") for k in ("title", "content", "snippet"))
    if not _names(hay, ident.text):
        return None
    source = "session" if item.get("source") == "session" else "record"
    kind = str(item.get("kind") or item.get("memory_type") or "record")
    # who wrote it, the server does not say: a remote hit is shown fenced as unreviewed
    by = "session" if source == "session" else "remote"
    named = Named(source, rid, kind, title or rid, str(item.get("updated") or ""), by)
    named.idents = [ident]
    return named


def _search(
    home: str, remote: Remote, client: Client, idents: Sequence[Ident], exclude: Iterable[str],
    limit: int, deadline: float, top_k: int,
) -> tuple[list[Named], bool]:  # fmt: skip
    """Documents naming `idents` (those naming more first, then in the server's order)."""
    found: dict[str, Named] = {}
    skip, ok = set(exclude), True
    for ident in idents:
        if time.monotonic() >= deadline:
            break
        args = {"query": ident.text, "top_k": top_k, "memory_type": "all"}
        result = _call(home, remote, "search_memory", args, deadline=_within(deadline),
                       client=client)  # fmt: skip
        items = _items(home, remote, result, "search_memory")
        if items is None:
            ok = False
            break  # a server failing once fails the next call too: stop asking
        for item in items:
            named = named_of(item, ident)
            if named is None or named.id in skip:
                continue
            if named.id in found:
                found[named.id].idents.append(ident)
            else:
                found[named.id] = named
    ranked = sorted(found.values(), key=lambda n: -len(n.idents))  # stable: server order
    return ranked[:limit], ok


def _apply(
    home: str, remote: Remote, client: Client, files: Sequence[str], repo: str, account: str,
    limit: int, deadline: float,
) -> tuple[list[Any], bool]:  # fmt: skip
    items: list[dict[str, Any]] = []
    fired: list[str] = []
    ok = True
    for path in files[:MAX_APPLY_CALLS]:
        if time.monotonic() >= deadline or len(fired) >= limit:
            break
        arguments: dict[str, Any] = {"tool": TOOL, "args": {"file_path": path}}
        if repo:
            arguments["repo"] = repo
        if fired:
            arguments["already_fired"] = list(fired)
        plain = {"tool": TOOL, "args": {"file_path": path}}
        result = _call(home, remote, "recall_directives", arguments,
                       deadline=_within(deadline), fallback=plain, client=client)  # fmt: skip
        found = _items(home, remote, result, "recall_directives")
        if found is None:
            ok = False
            break
        for item in found:
            if isinstance(item.get("id"), str) and item["id"] not in fired:
                fired.append(item["id"])
                items.append(item)
    call = directives.Call(paths=list(files))
    return gate(items, call, directives.blocked(account, repo), [], limit), ok


def _items(
    home: str, remote: Remote, result: Mapping[str, Any] | None, name: str
) -> list[dict[str, Any]] | None:
    """The result's items; None (logged when the server answered, but not with items)."""
    items = items_of(result) if result is not None else None
    if items is None and result is not None:
        log(home, WHERE, f"{name} at {remote.url}: no items in the answer: fail open")
    return items


def _overview(home: str, remote: Remote, client: Client, deadline: float) -> str | None:
    result = _call(home, remote, "get_brain_overview", {}, deadline=_within(deadline),
                   client=client)  # fmt: skip
    if result is None:
        return None  # failed (logged)
    from .brief_render import clip

    return clip(overview_of(result) or "")  # answered: an empty overview is still an answer


def for_branch(
    home: str, remote: Remote, files: Sequence[str], idents: Sequence[Ident], *, repo: str,
    account: str, limit: int, budget_s: float = CHILD_BUDGET_S,
) -> Found:  # fmt: skip
    """The brief's Apply, Recall & Consult and overview from the remote (the child's job)."""
    deadline = time.monotonic() + budget_s
    client = client_of(home, remote, deadline, None, "recall.brief")
    if client is None:
        return Found([], [], "", False)
    overview = _overview(home, remote, client, deadline)
    if overview is None:
        return Found([], [], "", False)  # down or refusing: the rest would fail alike
    apply, ok = _apply(home, remote, client, files, repo, account, limit, deadline)
    recall: list[Named] = []
    if ok:
        skip = {h.directive.id for h in apply}
        recall, ok = _search(home, remote, client, list(idents)[:MAX_SEARCH_CALLS], skip, limit,
                             deadline, BRANCH_TOP_K)  # fmt: skip
    return Found(apply, recall, overview, ok)


def for_prompt(
    home: str, remote: Remote, idents: Sequence[Ident], shown: Iterable[str], limit: int,
    session_dir: str | None = None, budget_s: float = PROMPT_BUDGET_S,
) -> list[Named] | None:  # fmt: skip
    """The prompt's pointers from the remote; None when the server failed (logged)."""
    deadline = time.monotonic() + min(budget_s, remote.timeout_s + 0.5)
    client = client_of(home, remote, deadline, session_dir, "recall.prompt")
    if client is None:
        return None
    found, ok = _search(home, remote, client, list(idents)[:MAX_SEARCH_CALLS], shown, limit,
                        deadline, PROMPT_TOP_K)  # fmt: skip
    return found if ok or found else None
