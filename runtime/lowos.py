"""The few OS calls the hook's hot path makes, without importing `os`.

`import os` costs a hook about a sixth of a bare interpreter start (it pulls in
`_collections_abc`, `stat` and `posixpath`), paid on every tool call. The built-in `posix`
module has what the no-op paths need; `os` is imported only where real work starts (writing
a marker, logging, forking) and on platforms without `posix`. `OS` is that module, for the
calls both share (open, read, write, replace, getpid, pread, the O_ flags).
"""

import sys

# `posix` is built into CPython on every platform but Windows (it is what `os` wraps there).
# Branching on `sys.platform` (already loaded, free) rather than on an ImportError lets the
# type checker see one module per platform.
if sys.platform != "win32":
    import posix as _os

    SEP = "/"
else:  # pragma: no cover - Windows
    import os as _os

    SEP = _os.sep

OS = _os
_S_IFMT, _S_IFDIR, _S_IFREG = 0o170000, 0o040000, 0o100000


def getenv(name: str, default: str | None = None) -> str | None:
    """An environment variable as the process started with it."""
    if sys.platform != "win32":
        # posix.environ holds bytes, as the process received them.
        value = _os.environ.get(name.encode("utf-8"))
        return default if value is None else value.decode("utf-8", "surrogateescape")
    return _os.environ.get(name, default)  # pragma: no cover - Windows


def join(*parts: str) -> str:
    return SEP.join(p.rstrip(SEP) if i < len(parts) - 1 else p for i, p in enumerate(parts))


def size(path: str | None) -> int | None:
    """A file's size in bytes; None when it is missing or unreadable."""
    if not path:
        return None
    try:
        return _os.stat(path).st_size
    except (OSError, ValueError):
        return None


def listdir(path: str) -> list[str]:
    """The names in a folder; [] when it is missing or unreadable."""
    try:
        return _os.listdir(path)
    except (OSError, ValueError):
        return []


def read_small(path: str, limit: int = 64) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(limit)
    except (OSError, ValueError):
        return None


def memhub_home() -> str:
    """`$MEMHUB_HOME`, default `~/.memhub`."""
    home = getenv("MEMHUB_HOME")
    if home:
        return home
    user = getenv("HOME") or getenv("USERPROFILE")
    if not user:
        import os

        user = os.path.expanduser("~")
    return join(user, ".memhub")


def stat_key(path: str) -> str:
    """`inode:size:mtime_ns` of a file, `-` when it is missing: changes whenever it is
    replaced or written."""
    try:
        info = _os.stat(path)
    except (OSError, ValueError):
        return "-"
    return f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"


def _mode(path: str) -> int:
    try:
        return _os.stat(path).st_mode & _S_IFMT
    except (OSError, ValueError):
        return 0


def is_dir(path: str) -> bool:
    """`os.path.isdir`: a folder (symlinks followed)."""
    return _mode(path) == _S_IFDIR


def is_file(path: str) -> bool:
    """`os.path.isfile`: a regular file (symlinks followed)."""
    return _mode(path) == _S_IFREG


def exists(path: str) -> bool:
    """`os.path.exists`."""
    return _mode(path) != 0


def dirname(path: str) -> str:
    """`os.path.dirname`."""
    if sys.platform == "win32":  # pragma: no cover - drive letters, both separators
        return _os.path.dirname(path)
    head = path[: path.rfind("/") + 1]
    return head.rstrip("/") if head and head != "/" * len(head) else head


def makedirs(path: str, mode: int = 0o777) -> None:
    """`os.makedirs(path, mode, exist_ok=True)`: the folder and its missing parents."""
    if sys.platform == "win32":  # pragma: no cover
        _os.makedirs(path, mode, exist_ok=True)
        return
    try:
        _os.mkdir(path, mode)
        return
    except FileNotFoundError:
        parent = dirname(path.rstrip("/"))
        if not parent or parent == path:
            raise
        makedirs(parent)  # as os.makedirs does (3.7+): parents get the default mode
    except OSError:
        if not is_dir(path):  # exists as a file, or cannot be made
            raise
        return
    try:
        _os.mkdir(path, mode)
    except OSError:
        if not is_dir(path):
            raise
