"""Directive recall's negative prefilter: a call no trigger key can be in never opens SQLite.

Most mutating commands fire nothing, and opening the trigger cache costs the hook more than
everything else recall does (`_sqlite3` alone imports functools and collections). So beside
the cache, `directives.filter` holds one bit per slot for every window the cache files a key
under (`directives_read._filed`), plus the keys too short to have a window: a call none of
whose four-character windows has its bit set, and that holds none of the short keys, has
no candidate. A set bit proves nothing (several windows share a slot): the cache decides.

The file is built for one state of the index (`directives_read._stamp`); for any other it
answers nothing. Bits are read with `os.pread`, a few per call, never the whole file. A key
holding a tab or line break (the header's separators) makes no filter. Stdlib only.
"""

from __future__ import annotations

from ..lowos import OS, dirname, join

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path); no
# `os` either (lowos: a hook process has not imported it, ~1 ms of a 10 ms start)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["FILE", "excludes", "stamp_of", "write"]

FILE = "directives.filter"
MAGIC = b"memhub-directives-filter 1\n"
SLOTS = 16_777_213  # a prime number of bit slots: 2 MiB, a few percent false passes at 10k
HEADER_MAX = 1 << 20  # the short keys' list; a longer one makes no filter


def path_of(index: str) -> str:
    return join(dirname(index), FILE)


def _slot(window: str) -> int:
    return int.from_bytes(window.encode("utf-8", "surrogatepass"), "little") % SLOTS


def write(index: str, stamp: str, filed: Iterable[tuple[str, str]]) -> None:
    """Replace the filter with one for `stamp` from the cache's (window, key) pairs; with
    a key it cannot hold, remove it. Never raises on a read-only folder."""
    target = path_of(index)
    bits = bytearray(SLOTS // 8 + 1)
    short: set[str] = set()
    for window, key in filed:
        if window:
            slot = _slot(window)
            bits[slot >> 3] |= 1 << (slot & 7)
        else:
            short.add(key)
    header = "\n".join((stamp, "\t".join(sorted(short)))).encode("utf-8", "surrogatepass")
    tmp = f"{target}.{OS.getpid()}.tmp"
    try:
        if any(("\t" in k or "\n" in k or "\0" in k) for k in short) or len(header) > HEADER_MAX:
            OS.unlink(target)
            return
        with open(tmp, "wb") as out:
            out.write(MAGIC + header + b"\0")
            out.write(bits)
        OS.replace(tmp, target)
    except OSError:
        try:  # noqa: SIM105 (contextlib costs the hook ~3 ms to import)
            OS.unlink(tmp)
        except OSError:
            pass


def _header(fd: int) -> tuple[bytes, int] | None:
    """(stamp and short keys, the bitmap's offset), or None for no filter."""
    data = OS.read(fd, 65536)
    while b"\0" not in data and len(data) <= HEADER_MAX:
        more = OS.read(fd, 65536)
        if not more:
            return None
        data += more
    end = data.find(b"\0")
    if end < 0 or not data.startswith(MAGIC):
        return None
    return data[len(MAGIC) : end], end + 1


def stamp_of(index: str) -> str | None:
    """The index state the filter was built for (None: no filter)."""
    try:
        fd = OS.open(path_of(index), OS.O_RDONLY)
    except OSError:
        return None
    try:
        found = _header(fd)
    finally:
        OS.close(fd)
    return None if found is None else found[0].partition(b"\n")[0].decode("ascii", "replace")


def excludes(index: str, stamp: str, text: str, windows: Iterable[str]) -> bool:
    """True when the filter, built for `stamp`, proves no trigger key occurs in `text`."""
    if not hasattr(OS, "pread"):  # pragma: no cover - Windows: the cache decides
        return False
    try:
        fd = OS.open(path_of(index), OS.O_RDONLY)
    except OSError:
        return False
    try:
        found = _header(fd)
        if found is None:
            return False
        header, offset = found
        built, _, short = header.decode("utf-8", "surrogatepass").partition("\n")
        if built != stamp or any(key in text for key in short.split("\t") if key):
            return False
        for window in windows:
            slot = _slot(window)
            byte = OS.pread(fd, 1, offset + (slot >> 3))
            if not byte or byte[0] >> (slot & 7) & 1:
                return False
        return True
    except (OSError, UnicodeDecodeError):
        return False
    finally:
        OS.close(fd)
