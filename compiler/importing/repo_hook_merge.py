"""Hooks imported from several hosts' files merged where that is plainly safe: when one host's
hooks line up one for one, in order, with another's, each pair becomes one hook bound on both
hosts (the same command on each), with per-host values (`{claude: ..., codex: ...}`) where
the rest differs.

Whole files only: a hook keeps its place in each host's list, so every host's file keeps its
event order and group split. Gemini's hooks are not merged (their id is the file's `name`).
"""

from __future__ import annotations

import re
from typing import Any

VALUES = ("matcher", "command", "timeout", "async", "status_message", "key_order")
_UNMERGED = ("gemini",)


def merge_hosts(hooks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`hooks` (each bound on one host, as repo_hooks reads them) with every host whose hooks
    pair up with an earlier host's merged into those."""
    hosts = list(dict.fromkeys(h["hosts"][0] for h in hooks))
    groups = {host: [h for h in hooks if h["hosts"] == [host]] for host in hosts}
    into: dict[str, str] = {}  # a merged host -> the host whose hooks now carry it
    for later in hosts:
        for earlier in hosts[: hosts.index(later)]:
            if earlier in into or later in _UNMERGED or earlier in _UNMERGED:
                continue
            if _pairs(groups[earlier], groups[later]):
                into[later] = earlier
                break
    out: list[dict[str, Any]] = []
    merged: set[int] = set()
    for hook in hooks:
        host = hook["hosts"][0]
        members = [host, *(h for h, target in into.items() if target == host)]
        if host in into or len(members) == 1:
            out += [] if host in into else [hook]
            continue
        index = next(i for i, h in enumerate(groups[host]) if h is hook)
        merged.add(len(out))
        out.append(_merged([groups[h][index] for h in members]))
    return _unique_ids(out, merged)


def _pairs(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> bool:
    """Whether two hosts' hooks line up one for one: as many, each pair running the same
    command, split into groups alike."""
    return len(first) == len(second) and all(
        a["command"] == b["command"] and a.get("new_group") == b.get("new_group")
        for a, b in zip(first, second, strict=True)
    )


def _merged(members: list[dict[str, Any]]) -> dict[str, Any]:
    """One hook for `members` (one per host): plain values where every host has the same,
    else a value per host."""
    hosts = [m["hosts"][0] for m in members]
    hook: dict[str, Any] = {
        "id": re.sub(rf"^{re.escape(hosts[0])}-", "", str(members[0]["id"])),
        "event": {h: m["event"][h] for h, m in zip(hosts, members, strict=True)},
        "hosts": hosts,
    }
    for key in VALUES:
        if any(key in m for m in members):
            hook[key] = _per_host(hosts, [m.get(key) for m in members])
    names = list(dict.fromkeys(o for m in members for o in m.get("options", {})))
    if names:
        hook["options"] = {
            o: _per_host(hosts, [m.get("options", {}).get(o) for m in members]) for o in names
        }
    if members[0].get("new_group"):
        hook["new_group"] = True
    return hook


def _per_host(hosts: list[str], values: list[Any]) -> Any:
    """One value when every host has it alike, else `{host: value}` for those that have it."""
    if all(v is not None and v == values[0] for v in values):
        return values[0]
    return {h: v for h, v in zip(hosts, values, strict=True) if v is not None}


def _unique_ids(hooks: list[dict[str, Any]], merged: set[int]) -> list[dict[str, Any]]:
    """Merged hooks' ids (the first host's without its prefix) made unique; the others keep
    theirs (a Gemini id is its file's `name`)."""
    taken = {str(h["id"]) for i, h in enumerate(hooks) if i not in merged}
    for index in sorted(merged):
        stem = ident = str(hooks[index]["id"])
        number = 2
        while ident in taken:
            ident, number = f"{stem}-{number}", number + 1
        hooks[index]["id"] = ident
        taken.add(ident)
    return hooks
