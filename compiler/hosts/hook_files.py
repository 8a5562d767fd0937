"""The layout of a host's hooks file: events in the order the hub first names them,
Claude-style groups or Cursor-style flat lists, each hook's `key_order`, the file's place
(`hook_files`) and its top-level keys (`overrides.<host>.hooks`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from memhub.compiler.hosts.common import deep_merge
from memhub.compiler.hosts.hooks import MappedHook
from memhub.hubspec.model import Hub, thaw


def in_order(data: dict[str, Any], order: Iterable[str]) -> dict[str, Any]:
    """`data` with the keys `order` names first, in that order; the rest as they were."""
    named = [key for key in order if key in data]
    return {**{key: data[key] for key in named}, **data}


def grouped_hooks(
    mapped: Iterable[MappedHook], handler: Callable[[MappedHook], dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Claude-style `{Event: [{matcher?, hooks: [handler]}]}`, events in the order the hub's
    hooks first name them. Command hooks that follow one another on an event with the same
    matcher share one group, as published hooks files write them (the host runs a group's
    hooks as it runs separate groups' hooks: every one that matches), unless one asks for a
    group of its own (`new_group`). A hook's `key_order` orders its handler's keys and, for
    the hook that opens a group, `matcher` and `hooks`."""
    by_event: dict[str, list[dict[str, Any]]] = {}
    last: dict[str, MappedHook] = {}  # the item that made each event's last group
    for item in mapped:
        groups = by_event.setdefault(item.host_event, [])
        before = last.get(item.host_event)
        last[item.host_event] = item
        written = in_order(handler(item), item.hook.key_order)
        if before is not None and _shares_group(before, item):
            groups[-1]["hooks"].append(written)
            continue
        group: dict[str, Any] = {}
        if item.matcher:
            group["matcher"] = item.matcher
        group["hooks"] = [written]
        groups.append(in_order(group, item.hook.key_order))
    return by_event


def flat_hooks(
    mapped: Iterable[MappedHook], handler: Callable[[MappedHook], dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Cursor-style `{event: [handler]}` (the matcher inside the handler), events in the
    order the hub's hooks first name them, each handler's keys in its hook's `key_order`."""
    by_event: dict[str, list[dict[str, Any]]] = {}
    for item in mapped:
        written = in_order(handler(item), item.hook.key_order)
        by_event.setdefault(item.host_event, []).append(written)
    return by_event


def hooks_path(hub: Hub, host: str, default: str) -> str:
    """Where `host`'s hooks file goes in the plugin folder: the hub's `hook_files` name for
    it, else the adapter's own `default`."""
    return str(hub.hook_files.get(host, default))


def hooks_document(
    hub: Hub, host: str, hooks: dict[str, Any], leading: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A hooks file: `leading` keys the host wants (Cursor's `version`), the hub's
    `overrides.<host>.hooks` top-level keys (a `description`), then `hooks`."""
    extra = hub.override(host, "hooks")
    document: dict[str, Any] = dict(leading or {})
    document.update({k: thaw(v) for k, v in extra.items() if k != "hooks"})
    document["hooks"] = hooks
    if isinstance(extra.get("hooks"), Mapping):
        document["hooks"] = deep_merge(hooks, extra["hooks"])
    return document


def _shares_group(before: MappedHook, item: MappedHook) -> bool:
    """Two command hooks (not the runtime's dispatcher entry) with one matcher, the second
    not asking for a group of its own."""
    commands = before.hook.command is not None and item.hook.command is not None
    return commands and before.matcher == item.matcher and not item.hook.new_group
