"""Which rules a call fires, in what order, and how they read: advisories, never blocks.

A rule fires when its book binds the person, it is active, its event is the call's, its scope
holds the call's project, and one of its triggers matches the call past directive recall's
precision gate (`memory/directives.trigger_hit`: alphanumeric boundaries, no generic words,
not the account's or the repo's own name). Session-start rules have no call: every one in
scope fires. When two books match, both fire; the per-call cap and the session-start budget
are spent widest book first (a book binding everyone before a two-person book), so an
org-wide rule is never crowded out.
"""

from __future__ import annotations

from ..memory import directives

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from .book import Book, Rule

MAX_PER_CALL = 3  # advisories one edit or command may add
TRIMMED = "… trimmed to budget"


class Fire:
    """A rule a call fired: the rule, its book's width, the text it matched on."""

    __slots__ = ("rule", "token", "width")

    def __init__(self, rule: Rule, width: float, token: str) -> None:
        self.rule, self.width, self.token = rule, width, token

    def __repr__(self) -> str:
        return f"Fire({self.rule.book!r}, {self.rule.id!r}, {self.token!r})"


def _order(fires: list[Fire]) -> list[Fire]:
    """Widest book first, then the longer match, then book and rule id (stable, total)."""
    return sorted(fires, key=lambda f: (-f.width, -len(f.token), f.rule.book, f.rule.id))


def rule_hit(rule: Rule, call: directives.Call, stop: frozenset[str]) -> str | None:
    """The text `rule`'s longest trigger matched in `call`, or None."""
    best: str | None = None
    for kind, triggers in rule.triggers.items():
        for trigger in triggers:
            token = directives.trigger_hit(kind, trigger, call, stop)
            if token is not None and (best is None or len(token) > len(best)):
                best = token
    return best


def candidates(
    books: Iterable[Book], event: str, person: str, project: Sequence[str]
) -> list[tuple[Rule, float]]:
    """The active rules of `event` that bind `person` in `project`, with their book's width."""
    return [
        (rule, book.width)
        for book in books
        if book.binds(person)
        for rule in book.rules
        if rule.state == "active" and rule.event == event and rule.applies_to(project)
    ]


def fires(
    books: Iterable[Book],
    event: str,
    call: directives.Call,
    *,
    person: str,
    project: Sequence[str] = (),
    stop: frozenset[str] = directives.GENERIC,
    already: Iterable[tuple[str, str]] = (),
    cap: int = MAX_PER_CALL,
) -> list[Fire]:
    """The rules an `edit` or `bash` call fires, widest book first, at most `cap`, none of
    `already` ((book, rule id) pairs fired earlier in the session)."""
    done = set(already)
    found = []
    for rule, width in candidates(books, event, person, project):
        if (rule.book, rule.id) in done:
            continue
        token = rule_hit(rule, call, stop)
        if token is not None:
            found.append(Fire(rule, width, token))
    return _order(found)[: max(cap, 0)]


def render(fire: Fire) -> str:
    """One advisory: the book, the rule, what it fired on, the rule's text."""
    rule = fire.rule
    on = f" (fired on `{fire.token}`)" if fire.token else ""
    return f"[memhub rule · {rule.book} · {rule.id}]{on}\n{rule.text.strip()}"


def advisories(found: Sequence[Fire]) -> str:
    """The advisories of one call, as the host's additional context ('' for none)."""
    return "\n\n".join(render(fire) for fire in found)


def session_block(
    books: Sequence[Book], *, person: str, project: Sequence[str] = (), budget_chars: int
) -> tuple[str, list[Fire]]:
    """The session-start block within `budget_chars`, widest book first; the fires it shows.

    It names the books in play when more than one binds; a rule that does not fit is cut,
    never skipped silently: the block then ends with TRIMMED."""
    found = _order([Fire(r, w, "") for r, w in candidates(books, "session_start", person, project)])
    if not found or budget_chars <= 0:
        return "", []
    in_play = sorted({f.rule.book for f in found}, key=lambda n: (-_width(books, n), n))
    lines = [
        "Team rules for this session"
        + (f" (books: {', '.join(in_play)})" if len(in_play) > 1 else "")
        + ":"
    ]
    shown: list[Fire] = []
    used = len(lines[0])
    for fire in found:
        item = "- " + render(fire).replace("\n", " — ", 1)
        if used + 1 + len(item) + 1 + len(TRIMMED) > budget_chars:
            lines.append(TRIMMED)
            break
        lines.append(item)
        used += 1 + len(item)
        shown.append(fire)
    if not shown:
        return "", []
    return "\n".join(lines), shown


def _width(books: Sequence[Book], name: str) -> float:
    return next((b.width for b in books if b.name == name), 0.0)


def explain(
    books: Iterable[Book],
    text: str,
    *,
    person: str,
    project: Sequence[str] = (),
    stop: frozenset[str] = directives.GENERIC,
) -> list[tuple[Rule, str]]:
    """`memhub rules check FILE-OR-COMMAND`: for every rule, whether and why it fires on
    `text` taken as a file written (edit rules) and as a command run (bash rules)."""
    as_edit = directives.Call(paths=[text])
    as_bash = directives.Call(command=text)
    out: list[tuple[Rule, str]] = []
    for book in books:
        for rule in book.rules:
            out.append((rule, _verdict(book, rule, as_edit, as_bash, person, project, stop)))
    return out


def _verdict(
    book: Book,
    rule: Rule,
    as_edit: directives.Call,
    as_bash: directives.Call,
    person: str,
    project: Sequence[str],
    stop: frozenset[str],
) -> str:
    if not book.binds(person):
        return f"does not fire: book {book.name!r} does not bind {person or 'you'}"
    if rule.state != "active":
        return f"does not fire: {rule.state} (accept it first)"
    if not rule.applies_to(project):
        return f"does not fire: scoped to {', '.join(rule.scope or ())}"
    if rule.event == "session_start":
        return "fires at every session start in scope"
    call = as_edit if rule.event == "edit" else as_bash
    token = rule_hit(rule, call, stop)
    if token is None:
        return f"does not fire: no trigger matches it as {'a file' if rule.event == 'edit' else 'a command'}"
    return f"fires on `{token}`"
