"""The session brief's text: three checkpoints under one budget, cut Recall first. Pure.

    ## 🧠 memhub memory: <project> (`<id>`; project + shared scopes)
    <how to use it>
    ### Map            counts by kind, the top of MEMORY.md        (never left out)
    ### Apply          directives whose triggers meet the branch's files   (<= 5)
    ### Recall & Consult  records and sessions naming the branch's identifiers  (<= 5)
    … trimmed to budget

One budget (`MEMHUB_BRIEF_TOKEN_BUDGET` tokens, 4 characters each) is split 2:1 between the
brief and the rulebook's session block (`rulebook`: empty until rulebooks exist; cut to its
third). Over budget, Recall items go first (last first), then Apply items, then lines of
MEMORY.md's top; the Map's header and counts always stay. A cut brief ends with `TRIMMED`.

Apply and Recall arrive as items (`apply_item`, `recall_item`: the id, the rendered line and,
for a directive, what fired), which is what the pointer cache keeps (brief_cache.py); when
they came too late for the session start, `render_late` renders them for the first prompt
in what the brief left of its budget, cut in the same order.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .brief_read import Named
    from .directives import Hit

    Item = dict[str, Any]

__all__ = [
    "DEFAULT_TOKENS",
    "TRIMMED",
    "Brief",
    "apply_item",
    "budget_chars",
    "clip",
    "map_line",
    "pointer_line",
    "recall_item",
    "render",
    "render_items",
    "render_late",
]

DEFAULT_TOKENS = 2500
CHARS_PER_TOKEN = 4
TRIMMED = "… trimmed to budget"
MAX_ITEM = 320  # characters of one Apply or Recall line: one long record cannot take them all
MAX_APPLY = MAX_RECALL = 5
KIND_ORDER = ("fact", "preference", "decision", "lesson", "procedure", "artifact")


class Brief:
    """The rendered brief: its text, the ids it showed, whether it was cut, its accounting."""

    __slots__ = ("cut", "fired", "shown", "text")

    def __init__(
        self, text: str, shown: list[str], cut: bool, fired: list[dict[str, object]] | None = None
    ) -> None:
        self.text, self.shown, self.cut = text, shown, cut
        self.fired = fired or []  # the Apply directives, as directive recall accounts them

    @property
    def tokens(self) -> int:
        """Estimated tokens (characters / 4, rounded up)."""
        return -(-len(self.text) // CHARS_PER_TOKEN)


def budget_chars(raw: str | None) -> int:
    """The whole session-start budget in characters, from `MEMHUB_BRIEF_TOKEN_BUDGET`."""
    try:
        tokens = int((raw or "").strip() or DEFAULT_TOKENS)
    except ValueError:
        tokens = DEFAULT_TOKENS
    return max(tokens, 0) * CHARS_PER_TOKEN


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def counts_line(counts: dict[str, int]) -> str:
    """`3 facts, 1 lesson · 2 proposed · 4 captured sessions`."""
    kinds = [k for k in KIND_ORDER if counts.get(k)] + sorted(
        k for k in counts if k not in KIND_ORDER and k not in ("proposed", "session")
    )
    parts = [", ".join(_plural(counts[k], k) for k in kinds) or "no active records"]
    if counts.get("proposed"):
        parts.append(f"{counts['proposed']} proposed")
    if counts.get("session"):
        parts.append(_plural(counts["session"], "captured session"))
    return " · ".join(parts)


def _one_line(text: str, room: int = MAX_ITEM) -> str:
    text = " ".join(text.split())
    return text if len(text) <= room else text[: room - 1].rstrip() + "…"


def apply_line(hit: Hit) -> str:
    from .directives_render import content

    d = hit.directive
    tail = f"  _(fires on: {hit.trigger})_"
    return _one_line(f"- **[{d.kind.upper()}]** {content(hit)}", MAX_ITEM - len(tail)) + tail


def pointer_line(named: Named, room: int = MAX_ITEM, idents: int = 3) -> str:
    """`- <kind>: <title> (`<id>`) names `<ident>`, ...` in at most `room` characters; an
    unreviewed title fenced (unreviewed.py), cut inside its fence, never through it."""
    from .unreviewed import clean, shown  # on use: a warm session start renders none

    what = ", ".join(f"`{i.text}`" for i in named.idents[:idents])
    kind = "session" if named.source == "session" else named.kind
    head, tail = f"- {clean(kind)[:40]}: ", f" (`{clean(named.id)[:80]}`) names {what}"
    if len(head) + len(tail) > room:
        tail = f" (`{clean(named.id)[:80]}`)"
    title = shown(named.title, named.by, named.kind, "active", max(room - len(head) - len(tail), 1))
    return f"{head}{title}{tail}"


def recall_line(named: Named) -> str:
    return pointer_line(named)


def map_line(line: str, rid: str | None, known: dict[str, tuple[str, ...]]) -> str | None:
    """A MEMORY.md line as the Map shows it: a person's own line, or memhub's fixed one, as
    it is; a record's line from what the index says of it (None: not in the index, or not
    in the caller's scopes), its title fenced when unreviewed."""
    from .unreviewed import shown

    if rid is None:
        return line
    if rid not in known:
        return None
    kind, title, status, source = known[rid]
    head, tail = f"- {kind}: ", f" ({rid})"
    return head + shown(title, source, kind, status, MAX_ITEM - len(head) - len(tail)) + tail


def apply_item(hit: Hit) -> Item:
    """A directive under Apply: its id, its line, what fired (as directive recall accounts)."""
    d = hit.directive
    fired = {"id": d.id, "kind": d.kind, "trigger": hit.trigger, "matched": hit.token,
             "cut": False}  # fmt: skip
    return {"id": d.id, "line": apply_line(hit), "fired": fired}


def recall_item(named: Named) -> Item:
    """A record or session under Recall & Consult: its id and its line."""
    return {"id": named.id, "line": recall_line(named)}


APPLY_HEAD = "### Apply: directives for the files this branch touches"
RECALL_HEAD = "### Recall & Consult: memory naming what this branch names"
OVERVIEW_HEAD = "The remote server's overview:"
OVERVIEW_CHARS = 1800  # the published plugin's clip of get_brain_overview
LATE_HEAD = "memhub memory: the rest of this session's brief (worked out after it started):"


def _assemble(
    head: list[str], counts: str, md: Sequence[str], apply: Sequence[str], recall: Sequence[str],
    overview: str = "",
) -> str:  # fmt: skip
    lines = [*head, "", "### Map", counts, *md]
    if overview:
        lines += [OVERVIEW_HEAD, overview]
    if apply:
        lines += ["", APPLY_HEAD, *apply]
    if recall:
        lines += ["", RECALL_HEAD, *recall]
    return "\n".join(lines)


def clip(text: str, limit: int = OVERVIEW_CHARS) -> str:
    """`text` in at most `limit` characters, cut at a line end where one is near."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    cut = head.rfind("\n")
    return (head[:cut] if cut > limit // 2 else head).rstrip() + "…"


def fenced_overview(text: str, limit: int) -> str:
    """The remote server's overview, clipped and quoted as unreviewed (`block`), in at most
    `limit` characters ("" when not even a line fits)."""
    from .unreviewed import REMOTE, block

    clipped = clip(text, limit)
    while len(clipped) > 1:
        fenced = block(clipped, REMOTE)
        if len(fenced) <= limit:
            return fenced
        shorter = len(clipped) - (len(fenced) - limit)
        if shorter < 2:
            break
        clipped = clip(clipped, shorter)
    return ""


def _cut_block(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    keep = room - len(TRIMMED) - 1
    return (text[: max(keep, 0)].rstrip() + "\n" + TRIMMED) if keep > 0 else ""


def render(
    head: Sequence[str],
    counts: dict[str, int],
    md_top: Sequence[str],
    apply: Sequence[Hit],
    recall: Sequence[Named],
    budget: int,
    rulebook: str = "",
) -> Brief:
    """The brief (and the rulebook block after it) in at most `budget` characters."""
    items_a = [apply_item(h) for h in list(apply)[:MAX_APPLY]]
    items_r = [recall_item(n) for n in list(recall)[:MAX_RECALL]]
    return render_items(head, counts, md_top, items_a, items_r, budget, rulebook)


def render_items(
    head: Sequence[str],
    counts: dict[str, int],
    md_top: Sequence[str],
    apply: Sequence[Item],
    recall: Sequence[Item],
    budget: int,
    rulebook: str = "",
    overview: str = "",
    total: str | None = None,
) -> Brief:
    """`render` of items (the pointer cache's): the brief in at most `budget` characters.
    `overview`: the remote server's, part of the Map (never left out: clipped to
    OVERVIEW_CHARS); `total`: the Map's first line when not the local counts."""
    share = budget - budget // 3  # the brief's two thirds; the rulebook block's third
    apply, recall = list(apply)[:MAX_APPLY], list(recall)[:MAX_RECALL]
    lines_a, lines_r = [str(i["line"]) for i in apply], [str(i["line"]) for i in recall]
    n_md, n_a, n_r = len(md_top), len(lines_a), len(lines_r)
    total = counts_line(counts) if total is None else total
    bare = len(_assemble(list(head), total, (), (), ())) + len(OVERVIEW_HEAD) + len(TRIMMED) + 3
    room = min(OVERVIEW_CHARS, share - bare)
    overview = fenced_overview(overview, room) if overview.strip() and room > 1 else ""
    text = _assemble(list(head), total, md_top, lines_a, lines_r, overview)
    cut = len(text) > share
    while cut and (n_r or n_a or n_md):
        if n_r:
            n_r -= 1
        elif n_a:
            n_a -= 1
        else:
            n_md -= 1
        text = _assemble(list(head), total, md_top[:n_md], lines_a[:n_a], lines_r[:n_r], overview)
        if len(text) + 1 + len(TRIMMED) <= share:
            break
    if cut and len(text) + 1 + len(TRIMMED) > share:  # a tiny budget: the title line alone
        text = _assemble(list(head[:1]), total, (), (), ())
    if cut:  # ends with TRIMMED; still too long (tinier still): the text itself is cut
        text = _cut_block(text + "\n" + TRIMMED, share)
    shown = [str(i["id"]) for i in apply[:n_a]] + [str(i["id"]) for i in recall[:n_r]]
    block = _cut_block(rulebook, budget // 3) if rulebook else ""
    fired = [dict(i["fired"]) for i in apply[:n_a]]
    return Brief(text + ("\n\n" + block if block else ""), shown, cut, fired)


def render_late(
    apply: Sequence[Item], recall: Sequence[Item], room: int, overview: str = ""
) -> Brief | None:
    """Apply and Recall that missed the session start, for the first prompt, in `room`
    characters (what the brief left of its share): Recall cut first, then Apply; the
    remote's `overview` (when the start had none to show) first, clipped to what is left.
    None when there is nothing to say or no room for one line."""
    apply, recall = list(apply)[:MAX_APPLY], list(recall)[:MAX_RECALL]
    n_a, n_r = len(apply), len(recall)
    left = min(OVERVIEW_CHARS, room - len(LATE_HEAD) - len(OVERVIEW_HEAD) - 2)
    overview = fenced_overview(overview, left) if overview.strip() and left > 1 else ""

    def text_of(n_a: int, n_r: int, cut: bool) -> str:
        lines = [LATE_HEAD] + ([OVERVIEW_HEAD, overview] if overview else [])
        if n_a:
            lines += [APPLY_HEAD, *(str(i["line"]) for i in apply[:n_a])]
        if n_r:
            lines += [RECALL_HEAD, *(str(i["line"]) for i in recall[:n_r])]
        return "\n".join(lines + ([TRIMMED] if cut else []))

    text, cut = text_of(n_a, n_r, False), False
    while (n_a or n_r) and len(text) > room:
        n_r, n_a = (n_r - 1, n_a) if n_r else (0, n_a - 1)
        text, cut = text_of(n_a, n_r, True), True
    if not (n_a or n_r or overview) or len(text) > room:
        return None
    shown = [str(i["id"]) for i in apply[:n_a]] + [str(i["id"]) for i in recall[:n_r]]
    return Brief(text, shown, cut, [dict(i["fired"]) for i in apply[:n_a]])
