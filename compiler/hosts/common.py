"""Machinery the host adapters share; every host-specific value is passed in by the adapter."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from memhub.compiler.artifact import EXEC_MODE, FILE_MODE, Artifact
from memhub.compiler.digest import skill_tree_value
from memhub.compiler.hosts.base import CoverageRow, CoverageStatus
from memhub.compiler.install.entries import Entry, EntryKind
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hook, Hub, Plugin, RemoteServer, Skill, StdioServer, thaw
from memhub.hubspec.refs import references, substitute
from memhub.templates import fill

SHARED = "shared"
NO_PLUGIN_FOLDER = "an install has no plugin folder for ${plugin_root} / ${plugin_data}"
RUNTIME_PACKAGE = "memhub_runtime"


NATIVE_ROOT = "plugins"


def plugin_dir(hub: Hub, root: str = NATIVE_ROOT) -> str:
    """Where the plugin lives inside a bundle: `<root>/<name>` (root: plugins by default)."""
    return f"{root}/{hub.plugin.name}"


def json_bytes(data: Any) -> bytes:
    """Deterministic JSON: two-space indent, insertion order, UTF-8, one final newline."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """`override` merged into a copy of `base`; mappings merge, everything else replaces."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = thaw(value)
    return merged


def json_artifact(
    hub: Hub, host: str, path: str, data: dict[str, Any], *, override: str | None = None
) -> Artifact:
    """A JSON file of `host`, with `overrides.<host>.<override>` merged in last."""
    if override is not None:
        data = deep_merge(data, hub.override(host, override))
    return Artifact(path, json_bytes(data), owners=(host,))


def command_handler(item: MappedHook) -> dict[str, Any]:
    """A Claude-style command handler (Claude Code and Codex share this shape)."""
    handler: dict[str, Any] = {"type": "command", "command": item.command}
    if item.hook.timeout is not None:
        handler["timeout"] = item.hook.timeout
    if item.hook.is_async:
        handler["async"] = True
    if item.hook.status_message:
        handler["statusMessage"] = item.hook.status_message
    return handler


def plugin_metadata(plugin: Plugin) -> dict[str, Any]:
    """The package fields Claude Code, Codex and Agent Plugins manifests share, in order."""
    return {
        "name": plugin.name,
        "version": plugin.version,
        "description": plugin.description,
        "author": plugin.author.as_dict() if plugin.author else None,
        "homepage": plugin.homepage,
        "repository": plugin.repository,
        "license": plugin.license,
        "keywords": list(plugin.keywords),
    }


def compact(data: Mapping[str, Any]) -> dict[str, Any]:
    """Drop keys whose value is None or empty, keeping order."""
    return {k: v for k, v in data.items() if v not in (None, "", (), [], {})}


def skill_artifacts(hub: Hub, root: str) -> list[Artifact]:
    """Every skill file under `<root>/<plugin>/skills/`, byte for byte (shared by its hosts)."""
    base = plugin_dir(hub, root)
    return [
        Artifact(
            f"{base}/skills/{skill.name}/{file.path}",
            file.content,
            EXEC_MODE if file.executable else FILE_MODE,
            (SHARED,),
        )
        for skill in hub.skills
        for file in skill.files
    ]


def icon_path(hub: Hub) -> str | None:
    """The icon's plugin-relative path (`./assets/icon.<ext>`), when the hub has one."""
    return f"./assets/icon.{hub.plugin.icon.suffix}" if hub.plugin.icon else None


def icon_artifacts(hub: Hub, root: str) -> list[Artifact]:
    icon, relative = hub.plugin.icon, icon_path(hub)
    if icon is None or relative is None:
        return []
    path = f"{plugin_dir(hub, root)}/{relative[2:]}"
    return [Artifact(path, icon.content, FILE_MODE, (SHARED,))]


def _section(title: str, items: list[str]) -> str:
    return f"## {title}\n\n" + "".join(f"- {item}\n" for item in items) + "\n" if items else ""


def readme_artifact(hub: Hub, root: str, installs: list[dict[str, Any]]) -> Artifact:
    """`<plugin>/README.md`: what the plugin holds and how each selected host installs it."""
    plugin = hub.plugin
    servers = []
    for server in hub.mcp_servers:
        kind = "stdio" if isinstance(server, StdioServer) else f"remote ({server.transport})"
        note = f" - {server.description}" if server.description else ""
        servers.append(f"`{server.name}`: {kind}{note}")
    hooks = [
        f"`{h.id}` on `{h.event}`" + (f" ({', '.join(h.tools)} tools)" if h.tools else "")
        for h in hub.hooks
    ]
    text = fill(
        "plugin_readme.md.tmpl",
        title=plugin.title,
        description=plugin.description,
        version=plugin.version,
        license=f", licensed {plugin.license}" if plugin.license else "",
        homepage=f" Home: {plugin.homepage}" if plugin.homepage else "",
        installs="".join(
            f"\n### {host['title']}\n\n```\n" + "\n".join(host["steps"]) + "\n```\n"
            for host in installs
        ),
        sections=_section("Skills", [f"`{s.name}`: {s.description}" for s in hub.skills])
        + _section("MCP servers", servers)
        + _section("Hooks", hooks),
    )
    return Artifact(
        f"{plugin_dir(hub, root)}/README.md", text.encode("utf-8"), FILE_MODE, (SHARED,)
    )


# --- memhub's MCP launcher (runtime/launcher.py) -------------------------------------------

LAUNCHER_SCRIPT = "launcher.py"
LAUNCHER_EXECUTABLE = "memhub-launch"  # the console script beside memhub-hook
LAUNCH_BY_HUB = "the hub asks for the launcher (runtime: secrets: launcher)"
LAUNCHED_BY = "started through memhub's launcher"  # how each launched server's caveat starts
HTTP_NOT_LAUNCHED = (
    "an HTTP server cannot go through memhub's launcher (runtime: secrets: launcher); the "
    "host reads its references from its own environment"
)


@dataclass(frozen=True, slots=True)
class Launcher:
    """How one host file starts memhub's launcher: the command and its first arguments;
    `cwd`: the folder the host must start it in (the hub's cwd then goes to the launcher)."""

    command: str
    lead: tuple[str, ...]
    cwd: str | None = None


def install_launcher(hub: Hub, script: str) -> Launcher:
    """An install's launcher: this installation's `memhub-launch` (`script`, an absolute
    path from Scope.script) with the hub's folder, whose `.env` it reads after the
    environment. The folder is the hub's identity in the ownership state too."""
    return Launcher(script, ("--hub", os.path.abspath(hub.root)))


def bundle_launcher(hub: Hub, root: str) -> Launcher:
    """A bundle's launcher: the vendored copy in `<root>/memhub_runtime/` (no pip install)."""
    return Launcher(hub.runtime.python, ("-S", f"{root}/{RUNTIME_PACKAGE}/{LAUNCHER_SCRIPT}"))


PLUGIN_ROOT_TEMPLATE = "%{plugin_root}"  # the launcher finds its plugin folder itself


def relative_bundle_launcher(hub: Hub) -> Launcher:
    """A bundle's launcher for a host that expands no plugin-folder reference in a server's
    command line but starts a plugin server's relative `cwd` in the plugin folder (Codex):
    started there, by relative path; `%{plugin_root}` stands for the folder."""
    return Launcher(hub.runtime.python, ("-S", f"./{RUNTIME_PACKAGE}/{LAUNCHER_SCRIPT}"), ".")


def launcher_artifact(hub: Hub, root: str) -> Artifact:
    """The launcher module a bundle's launched servers need, whether or not hooks vendor the
    rest of the runtime (the same bytes as runtime_artifacts' copy, so the two merge)."""
    content = resources.files("memhub.runtime").joinpath(LAUNCHER_SCRIPT).read_bytes()
    path = f"{plugin_dir(hub, root)}/{RUNTIME_PACKAGE}/{LAUNCHER_SCRIPT}"
    return Artifact(path, content, FILE_MODE, (SHARED,))


def launch_template(text: str, *, plugin_root: str, plugin_data: str) -> str:
    """`text` in launcher syntax: `${env:NAME}` as `%{env:NAME}` (no host expands it, so the
    launcher sees the name), a literal `%{` as `%%{`, plugin folders in the host's syntax."""
    escaped = text.replace("%{", "%%{")
    return substitute(
        escaped,
        env=lambda name: "%{env:" + name + "}",
        plugin_root=plugin_root,
        plugin_data=plugin_data,
    )


def env_names(values: Iterable[str]) -> list[str]:
    """Every NAME referenced as `${env:NAME}` in `values`, in order of first use."""
    return list(
        dict.fromkeys(ref.name for v in values for ref in references(v) if ref.kind == "env")
    )


@dataclass(frozen=True, slots=True)
class Launched:
    """A stdio server as started through the launcher: what the host file holds."""

    command: str
    args: list[str]
    env: dict[str, str]  # values without a reference, in host syntax
    names: list[str]  # the variables the launcher reads (a host that filters must pass them)
    cwd: str | None  # the host's cwd for the launcher process


def launched(
    server: StdioServer,
    launcher: Launcher,
    *,
    plain: Callable[[str], str],
    plugin_root: str,
    plugin_data: str,
) -> Launched:
    """`server` started by `launcher`: its command line, env values and cwd holding a
    reference become launcher arguments; the rest stays in the host's own keys (`plain`).
    A launcher with a `cwd` of its own takes the server's cwd as an argument."""

    def template(text: str) -> str:
        return launch_template(text, plugin_root=plugin_root, plugin_data=plugin_data)

    args = [*launcher.lead, "--server", server.name]
    env: dict[str, str] = {}
    for key, value in server.env.items():
        if env_names([value]):
            args += ["--env", f"{key}={template(value)}"]
        else:
            env[key] = plain(value)
    cwd = launcher.cwd
    if server.cwd and (launcher.cwd is not None or env_names([server.cwd])):
        args += ["--cwd", template(server.cwd)]
    elif server.cwd:
        cwd = plain(server.cwd)
    args += ["--", template(server.command), *(template(a) for a in server.args)]
    names = env_names([server.command, *server.args, *server.env.values(), server.cwd or ""])
    return Launched(launcher.command, args, env, names, cwd)


def oauth_not_carried(host_title: str, server: RemoteServer, carried: Iterable[str]) -> str:
    """The caveat for the hub's OAuth settings a host has no per-server field for ("" when
    it carries all that are set). `carried` names the fields the host does carry."""
    oauth = server.oauth
    if oauth is None:
        return ""
    given = {
        "callback_port": oauth.callback_port is not None,
        "auth_server_metadata_url": oauth.auth_server_metadata_url is not None,
        "scopes": bool(oauth.scopes),
    }
    dropped = [key for key, is_set in given.items() if is_set and key not in set(carried)]
    if not dropped:
        return ""
    return f"{host_title} has no per-server OAuth {', '.join(dropped)}; not carried"


def runtime_artifacts(hub: Hub, root: str) -> list[Artifact]:
    """The runtime package copied as it is into `<root>/<plugin>/memhub_runtime/`, its
    subpackages included (every `*.py`, no bytecode)."""
    if not hub.needs_runtime:
        return []
    base = f"{plugin_dir(hub, root)}/{RUNTIME_PACKAGE}"
    return [
        Artifact(f"{base}/{name}", content, FILE_MODE, (SHARED,))
        for name, content in _runtime_sources(resources.files("memhub.runtime"), "")
    ]


def _runtime_sources(folder: Traversable, prefix: str) -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_file() and entry.name.endswith(".py"):
            found.append((prefix + entry.name, entry.read_bytes()))
        elif entry.is_dir() and entry.joinpath("__init__.py").is_file():
            found += _runtime_sources(entry, f"{prefix}{entry.name}/")
    return found


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


HOOK_SCRIPT = "hook.py"
HOOK_EXECUTABLE = "memhub-hook"  # the console script of an installed memhub


def hook_command(hub: Hub, hook: Hook, *, host: str, root: str | None, data: str | None) -> str:
    """The shell command a host runs for a `command:` hook, in host reference syntax."""
    assert hook.command is not None, "handler hooks run through dispatcher_command"
    return substitute(
        hook.command,
        env=lambda name: "${" + name + "}",
        plugin_root=root or "${plugin_root}",
        plugin_data=data or "${plugin_data}",
    )


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
    tool class itself). `executable` is how an install names `memhub-hook`: the absolute
    path of this installation's script (Scope.script_command), since the host's PATH need not
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
    """Handler hooks merged into one dispatcher entry per host event, placed where the first
    of them was; `command:` hooks stay as they are. The entry's matcher covers every bound
    hook's tools (none when one of them takes every tool); its timeout is the longest given,
    it is async only when all of them are, and it shows the first status message."""
    groups: dict[str, list[tuple[MappedHook, list[str]]]] = {}
    for item, names in mapped:
        if item.hook.handler is not None:
            groups.setdefault(item.host_event, []).append((item, names))
    result: list[MappedHook] = []
    for item, _ in mapped:
        if item.hook.handler is None:
            result.append(item)
            continue
        group = groups.pop(item.host_event, None)
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
        timeouts = [h.timeout for h in hooks if h.timeout is not None]
        merged = Hook(
            id=",".join(h.id for h in hooks),
            event=hooks[0].event,
            handler=",".join(classes),
            timeout=max(timeouts) if timeouts else None,
            is_async=all(h.is_async for h in hooks),
            status_message=next((h.status_message for h in hooks if h.status_message), None),
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
    `memhub-hook` by absolute path (a host runs hooks without the person's PATH)."""
    return map_hooks(
        hub,
        host=host,
        events=events,
        tools=tools,
        matcher=matcher,
        root=None,
        data=None,
        executable=scope.script_command(HOOK_EXECUTABLE),
    )


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
        support = events[hook.event]

        def row(status: CoverageStatus, target: str, reason: str, hook: Hook = hook) -> None:
            rows.append(CoverageRow(host, "hook", hook.id, status, target, reason, hook.required))

        if support.host_event is None:
            row("unsupported", "-", support.unsupported)
            continue
        if hook.command is not None and "${plugin_root}" in hook.command and root is None:
            row(
                "unsupported",
                support.host_event,
                "an install has no plugin folder for ${plugin_root}",
            )
            continue
        if hook.command is not None and "${plugin_data}" in hook.command and data is None:
            row(
                "unsupported",
                support.host_event,
                f"{host} has no plugin data folder for ${{plugin_data}}",
            )
            continue
        caveats = [support.caveat] if support.caveat else []
        names: list[str] = []
        missing = []
        for tool_class in hook.tools:
            host_names = tools.get(tool_class)
            if host_names is None:
                missing.append(tool_class)
            else:
                names.extend(host_names)
        if hook.tools and not names:
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
        host_matcher = matcher(names) if names else None
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
            mapped.append((MappedHook(hook, host_event, host_matcher, command), names))
    return _dispatchers(hub, host, mapped, matcher, root, executable), rows


def grouped_hooks(
    mapped: Iterable[MappedHook],
    handler: Callable[[MappedHook], dict[str, Any]],
    *,
    order: Iterable[str],
) -> dict[str, list[dict[str, Any]]]:
    """Claude-style `{Event: [{matcher?, hooks: [handler]}]}`, events in `order`."""
    by_event: dict[str, list[dict[str, Any]]] = {}
    for item in mapped:
        group: dict[str, Any] = {}
        if item.matcher:
            group["matcher"] = item.matcher
        group["hooks"] = [handler(item)]
        by_event.setdefault(item.host_event, []).append(group)
    ordered = [e for e in order if e in by_event]
    return {event: by_event[event] for event in ordered}


def server_row(
    host: str, name: str, status: CoverageStatus, target: str, reason: str = ""
) -> CoverageRow:
    return CoverageRow(host, "mcp", name, status, target, reason)


def instructions_row(
    hub: Hub, host: str, status: CoverageStatus, target: str, reason: str
) -> list[CoverageRow]:
    if hub.instructions is None:
        return []
    return [CoverageRow(host, "instructions", hub.instructions.source, status, target, reason)]


def instruction_entries(
    hub: Hub, host: str, target: Path, caveat: str = ""
) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's instructions as one marked block of a Markdown file the host reads."""
    if hub.instructions is None:
        return [], []
    text = hub.instructions.text
    body = text if text.endswith("\n") else text + "\n"
    entry = Entry(host, str(target), "text-block", (hub.plugin.name,), body)
    status: CoverageStatus = "caveat" if caveat else "mapped"
    return [entry], instructions_row(hub, host, status, f"{target.name} (memhub block)", caveat)


def uses_plugin_folder(server: StdioServer | RemoteServer) -> bool:
    """Whether a server names ${plugin_root} or ${plugin_data} (meaningless in an install)."""
    values = (
        [server.command, *server.args, *server.env.values(), server.cwd or ""]
        if isinstance(server, StdioServer)
        else [server.url, *server.headers.values()]
    )
    return any(ref.kind in ("plugin_root", "plugin_data") for v in values for ref in references(v))


@cache
def _skill_tree(skill: Skill) -> tuple[tuple[tuple[str, bytes, int], ...], dict[str, list[Any]]]:
    """A skill's files as (path, bytes, mode) and its digest value; computed once per skill."""
    files = tuple(
        (f.path, f.content, EXEC_MODE if f.executable else FILE_MODE) for f in skill.files
    )
    return files, skill_tree_value(files)


def skill_entries(hub: Hub, host: str, folder: Path) -> list[Entry]:
    """One `tree` entry per skill: `<folder>/<skill>/` holds exactly the skill's files."""
    entries = []
    base = os.fspath(folder)  # os.path, not pathlib: this runs for every skill of every host
    for skill in hub.skills:
        files, digest = _skill_tree(skill)
        target = os.path.join(base, skill.name)
        entries.append(Entry(host, target, "tree", (), digest, files=files))
    return entries


def mcp_entries(
    hub: Hub,
    host: str,
    target: Path,
    kind: EntryKind,
    key: str,
    spec_of: Callable[[StdioServer | RemoteServer], tuple[dict[str, Any] | None, CoverageRow]],
) -> tuple[list[Entry], list[CoverageRow]]:
    """One entry per MCP server under `key` of `target`, with the host's spec and coverage."""
    entries: list[Entry] = []
    rows: list[CoverageRow] = []
    for server in hub.mcp_servers:
        if uses_plugin_folder(server):
            rows.append(server_row(host, server.name, "unsupported", "-", NO_PLUGIN_FOLDER))
            continue
        spec, row = spec_of(server)
        rows.append(row)
        if spec is not None:
            entries.append(Entry(host, str(target), kind, (key, server.name), spec))
    return entries, rows


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
