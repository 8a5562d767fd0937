"""`load(path) -> Hub`: read hub.yaml and the files it names, check everything, or raise.

Every problem is collected (not just the first), each naming file:line:col, the key
path and a fix; a hub that loads is safe to compile.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .agents import PromptChecks
from .bundlepaths import bundle_path_problem
from .checks import cannot_read
from .components import ComponentChecks, HookFileChecks
from .content import ContentChecks
from .cursorrules import RuleChecks
from .errors import HubError, Origin, Problem
from .files import MCP_JSON, FileChecks, built_paths, shipped_as_link
from .hookskept import KeptHookChecks
from .icons import FIX as ICON_FIX
from .icons import icon_problem
from .memory import MemoryChecks
from .model import (
    Hub,
    Icon,
    Marketplace,
    Person,
    Plugin,
    Runtime,
    frozen_map,
)
from .rulebooks import RulebookChecks
from .schema_check import schema_problems
from .serverextras import ServerExtraChecks
from .shippedcomponents import ShippedComponentChecks, component_paths, shipped_sources
from .userconfig import UserConfigChecks
from .vocabulary import default_hosts
from .yamlsrc import YamlProblems, gc_paused, parse_yaml

HUB_FILE = "hub.yaml"


def find_hub_file(path: str | os.PathLike[str]) -> Path:
    """The hub.yaml for a folder or file argument; raises HubError when there is none."""
    candidate = Path(path)
    if candidate.is_dir():
        candidate = candidate / HUB_FILE
    if not candidate.is_file():
        raise HubError(
            [
                Problem(
                    Origin(str(candidate)),
                    "",
                    "no hub file here",
                    "pass a hub folder or its hub.yaml, or create one with `memhub init`",
                )
            ]
        )
    return candidate


def load(path: str | os.PathLike[str], *, cache: Path | None = None) -> Hub:
    """Load and check the hub at `path` (a folder or its hub.yaml).

    `cache`: a folder where checked skills are kept between runs (see skillcache).
    """
    with gc_paused():
        return _load(path, cache)


def _load(path: str | os.PathLike[str], cache: Path | None) -> Hub:
    hub_file = find_hub_file(path)
    root = hub_file.parent
    shown = str(hub_file)
    text = _hub_text(hub_file, shown)
    try:
        data, positions = parse_yaml(text, shown)
    except YamlProblems as exc:
        raise HubError(exc.problems) from None
    if not isinstance(data, dict):
        raise HubError(
            [
                Problem(
                    positions.of_value(()),
                    "",
                    "the hub must be a mapping of keys (version, plugin, marketplace, ...)",
                    "start from `memhub init` or the README's hub reference",
                )
            ]
        )
    if "plugins" in data and "plugin" not in data:
        raise HubError([_marketplace_hub_problem(positions)])
    problems = schema_problems(data, positions)
    if problems:
        raise HubError(problems)
    skill_cache = None
    if cache is not None:
        from .skillcache import SkillCache

        skill_cache = SkillCache(cache)
    checker = _Checker(root, positions, skill_cache)
    hub = checker.build(data)
    if checker.problems:
        raise HubError(checker.problems)
    assert hub is not None
    if skill_cache is not None:
        skill_cache.save()
    return hub


def _marketplace_hub_problem(positions: Any) -> Problem:
    """A marketplace hub where one plugin hub is wanted (`memhub apply`, `plan`, ...)."""
    return Problem(
        positions.of_key(("plugins",)),
        "plugins",
        "this is a marketplace hub (a `plugins:` list); this command takes one plugin hub",
        "pass the folder of one of its plugin hubs (a `hub:` of its `plugins:`); "
        "memhub build, diff and validate take the marketplace hub itself",
    )


# Far above any real hub (400,000 MCP servers are about 120 MB), and refused from its size
# alone, before a byte is read.
MAX_HUB_BYTES = 256 * 1024 * 1024


def _hub_text(hub_file: Path, shown: str) -> str:
    def refuse(message: str, fix: str) -> HubError:
        return HubError([Problem(Origin(shown), "", message, fix)])

    try:
        size = hub_file.stat().st_size
        if size > MAX_HUB_BYTES:
            raise refuse(
                f"{size:,} bytes, more than the {MAX_HUB_BYTES:,} a hub file may have",
                "split the hub, or check that this is the hub.yaml you meant",
            )
        return hub_file.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(f"not UTF-8 text ({exc.reason})", "save hub.yaml as UTF-8") from None
    except OSError as exc:
        raise refuse(f"cannot be read ({exc.strerror or exc})", "make it readable") from None


class _Checker(
    ComponentChecks,
    HookFileChecks,
    KeptHookChecks,
    ContentChecks,
    MemoryChecks,
    RulebookChecks,
    FileChecks,
    ShippedComponentChecks,
    PromptChecks,
    UserConfigChecks,
    ServerExtraChecks,
    RuleChecks,
):
    """Semantic checks beyond the schema, and construction of the model."""

    def build(self, data: dict[str, Any]) -> Hub | None:
        self.shipped_from = shipped_sources(data)
        plugin = self._plugin(data["plugin"])
        marketplace = self._marketplace(data["marketplace"])
        servers = self._servers(data.get("mcp", {}).get("servers", {}))
        skills = self._skills(data.get("skills"), linked=shipped_as_link(data, "skills"))
        instructions = self._instructions(data.get("instructions"))
        hub_hosts = tuple(data["hosts"]) if "hosts" in data else default_hosts()
        self._spaced_server_names(data.get("mcp", {}).get("servers", {}), hub_hosts)
        skills = self._skill_hosts(data.get("skill_hosts", {}), skills)
        hooks = self._hooks(data.get("hooks", []), hub_hosts)
        rulebooks = self._rulebooks(data.get("rulebooks", []))
        runtime = Runtime(**data.get("runtime", {}))
        memory = self._memory(data.get("memory"))
        servers = self._memory_server(memory, servers)
        instructions = self._memory_instructions(memory, instructions)
        self._check_overrides(("overrides",), data.get("overrides", {}))
        overrides = self._server_extras(
            data.get("mcp", {}).get("servers", {}), data.get("overrides", {})
        )
        self._borrowed_manifest(data["plugin"], hub_hosts)
        shared = data["plugin"].get("agent_plugins_folder") == "shared"
        self.built = built_paths(
            hub_hosts,
            instructions=instructions is not None,
            servers=bool(servers) or bool(data.get("mcp", {}).get("file")),
            mcp_named=_mcp_named(data.get("overrides", {})),
            icon=bool(data["plugin"].get("icon")),
        )
        files = self._shipped_files(data.get("files", []), shared=shared)
        kept = tuple(data.get("hooks_kept", ()))
        hook_files = self._hook_files(data.get("hook_files", {}), hub_hosts, files, kept)
        files += self._kept_hooks(kept, hub_hosts, hook_files, hooks)
        agents = self._prompts("agents", data.get("agents"))
        commands = self._prompts("commands", data.get("commands"))
        generated = f"{plugin.name}.mdc" if instructions else None  # cursor_rules.py
        rules = self._rules(data.get("rules"), generated)
        self._component_clashes(files, component_paths(skills, agents, commands, rules))
        if self.problems:
            return None
        return Hub(
            version=data["version"],
            root=str(self.root),
            plugin=plugin,
            marketplace=marketplace,
            hosts=tuple(data["hosts"]) if "hosts" in data else default_hosts(),
            mcp_servers=servers,
            mcp_flat=bool(data.get("mcp", {}).get("flat", False)),
            mcp_file=bool(data.get("mcp", {}).get("file", False)),
            skills=skills,
            instructions=instructions,
            hooks=hooks,
            runtime=runtime,
            overrides=frozen_map(overrides),
            id=data.get("id"),
            memory=memory,
            rulebooks=rulebooks,
            files=files,
            agents=agents,
            commands=commands,
            hook_files=hook_files,
            hooks_kept=kept,
            rules=rules,
        )

    def _borrowed_manifest(self, raw: dict[str, Any], hosts: tuple[str, ...]) -> None:
        """`copilot_manifest` naming another host's manifest needs that host to write it."""
        manifest = raw.get("copilot_manifest")
        shared = raw.get("agent_plugins_folder") == "shared"
        other = {".claude-plugin/plugin.json": "claude", "plugin.json": "agent-plugins"}
        host = other.get(str(manifest)) if manifest != "plugin.json" or shared else None
        if host is not None and host not in hosts:
            self.problem(
                ("plugin", "copilot_manifest"),
                f"Copilot would load the plugin through {manifest}, which only a hub naming "
                f"{host} in `hosts` writes",
                f"add {host} to hosts, or use copilot_manifest: .github/plugin/plugin.json",
            )

    def _plugin(self, raw: dict[str, Any]) -> Plugin:
        bad_path = bundle_path_problem(raw["path"], root_ok=True) if "path" in raw else None
        if bad_path is not None:
            self.problem(("plugin", "path"), *bad_path)
        values, per_host = self._plugin_per_host(raw)
        return Plugin(
            name=raw["name"],
            version=raw["version"],
            description=values["description"],
            author=_person(raw.get("author")),
            display_name=values.get("display_name"),
            homepage=raw.get("homepage"),
            repository=raw.get("repository"),
            license=raw.get("license"),
            keywords=tuple(values.get("keywords", ())),
            category=raw.get("category"),
            tags=tuple(raw.get("tags", ())),
            min_client_versions=frozen_map(raw.get("min_client_versions", {})),
            user_config=self._user_config(raw.get("user_config", {})),
            icon=self._icon(raw.get("icon")),
            privacy_policy=raw.get("privacy_policy"),
            origin=self.positions.of_value(("plugin",)),
            path=raw.get("path"),
            readme=raw.get("readme", True),
            agent_plugins_folder=raw.get("agent_plugins_folder", "apart"),
            copilot_manifest=raw.get("copilot_manifest"),
            gemini_folder=raw.get("gemini_folder", "apart"),
            per_host=per_host,
        )

    def _icon(self, value: str | None) -> Icon | None:
        if value is None:
            return None
        target = self._relative_file(("plugin", "icon"), value, want_dir=False)
        if target is None:
            return None
        try:
            content = target.read_bytes()
        except OSError as exc:
            self.problem(("plugin", "icon"), cannot_read(value, exc), "make it readable")
            return None
        problem = icon_problem(value, content)
        if problem is not None:
            self.problem(("plugin", "icon"), problem, ICON_FIX)
            return None
        return Icon(source=value, content=content)

    def _marketplace(self, raw: dict[str, Any]) -> Marketplace:
        owner = _person(raw["owner"])
        assert owner is not None
        return Marketplace(
            name=raw["name"],
            owner=owner,
            description=raw.get("description"),
            display_name=raw.get("display_name"),
            origin=self.positions.of_value(("marketplace",)),
        )


def _person(raw: dict[str, Any] | None) -> Person | None:
    if raw is None:
        return None
    return Person(name=raw["name"], email=raw.get("email"), url=raw.get("url"))


def _mcp_named(overrides: Any) -> bool:
    """Whether a Codex or Copilot manifest override names `./.mcp.json` as its `mcpServers`
    (the build writes that file then: compiler/hosts/claude_mcp.py named_mcp_json)."""
    for host in ("codex", "copilot"):
        section = overrides.get(host) if isinstance(overrides, dict) else None
        manifest = section.get("manifest") if isinstance(section, dict) else None
        named = manifest.get("mcpServers") if isinstance(manifest, dict) else None
        if isinstance(named, str) and os.path.normpath(named) == MCP_JSON:
            return True
    return False
