"""`recall.brief` on session_start: name the project's memory and where it meets this branch.

Map (what the memory holds), Apply (directives whose triggers meet the files the branch
touches), Recall & Consult (records and captured sessions naming the branch's files, `PR #N`
or `ENG-N` as exact tokens), rendered under one budget (brief_render.py) as the model's
additional context. Everything shown joins the session's served list (served.py), so neither
prompt pointers nor directive recall show it again. The user gets a system message only when
the memory this checkout resolves to changed since the last session start there; a folder
with no memory gets nothing at all. No network; git through `run_git`; reads through the
index. Stdlib only.
"""

from __future__ import annotations

import os

from . import brief_read, brief_render, served
from .recall_scope import Scope, account_name, resolve

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..dispatch import Output
    from ..events import Event
    from .brief_git import Branch
    from .directives import Hit

__all__ = ["ANNOUNCED", "build", "run"]

NAME = "recall.brief"
BUDGET_ENV = "MEMHUB_BRIEF_TOKEN_BUDGET"
ANNOUNCED = "announced"  # in $MEMHUB_HOME/hooks/recall/: `<toplevel>\t<signature>` lines
MD_LINES = 12
RECALL_PATHS = 100  # of the branch's files, the ones Recall & Consult looks for by name
MAX_ANNOUNCED = 500


def _head(scope: Scope) -> list[str]:
    if scope.project_id is None:
        where = "shared memory only (this checkout is not connected: `memhub project connect`)"
    else:
        seen = " + ".join(s for s, _ in scope.allowed)
        where = f"**{scope.project_name}** (`{scope.project_id}`; {seen})"
    return [
        f"## 🧠 memhub memory: {where}",
        "The memory tools (`search_memory`, `get_memory`) answer from it; below is what it"
        " holds and where it meets this branch.",
    ]


def _apply(scope: Scope, branch: Branch, shown: set[str]) -> list[Hit]:
    from . import directives, directives_read

    if not branch.files:
        return []
    call = directives.Call(paths=branch.files)
    repo = os.path.basename(scope.toplevel or "")
    stop = directives.blocked(account_name(), repo)
    found = directives_read.candidates(scope.index, scope.allowed, call)
    return directives.select(found, call, stop, shown, limit=brief_render.MAX_APPLY)


def _idents(branch: Branch) -> list:
    from .recall_ids import Ident, extract

    named = [Ident("path", f) for f in branch.files[:RECALL_PATHS]]
    # a branch is often named in lower case (`jane/eng-42-models`): its keys read upper
    for text in (branch.name.replace("/", " ").upper(), *branch.subjects):
        named += extract(text, 50, ("pr", "ticket"))
    return list(dict.fromkeys(named))


def rulebook_block(scope: Scope) -> str:
    """The rulebook's session-start block (issue 11, rulebooks), which shares the budget
    one part in three: empty until rulebooks exist."""
    return ""


def build(
    scope: Scope, shown: set[str], budget: int, memo: str = "", rulebook: str = ""
) -> brief_render.Brief | None:
    """The brief for `scope` (None: the memory it sees holds nothing); `memo`: where the
    counts are kept between session starts; `rulebook`: the block rendered after it."""
    db = brief_read.connect(scope.index)
    try:
        if memo:
            counts = brief_read.counts_memo(db, scope.allowed, scope.index, memo)
        else:
            counts = brief_read.counts(db, scope.allowed)
        if not any(counts.values()):
            return None
        md_top = brief_read.memory_md_top(scope.md_files(), MD_LINES)
        apply: list[Hit] = []
        recall: list[brief_read.Named] = []
        if scope.toplevel is not None:
            from .brief_git import branch_of

            branch = branch_of(scope.toplevel, scope.common_dir)
            apply = _apply(scope, branch, shown)
            skip = shown | {h.directive.id for h in apply}
            recall = brief_read.naming(
                db, scope.allowed, _idents(branch), exclude=skip, limit=brief_render.MAX_RECALL
            )
    finally:
        db.close()
    return brief_render.render(_head(scope), counts, md_top, apply, recall, budget, rulebook)


def _announce(home: str, scope: Scope, counts_text: str) -> str | None:
    """The system message when this checkout's memory changed since it was last announced."""
    key = scope.toplevel or "-"
    path = os.path.join(home, "hooks", "recall", ANNOUNCED)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        lines = []
    known = dict(line.split("\t", 1) for line in lines if "\t" in line)
    if known.get(key) == scope.signature:
        return None
    known.pop(key, None)
    known[key] = scope.signature
    _save(path, [f"{k}\t{v}" for k, v in known.items()][-MAX_ANNOUNCED:])
    if scope.project_id is None:
        return f"🧠 memhub: shared memory only in this checkout ({counts_text})"
    return f"🧠 memhub: memory in this repo is {scope.project_name} ({scope.project_id}): {counts_text}"


def _save(path: str, lines: list[str]) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temp = f"{path}.{os.getpid()}.tmp"
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write("".join(line.replace("\n", " ") + "\n" for line in lines))
        os.replace(temp, path)
    except OSError:
        pass  # announcing again next time is the only cost


def run(event: Event, out: Output) -> None:
    """The handler: the brief as additional context, a system message on a change."""
    if not served.carries_context(event):
        return
    import time

    started = time.monotonic()
    scope = resolve(out.home, event.cwd)
    if scope is None:
        return
    folder = served.folder(out.home, event.host, event.session_id) if event.session_id else ""
    shown = served.shown(folder) if folder else set()
    budget = brief_render.budget_chars(os.environ.get(BUDGET_ENV))
    memo = os.path.join(out.home, "hooks", "recall", "counts")
    brief = build(scope, shown, budget, memo, rulebook_block(scope))
    if brief is None:
        return
    out.context(brief.text)
    if folder:
        served.mark(folder, brief.shown)
        recall = [i for i in brief.shown if i not in {f["id"] for f in brief.fired}]
        served.account(
            folder,
            served.entry(NAME, event, brief.text, started, fired=brief.fired, shown=recall,
                         cut=brief.cut),
        )  # fmt: skip
    counts_text = brief.text.split("### Map\n", 1)[-1].split("\n", 1)[0]
    message = _announce(out.home, scope, counts_text)
    if message:
        out.system_message(message)
