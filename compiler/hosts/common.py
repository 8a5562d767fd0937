"""What every host's bundle shares: plugin folders, JSON files, skills, icon, README, runtime."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memhub.compiler.artifact import EXEC_MODE, FILE_MODE, Artifact
from memhub.compiler.errors import BuildError
from memhub.compiler.formats import jsondump
from memhub.compiler.hosts.keyorder import KEY_ORDER, ordered
from memhub.hubspec.bundlepaths import ROOT
from memhub.hubspec.model import Hub, Plugin, Rulebook, StdioServer, thaw
from memhub.templates import fill

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

SHARED = "shared"
NO_PLUGIN_FOLDER = "an install has no plugin folder for ${plugin_root} / ${plugin_data}"
RUNTIME_PACKAGE = "memhub_runtime"
# Parts of runtime/ that bundles do not copy, relative to it (a folder ends with "/"): the MCP
# server needs the `mcp` SDK and the memory write layer imports memhub.compiler (safewrite),
# neither of which a bundle has. A test checks every runtime module importing either is here.
NOT_VENDORED = ("server/", "memory/writes.py")


NATIVE_ROOT = "plugins"


def root_of(hub: Hub, adapter: Any) -> str:
    """The bundle folder of `adapter`'s plugin copy for `hub`: its `root(hub)` when the
    adapter lets the hub choose (Agent Plugins), else its `bundle_root`."""
    choose = getattr(adapter, "root", None)
    return str(choose(hub)) if callable(choose) else str(adapter.bundle_root)


def plugin_dir(hub: Hub, root: str = NATIVE_ROOT) -> str:
    """Where the plugin lives inside a bundle: `<root>/<name>` (root: plugins by default), or
    the hub's `plugin.path` for the native root (`.`: the bundle root; an Artifact drops the
    `./` its paths then start with)."""
    if root == NATIVE_ROOT and hub.plugin.path:
        return hub.plugin.path
    return f"{root}/{hub.plugin.name}"


def plugin_source(hub: Hub) -> str:
    """The native plugin folder as a root marketplace's relative source: `./<folder>`, or
    `./` for a plugin at the bundle root."""
    folder = plugin_dir(hub)
    return "./" if folder == ROOT else f"./{folder}"


def with_project(server: StdioServer) -> StdioServer:
    """`server` naming its project folder (`<project_option> ${project_dir}` appended), for a
    host that does not start stdio servers in the folder it works in."""
    if server.project_option is None:
        return server
    return replace(server, args=(*server.args, server.project_option, "${project_dir}"))


def json_bytes(data: Any) -> bytes:
    """Deterministic JSON: two-space indent, insertion order, UTF-8, one final newline."""
    return (jsondump.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """`override` merged into a copy of `base` as a JSON merge patch (RFC 7396): mappings
    merge, `null` takes the key out, everything else replaces. A mapping `base` has no
    mapping for is written as given, its nulls too (a manifest's `"x": {"a": null}` comes
    back; RFC 7396 would drop the null)."""
    merged = dict(base)
    for key, value in override.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping):
            inner = merged.get(key)
            merged[key] = deep_merge(inner, value) if isinstance(inner, dict) else thaw(value)
        else:
            merged[key] = thaw(value)
    return merged


def json_artifact(
    hub: Hub, host: str, path: str, data: dict[str, Any], *, override: str | None = None
) -> Artifact:
    """A JSON file of `host`, with `overrides.<host>.<override>` merged in last and its keys
    in `overrides.<host>.key_order.<override>`'s order (keyorder.py)."""
    if override is not None:
        if without(hub, host, override):
            raise BuildError(
                f"{hub.plugin.origin.file}: overrides.{host}.{override} is null, but {host} "
                f"needs this file ({path}). Fix: give an object (a null inside it takes one "
                "key out)"
            )
        data = deep_merge(data, hub.override(host, override))
        data = ordered(data, hub.override(host, KEY_ORDER).get(override, ()))
    return Artifact(path, json_bytes(data), owners=(host,))


def without(hub: Hub, host: str, section: str) -> bool:
    """`overrides.<host>.<section>: null`: the hub wants no such document for that host
    (only an adapter that can do without it asks; json_artifact refuses it)."""
    sections = hub.overrides.get(host) or {}
    return section in sections and sections[section] is None


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


def skill_artifacts(hub: Hub, root: str, *, flat: bool = False) -> list[Artifact]:
    """Every skill file under `<root>/<plugin>/skills/`, byte for byte (shared by its hosts);
    a skill of a group folder at `skills/<group>/<name>/`, or `skills/<name>/` when `flat`."""
    base = plugin_dir(hub, root)
    return [
        Artifact(
            f"{base}/skills/{skill.name if flat else skill.folder}/{file.path}",
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


def _event_words(hook: Any) -> str:
    """A hook's event for the README: its logical one, else each host's own (`event: {host:
    Name}` binds no logical event)."""
    if hook.event:
        return f"`{hook.event}`"
    native = [f"{host} `{v['event']}`" for host, v in hook.per_host.items() if v.get("event")]
    return ", ".join(native) or "`-`"


def readme_artifact(hub: Hub, root: str, installs: list[dict[str, Any]]) -> Artifact:
    """`<plugin>/README.md`: what the plugin holds and how each selected host installs it."""
    plugin = hub.plugin
    servers = []
    for server in hub.mcp_servers:
        kind = "stdio" if isinstance(server, StdioServer) else f"remote ({server.transport})"
        note = f" - {server.description}" if server.description else ""
        servers.append(f"`{server.name}`: {kind}{note}")
    hooks = [
        f"`{h.id}` on {_event_words(h)}" + (f" ({', '.join(h.tools)} tools)" if h.tools else "")
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
        + _section("Hooks", hooks)
        + _section("Rulebooks", [_book_line(b) for b in hub.rulebooks]),
    )
    return Artifact(
        f"{plugin_dir(hub, root)}/README.md", text.encode("utf-8"), FILE_MODE, (SHARED,)
    )


def _book_line(book: Rulebook) -> str:
    who = "everyone" if book.members is None else ", ".join(book.members)
    events = ", ".join(sorted({r.event for r in book.rules}))
    return f"`{book.name}`: {len(book.rules)} rule(s) on {events}, binding {who}"


def runtime_artifacts(hub: Hub, root: str) -> list[Artifact]:
    """The runtime package copied as it is into `<root>/<plugin>/memhub_runtime/`, its
    subpackages included (every `*.py`, no bytecode)."""
    if not hub.needs_runtime:
        return []
    base = f"{plugin_dir(hub, root)}/{RUNTIME_PACKAGE}"
    return [
        Artifact(f"{base}/{name}", content, FILE_MODE, (SHARED,))
        for name, content in _runtime_sources(_runtime_folder(), "")
    ]


def _runtime_folder() -> Traversable:
    """memhub.runtime's folder (importlib.resources is imported here: an apply never
    vendors the runtime, and the module costs a first apply a few ms)."""
    from importlib import resources

    return resources.files("memhub.runtime")


def _not_vendored(relative: str, is_dir: bool) -> bool:
    """Whether `relative` (a path under runtime/) is one of NOT_VENDORED."""
    return (relative + "/" if is_dir else relative) in NOT_VENDORED


def _runtime_sources(folder: Traversable, prefix: str) -> list[tuple[str, bytes]]:
    found: list[tuple[str, bytes]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if _not_vendored(prefix + entry.name, entry.is_dir()):
            continue
        if entry.is_file() and entry.name.endswith(".py"):
            found.append((prefix + entry.name, entry.read_bytes()))
        elif entry.is_dir() and entry.joinpath("__init__.py").is_file():
            found += _runtime_sources(entry, f"{prefix}{entry.name}/")
    return found
