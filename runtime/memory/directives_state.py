"""Directive recall's per-session memory: what fired, and which handles were answered.

One small JSON file per session folder (`directives.json`): `fired` (directive ids injected
this session: each fires at most once) and `handles` (keys of the calls already answered: the
proactive path does not look the same file or command up twice). Both lists are bounded
(oldest dropped first); every write replaces the file atomically (temporary file, then
`os.replace`), so a reader never sees half a file. A missing or unreadable file is an empty
state. Stdlib only.
"""

from __future__ import annotations

import os

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


__all__ = ["MAX_ENTRIES", "already_fired", "handle_key", "mark_fired", "remember", "seen"]

STATE_FILE = "directives.json"
MAX_ENTRIES = 1024
_SHOWN = 120  # characters of a handle kept readable in its key


def handle_key(cwd: str, tool: str, handle: str) -> str:
    """The key of one call's handle: `<cwd>:<tool>:<first 120 chars>:<sha256[:16]>` (the
    handle whitespace-normalized: `git  push` and `git push` are one handle)."""
    import hashlib  # on use: importing it costs more than the rest of the module

    normal = " ".join(handle.split())
    digest = hashlib.sha256(normal.encode("utf-8", "replace")).hexdigest()[:16]
    return f"{cwd}:{tool}:{normal[:_SHOWN]}:{digest}"


def _file(session_dir: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(session_dir), STATE_FILE)


def _load(session_dir: str | os.PathLike[str]) -> dict[str, list[str]]:
    import json  # on use: a session with no state file never decodes any

    try:
        with open(_file(session_dir), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {"fired": [], "handles": []}
    if not isinstance(data, dict):
        data = {}
    return {
        key: [v for v in data.get(key, []) if isinstance(v, str)]
        if isinstance(data.get(key), list)
        else []
        for key in ("fired", "handles")
    }


def _save(session_dir: str | os.PathLike[str], state: dict[str, list[str]]) -> None:
    import json
    import tempfile

    folder = os.fspath(session_dir)
    os.makedirs(folder, exist_ok=True)
    bounded = {key: values[-MAX_ENTRIES:] for key, values in state.items()}
    fd, tmp = tempfile.mkstemp(prefix=".directives-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(bounded, out, ensure_ascii=False)
        os.replace(tmp, _file(folder))
    except BaseException:
        try:  # noqa: SIM105 (contextlib costs the hook ~3 ms to import)
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _add(session_dir: str | os.PathLike[str], key: str, values: Iterable[str]) -> None:
    state = _load(session_dir)
    have = state[key]
    new = [v for v in dict.fromkeys(values) if v not in have]
    if new:
        state[key] = have + new
        _save(session_dir, state)


def seen(session_dir: str | os.PathLike[str], handle: str) -> bool:
    """Whether the handle key `handle` was already answered this session."""
    if not os.path.exists(_file(session_dir)):
        return False
    return handle in _load(session_dir)["handles"]


def remember(session_dir: str | os.PathLike[str], handle: str) -> None:
    """Note that the handle key `handle` was answered (a hit or not) this session."""
    _add(session_dir, "handles", [handle])


def already_fired(session_dir: str | os.PathLike[str]) -> list[str]:
    """The directive ids injected this session, oldest first."""
    if not os.path.exists(_file(session_dir)):
        return []
    return _load(session_dir)["fired"]


def mark_fired(session_dir: str | os.PathLike[str], ids: Iterable[str]) -> None:
    """Note directives injected this session (call once the text is delivered)."""
    _add(session_dir, "fired", ids)
