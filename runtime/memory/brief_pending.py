"""The note a session start leaves when its Apply and Recall were still being worked out.

`recall.brief` writes `brief.pending` into the session's recall folder (served.py) when it
handed the pointers to the detached child: which cache file to wait for, the key it must
carry, how much of the brief's budget is left, and until when it is worth waiting. The
first prompt's hook (`recall.prompt`) looks for it with one `stat` (`waiting`: no `os`
import, the path built as injections.session_dir builds it), delivers, and removes it.
"""

from __future__ import annotations

from ..lowos import join, size

__all__ = ["FILE", "path", "waiting"]

FILE = "brief.pending"


def _safe(text: str) -> str:  # injections._safe: the same folder name
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:200]


def path(home: str, host: str, session_id: str) -> str:
    """The session's pending note (in `$MEMHUB_HOME/recall/<host>-<id>/`)."""
    return join(home, "recall", _safe(f"{host}-{session_id}"), FILE)


def waiting(home: str, host: str, session_id: str | None) -> bool:
    """Whether the session start left Apply and Recall for the first prompt (one stat)."""
    return bool(session_id) and size(path(home, host, session_id or "")) is not None
