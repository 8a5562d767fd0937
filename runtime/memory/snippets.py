"""A hit's snippet: a few words of its body around the first word the query matched, marked.

Bounded by construction. FTS5's snippet() scores a window at every phrase hit against every
other hit in the whole column: quadratic in the hits (12 s for 20k hits of one word in a
1 MiB record). Here the body is scanned for the first matched word in growing steps that
stop at the first one found, never past SCAN_CHARS, and only the window around it is cut
and marked: the cost follows where the first match is, not how many there are.

Words are matched as the index matches them, closely enough for a snippet: SQLite's own
tokenizer stems the query (a temporary FTS5 table in the connection), and a body word is
marked when its folded form starts with a stem. Stdlib only (the hook read path imports it).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence

from . import fts

SNIPPET_TOKENS = 12  # words in a snippet, as FTS5's snippet() was asked for
BEFORE = 3  # words shown before the first match
SCAN_CHARS = 256 * 1024  # past this, a snippet is the body's start
FIRST_STEP = 4096
WINDOW_CHARS = 480  # a snippet of very long words is cut here
ELLIPSIS = "…"
_MISSES = 256  # in-word occurrences of one stem skipped per step before it is given up
_TOKEN = re.compile(r"[^\W_]+")
_STEMMER = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memhub_stems USING fts5(words,"
    f" tokenize='{fts.TOKENIZER}')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memhub_stem_terms"
    " USING fts5vocab(temp, memhub_stems, instance)",
)


class _Folder(dict[int, str]):
    """str.translate's table: a character -> its lower-case base letter, one for one (so
    offsets in the folded text are offsets in the original)."""

    def __missing__(self, code: int) -> str:
        import unicodedata  # only for text that is not ASCII

        char = chr(code)
        base = unicodedata.normalize("NFKD", char)[:1] or char
        lower = base.lower()
        value = lower if len(lower) == 1 else char
        self[code] = value
        return value


_FOLD = _Folder()


def fold(text: str) -> str:
    """`text` lower-cased and without accents, character for character."""
    return text.lower() if text.isascii() else text.translate(_FOLD)


class Stemmer:
    """Query words -> the prefixes a matching body word starts with, as one connection's
    FTS5 tokenizer stems them (a temporary table), remembered per word."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._made = False
        self._known: dict[str, str] = {}

    def keys(self, terms: Iterable[str]) -> tuple[str, ...]:
        """Each word's stem less a final i or e ("citi" for city, "hope" for hoping), so
        every form of the word starts with it; the folded word itself without a usable
        temporary table (a broken temp store)."""
        words = list(dict.fromkeys(w.casefold() for term in terms for w in _TOKEN.findall(term)))
        missing = [word for word in words if word not in self._known]
        if missing:
            self._learn(missing)
        cut = set()
        for word in words:
            stem = self._known.get(word) or fold(word)
            cut.add(stem[:-1] if len(stem) > 3 and stem[-1] in "ie" else stem)
        return tuple(sorted(cut, key=lambda key: (-len(key), key)))

    def _learn(self, words: list[str]) -> None:
        if len(self._known) > 4096:
            self._known.clear()
        try:
            if not self._made:
                for statement in _STEMMER:
                    self._db.execute(statement)
                self._made = True
            self._db.executemany(
                "INSERT INTO temp.memhub_stems (rowid, words) VALUES (?, ?)", enumerate(words)
            )
            rows = self._db.execute("SELECT doc, term FROM temp.memhub_stem_terms").fetchall()
            self._db.execute("DELETE FROM temp.memhub_stems")
        except sqlite3.Error:
            return
        for doc, term in rows:
            self._known[words[int(doc)]] = str(term)


def pattern(keys: Sequence[str]) -> re.Pattern[str] | None:
    """A folded word that starts with one of `keys` (longest first) matches."""
    return re.compile("|".join(map(re.escape, keys))) if keys else None


def locate(body: str, keys: Sequence[str]) -> int | None:
    """Where the first word starting with one of `keys` begins in `body` (its first
    SCAN_CHARS characters), or None."""
    if not keys:
        return None
    reach = max(map(len, keys))
    start, step, end_of_scan = 0, FIRST_STEP, min(len(body), SCAN_CHARS)
    while start < end_of_scan:
        end = min(start + step, end_of_scan)
        lead = 1 if start else 0  # the character before: is a match a word's start?
        part = fold(body[start - lead : end + reach])
        found = [at for key in keys if (at := _word_start(part, key, lead)) is not None]
        if found:
            return start - lead + min(found)
        start, step = end, step * 4
    return None


def _word_start(text: str, key: str, least: int) -> int | None:
    """The first offset (from `least` on) where a word of `text` starts with `key`."""
    at = text.find(key, least)
    for _ in range(_MISSES):
        if at < 0:
            return None
        if at == 0 or not text[at - 1].isalnum():
            return at
        at = text.find(key, at + 1)
    return None


def window(body: str, keys: Sequence[str], marks: tuple[str, str] = ("", "")) -> str:
    """SNIPPET_TOKENS words of `body` from a few before its first match (its start when
    none is found, or when the match is among its first words), matched words wrapped in
    `marks`, an ellipsis where it is cut."""
    start = _start(body, locate(body, keys))
    words = []
    for match in _TOKEN.finditer(body, start, start + WINDOW_CHARS):
        words.append(match)
        if len(words) == SNIPPET_TOKENS:
            break
    if not words:
        return ""
    marked = pattern(keys) if marks != ("", "") else None
    out = [ELLIPSIS] if start > 0 else []
    at = words[0].start()
    for word in words:
        out.append(body[at : word.start()])
        text = word.group()
        hit = marked is not None and marked.match(fold(text)) is not None
        out.append(f"{marks[0]}{text}{marks[1]}" if hit else text)
        at = word.end()
    rest = body[at : at + WINDOW_CHARS]
    if _TOKEN.search(rest) is not None:
        out.append(ELLIPSIS)
    elif at + WINDOW_CHARS >= len(body):
        out.append(rest.rstrip())  # the body's last words: its closing punctuation too
    return "".join(out)


def _start(body: str, at: int | None) -> int:
    """Where a window showing BEFORE words before offset `at` begins."""
    if at is None:
        return 0
    low = max(0, at - 40 * BEFORE)
    before = [match.start() for match in _TOKEN.finditer(body, low, at)]
    if low == 0 and len(before) <= BEFORE + 2:
        return 0
    if len(before) >= BEFORE:
        return before[-BEFORE]
    return before[0] if before else at
