"""Logical hooks onto host events: matchers, commands, the runtime dispatcher, hook entries."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.compiler.hosts.base import CoverageRow, CoverageStatus
from memhub.compiler.hosts.common import RUNTIME_PACKAGE
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hook, Hub
from memhub.hubspec.perhost import NATIVE_ONLY
from memhub.hubspec.refs import PLUGIN_REFS, shell_default, shell_ref, substitute

# hosts the runtime renders answers for
RUNTIME_HOSTS = ("claude", "codex", "copilot", "cursor", "gemini")


def command_handler(item: MappedHook) -> dict[str, Any]:
    """A Claude-style command handler (Claude Code and Codex share this shape)."""
    handler: dict[str, Any] = {"type": "command", "command": item.command}
    if item.hook.timeout is not None:
        handler["timeout"] = item.hook.timeout
    if item.hook.is_async:
        handler["async"] = True
    if item.hook.status_message:
        handler["statusMessage"] = item.hook.status_message
    handler.update(item.options)
    return handler


@dataclass(frozen=True, slots=True)
class EventSupport:
    """How a host carries one logical event: its event name, or why it cannot.

    `handler_also`: more host events that a runtime `handler:` hook is bound to as well,
    where the host splits the logical event (Claude Code ends a subagent's turn with
    SubagentStop, not Stop); the runtime normalises them (runtime/events.py). `command:`
    hooks get only `host_event`: their scripts were written for its payload.
    """

    host_event: str | None
    caveat: str = ""
    unsupported: str = ""
    handler_also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MappedHook:
    """A hub hook placed on a host event with the host's matcher and command."""

    hook: Hook
    host_event: str
    matcher: str | None
    command: str
    options: Mapping[str, Any] = field(default_factory=dict)  # in the host's spelling


HOOK_SCRIPT = "hook.py"
HOOK_EXECUTABLE = "memhub-hook"  # the console script of an installed memhub


def hook_command(hub: Hub, hook: Hook, *, host: str, root: str | None, data: str | None) -> str:
    """The shell command a host runs for a `command:` hook, in host reference syntax."""
    assert hook.command is not None, "handler hooks run through dispatcher_command"
    return substitute(
        quote_plugin_refs(hook.command),
        env=shell_ref,
        env_default=shell_default,  # a shell command: `${NAME:-default}` is the shell's
        plugin_root=root or "${plugin_root}",
        plugin_data=data or "${plugin_data}",
    )


def quote_plugin_refs(command: str) -> str:
    """`command` with every `${plugin_root}` / `${plugin_data}` outside shell quotes put in
    double quotes: the host's folder variable may expand to a path with spaces, and
    `claude plugin validate --strict` refuses an unquoted `${CLAUDE_PLUGIN_ROOT}`. Quoted
    ones (in '...' or "...") are kept as they are."""
    if "${plugin_" not in command:
        return command
    refs = tuple("${" + name + "}" for name in PLUGIN_REFS)
    out: list[str] = []
    quote = ""  # the open quote character, "" outside quotes
    index = 0
    while index < len(command):
        char = command[index]
        if char == "\\" and quote != "'":
            out.append(command[index : index + 2])
            index += 2
            continue
        ref = next((r for r in refs if command.startswith(r, index)), None) if not quote else None
        if ref is not None:
            out.append(f'"{ref}"')
            index += len(ref)
            continue
        if char in "'\"" and quote in ("", char):
            quote = "" if quote else char
        out.append(char)
        index += 1
    return "".join(out)


def dispatcher_command(
    hub: Hub,
    *,
    host: str,
    host_event: str,
    bindings: list[str],
    root: str | None,
    executable: str = HOOK_EXECUTABLE,
) -> str:
    """The one runtime process a host event starts: `<python> -S "<root>/memhub_runtime/
    hook.py" <host> <HostEvent> <bindings>` in a bundle, `memhub-hook ...` in an install (no
    plugin folder there; the installed package runs) and in a bundle built with `runtime:
    vendor: never`. A binding is `handler` or `handler=class,class` (the runtime checks the
    tool class itself). `executable` is how an install starts the runtime: this installation's
    interpreter and hook.py by absolute path (Scope.hook_entry), since the host's PATH need not
    hold the venv it was installed in."""
    entry = (
        executable
        if root is None or not hub.needs_runtime
        else f'{hub.runtime.python} -S "{root}/{RUNTIME_PACKAGE}/{HOOK_SCRIPT}"'
    )
    return " ".join([entry, host, host_event, *bindings])


def _dispatchers(
    hub: Hub,
    host: str,
    mapped: list[tuple[MappedHook, list[str]]],
    matcher: Callable[[list[str]], str],
    root: str | None,
    executable: str = HOOK_EXECUTABLE,
) -> list[MappedHook]:
    """Handler hooks merged into one dispatcher entry per host event and settings (timeout,
    async, status message), placed where the first of them was; `command:` hooks stay as
    they are. Hooks whose settings differ get one entry each, since the host shows them
    apart (a background flush beside a blocking recall); the entry's matcher covers every
    bound hook's tools (none when one of them takes every tool)."""
    groups: dict[tuple[object, ...], list[tuple[MappedHook, list[str]]]] = {}
    for item, names in mapped:
        if item.hook.handler is not None:
            groups.setdefault(_dispatch_key(item), []).append((item, names))
    result: list[MappedHook] = []
    for item, _ in mapped:
        if item.hook.handler is None:
            result.append(item)
            continue
        group = groups.pop(_dispatch_key(item), None)
        if group is None:
            continue  # merged into this event's dispatcher already
        hooks = [member.hook for member, _ in group]
        classes: dict[str, set[str] | None] = {}
        for hook in hooks:
            handler = hook.handler
            assert handler is not None  # grouped above only when it names a handler
            seen = classes.get(handler, set())
            classes[handler] = None if seen is None or not hook.tools else seen | set(hook.tools)
        bindings = [
            name if tools is None else f"{name}={','.join(sorted(tools))}"
            for name, tools in classes.items()
        ]
        every_tool = any(not names for _, names in group)
        names = list(dict.fromkeys(n for _, ns in group for n in ns))
        merged = Hook(
            id=",".join(h.id for h in hooks),
            event=hooks[0].event,
            handler=",".join(classes),
            timeout=hooks[0].timeout,  # one value in the group (_dispatch_key)
            is_async=hooks[0].is_async,
            status_message=hooks[0].status_message,
            origin=hooks[0].origin,
        )
        command = dispatcher_command(
            hub,
            host=host,
            host_event=item.host_event,
            bindings=bindings,
            root=root,
            executable=executable,
        )
        result.append(
            MappedHook(merged, item.host_event, None if every_tool else matcher(names), command)
        )
    return result


def _dispatch_key(item: MappedHook) -> tuple[object, ...]:
    """What handler hooks must share to run in one process: the host event and every
    setting the host applies to the entry."""
    hook = item.hook
    return (item.host_event, hook.timeout, hook.is_async, hook.status_message)


def map_install_hooks(
    hub: Hub,
    scope: Scope,
    *,
    host: str,
    events: Mapping[str, EventSupport],
    tools: Mapping[str, tuple[str, ...] | None],
    matcher: Callable[[list[str]], str],
) -> tuple[list[MappedHook], list[CoverageRow]]:
    """map_hooks for an install: no plugin folder, and hooks run this installation's
    runtime by absolute path (a host runs hooks without the person's PATH; Scope.hook_entry)."""
    return map_hooks(
        hub,
        host=host,
        events=events,
        tools=tools,
        matcher=matcher,
        root=None,
        data=None,
        executable=scope.hook_entry(),
    )


def _unseen_context(host: str, hook: Hook, host_event: str) -> str:
    """Why `host` cannot carry a handler that acts only through what the model reads on
    `host_event` (the runtime's own table of the events whose output reaches the model);
    "" when it can."""
    from memhub.runtime.dispatch import CONTEXT_EVENTS
    from memhub.runtime.handlers import NEEDS_MODEL_CONTEXT

    if hook.handler not in NEEDS_MODEL_CONTEXT or host not in RUNTIME_HOSTS:
        return ""
    if host_event in CONTEXT_EVENTS.get(host, ()):
        return ""
    if host == "cursor" and host_event == "postToolUse":
        host_event = "postToolUse or afterShellExecution"  # neither shows the agent anything
    return (
        f"the model never sees the output of {host}'s {host_event} hooks, and "
        f"{hook.handler} only speaks to the model: it does not run on {host}"
    )


def _blocked(
    host: str, hook: Hook, host_event: str, dropped: str, root: str | None, data: str | None
) -> str | None:
    """Why `hook` cannot be placed on `host_event` of `host`, or None when it can."""
    if dropped and hook.required:
        return dropped
    if unseen := _unseen_context(host, hook, host_event):
        return unseen
    command = hook.command or ""
    if "${plugin_root}" in command and root is None:
        return "an install has no plugin folder for ${plugin_root}"
    if "${plugin_data}" in command and data is None:
        return f"{host} has no plugin data folder for ${{plugin_data}}"
    return None


def map_hooks(
    hub: Hub,
    *,
    host: str,
    events: Mapping[str, EventSupport],
    tools: Mapping[str, tuple[str, ...] | None],
    matcher: Callable[[list[str]], str],
    root: str | None,
    data: str | None,
    executable: str = HOOK_EXECUTABLE,
) -> tuple[list[MappedHook], list[CoverageRow]]:
    """Place every hub hook on this host, with one coverage row per hook.

    `root`/`data` are the host's plugin folder references; None where there is no plugin
    folder (an install), so `command:` hooks that name one cannot be carried there. Hooks
    naming a runtime `handler:` become one dispatcher entry per host event (`_dispatchers`).
    """
    mapped: list[tuple[MappedHook, list[str]]] = []
    rows: list[CoverageRow] = []
    for hook in hub.hooks:
        support = event_support(host, hook, events)

        def row(status: CoverageStatus, target: str, reason: str, hook: Hook = hook) -> None:
            rows.append(CoverageRow(host, "hook", hook.id, status, target, reason, hook.required))

        if support.host_event is None:
            row("unsupported", "-", support.unsupported)
            continue
        options, dropped = host_options(host, hook)
        if blocked := _blocked(host, hook, support.host_event, dropped, root, data):
            row("unsupported", support.host_event, blocked)
            continue
        caveats = [c for c in (support.caveat, dropped) if c]
        names: list[str] = []
        missing = []
        native = hook.event not in events
        for tool_class in () if native else hook.tools:
            host_names = tools.get(tool_class)
            if host_names is None:
                missing.append(tool_class)
            else:
                names.extend(host_names)
        if hook.tools and not names and not native:
            row(
                "unsupported",
                support.host_event,
                f"{host} exposes no hookable tool for: {', '.join(missing)}",
            )
            continue
        if missing:
            caveats.append(
                f"no hookable tool for {', '.join(missing)}; matched only "
                f"{', '.join(t for t in hook.tools if t not in missing)}"
            )
        host_matcher = hook.matcher if native else matcher(names) if names else None
        host_events = [support.host_event]
        if hook.handler is not None:
            host_events.extend(support.handler_also)
        target = "+".join(host_events) + (f" [{host_matcher}]" if host_matcher else "")
        row("caveat" if caveats else "mapped", target, "; ".join(caveats))
        command = (
            hook_command(hub, hook, host=host, root=root, data=data)
            if hook.command is not None
            else ""  # set by _dispatchers
        )
        for host_event in host_events:
            mapped.append((MappedHook(hook, host_event, host_matcher, command, options), names))
    return _dispatchers(hub, host, mapped, matcher, root, executable), rows


def event_support(host: str, hook: Hook, events: Mapping[str, EventSupport]) -> EventSupport:
    """How `host` carries the event of `hook` (a logical event, or one of the host's own)."""
    from memhub.compiler.hosts import ADAPTERS  # the adapters import this module

    if hook.event in events:
        return events[hook.event]
    if hook.event == NATIVE_ONLY:
        named = sorted(h for h, values in hook.per_host.items() if values.get("event"))
        return EventSupport(
            None, unsupported=f"no such event on {host}: bound natively for {', '.join(named)}"
        )
    if hook.event in ADAPTERS[host].NATIVE_EVENTS:
        return EventSupport(hook.event)
    return EventSupport(None, unsupported=f"{host} has no hook event {hook.event!r}")


def host_options(host: str, hook: Hook) -> tuple[dict[str, Any], str]:
    """The hook's `options:` in `host`'s spelling, and what the host drops (as a caveat)."""
    from memhub.compiler.hosts import ADAPTERS

    spelled = ADAPTERS[host].HOOK_OPTIONS
    given = {k: v for k, v in hook.options.items() if v is not None}
    dropped = sorted(k for k in given if k not in spelled)
    carried = {spelled[k]: v for k, v in given.items() if k in spelled}
    return carried, (f"{host} has no hook option {', '.join(dropped)}; left out" if dropped else "")


def hook_entries(
    host: str, target: Path, mapped: list[MappedHook], handler: Callable[[MappedHook], Any]
) -> list[Entry]:
    """One array item per hook under `hooks.<Event>` in Claude-style hook files."""
    entries = []
    for item in mapped:
        group: dict[str, Any] = {}
        if item.matcher:
            group["matcher"] = item.matcher
        group["hooks"] = [handler(item)]
        entries.append(Entry(host, str(target), "json-item", ("hooks", item.host_event), group))
    return entries
