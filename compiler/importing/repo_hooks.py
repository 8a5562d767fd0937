"""A host's hooks file read back into hub hooks: the inverse of compiler/hosts/hooks.py.

Each host's reader (compiler/hosts/<host>_repo.py) describes its file as a `HookFormat`
built from its adapter's tables (events, option spellings, plugin folder variables); this
module walks the file. Every handler becomes one `command:` hook bound to the host's native
event (`event: {<host>: Event}`, `hosts: [<host>]`), with its matcher, timeout, async flag,
status message and options. Where the file's key order or group split is not memhub's,
`key_order` / `new_group` say so. A handler the hub cannot hold is left out and named, with
its key path and why, in one cannot-reproduce row per file.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memhub.compiler.hosts.hooks import quote_plugin_refs
from memhub.hubspec.refs import has_credential, substitute

MAX_HOOKS = 1000  # handlers in one file: far above any published plugin's
MAX_TIMEOUT = 600  # the hub's `timeout` range (hub.schema.json), in seconds
MAX_SHOWN = 3  # problems named per file
# hosts whose adapters ship a hooks file kept as it is from the plugin folder (`hooks_kept`)
KEEPS = ("claude", "codex", "cursor")
_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_SAFE_PATH = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\.json$")


@dataclass(frozen=True, slots=True)
class HookFormat:
    """How one host writes its hooks file (what its adapter's writer does)."""

    host: str
    events: tuple[str, ...]  # the adapter's NATIVE_EVENTS
    keys: Mapping[str, str]  # handler key -> hub key (command, timeout, async, status_message)
    options: Mapping[str, str]  # handler key -> hub option (the adapter's HOOK_OPTIONS, turned)
    order: tuple[str, ...]  # the handler keys in the order the adapter writes them
    roots: Mapping[str, str]  # the host's `${VAR}` -> `${plugin_root}` / `${plugin_data}`
    default_file: str  # the adapter's HOOKS_FILE (hub `hook_files` names another)
    auto_file: str | None = None  # the file the host loads with no manifest key
    auto_beside: bool = True  # it loads auto_file beside the file its manifest names too
    grouped: bool = True  # Claude-style `{Event: [{matcher, hooks: [...]}]}`; else flat
    typed: bool = True  # handlers carry `"type": "command"`
    leading: Mapping[str, Any] = field(default_factory=dict)  # top-level keys it writes
    timeout_unit: int = 1  # how many file units make a second (Gemini: milliseconds)
    named: bool = False  # the handler's `name` is the hub hook's id (Gemini)


@dataclass
class ReadHooks:
    """The hooks read from one plugin's files so far, and each file's problems."""

    hooks: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # hub `hook_files`
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)  # overrides.<host>.hooks
    problems: dict[str, list[str]] = field(default_factory=dict)  # repository path -> why
    kept: list[str] = field(default_factory=list)  # hub `hooks_kept`: hosts, in read order
    kept_paths: set[str] = field(default_factory=set)  # their files (repository paths)
    loaded: dict[str, list[str]] = field(default_factory=dict)  # repository path -> hosts

    def ids(self) -> set[str]:
        return {str(h["id"]) for h in self.hooks}

    def reasons(self) -> dict[str, str]:
        """One reason per file: its first problems, and how many more (none for a file kept
        as it is: it comes back byte for byte)."""
        out = {}
        for path, found in self.problems.items():
            if path in self.kept_paths:
                continue
            more = len(found) - MAX_SHOWN
            out[path] = "; ".join(found[:MAX_SHOWN]) + (f"; {more} more" if more > 0 else "")
        return out


def hooks_file_of(fmt: HookFormat, manifest: Mapping[str, Any] | None) -> str | bool | None:
    """The plugin-relative hooks file `fmt`'s host loads: the manifest's `hooks` path (with or
    without `./`), else the file it loads by itself; None when there is none, False when the
    manifest's `hooks` is not one path memhub can write (an inline object, a list)."""
    named = manifest.get("hooks") if manifest is not None else None
    if named is None:
        return fmt.auto_file
    if not isinstance(named, str):
        return False
    path = posixpath.normpath(named)  # `./hooks/x.json`, or as Cursor's take it, `hooks/x.json`
    return path if _SAFE_PATH.match(path) else False


def take_hooks_file(
    fmt: HookFormat, content: bytes, where: str, rel: str, into: ReadHooks, *, keep: bool = False
) -> None:
    """One host's hooks file (plugin-relative `rel`) into `into`: its hooks, or the whole
    file kept as it is (hub `hooks_kept`) when the hub's hooks cannot hold all of it or
    another host loads the same file (`keep`, or read before), so no handler is lost."""
    others = into.loaded.setdefault(where, [])
    keep = keep or bool(others)
    others.append(fmt.host)
    # a hub is committed, its secrets are not: a file holding one is read, and listed
    if has_credential(content.decode("utf-8", "replace")) or not set(others) <= set(KEEPS):
        if len(others) > 1:
            found = into.problems.setdefault(where, [])
            found.append(f"{fmt.host} loads it too: memhub writes one hooks file per host")
        elif read_hooks_file(fmt, content, where, into) and rel != fmt.default_file:
            into.files[fmt.host] = rel
        return
    if rel != fmt.default_file:
        into.files[fmt.host] = rel
    if not keep:
        trial = ReadHooks(hooks=list(into.hooks))
        if read_hooks_file(fmt, content, where, trial) and not trial.problems.get(where):
            into.hooks = trial.hooks
            into.extras.update(trial.extras)
            return
    for host in others:
        _keep(into, host, where)


def _keep(into: ReadHooks, host: str, where: str) -> None:
    """`host`'s hooks file (at repository path `where`) kept as it is: none of its hooks read."""
    if host not in into.kept:
        into.kept.append(host)
    into.kept_paths.add(where)
    into.hooks = [h for h in into.hooks if h["hosts"] != [host]]
    into.extras.pop(host, None)


def read_hooks_file(fmt: HookFormat, content: bytes, where: str, into: ReadHooks) -> bool:
    """The hooks of one file into `into`; False (with its problem) when none can be read."""
    problems = into.problems.setdefault(where, [])
    try:
        doc = json.loads(content.decode("utf-8"))
    except UnicodeDecodeError:
        problems.append("is not UTF-8 JSON")
        return False
    except json.JSONDecodeError as exc:
        problems.append(f"line {exc.lineno} col {exc.colno}: does not parse as JSON ({exc.msg})")
        return False
    except RecursionError:
        problems.append("is nested too deeply to read as JSON")
        return False
    if not isinstance(doc, dict) or not isinstance(doc.get("hooks"), dict):
        problems.append('is not a JSON object with a "hooks" object (the only shape hosts read)')
        return False
    if not doc["hooks"]:
        problems.append("holds no hooks: memhub writes no hooks file for a host without hooks")
        return False
    count = _count(doc["hooks"])
    if count > MAX_HOOKS:
        problems.append(f"holds {count} hooks, more than the {MAX_HOOKS} memhub imports")
        return False
    _top_level(fmt, doc, problems, into)
    for event, entries in doc["hooks"].items():
        at = f"hooks/{event}"
        if event not in fmt.events:
            problems.append(f"{at}: {fmt.host} has no hook event {event!r}")
        elif not isinstance(entries, list) or not entries:
            problems.append(f"{at}: is not a non-empty list")
        elif fmt.grouped:
            _groups(fmt, event, entries, at, problems, into)
        else:
            for index, handler in enumerate(entries):
                _handler(fmt, event, None, handler, f"{at}/{index}", problems, into)
    return True


def _count(events: dict[str, Any]) -> int:
    """How many handlers (and malformed entries) the events hold."""
    count = 0
    for entries in events.values():
        for entry in entries if isinstance(entries, list) else [entries]:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            count += len(inner) if isinstance(inner, list) else 1
    return count


def _top_level(fmt: HookFormat, doc: dict[str, Any], problems: list[str], into: ReadHooks) -> None:
    """The file's keys besides `hooks`: the adapter's own (`version`), then extras kept as
    `overrides.<host>.hooks`, which the writer puts before `hooks`."""
    keys = list(doc)
    for key, value in fmt.leading.items():
        if doc.get(key) != value:
            problems.append(f"{key}: is {doc.get(key)!r}; memhub writes {value!r}")
    extras = {k: v for k, v in doc.items() if k != "hooks" and k not in fmt.leading}
    if extras:
        into.extras[fmt.host] = extras
    expected = [*[k for k in fmt.leading if k in doc], *extras, "hooks"]
    if keys != expected:
        problems.append(
            f"top-level keys in the order {', '.join(keys)}; memhub writes {', '.join(expected)}"
        )


def _groups(
    fmt: HookFormat,
    event: str,
    groups: list[Any],
    at: str,
    problems: list[str],
    into: ReadHooks,
) -> None:
    """A Claude-style event's groups: each handler a hook with the group's matcher."""
    before: object = ()  # the previous group's matcher (() before the first)
    for index, group in enumerate(groups):
        where = f"{at}/{index}"
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            problems.append(f"{where}: is not an object with a `hooks` list")
            continue
        extra = sorted(set(group) - {"matcher", "hooks"})
        matcher = group.get("matcher")
        if extra:
            problems.append(f"{where}: group key {extra[0]!r} is not one memhub writes")
            continue
        if "matcher" in group and (not isinstance(matcher, str) or not matcher):
            problems.append(f"{where}/matcher: memhub writes a matcher only as a non-empty string")
            continue
        if not group["hooks"]:
            problems.append(f"{where}/hooks: is empty (memhub writes no empty group)")
            continue
        order = list(group) if list(group) == ["hooks", "matcher"] else []
        for number, handler in enumerate(group["hooks"]):
            first = number == 0
            hook = _handler(fmt, event, matcher, handler, f"{where}/hooks/{number}", problems, into)
            if hook is None or not first:
                continue
            if order:
                hook["key_order"] = [*order, *hook.get("key_order", [])]
            if before == matcher:
                hook["new_group"] = True
        before = matcher


def _handler(
    fmt: HookFormat,
    event: str,
    matcher: str | None,
    handler: Any,
    at: str,
    problems: list[str],
    into: ReadHooks,
) -> dict[str, Any] | None:
    """One handler as a hub hook (added to `into`), or None with its problem."""
    if not isinstance(handler, dict):
        problems.append(f"{at}: is not an object")
        return None
    if fmt.typed and handler.get("type") != "command":
        kind = handler.get("type")
        why = "has no `type`" if kind is None else f"is a {kind!r} hook"
        problems.append(f"{at}: {why}; the hub carries `command` hooks only")
        return None
    if not fmt.typed and "type" in handler:
        problems.append(f"{at}/type: memhub writes no `type` for {fmt.host}")
        return None
    values = _values(fmt, handler, at, problems)
    if values is None:
        return None
    hook_id = _hook_id(fmt, event, handler, at, problems, into)
    if hook_id is None:
        return None
    hook: dict[str, Any] = {"id": hook_id, "event": {fmt.host: event}, "hosts": [fmt.host]}
    matcher = values.pop("matcher", matcher)
    if matcher is not None:
        hook["matcher"] = matcher
    hook.update(values)
    options = {fmt.options[k]: v for k, v in handler.items() if k in fmt.options}
    if options:
        hook["options"] = options
    written = [k for k in fmt.order if k in handler] + [k for k in handler if k in fmt.options]
    if list(handler) != written:
        hook["key_order"] = list(handler)
    into.hooks.append(hook)
    return hook


def _values(
    fmt: HookFormat, handler: dict[str, Any], at: str, problems: list[str]
) -> dict[str, Any] | None:
    """The handler's hub values (command, matcher, timeout, async, status message)."""
    known = {*fmt.keys, *fmt.options, "type", *(("name",) if fmt.named else ())}
    unknown = [k for k in handler if k not in known]
    if unknown:
        spelled = ", ".join(k for k in fmt.order if k != "type")
        problems.append(
            f"{at}/{unknown[0]}: not a key memhub writes for a {fmt.host} hook "
            f"({spelled} and the options {', '.join(fmt.options) or 'none'})"
        )
        return None
    out: dict[str, Any] = {}
    for key, hub_key in fmt.keys.items():
        if key not in handler:
            continue
        value, why = _value(fmt, hub_key, handler[key])
        if why:
            problems.append(f"{at}/{key}: {why}")
            return None
        out[hub_key] = value
    if "command" not in out:
        problems.append(f"{at}: has no `command`")
        return None
    for key, value in handler.items():
        if key in fmt.options and value is None:  # `loop_limit: null` in a Cursor file
            problems.append(f"{at}/{key}: null: a hub option's null means not given")
            return None
        if key in fmt.options and not isinstance(value, str | int | bool):
            problems.append(f"{at}/{key}: the hub holds an option as a string, number or bool")
            return None
    return out


def _value(fmt: HookFormat, hub_key: str, raw: Any) -> tuple[Any, str]:
    """(hub value, "") of one handler value, or (None, why the hub cannot hold it)."""
    if hub_key == "command":
        if not isinstance(raw, str) or not raw:
            return None, "is not a non-empty string"
        if has_credential(raw):
            return None, "holds a credential; a hub is committed, its secrets are not"
        command = as_hub_command(fmt, raw)
        if command is None:
            return None, _COMMAND_WHY
        # after the host's plugin folder variables became `${plugin_root}`: Copilot's is
        # `${PLUGIN_ROOT}`, which another host also sets for its hooks
        if foreign := _foreign(fmt.host, command):
            return None, foreign
        return command, ""
    if hub_key == "timeout":
        unit = fmt.timeout_unit
        ok = isinstance(raw, int) and not isinstance(raw, bool) and raw % unit == 0
        if not ok or not 1 <= raw // unit <= MAX_TIMEOUT:
            what = "milliseconds, a whole number of seconds" if unit > 1 else "seconds"
            return None, f"{raw!r}: the hub holds a timeout of 1 to {MAX_TIMEOUT} {what}"
        return raw // unit, ""
    if hub_key == "async":
        return (True, "") if raw is True else (None, "memhub writes `async` only as true")
    if not isinstance(raw, str) or not raw:  # status_message, matcher
        return None, "is not a non-empty string"
    return raw, ""


def _foreign(host: str, command: str) -> str:
    """Why the hub refuses `command` on `host`: it names a variable only another host sets
    (hubspec/perhost.py checks the same); "" when it does not."""
    from memhub.compiler.hosts import ADAPTERS

    own = ADAPTERS[host].HOOK_ENV
    others = {v for a in ADAPTERS.values() for v in a.HOOK_ENV} - own
    named = {m.group(1) for m in re.finditer(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", command)}
    if foreign := sorted(named & others):
        return f"names {', '.join(foreign)}, which {host} does not set (the hub refuses it)"
    return ""


_COMMAND_WHY = "memhub would not write this command back as it is (a memhub ${...} reference)"


def as_hub_command(fmt: HookFormat, command: str) -> str | None:
    """`command` in hub syntax: the host's plugin folder variables as `${plugin_root}` /
    `${plugin_data}` where the writer (hook_command) gives the same bytes back and no other
    use of them is left; else as written. None when neither comes back as written."""
    translated = command
    for variable, ref in fmt.roots.items():
        translated = translated.replace(variable, ref)
    if translated != command and _written(fmt, translated) == command:
        names = [v[2:-1] for v in fmt.roots]
        if not any(re.search(r"\$\{?" + re.escape(n) + r"\b", translated) for n in names):
            return translated
    return command if _written(fmt, command) == command else None


def _written(fmt: HookFormat, command: str) -> str:
    """What the adapter writes for hub command `command` (compiler/hosts/hooks.hook_command)."""
    back = {ref[2:-1]: variable for variable, ref in fmt.roots.items()}
    return substitute(
        quote_plugin_refs(command),
        env=lambda name: "${" + name + "}",
        plugin_root=back.get("plugin_root", "${plugin_root}"),
        plugin_data=back.get("plugin_data", "${plugin_data}"),
    )


def _hook_id(
    fmt: HookFormat,
    event: str,
    handler: dict[str, Any],
    at: str,
    problems: list[str],
    into: ReadHooks,
) -> str | None:
    """The hub id: a Gemini handler's `name`, else `<host>-<event>[-n]`."""
    taken = into.ids()
    if fmt.named:
        named = handler.get("name")
        if not isinstance(named, str) or not _KEBAB.match(named) or named in taken:
            why = "has no `name`" if named is None else f"`name` {named!r} is no unused kebab id"
            problems.append(f"{at}: {why}; memhub writes the hook's id there")
            return None
        return named
    stem = f"{fmt.host}-" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", event).lower()
    stem = re.sub(r"[^a-z0-9]+", "-", stem).strip("-")[:56]
    if stem not in taken:
        return stem
    number = 2
    while f"{stem}-{number}" in taken:
        number += 1
    return f"{stem}-{number}"
