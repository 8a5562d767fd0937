"""A rulebook and its rules, read from a plain mapping (a hub's `rulebooks:` or memory's JSON).

A book has a name, the people it binds (`members: all`, or a list of names) and rules. A rule
has an id, an event (`edit`: a file is written; `bash`: a shell command runs; `session_start`),
triggers (the directive kinds: paths and globs, commands, identifiers), a scope (`all`, or the
projects it applies to, by id or name), its text and a state (`active` fires; `proposed` waits
for a person). Anything malformed is a RuleError naming the book, the rule and the field.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Protocol

    class RuleLike(Protocol):
        """A rule as a book file holds it (this module's Rule, or the hub's RulebookRule)."""

        @property
        def id(self) -> str: ...
        @property
        def event(self) -> str: ...
        @property
        def text(self) -> str: ...
        @property
        def triggers(self) -> Mapping[str, Sequence[str]]: ...
        @property
        def scope(self) -> Sequence[str] | None: ...
        @property
        def state(self) -> str: ...

    class BookLike(Protocol):
        """A book as its file holds it (this module's Book, or the hub's Rulebook)."""

        @property
        def name(self) -> str: ...
        @property
        def members(self) -> Sequence[str] | None: ...
        @property
        def rules(self) -> Sequence[RuleLike]: ...


EVENTS = ("edit", "bash", "session_start")
STATES = ("active", "proposed")
TRIGGER_KINDS = ("paths", "commands", "identifiers")
EVERYONE = "all"
MAX_TEXT = 2000  # a rule is an advisory at the moment of a call, not a document
MAX_NAME = 100


class RuleError(ValueError):
    """A book or rule that cannot be read: what, where, and how to fix it."""


class Rule:
    """One rule of a book."""

    __slots__ = ("book", "event", "id", "scope", "state", "text", "triggers")

    def __init__(
        self,
        id: str,
        book: str,
        event: str,
        text: str,
        triggers: Mapping[str, Sequence[str]] | None = None,
        scope: Sequence[str] | None = None,
        state: str = "active",
    ) -> None:
        self.id, self.book, self.event, self.text, self.state = id, book, event, text, state
        self.triggers = {kind: tuple((triggers or {}).get(kind, ())) for kind in TRIGGER_KINDS}
        self.scope = None if scope is None else tuple(scope)  # None: every project

    def applies_to(self, project: Sequence[str]) -> bool:
        """Whether the rule's scope holds the project (its id and name; () outside one)."""
        return self.scope is None or any(p in self.scope for p in project if p)

    def __repr__(self) -> str:
        return f"Rule({self.book!r}, {self.id!r})"


class Book:
    """A rulebook: its name, whom it binds, its rules."""

    __slots__ = ("members", "name", "origin", "rules", "within")

    def __init__(
        self,
        name: str,
        members: Sequence[str] | None,
        rules: Sequence[Rule],
        origin: str = "memory",
        within: str | None = None,
    ) -> None:
        self.name, self.rules = name, tuple(rules)
        self.members = None if members is None else tuple(members)  # None: everyone
        # where the book comes from (`memory`, `hub <plugin>`), and the project folder a
        # project-scope install confines it to (None: every folder)
        self.origin, self.within = origin, within

    @property
    def width(self) -> float:
        """How many people the book binds (everyone: more than any list)."""
        return float("inf") if self.members is None else float(len(self.members))

    def binds(self, person: str) -> bool:
        """Whether the book binds `person` (a name compared case-insensitively)."""
        if self.members is None:
            return True
        who = person.strip().casefold()
        return bool(who) and any(m.casefold() == who for m in self.members)

    def __repr__(self) -> str:
        return f"Book({self.name!r}, {len(self.rules)} rules)"


def _text(where: str, value: object, limit: int = MAX_NAME) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RuleError(f"{where}: must be a non-empty string")
    if len(value) > limit:
        raise RuleError(f"{where}: longer than {limit} characters")
    return value.strip() if limit == MAX_NAME else value


def _strings(where: str, value: object) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RuleError(f"{where}: must be a string or a list of non-empty strings")
    return [v.strip() for v in value]


def _rule(book: str, index: int, raw: object) -> Rule:
    where = f"rulebook {book!r}, rule {index + 1}"
    if not isinstance(raw, dict):
        raise RuleError(f"{where}: must be a mapping (id, event, text, triggers)")
    unknown = sorted(set(raw) - {"id", "event", "text", "triggers", "scope", "state"})
    if unknown:
        raise RuleError(
            f"{where}: unknown key {unknown[0]!r} (id, event, text, triggers, scope, state)"
        )
    rule_id = _text(f"{where}: id", raw.get("id"))
    where = f"rulebook {book!r}, rule {rule_id!r}"
    event = raw.get("event")
    if event not in EVENTS:
        raise RuleError(f"{where}: event must be one of {', '.join(EVENTS)} (got {event!r})")
    state = raw.get("state", "active")
    if state not in STATES:
        raise RuleError(f"{where}: state must be one of {', '.join(STATES)} (got {state!r})")
    triggers_raw = raw.get("triggers", {})
    if not isinstance(triggers_raw, dict):
        raise RuleError(f"{where}: triggers must be a mapping of {', '.join(TRIGGER_KINDS)}")
    bad = sorted(set(triggers_raw) - set(TRIGGER_KINDS))
    if bad:
        raise RuleError(f"{where}: unknown trigger kind {bad[0]!r} ({', '.join(TRIGGER_KINDS)})")
    triggers = {k: _strings(f"{where}: triggers.{k}", v) for k, v in triggers_raw.items()}
    if event != "session_start" and not any(triggers.values()):
        raise RuleError(
            f"{where}: an {event} rule needs a trigger (paths, commands or identifiers)"
        )
    scope_raw = raw.get("scope", EVERYONE)
    scope = None if scope_raw == EVERYONE else _strings(f"{where}: scope", scope_raw)
    text = _text(f"{where}: text", raw.get("text"), MAX_TEXT)
    return Rule(rule_id, book, str(event), text, triggers, scope, str(state))


def book_of(raw: Mapping[str, Any]) -> Book:
    """A Book from its mapping: `{name, members, rules}`; RuleError when malformed."""
    if not isinstance(raw, dict):
        raise RuleError("a rulebook must be a mapping (name, members, rules)")
    unknown = sorted(set(raw) - {"name", "members", "rules"})
    if unknown:
        raise RuleError(f"rulebook: unknown key {unknown[0]!r} (name, members, rules)")
    name = _text("rulebook: name", raw.get("name"))
    members_raw = raw.get("members", EVERYONE)
    members = (
        None if members_raw == EVERYONE else _strings(f"rulebook {name!r}: members", members_raw)
    )
    rules_raw = raw.get("rules", [])
    if not isinstance(rules_raw, list):
        raise RuleError(f"rulebook {name!r}: rules must be a list")
    rules = [_rule(name, i, r) for i, r in enumerate(rules_raw)]
    ids = [r.id for r in rules]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise RuleError(f"rulebook {name!r}: rule id {twice[0]!r} is used twice")
    return Book(name, members, rules)


def books_of(raw: object) -> list[Book]:
    """Every book of a list of mappings; two books of one name are refused."""
    if not isinstance(raw, list):
        raise RuleError("rulebooks must be a list of books")
    books = [book_of(item) for item in raw]
    names = [b.name for b in books]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RuleError(f"rulebook name {twice[0]!r} is used twice")
    return books


def document(book: BookLike) -> dict[str, Any]:
    """A book as its file holds it: what `book_of` reads back (the one writer of the format,
    for memory's books and for the ones a hub compiles)."""
    return {
        "name": book.name,
        "members": EVERYONE if book.members is None else list(book.members),
        "rules": [
            {
                "id": r.id,
                "event": r.event,
                "text": r.text,
                "triggers": {k: list(v) for k, v in r.triggers.items() if v},
                "scope": EVERYONE if r.scope is None else list(r.scope),
                "state": r.state,
            }
            for r in book.rules
        ],
    }
