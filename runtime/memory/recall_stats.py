"""What recall cost, from its accounting (`injections.sessions`): per session and overall. Pure.

Per session: the injections, the characters and estimated tokens (chars / 4) each handler
injected, and every directive that fired with the trigger and text it fired on. Overall: the
p50 and p95 of tokens injected per session (nearest rank; a session that looked up and
injected nothing counts as 0), the directives that fired most, and the active directives
that never fired in any session read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["percentile", "session_summary", "stats"]

TOP = 10


def percentile(values: Sequence[int], share: float) -> int:
    """The nearest-rank percentile (`share` in 0..1) of `values`; 0 for none."""
    if not values:
        return 0
    ordered = sorted(values)
    rank = max(1, -(-int(share * 100) * len(ordered) // 100))
    return ordered[min(rank, len(ordered)) - 1]


def session_summary(name: str, entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One session's injections, per handler, and what fired (in order)."""
    handlers: dict[str, dict[str, int]] = {}
    fired: list[dict[str, Any]] = []
    host = session = None
    for entry in entries:
        host, session = entry.get("host", host), entry.get("session", session)
        name_ = str(entry.get("handler") or "?")
        row = handlers.setdefault(name_, {"injections": 0, "chars": 0, "tokens": 0})
        row["injections"] += 1
        row["chars"] += int(entry.get("chars") or 0)
        row["tokens"] += int(entry.get("tokens") or 0)
        for item in entry.get("fired") or ():
            if isinstance(item, dict):
                why = {k: item.get(k) for k in ("id", "kind", "trigger", "matched", "cut")}
                where = {k: entry.get(k) for k in ("at", "event", "tool", "reactive")}
                fired.append({**why, **where, "handler": name_})
    return {
        "name": name,
        "host": host,
        "session": session,
        "injections": sum(r["injections"] for r in handlers.values()),
        "chars": sum(r["chars"] for r in handlers.values()),
        "tokens": sum(r["tokens"] for r in handlers.values()),
        "handlers": handlers,
        "fired": fired,
    }


def stats(
    sessions: Iterable[tuple[str, list[dict[str, Any]]]], directives: Iterable[str] = ()
) -> dict[str, Any]:
    """The report `memhub recall stats` prints (`directives`: every active directive's id)."""
    rows = [session_summary(name, entries) for name, entries in sessions]
    tokens = [row["tokens"] for row in rows]
    fires: dict[str, dict[str, Any]] = {}
    for row in rows:
        for item in row["fired"]:
            found = fires.setdefault(str(item["id"]), {"id": item["id"], "fires": 0, "sessions": 0})
            found["fires"] += 1
        for rid in {str(item["id"]) for item in row["fired"]}:
            fires[rid]["sessions"] += 1
    top = sorted(fires.values(), key=lambda f: (-f["fires"], str(f["id"])))[:TOP]
    return {
        "sessions": rows,
        "tokens_per_session": {
            "sessions": len(rows),
            "p50": percentile(tokens, 0.50),
            "p95": percentile(tokens, 0.95),
            "total": sum(tokens),
        },
        "top_directives": top,
        "never_fired": sorted(set(directives) - set(fires)),
    }
