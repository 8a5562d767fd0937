"""The hub's `rulebooks:` section: named sets of team rules, checked and built into the model.

The schema has checked each key's shape; this checks what it cannot (a book name used twice,
a rule id used twice in its book, `members`/`scope` strings other than `all`, an edit or bash
rule without a trigger, literal credentials in a rule's text or triggers, a book too large
for the runtime to read), each problem at its file:line with a fix. The book the compiler
writes is `Rulebook.mapping()`, which the runtime's own reader (runtime/rules/book.py) must
accept: a hub that loads compiles into books that fire.
"""

from __future__ import annotations

import json
from typing import Any

from memhub.runtime.rules import book as runtime_book
from memhub.runtime.rules import store as runtime_store

from .checks import Checker
from .model import Rulebook, RulebookRule, frozen_map
from .yamlsrc import KeyPath

EVERYONE = "all"
TRIGGER_KINDS = runtime_book.TRIGGER_KINDS


class RulebookChecks(Checker):
    """`rulebooks`: each book checked, then built (None for a book with a problem)."""

    def _rulebooks(self, raw: list[dict[str, Any]]) -> tuple[Rulebook, ...]:
        books: list[Rulebook] = []
        seen: dict[str, int] = {}
        for index, spec in enumerate(raw):
            path: KeyPath = ("rulebooks", index)
            folded = spec["name"].casefold()
            if folded in seen:
                self.problem(
                    (*path, "name"),
                    f"rulebook {spec['name']!r} is also rulebooks[{seen[folded]}] (names are "
                    "compared case aside: each is a file)",
                    "give every rulebook its own name, or merge their rules into one book",
                )
                continue
            seen[folded] = index
            book = self._rulebook(path, spec)
            if book is not None:
                books.append(book)
        return tuple(books)

    def _rulebook(self, path: KeyPath, spec: dict[str, Any]) -> Rulebook | None:
        before = len(self.problems)
        members = self._everyone_or_list(
            (*path, "members"), spec.get("members", EVERYONE), "people, by name"
        )
        rules = [self._rule((*path, "rules", i), r) for i, r in enumerate(spec["rules"])]
        ids: dict[str, int] = {}
        for i, rule_spec in enumerate(spec["rules"]):
            other = ids.setdefault(rule_spec["id"], i)
            if other != i:
                self.problem(
                    (*path, "rules", i, "id"),
                    f"rule id {rule_spec['id']!r} is also rules[{other}] of this book",
                    "give every rule of a book its own id",
                )
        if len(self.problems) > before:
            return None
        book = Rulebook(
            name=spec["name"],
            members=members,
            rules=tuple(r for r in rules if r is not None),
            origin=self.positions.of_value(path),
        )
        return book if self._readable(path, book) else None

    def _rule(self, path: KeyPath, spec: dict[str, Any]) -> RulebookRule | None:
        before = len(self.problems)
        triggers: dict[str, tuple[str, ...]] = {}
        for kind, value in spec.get("triggers", {}).items():
            values = [value] if isinstance(value, str) else list(value)
            for i, trigger in enumerate(values):
                where = (
                    (*path, "triggers", kind)
                    if isinstance(value, str)
                    else (*path, "triggers", kind, i)
                )
                self._check_blank(where, trigger)
                self._check_token(where, trigger)
            triggers[kind] = tuple(v.strip() for v in values)
        event = spec["event"]
        if event != "session_start" and not any(triggers.values()):
            example = (
                "paths: ['migrations/*']" if event == "edit" else "commands: ['alembic upgrade']"
            )
            self.problem(
                path,
                f"an {event} rule fires on nothing without a trigger",
                f"add `triggers: {{{example}}}` (paths, commands or identifiers)",
            )
        self._check_blank((*path, "text"), spec["text"])
        self._check_token((*path, "text"), spec["text"])
        scope = self._everyone_or_list(
            (*path, "scope"), spec.get("scope", EVERYONE), "memhub projects, by id or name"
        )
        if len(self.problems) > before:
            return None
        return RulebookRule(
            id=spec["id"],
            event=event,
            text=spec["text"],
            triggers=frozen_map(triggers),
            scope=scope,
            state=spec.get("state", "active"),
            origin=self.positions.of_value(path),
        )

    def _everyone_or_list(self, path: KeyPath, value: Any, what: str) -> tuple[str, ...] | None:
        """`all` as None, a list as its stripped items; any other string is a problem."""
        if isinstance(value, str):
            if value != EVERYONE:
                self.problem(
                    path,
                    f"{value!r} is neither `all` nor a list",
                    f"write `all`, or a list of {what}: [{value}]",
                )
            return None
        for i, item in enumerate(value):
            self._check_blank((*path, i), item)
        return tuple(item.strip() for item in value)

    def _check_blank(self, path: KeyPath, value: str) -> None:
        if not value.strip():
            self.problem(path, "is blank", "write a value, or remove the item")

    def _readable(self, path: KeyPath, book: Rulebook) -> bool:
        """Whether the runtime reads the compiled book: its own reader accepts it, and the
        file is within the size it reads (a larger one would be skipped at every call)."""
        mapping = book.mapping()
        try:
            runtime_book.book_of(mapping)
        except runtime_book.RuleError as exc:
            self.problem(path, str(exc), "fix the rule it names")
            return False
        size = len(json.dumps(mapping, indent=2, ensure_ascii=False).encode("utf-8")) + 1
        if size > runtime_store.MAX_BYTES:
            self.problem(
                path,
                f"rulebook {book.name!r} compiles to {size:,} bytes, more than the "
                f"{runtime_store.MAX_BYTES:,} the runtime reads",
                "split it into smaller books, or shorten its rules",
            )
            return False
        return True
