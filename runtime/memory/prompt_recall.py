"""`recall.prompt` on prompt_submit: pointers to the memory that names what the prompt names.

The prompt's identifiers (recall_ids.py: file paths, `PR #N`, `ENG-N`, quoted error strings,
symbols) are looked up as exact tokens in the records and captured sessions the checkout
sees, or, when recall is remote (remote_settings.py), asked of the server's `search_memory`
(remote_brief.for_prompt: exact queries, within 2 s, the local exactness check; a server
that fails gives the local answer, logged); at most `MAX_POINTERS` pointers in `MAX_CHARS` characters, none the session was already
shown (the served list the brief and directive recall share). A symbol counts only when the
repository holds it (`git grep`, only for a symbol some document names). No semantic search on
the prompt's text: a prompt naming no identifier costs the `may_name` scan and nothing else
(no index opened, no git run, nothing printed).

The session's first prompt also delivers what the session brief left to its detached child
(brief.py): when the start left a note (brief_pending.py), the Apply and Recall & Consult
the child wrote to the pointer cache, less what the session was already shown, go first,
in what the brief left of its budget. Stdlib only.
"""

from __future__ import annotations

from .recall_ids import Ident, extract, may_name

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..dispatch import Output
    from ..events import Event
    from .brief_read import Named
    from .brief_render import Brief
    from .remote_settings import Remote

__all__ = ["MAX_CHARS", "MAX_POINTERS", "pointers", "render", "run"]

NAME = "recall.prompt"
MAX_POINTERS = 3
MAX_CHARS = 600
HEADER = "memhub memory names what this prompt names (read one with `get_memory`):"
GREP_TIMEOUT_S = 1.0
BRIEF = "recall.brief"  # the brief's late part is the brief's injection
WAIT_S = 2.0  # a prompt waits this long at most for the brief's child (the hook has 3 s)
POLL_S = 0.02


def _line(named: Named, room: int) -> str:
    """One pointer in `room` characters: an unreviewed title (an agent's record, a captured
    session, a remote's hit) fenced, as the brief fences it."""
    from .brief_render import pointer_line

    return pointer_line(named, room, idents=2)


def render(found: Sequence[Named], limit: int = MAX_CHARS) -> tuple[str, list[str]]:
    """(text, ids shown): the pointers in at most `limit` characters ("" for none)."""
    found = list(found)[:MAX_POINTERS]
    if not found:
        return "", []
    room = (limit - len(HEADER) - len(found)) // len(found)
    lines = [_line(n, room) for n in found]
    return "\n".join([HEADER, *lines])[:limit], [n.id for n in found]


def _in_repo(toplevel: str | None, symbol: str) -> bool:
    if toplevel is None:
        return False
    from .gitcheckout import git_env, run_git

    argv = ["git", "--no-pager", "-C", toplevel, "grep", "-q", "-I", "-F", "-w", "-e", symbol]
    done = run_git(argv, git_env(), GREP_TIMEOUT_S)
    return done is not None and done[0] == 0


def _real(found: list[Named], toplevel: str | None) -> list[Named]:
    """Each hit's identifiers without symbols the repository does not hold; hits left empty
    are dropped (a symbol is asked of git once)."""
    known: dict[str, bool] = {}
    out = []
    for named in found:
        keep = []
        for ident in named.idents:
            if ident.kind == "symbol":
                if ident.text not in known:
                    known[ident.text] = _in_repo(toplevel, ident.text)
                if not known[ident.text]:
                    continue
            keep.append(ident)
        if keep:
            named.idents = keep
            out.append(named)
    return out


def pointers(
    home: str, cwd: str | None, prompt: str | None, shown: set[str], session_dir: str = ""
) -> list[Named]:
    """The documents to point at for `prompt` (at most MAX_POINTERS), none of `shown`
    (`session_dir`: where a remote's MCP session is kept between prompts)."""
    idents = extract(prompt)
    if not idents:
        return []
    from .brief_where import checkout
    from .recall_scope import resolve
    from .remote_settings import configured

    where = checkout(cwd) if cwd else None
    remote = configured(home)
    if remote is not None:
        found = _remote(home, remote, where, idents, shown, session_dir)
        if found is not None:
            return found
    scope = resolve(home, cwd, where) if cwd else None
    if scope is None:
        return []
    idents = _relative(idents, scope.toplevel)
    from . import brief_read

    db = brief_read.connect(scope.index)
    try:
        found = brief_read.naming(db, scope.allowed, idents, exclude=shown, limit=3 * MAX_POINTERS)
    finally:
        db.close()
    return _real(found, scope.toplevel)[:MAX_POINTERS]


def _relative(idents: list[Ident], toplevel: str | None) -> list[Ident]:
    """Paths as the memory names them: relative to the checkout's top level."""
    if not toplevel:
        return idents
    from .recall_ids import relative

    return [Ident("path", relative(i.text, toplevel)) if i.kind == "path" else i for i in idents]


def _remote(
    home: str, remote: Remote, where: object, idents: list[Ident], shown: set[str],
    session_dir: str,
) -> list[Named] | None:  # fmt: skip
    """The pointers from the remote server; None when it failed (logged): local recall."""
    from .brief_where import Where
    from .remote_brief import for_prompt

    toplevel = where.toplevel if isinstance(where, Where) else None
    found = for_prompt(home, remote, _relative(idents, toplevel), shown, 3 * MAX_POINTERS,
                       session_dir or None)  # fmt: skip
    return None if found is None else _real(found, toplevel)[:MAX_POINTERS]


def _late(home: str, event: Event, shown: set[str]) -> Brief | None:
    """The brief's Apply and Recall the detached child found after the session start, not
    shown yet; waits for the child up to `WAIT_S` (the note says until when it is worth it)."""
    import os
    import time

    from . import brief_cache, brief_pending, brief_render

    note_path = brief_pending.path(home, event.host, event.session_id or "")
    note = brief_cache.load(note_path) or {}
    at, until = note.get("at"), note.get("until")
    if not isinstance(at, (int, float)) or not isinstance(until, (int, float)):
        until = 0.0
    deadline = min(float(until), time.time() + WAIT_S)
    while True:
        doc = brief_cache.load(str(note.get("cache") or "")) if until else None
        took = doc is not None and (doc.get("key") == note.get("key") or _after(doc, at))
        if took or time.time() >= deadline:
            break
        time.sleep(POLL_S)
    if not took and time.time() < float(until):
        return None  # the child is still at it: the next prompt looks again
    try:  # noqa: SIM105 (contextlib costs the hook an import)
        os.unlink(note_path)
    except OSError:
        pass
    if not took or doc is None:
        return None
    apply = [i for i in doc.get("apply") or () if isinstance(i, dict) and i.get("id") not in shown]
    recall = [i for i in doc.get("recall") or () if isinstance(i, dict)]
    recall = [i for i in recall if i.get("id") not in shown]
    room = note.get("room")
    overview = doc.get("overview") if note.get("overview") else ""
    return brief_render.render_late(apply, recall, room if isinstance(room, int) else 0,
                                    overview if isinstance(overview, str) else "")  # fmt: skip


def _after(doc: dict[str, object], at: object) -> bool:
    stamp = doc.get("at")
    return isinstance(stamp, (int, float)) and isinstance(at, (int, float)) and stamp >= at


def run(event: Event, out: Output) -> None:
    """The handler: the brief's late part, if any, then pointers, as additional context."""
    from . import served

    if not served.carries_context(event):
        return  # Cursor's beforeSubmitPrompt: no context reaches the model

    import time

    started = time.monotonic()
    folder = served.folder(out.home, event.host, event.session_id) if event.session_id else ""
    shown = served.shown(folder) if folder else set()
    from .brief_pending import waiting

    if waiting(out.home, event.host, event.session_id):
        late = _late(out.home, event, shown)
        if late is not None:
            out.context(late.text)
            shown |= set(late.shown)
            if folder:
                served.mark(folder, late.shown)
                recall = [i for i in late.shown if i not in {f["id"] for f in late.fired}]
                entry = served.entry(BRIEF, event, late.text, started, fired=late.fired,
                                     shown=recall, cut=late.cut, late=True)  # fmt: skip
                served.account(folder, entry)
            started = time.monotonic()
    if not may_name(event.prompt):
        return
    text, ids = render(pointers(out.home, event.cwd, event.prompt, shown, folder))
    if text:
        out.context(text)
        if folder:
            served.mark(folder, ids)
            served.account(folder, served.entry(NAME, event, text, started, shown=ids))
