"""Rulebooks on disk: one JSON file per book, in every folder of `book_folders` (a bundle's,
each installed hub's, memory's `$MEMHUB_HOME/rules/books/`), read together.

A file is a book's mapping as book.py reads it. A file that is not a book (or a link, a FIFO,
a file over MAX_BYTES) is reported (file and reason) and skipped, never rewritten. Adding a
rule writes only memory's books, never a hub's, and rewrites its book atomically (a temp file,
fsync, rename, 0600) under a lock beside the folder, so two writers never lose a rule.
"""

from __future__ import annotations

import os

from . import (
    MEMORY,
    PROJECT_MARK,
    _names,
    book_folders,
    books_dir,
    hub_books_dir,
    is_book_file,
)
from . import cache_file as _cache_file
from . import listing_key as _listing_key
from .book import Book, RuleError, book_of, document

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from typing import Any

MAX_BYTES = 1 << 20
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_.")


def book_file(home: str, name: str) -> str:
    """The file of book `name` (a name that is no safe file name is refused)."""
    stem = name.strip().lower()
    if not stem or stem.startswith(".") or not set(stem) <= _SAFE or len(stem) > 100:
        raise RuleError(
            f"rulebook name {name!r} cannot be a file name: use letters, digits, '-', '_', '.'"
        )
    return os.path.join(books_dir(home), stem + ".json")


def _read_bytes(path: str, limit: int = MAX_BYTES) -> bytes:
    """A regular file's bytes, at most `limit`: never a link, a FIFO (opened non-blocking,
    so the hook cannot hang on one) or a device."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        import stat

        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            raise RuleError(f"not a regular file under {limit} bytes")
        return handle.read(limit + 1)


def _read(path: str) -> Any:
    data = _read_bytes(path)
    import json

    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise RuleError(f"not UTF-8 JSON ({exc})") from None


def read_book(path: str) -> Book:
    """The book in the file at `path` (OSError, RuleError when it is none)."""
    return book_of(_read(path))


def load_books(home: str) -> tuple[list[Book], list[tuple[str, str]]]:
    """Every readable book of every folder (`book_folders`: the bundle's, each installed
    hub's, memory's), and (file, why) for each file or folder that is not one. Two books of
    one name (case aside): the first folder's is used, the other reported."""
    books: list[Book] = []
    problems: list[tuple[str, str]] = []
    seen: dict[str, tuple[str, str]] = {}
    if os.path.islink(hub_books_dir(home)):
        problems.append(
            (hub_books_dir(home), "is a link: hubs' books are read only from a real folder")
        )
    for origin, folder in book_folders(home):
        if os.path.islink(folder):
            problems.append((folder, "is a link: books are read only from a real folder here"))
            continue
        names = sorted(n for n in _names(folder) if is_book_file(n))
        hub_folder = os.path.dirname(folder) == hub_books_dir(home)
        within = _within(folder) if names and hub_folder else None
        if names and within == "":
            problems.append((folder, f"a project-scope hub folder without its {PROJECT_MARK}"))
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                book = book_of(_read(path))
            except (OSError, RuleError) as exc:
                problems.append((path, str(exc)))
                continue
            first = seen.get(book.name.casefold())
            if first is not None:
                problems.append(
                    (path, f"book {book.name!r} is also {first[0]} ({first[1]}), which is used")
                )
                continue
            seen[book.name.casefold()] = (path, origin)
            book.origin, book.within = origin, within
            books.append(book)
    return books, problems


def _within(folder: str) -> str | None:
    """The project a project-scope hub folder (`<plugin>@<key>`) binds in: its PROJECT_MARK's
    path; "" when that is missing (its books then bind nowhere); None for any other folder."""
    if "@" not in os.path.basename(folder):
        return None
    try:
        raw = _read_bytes(os.path.join(folder, PROJECT_MARK), 4096)
    except (OSError, RuleError):
        return ""
    text = raw.decode("utf-8", "replace").strip()
    return text if os.path.isabs(text) else ""


def hub_book(home: str, name: str) -> Book | None:
    """The book of a hub (bundle or install) named `name` (case aside), None when none is."""
    books, _problems = load_books(home)
    return next(
        (b for b in books if b.origin != MEMORY and b.name.casefold() == name.casefold()), None
    )


def planned_book(
    home: str, name: str, rule: Mapping[str, Any], members: Sequence[str] | None
) -> tuple[Book, bool]:
    """The book `name` with `rule` added (validated), and whether the book is new. A new book
    binds `members` (None: everyone). A rule id the book has is refused."""
    path = book_file(home, name)
    owned = hub_book(home, name)
    if owned is not None:
        raise RuleError(
            f"rulebook {owned.name!r} belongs to {owned.origin} (its hub.yaml declares it "
            "under `rulebooks:`): `memhub rules add` does not write into a hub's book. Fix: "
            "add the rule to the hub's rulebooks and apply the hub again, or add it to a book "
            f"of your own (e.g. --book {owned.name}-mine)"
        )
    existing: Mapping[str, Any] | None = None
    if os.path.lexists(path):
        existing = document(book_of(_read(path)))
    base = existing or {"name": name, "members": "all" if members is None else list(members)}
    rules = list(base.get("rules", []))
    if any(r.get("id") == rule.get("id") for r in rules):
        raise RuleError(f"rulebook {name!r} already has a rule {rule.get('id')!r}")
    return book_of({**base, "rules": [*rules, dict(rule)]}), existing is None


def add_rule(
    home: str, name: str, rule: Mapping[str, Any], members: Sequence[str] | None
) -> tuple[Book, bool, str]:
    """Add `rule` to book `name` under the folder's lock (read, check, write atomically): the
    book written, whether it is new, its file. Two writers queue; neither loses a rule."""
    import fcntl

    folder = books_dir(home)
    if os.path.islink(folder):
        raise RuleError(
            f"{folder} is a link: memhub writes books only into a real folder. Fix: replace "
            "the link with the folder it points to"
        )
    os.makedirs(folder, mode=0o700, exist_ok=True)
    lock = os.open(os.path.join(folder, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        book, new = planned_book(home, name, rule, members)
        return book, new, _write(home, book)
    finally:
        os.close(lock)


def _write(home: str, book: Book) -> str:
    """Replace the book's file: a temp file, fsync, rename (readers see old or new)."""
    import json
    import tempfile

    folder = books_dir(home)
    target = book_file(home, book.name)
    data = (json.dumps(document(book), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    fd, tmp = tempfile.mkstemp(prefix=".book.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def iter_rules(books: Sequence[Book]) -> Iterator[tuple[Book, Any]]:
    for book in books:
        for rule in book.rules:
            yield book, rule


def _racy(key: tuple, now: int) -> bool:
    """Whether a file of `key` changed within two seconds of `now` (its stat proves nothing)."""
    return any(now - mark[1] < 2_000_000_000 for folder in key[1] for mark in folder[3])


def cached_books(home: str) -> list[Book]:
    """The readable books, from a derived cache (marshal: no json or re to import on a hook
    call) while every folder's listing and every file's stat are unchanged; else read afresh
    and the cache rewritten. A file changed within the same clock tick as its cached stat is
    read again (the stat proves nothing then)."""
    import marshal

    key = _listing_key(home)
    if key is None:
        return []
    try:
        with open(_cache_file(home), "rb") as handle:
            cached_key, mappings = marshal.loads(handle.read())
        if cached_key == key:
            return [_from_mapping(m) for m in mappings]
    except (OSError, ValueError, EOFError, TypeError):
        pass
    books, _problems = load_books(home)
    fresh = _listing_key(home)
    if fresh is not None and fresh == key and not _racy(fresh, __import__("time").time_ns()):
        data = marshal.dumps((key, [_cached(b) for b in books]))
        tmp = f"{_cache_file(home)}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(tmp), mode=0o700, exist_ok=True)
            with open(tmp, "wb") as handle:
                handle.write(data)
            os.replace(tmp, _cache_file(home))
        except OSError:
            pass  # a cache that cannot be written is read afresh next time
    return books


def _cached(book: Book) -> dict[str, Any]:
    return {**document(book), "origin": book.origin, "within": book.within}


def _from_mapping(raw: Mapping[str, Any]) -> Book:
    """A Book from a mapping this module wrote (already checked when it was read)."""
    from .book import Rule

    members = raw["members"]
    rules = [
        Rule(r["id"], raw["name"], r["event"], r["text"], r["triggers"],
             None if r["scope"] == "all" else r["scope"], r["state"])
        for r in raw["rules"]
    ]  # fmt: skip
    return Book(raw["name"], None if members == "all" else members, rules,
                raw["origin"], raw["within"])  # fmt: skip
