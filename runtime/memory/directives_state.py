"""Directive recall's per-session memory: what fired, and which handles were answered.

One small text file per session folder (`directives.state`), a line per entry: `fired <id>`
(a directive injected this session: each fires at most once) and `handle <key>` (a call
already answered: the proactive path does not look the same file or command up twice). Lines,
not JSON: `json` costs the hook ~3 ms to import. Both lists are bounded (oldest dropped
first: a reader keeps the last MAX_ENTRIES of each). New entries are appended, one write
(O_APPEND), as most calls add one; a file that holds a line of another shape, or twice
MAX_ENTRIES lines, is replaced whole instead (a temporary file, then `os.replace`, which on
ext4 costs a call ~1 ms more than an append), bounded. A missing or unreadable file is an
empty state; a line of another shape is ignored. Stdlib only.
"""

from __future__ import annotations

from ..lowos import OS, exists, join, makedirs

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path); no
# `os` either (lowos: a hook process has not imported it, ~1 ms of a 10 ms start)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Iterable


__all__ = ["MAX_ENTRIES", "already_fired", "handle_key", "mark_fired", "remember", "seen"]

STATE_FILE = "directives.state"
_KINDS = {"fired": "fired", "handle": "handles"}
_LINE_OF = {key: kind for kind, key in _KINDS.items()}
MAX_ENTRIES = 1024
_SHOWN = 120  # characters of a handle kept readable in its key


def _sha256(data: bytes) -> str:
    """sha256 hex without `hashlib` (its OpenSSL binding costs the hook ~2 ms to import)."""
    for builtin in ("_sha256", "_sha2"):  # CPython <= 3.11, >= 3.12
        try:
            return str(__import__(builtin).sha256(data).hexdigest())
        except ImportError:
            continue
    import hashlib

    return hashlib.sha256(data).hexdigest()


def handle_key(cwd: str, tool: str, handle: str) -> str:
    """The key of one call's handle: `<cwd>:<tool>:<first 120 chars>:<sha256[:16]>` (the
    handle whitespace-normalized: `git  push` and `git push` are one handle)."""
    normal = " ".join(handle.split())
    digest = _sha256(normal.encode("utf-8", "replace"))[:16]
    return _line(f"{cwd}:{tool}:{normal[:_SHOWN]}:{digest}")


def _line(text: str) -> str:
    """`text` on one line (a folder name may hold a line break)."""
    return text.replace("\r", " ").replace("\n", " ")


def _file(session_dir: str | os.PathLike[str]) -> str:
    return join(OS.fspath(session_dir), STATE_FILE)


def _load(session_dir: str | os.PathLike[str]) -> dict[str, list[str]]:
    return _read(session_dir)[0]


# the last file read -> ((inode, size, mtime_ns), state, line count): a call asks up to 4 times
_READ: dict[str, tuple[tuple[int, int, int], dict[str, list[str]], int]] = {}


def _read(session_dir: str | os.PathLike[str]) -> tuple[dict[str, list[str]], int]:
    """The state, each list bounded, and the file's line count; -1 when it must be replaced
    rather than appended to (a line of another shape, or an unfinished last line).

    A file read before is parsed again only once it changed (every write appends, so its
    size grows, or replaces it, so its inode changes)."""
    path = _file(session_dir)
    try:
        fd = OS.open(path, OS.O_RDONLY)
    except OSError:
        return {"fired": [], "handles": []}, 0
    try:
        info = OS.fstat(fd)
        stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
        known = _READ.get(path)
        if known is None or known[0] != stamp:
            with open(fd, encoding="utf-8", errors="replace", closefd=False) as f:
                known = (stamp, *_parse(f.read()))
            _READ.clear()  # one session's file is kept: a long-lived process stays small
            _READ[path] = known
    except OSError:
        return {"fired": [], "handles": []}, 0
    finally:
        OS.close(fd)
    return {key: list(values) for key, values in known[1].items()}, known[2]


def _parse(text: str) -> tuple[dict[str, list[str]], int]:
    state: dict[str, list[str]] = {"fired": [], "handles": []}
    lines = text.splitlines()
    count = len(lines) if not text or text.endswith("\n") else -1
    for line in lines:
        kind, _, value = line.partition(" ")
        if kind in _KINDS and value:
            state[_KINDS[kind]].append(value)
        else:
            count = -1
    for values in state.values():
        del values[:-MAX_ENTRIES]
    return state, count


def _save(session_dir: str | os.PathLike[str], state: dict[str, list[str]]) -> None:
    """Replace the state file atomically (a temporary of this process, then os.replace)."""
    folder = OS.fspath(session_dir)
    makedirs(folder)
    text = "".join(
        f"{kind} {_line(value)}\n"
        for kind, key in _KINDS.items()
        for value in state[key][-MAX_ENTRIES:]
    )
    # pid-named instead of tempfile.mkstemp: tempfile costs the hook ~3 ms to import
    tmp = join(folder, f".{STATE_FILE}.{OS.getpid()}.tmp")
    try:
        fd = OS.open(tmp, OS.O_WRONLY | OS.O_CREAT | OS.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as out:
            out.write(text)
        OS.replace(tmp, _file(folder))
    except BaseException:
        try:  # noqa: SIM105 (contextlib costs the hook ~3 ms to import)
            OS.unlink(tmp)
        except OSError:
            pass
        raise


def _append(session_dir: str | os.PathLike[str], lines: list[str]) -> None:
    folder = OS.fspath(session_dir)
    makedirs(folder)
    data = "".join(lines).encode("utf-8")
    fd = OS.open(_file(folder), OS.O_WRONLY | OS.O_APPEND | OS.O_CREAT, 0o600)
    try:
        while data:
            data = data[OS.write(fd, data) :]
    finally:
        OS.close(fd)


def _add(session_dir: str | os.PathLike[str], key: str, values: Iterable[str]) -> None:
    state, count = _read(session_dir)
    have = state[key]
    new = [v for v in dict.fromkeys(values) if v not in have]
    if not new:
        return
    if count >= 0 and count + len(new) <= 2 * MAX_ENTRIES:
        _append(session_dir, [f"{_LINE_OF[key]} {_line(value)}\n" for value in new])
        return
    state[key] = have + new
    _save(session_dir, state)


def seen(session_dir: str | os.PathLike[str], handle: str) -> bool:
    """Whether the handle key `handle` was already answered this session."""
    if not exists(_file(session_dir)):
        return False
    return handle in _load(session_dir)["handles"]


def remember(session_dir: str | os.PathLike[str], handle: str) -> None:
    """Note that the handle key `handle` was answered (a hit or not) this session."""
    _add(session_dir, "handles", [handle])


def already_fired(session_dir: str | os.PathLike[str]) -> list[str]:
    """The directive ids injected this session, oldest first."""
    if not exists(_file(session_dir)):
        return []
    return _load(session_dir)["fired"]


def mark_fired(session_dir: str | os.PathLike[str], ids: Iterable[str]) -> None:
    """Note directives injected this session (call once the text is delivered)."""
    _add(session_dir, "fired", ids)
