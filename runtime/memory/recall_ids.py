"""The identifiers a text names, and whether a document names one as an exact token. Pure.

Kinds: `path` (a file path: a word with `/`, or `name.ext`), `pr` (`PR #12`, a GitHub pull
URL), `ticket` (`ENG-42`: an upper-case key, a dash, a number), `error` (a quoted string
that reads as an error message) and `symbol` (a `snake_case` or `camelCase` word, or one in
backticks; the caller keeps only those the repository holds). No semantic guess: a text
without one of these names nothing.

`may_name` is the fast path: plain prose (no `/`, `#`, `_`, a quote, a dotted or dashed
word, an inner capital) is refused with string methods alone, so a prompt naming nothing
imports nothing and opens nothing. `re` is imported and compiled on first real use.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing (a hook imports this)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["Ident", "extract", "may_name", "names", "relative"]

MAX_IDENTS = 12
MIN_ERROR, MAX_ERROR = 6, 200
MIN_SYMBOL = 4
NOT_TICKETS = frozenset(("UTF", "SHA", "ISO", "MD", "X", "PEP"))  # UTF-8, SHA-256: no ticket
ERROR_WORDS = (
    *("error", "exception", "fail", "fatal", "denied", "not found", "cannot", "can't"),
    *("unable", "invalid", "undefined", "refused", "timed out", "timeout", "missing"),
    *("traceback", "panic", "no such", "unexpected", "not defined", "errno"),
)
_TRIM = "\"'`()[]{}<>,;:!?*"
_PATTERNS: dict[str, object] = {}
_N = MAX_ERROR
# a "double", `backtick` or 'single' quoted span (a single quote only after a space: "don't")
_QUOTED = (
    rf"\"([^\"\n]{{1,{_N}}})\"|`([^`\n]{{1,{_N}}})`"
    rf"|(?:^|(?<=\s))'([^'\n]{{1,{_N}}})'(?=[\s.,;:!?)]|$)"
)


class Ident:
    """One identifier: its kind and its text (as it is matched)."""

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind, self.text = kind, text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ident) and (self.kind, self.text) == (other.kind, other.text)

    def __hash__(self) -> int:
        return hash((self.kind, self.text))

    def __repr__(self) -> str:
        return f"Ident({self.kind!r}, {self.text!r})"


def _dotted(text: str) -> bool:
    """A `.` between two letters or digits (`a.py`, not the end of a sentence)."""
    i = text.find(".")
    while i > 0:
        if i + 1 < len(text) and text[i - 1].isalnum() and text[i + 1].isalnum():
            return True
        i = text.find(".", i + 1)
    return False


def _dashed_number(text: str) -> bool:
    """An upper-case letter, a dash, a digit (`ENG-42`)."""
    i = text.find("-")
    while i > 0:
        if i + 1 < len(text) and text[i - 1].isupper() and text[i + 1].isdigit():
            return True
        i = text.find("-", i + 1)
    return False


def _inner_capital(text: str) -> bool:
    for word in text.split():
        rest = word[1:]
        if not rest.islower() and not rest.isupper() and any(c.isupper() for c in rest):
            return True
    return False


def may_name(text: str | None) -> bool:
    """Whether `text` can name an identifier at all (False: certainly names none)."""
    if not text:
        return False
    if any(ch in text for ch in '/#_"`'):
        return True
    return " '" in text or _dotted(text) or _dashed_number(text) or _inner_capital(text)


def _re(name: str) -> Any:  # an re.Pattern, without importing re at module level
    pattern = _PATTERNS.get(name)
    if pattern is None:
        import re

        sources = {
            "quoted": _QUOTED,
            "symbol": r"^[A-Za-z_][A-Za-z0-9_]*$",
        }
        pattern = re.compile(sources[name])
        _PATTERNS[name] = pattern
    return pattern


_DIGITS = "0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _number_at(text: str, start: int) -> str:
    """The run of ASCII digits at `start` if a word does not go on after it, else ""."""
    end = start
    while end < len(text) and text[end] in _DIGITS:
        end += 1
    if end == start or (end < len(text) and _word(text[end])):
        return ""
    return text[start:end]


def _after_word(before: str, word: str) -> bool:
    """`before` ends with the word `word` (not a longer word ending in it)."""
    return before.endswith(word) and (len(before) == len(word) or not _word(before[-len(word) - 1]))


def pr_numbers(text: str) -> list[str]:
    """The numbers of `PR #N`, `pull request #N` and `/pull/N` in `text` (string methods
    only: a brief reading 20 commit subjects imports no `re`)."""
    low, out = text.lower(), []
    i = low.find("#")
    while i >= 0:
        start = i + 1
        while start < len(low) and low[start] in " \t":
            start += 1
        number = _number_at(low, start)
        before = low[:i].rstrip()
        if number and (_after_word(before, "pr") or _after_word(before, "pull request")):
            out.append(number)
        i = low.find("#", i + 1)
    i = low.find("/pull/")
    while i >= 0:
        number = _number_at(low, i + len("/pull/"))
        if number:
            out.append(number)
        i = low.find("/pull/", i + 1)
    return out


def tickets(text: str) -> list[str]:
    """`ENG-42`-style keys: an upper-case letter and up to nine more capitals or digits, a
    dash, a number; on boundaries (`XENG-42`, `ENG-42-3` and `UTF-8` are none)."""
    out = []
    i = text.find("-")
    while i > 0:
        start = i
        while start > 0 and (text[start - 1] in _UPPER or text[start - 1] in _DIGITS):
            start -= 1
        key, before = text[start:i], text[start - 1] if start else ""
        number = _number_at(text, i + 1)
        end = i + 1 + len(number)
        dashed_on = text[end : end + 1] == "-" and text[end + 1 : end + 2] in tuple(_DIGITS)
        if (
            number
            and key[:1] in tuple(_UPPER)
            and len(key) <= 10
            and not (before and (_word(before) or before == "-"))
            and not dashed_on
            and key not in NOT_TICKETS
        ):
            out.append(f"{key}-{number}")
        i = text.find("-", i + 1)
    return out


def _looks_like_path(word: str) -> bool:
    if "://" in word or word.startswith("-"):
        return False
    if "/" in word:
        return any(part[:1].isalnum() or part[:1] in "._" for part in word.split("/") if part)
    stem, dot, ext = word.rpartition(".")
    if len(stem) + len(ext) < 3:
        return False  # e.g, i.e
    return bool(dot and stem and ext.isalnum() and len(ext) <= 8 and any(c.isalpha() for c in ext))


def _symbol(word: str) -> bool:
    if len(word) < MIN_SYMBOL or not _re("symbol").match(word):
        return False
    inner = word.strip("_")
    return "_" in inner or (not inner[1:].islower() and not inner.isupper())


def _errorish(text: str) -> bool:
    folded = text.casefold()
    return any(word in folded for word in ERROR_WORDS)


def extract(
    text: str | None, limit: int = MAX_IDENTS, kinds: tuple[str, ...] | None = None
) -> list[Ident]:
    """The identifiers `text` names, each once, at most `limit` (only `kinds`, if given:
    `("pr", "ticket")` needs no `re`)."""
    if not may_name(text):
        return []
    assert text is not None
    found: list[Ident] = []
    found += [Ident("pr", f"PR #{n}") for n in pr_numbers(text)]
    found += [Ident("ticket", key) for key in tickets(text)]
    if kinds is not None:
        found = [i for i in found if i.kind in kinds]
        if not set(kinds) - {"pr", "ticket"}:
            return list(dict.fromkeys(found))[: max(limit, 0)]
    for match in _re("quoted").finditer(text):
        quoted = next(g for g in match.groups() if g is not None).strip()
        if len(quoted) >= MIN_ERROR and _errorish(quoted):
            found.append(Ident("error", quoted))
        elif match.group(2) is not None and _symbol(quoted.rstrip("()")):
            found.append(Ident("symbol", quoted.rstrip("()")))
    for raw in text.split():
        word = raw.strip(_TRIM).rstrip(".")
        if "/pull/" in word:
            continue  # already a PR
        if _looks_like_path(word):
            found.append(Ident("path", word))
        elif _symbol(word.removesuffix("()")):
            found.append(Ident("symbol", word.removesuffix("()")))
    if kinds is not None:
        found = [i for i in found if i.kind in kinds]
    return list(dict.fromkeys(found))[: max(limit, 0)]


def relative(path: str, toplevel: str) -> str:
    """`path` relative to the checkout `toplevel` when it lies inside it, else as it is."""
    top = toplevel.rstrip("/") + "/"
    return path[len(top) :] if path.startswith(top) else path


# --- does a document name it --------------------------------------------------------------


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _path_bounded(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    if before and (_word(before) or before in "-."):
        return False
    if after == "." and end + 1 < len(text) and _word(text[end + 1]):
        return False
    return not (after and (_word(after) or after in "-/"))


def _occurs(text: str, token: str, bounded: Callable[[str, int, int], bool]) -> bool:
    i = text.find(token)
    while i >= 0:
        if bounded(text, i, i + len(token)):
            return True
        i = text.find(token, i + 1)
    return False


def _word_bounded(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    return not (before and (_word(before) or before == "-")) and not (
        after and (_word(after) or after == "-")
    )


def names(text: str, ident: Ident) -> bool:
    """Whether `text` names `ident` as an exact token (a PR in any of its spellings)."""
    if ident.kind == "path":
        return _occurs(text, ident.text, _path_bounded)
    if ident.kind == "pr":
        number = ident.text.rpartition("#")[2]
        return number in pr_numbers(text)
    if ident.kind == "error":
        return ident.text.casefold() in text.casefold()
    return _occurs(text, ident.text, _word_bounded)
