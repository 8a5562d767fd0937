"""Per-host content: components limited to hosts (`hosts:`) and values that differ per host.

One mechanism everywhere. A component carrying `hosts` (None: every host) is left out of
the other hosts' view; a value written `{default: ..., <host>: ...}` is resolved per host and
kept in the component's `per_host` mapping (host -> {field: value}). `view(hub, host)` is the
hub as that one host sees it: compiler/build.py hands each adapter its own view, so adapters
need no per-host branches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from .checks import Checker
from .model import Hub, frozen_map
from .vocabulary import EVENTS
from .yamlsrc import KeyPath

DEFAULT = "default"
# The plugin's values a host may see differently.
PLUGIN_VALUES = ("description", "display_name", "keywords")
# hub key -> Hook field, for the hook values a host may see differently
HOOK_VALUES = {
    "event": "event",
    "command": "command",
    "timeout": "timeout",
    "async": "is_async",
    "status_message": "status_message",
    "matcher": "matcher",
    "key_order": "key_order",
}
NATIVE_ONLY = ""  # Hook.event of a hook bound only to native events, on the other hosts
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Limited:
    """A component `hosts:` keeps away from a host."""

    component: str  # hook, mcp, skill, ...
    id: str
    hosts: tuple[str, ...]
    # hosts sharing this host's bundle folder that ship it there all the same (skills)
    shared_by: tuple[str, ...] = ()


def on_host(item: Any, host: str) -> bool:
    """Whether `item` (a component with `hosts`) goes to `host`."""
    return item.hosts is None or host in item.hosts


def resolved(item: T, host: str) -> T:
    """`item` with its per-host values for `host` in place of the defaults."""
    values = getattr(item, "per_host", {}).get(host)
    return replace(item, **values) if values else item  # type: ignore[type-var]


_COMPONENTS = {"mcp_servers": "mcp", "skills": "skill", "hooks": "hook"}
_IDENTS = ("id", "name", "path")  # how a component names itself in a coverage row


def _limitable(hub: Hub) -> list[tuple[str, tuple[Any, ...]]]:
    """(field, items) of every Hub field holding components that carry `hosts`."""
    found = []
    for spec in fields(hub):
        value = getattr(hub, spec.name)
        if isinstance(value, tuple) and value and hasattr(value[0], "hosts"):
            found.append((spec.name, value))
    return found


def view(hub: Hub, host: str) -> Hub:
    """The hub as `host` sees it: its components only, its per-host values resolved."""
    changes: dict[str, Any] = {"plugin": resolved(hub.plugin, host)}
    for name, items in _limitable(hub):
        changes[name] = tuple(resolved(item, host) for item in items if on_host(item, host))
    return replace(hub, **changes)


def shared(hub: Hub, hosts: list[str]) -> Hub:
    """The hub's skills as a bundle folder shared by `hosts` holds them: every skill one of
    them carries (the folder is one for all of them)."""
    return replace(hub, skills=tuple(s for s in hub.skills if any(on_host(s, h) for h in hosts)))


def limited(hub: Hub, host: str, folder_hosts: tuple[str, ...] = ()) -> list[Limited]:
    """What `hosts:` keeps away from `host` (each gets a coverage row, never silence).
    `folder_hosts`: the hosts sharing `host`'s bundle folder, whose skills it sees too."""
    out = []
    for name, items in _limitable(hub):
        for item in items:
            if not on_host(item, host):
                ident = next(str(getattr(item, k)) for k in _IDENTS if getattr(item, k, None))
                both = (
                    tuple(h for h in folder_hosts if on_host(item, h)) if name == "skills" else ()
                )
                component = _COMPONENTS.get(name, name.rstrip("s"))
                out.append(Limited(component, ident, item.hosts, both))
    return out


def split(raw: Any) -> tuple[Any, dict[str, Any]]:
    """(default, {host: value}) of a value written plainly or as `{default: ..., host: ...}`."""
    if isinstance(raw, dict):
        return raw.get(DEFAULT), {k: v for k, v in raw.items() if k != DEFAULT}
    return raw, {}


def host_tables() -> Mapping[str, Any]:
    """Every adapter by name (read when asked: the adapters import hubspec)."""
    from memhub.compiler.hosts import ADAPTERS

    return ADAPTERS


def hook_hosts(hub_hosts: tuple[str, ...], hook_hosts: tuple[str, ...] | None) -> list[str]:
    """The hosts a hook reaches that run hooks at all."""
    tables = host_tables()
    wanted = hub_hosts if hook_hosts is None else [h for h in hub_hosts if h in hook_hosts]
    return [h for h in wanted if h in tables and tables[h].runs_hooks]


class PerHostChecks(Checker):
    """`hosts:` and `{default: ..., <host>: ...}` values of the plugin, servers and hooks."""

    def _plugin_per_host(self, raw: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        """(default values, per_host) of the plugin's per-host values."""
        defaults: dict[str, Any] = {}
        per_host: dict[str, dict[str, Any]] = {}
        for key in PLUGIN_VALUES:
            if key not in raw:
                continue
            default, hosts = split(raw[key])
            defaults[key] = tuple(default) if key == "keywords" and default else default
            for host, value in hosts.items():
                per_host.setdefault(host, {})[key] = tuple(value) if key == "keywords" else value
        if "description" in defaults and defaults["description"] is None:
            self.problem(
                ("plugin", "description"),
                "a per-host description needs a `default:`",
                "add `default: <one or two sentences>` for the hosts not named",
            )
        if "keywords" in defaults and defaults["keywords"] is None:
            defaults["keywords"] = ()
        return defaults, frozen_map(per_host)

    def _hook_per_host(
        self, path: KeyPath, spec: dict[str, Any], hub_hosts: tuple[str, ...]
    ) -> dict[str, Any]:
        """The Hook fields of a hook's `hosts`, per-host values, native events and options."""
        hosts = tuple(spec["hosts"]) if "hosts" in spec else None
        defaults: dict[str, Any] = {}
        per_host: dict[str, dict[str, Any]] = {}
        for key, attr in HOOK_VALUES.items():
            if key in spec:
                defaults[attr], values = split(spec[key])
                for host, value in values.items():
                    per_host.setdefault(host, {})[attr] = value
        options, host_options = self._hook_options((*path, "options"), spec.get("options", {}))
        for host, values in host_options.items():
            per_host.setdefault(host, {})["options"] = frozen_map({**options, **values})
        if defaults.get("event") is None:
            defaults["event"] = NATIVE_ONLY
        elif defaults["event"] not in EVENTS:
            self.problem(
                (*path, "event", DEFAULT),
                f"`default:` takes a logical event, not {defaults['event']!r}",
                f"use one of {', '.join(EVENTS)}, and name each host's own event under its "
                "host: `event: {claude: SubagentStop}`",
            )
        for host in sorted(set(per_host) - set(hosts or per_host)):
            self.problem(
                (*path, "hosts"),
                f"a value is given for {host}, which this hook's `hosts` leaves out",
                f"add {host} to `hosts`, or remove its value",
            )
        reached = hook_hosts(hub_hosts, hosts)
        for host in reached:
            self._check_hook_on(path, spec, host, {**defaults, **per_host.get(host, {})})
        for values in (defaults, *per_host.values()):
            if values.get("key_order") is not None:
                values["key_order"] = tuple(values["key_order"])
        return {
            **defaults,
            "key_order": defaults.get("key_order") or (),
            "new_group": bool(spec.get("new_group", False)),
            "is_async": bool(defaults.get("is_async", False)),
            "hosts": hosts,
            "per_host": frozen_map(per_host),
            "options": frozen_map(options),
        }

    def _hook_options(
        self, path: KeyPath, raw: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """(default options, {host: options}); an option no host knows is a problem."""
        known = sorted({o for a in host_tables().values() for o in a.HOOK_OPTIONS})
        defaults: dict[str, Any] = {}
        per_host: dict[str, dict[str, Any]] = {}
        for option, value in raw.items():
            if option not in known:
                self.problem(
                    (*path, option),
                    f"unknown hook option {option!r}",
                    f"use one of: {', '.join(known)} (or timeout, async, status_message)",
                    at_key=True,
                )
                continue
            default, hosts = split(value)
            if default is not None:
                defaults[option] = default
            for host, item in hosts.items():
                per_host.setdefault(host, {})[option] = item
        return defaults, per_host

    def _check_hook_on(
        self, path: KeyPath, spec: dict[str, Any], host: str, values: dict[str, Any]
    ) -> None:
        """The hook as `host` gets it: a known event, a command for a native one, and no
        variable only another host sets."""
        adapter = host_tables()[host]
        event = values.get("event")
        native = event not in EVENTS and event != NATIVE_ONLY
        if native and event not in adapter.NATIVE_EVENTS:
            self.problem(
                (*path, "event"),
                f"{host} has no hook event {event!r}",
                f"use a logical event ({', '.join(EVENTS)}) or one of {host}'s own: "
                f"{', '.join(adapter.NATIVE_EVENTS) or 'none'}",
            )
        if native and "handler" in spec:
            self.problem(
                (*path, "event"),
                f"{host}'s native event {event!r} runs a `command:`, not a runtime handler",
                "give the hook a `command:`, or bind the handler to a logical event",
            )
        if values.get("matcher") is not None and not native:
            where = (*path, "matcher")
            self._once(
                where,
                f"`matcher` applies to a host's native event, not to {event or 'none'!r}",
                "use `tools:` with a logical event, or name the host: `matcher: {<host>: ...}`",
            )
        command = values.get("command")
        if isinstance(command, str):
            self._check_host_variables((*path, "command"), command, host)

    def _once(self, path: KeyPath, message: str, fix: str) -> None:
        """One problem, however many hosts find it."""
        if not any(
            p.message == message and p.origin == self.positions.of_key(path) for p in self.problems
        ):
            self.problem(path, message, fix, at_key=True)

    def _check_host_variables(self, path: KeyPath, command: str, host: str) -> None:
        """A variable another host sets (`${CLAUDE_PLUGIN_ROOT}`) is empty on `host`."""
        tables = host_tables()
        own = tables[host].HOOK_ENV
        others = {v for a in tables.values() for v in a.HOOK_ENV} - own
        foreign = sorted({m.group(1) for m in _VARIABLE.finditer(command)} & others)
        if foreign:
            setters = sorted(h for h, a in tables.items() if foreign[0] in a.HOOK_ENV)
            self.problem(
                path,
                f"the command names {', '.join(foreign)}, which {host} does not set "
                f"(only {', '.join(setters)} does)",
                "write ${plugin_root} / ${plugin_data} (memhub writes each host's own "
                f"variable), or limit the hook: `hosts: [{', '.join(setters)}]`",
            )

    def _skill_hosts(self, raw: dict[str, list[str]], skills: tuple[Any, ...]) -> tuple[Any, ...]:
        """`skill_hosts: {<skill>: [hosts]}` applied to the loaded skills."""
        names = {skill.name for skill in skills}
        for name in raw:
            if name not in names:
                self.problem(
                    ("skill_hosts", name),
                    f"no skill named {name!r}",
                    f"use one of: {', '.join(sorted(names)) or 'none (the hub has no skills)'}",
                    at_key=True,
                )
        return tuple(replace(s, hosts=tuple(raw[s.name])) if s.name in raw else s for s in skills)
