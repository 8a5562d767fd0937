"""Rulebooks: named sets of team rules that fire as advisories at the moment of a call.

`book.py` reads books (declared in a hub or held in memory) into Book and Rule; `fire.py`
decides which rules a call fires (both books when two match; caps and the session-start
budget spent widest book first) and renders them; `ledger.py` records the fires locally under
the session identity capture uses. Stdlib only, nothing at import: hooks import these.

Books are read from three kinds of folder, listed in one place (`book_folders`), in this
order of precedence when two books share a name:
- a bundle's own books, beside its vendored runtime (`<plugin>/memhub_rulebooks/`): the
  hub's `rulebooks:` compiled into the plugin;
- the books of each hub `memhub apply` installed (`$MEMHUB_HOME/rules/hub/<plugin>/`, and
  `<plugin>@<project>/` for a project-scope install, which binds only inside that project);
- the books held in memory (`$MEMHUB_HOME/rules/books/`, written by `memhub rules add`).

Where books are is answered here alone (`book_folders`, `books_present`), without `os`: the
`rules.advise` handler asks `books_present` before importing anything else of rules.
"""

import sys

from ..lowos import join

if sys.platform != "win32":
    import posix as _os  # `os` costs every hook call; the few calls here are posix's
else:  # pragma: no cover - Windows
    import os as _os

MEMORY = "memory"  # the origin of a book held in memory
BUNDLED = "memhub_rulebooks"  # a bundle's books: a folder beside its memhub_runtime/
PROJECT_MARK = ".project"  # in a project-scope hub folder: the project's path
CACHE_FORMAT = 2  # 2: every folder of book_folders, each book's origin and project


def books_dir(home: str) -> str:
    """Where the locally held books are: `$MEMHUB_HOME/rules/books/` (store.py reads them)."""
    return join(home, "rules", "books")


def hub_books_dir(home: str) -> str:
    """Where `memhub apply` installs each hub's books: `$MEMHUB_HOME/rules/hub/<plugin>/`."""
    return join(home, "rules", "hub")


def bundled_books_dir() -> str | None:
    """A bundle's own books (`<plugin>/memhub_rulebooks/`, beside the vendored runtime
    this module is part of); None when this module's path has no such parent."""
    parts = __file__.replace("\\", "/").rsplit("/", 3)  # <plugin>/<runtime>/rules/__init__.py
    return join(parts[0], BUNDLED) if len(parts) == 4 and parts[0] else None


def _names(folder: str) -> list[str]:
    """The entries of `folder`, not following a link where the folder should be ([] then)."""
    flags = _os.O_RDONLY | getattr(_os, "O_DIRECTORY", 0) | getattr(_os, "O_NOFOLLOW", 0)
    try:
        fd = _os.open(folder, flags)
    except (OSError, ValueError):
        return []
    try:
        return list(_os.listdir(fd))
    except (OSError, TypeError):  # TypeError: a platform whose listdir takes no fd
        return []
    finally:
        _os.close(fd)


def book_folders(home: str) -> list[tuple[str, str]]:
    """(origin, folder) of every folder books are read from, first wins on a shared name:
    the bundle's (`hub <plugin> (bundle)`), each installed hub's (`hub <plugin>`), memory's."""
    found: list[tuple[str, str]] = []
    bundled = bundled_books_dir()
    if bundled is not None:
        plugin = bundled.replace("\\", "/").rsplit("/", 2)[-2]
        found.append((f"hub {plugin} (bundle)", bundled))
    hubs = hub_books_dir(home)
    for name in sorted(_names(hubs)):
        if not name.startswith("."):
            found.append((f"hub {name.partition('@')[0]}", join(hubs, name)))
    found.append((MEMORY, books_dir(home)))
    return found


def is_book_file(name: str) -> bool:
    """Whether a folder entry is a book's file (`*.json`, not hidden)."""
    return name.endswith(".json") and not name.startswith(".")


def books_present(home: str) -> bool:
    """Whether any folder of `book_folders` holds a book file: the hook's cheap "any book
    at all?" check (a few failed opens for a person with none; `os` is not imported)."""
    return any(
        is_book_file(name) for _origin, folder in book_folders(home) for name in _names(folder)
    )


def listing_key(home: str) -> tuple | None:
    """What every books folder holds, by stat: the books cache is good while this is
    unchanged. None when no folder holds a book file (nothing to read, nothing to cache)."""
    folders = []
    any_book = False
    for _origin, folder in book_folders(home):
        names = sorted(n for n in _names(folder) if is_book_file(n) or n == PROJECT_MARK)
        marks = []
        try:
            for name in names:
                info = _os.stat(join(folder, name), follow_symlinks=False)
                marks.append((name, info.st_mtime_ns, info.st_size, info.st_ino, info.st_mode))
            top = _os.stat(folder, follow_symlinks=False)
        except OSError:
            continue  # gone while listed: the next call sees the new listing
        any_book = any_book or any(is_book_file(n) for n in names)
        folders.append((folder, top.st_mtime_ns, top.st_ino, tuple(marks)))
    return (CACHE_FORMAT, tuple(folders)) if any_book else None


def cache_file(home: str) -> str:
    """The books cache of this runtime's view: one per bundle folder, so two plugins'
    runtimes (each seeing its own bundle's books) do not rewrite one cache in turn."""
    bundled = bundled_books_dir() or ""
    tag = "".join(c if c.isalnum() else "_" for c in bundled)[-120:]
    return join(home, "rules", f"books.{tag}.cache" if tag else "books.cache")


def active_events(home: str) -> frozenset[str] | None:
    """The events of every active rule of every book (whoever they bind), from the books
    cache while it is current; None when it cannot say (no cache yet, or stale): then the
    caller reads the books. Marshal is built in: nothing is imported."""
    import marshal

    key = listing_key(home)
    if key is None:
        return frozenset()
    try:
        with open(cache_file(home), "rb") as handle:
            cached_key, mappings = marshal.loads(handle.read())
        if cached_key != key:
            return None
        return frozenset(
            rule["event"] for book in mappings for rule in book["rules"]
            if rule["state"] == "active"
        )  # fmt: skip
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        return None
