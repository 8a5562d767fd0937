"""GitHub Copilot CLI: `.github/plugin/` marketplace and manifest (MCP inline), hooks JSON of
version 1, skills; installs into ~/.copilot or the project (.github/mcp.json, .github/hooks)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhub.compiler.artifact import Artifact
from memhub.compiler.hosts import copilot_claude, copilot_marketplace
from memhub.compiler.hosts.base import (
    CoverageRow,
    DescriptionMax,
    HookSwitches,
    HostBuild,
    Loader,
    Locations,
    SkillNames,
)
from memhub.compiler.hosts.claude_mcp import named_mcp_json
from memhub.compiler.hosts.common import (
    compact,
    json_artifact,
    json_bytes,
    plugin_dir,
    plugin_metadata,
    plugin_source,
)
from memhub.compiler.hosts.copilot_servers import ROOT, hub_spec, server_spec
from memhub.compiler.hosts.entries import instruction_entries, mcp_entries, skill_entries
from memhub.compiler.hosts.hook_files import flat_hooks, hooks_path
from memhub.compiler.hosts.hooks import EventSupport, MappedHook, map_hooks, map_install_hooks
from memhub.compiler.hosts.launcher import (
    LAUNCHED_BY,
    LAUNCHER_EXECUTABLE,
    bundle_launcher,
    install_launcher,
    launcher_artifact,
)
from memhub.compiler.hosts.shipped import Shipping, as_markdown, for_host, with_shipped
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, Skill

if TYPE_CHECKING:
    from memhub.compiler.importing.hostconfig import Installed

name = "copilot"
title = "GitHub Copilot CLI"
executables: tuple[str, ...] = ("copilot",)
HOME_ENV = "COPILOT_HOME"  # moves ~/.copilot (`copilot help environment`)
placing_env: tuple[str, ...] = (HOME_ENV,)
summary = "Copilot CLI plugin + marketplace (.github/plugin/), hooks/hooks.json, skills"

# Its own bundle folder: Copilot reads a plugin's `.mcp.json` and `hooks/hooks.json` before
# its manifest's paths, and Claude Code's files of those names sit in plugins/<name>/.
bundle_root = "copilot"
# Its hooks run the vendored runtime too (runtime/events_copilot.py reads its payloads)
runs_hooks = True
shows_icon = False  # its plugin.json has no icon field
# Copilot 1.0.102 lists skills/<group>/<name>/ (skill list): tests/e2e/test_skill_groups_hosts.py
SKILL_GROUPS: str | None = None
MANIFEST = ".github/plugin/plugin.json"  # the third of the four places it looks, its own
MARKETPLACE = copilot_marketplace.MARKETPLACE_FILE
# `plugin.copilot_manifest` puts the manifest in the plugin's own folder instead, at the root
# (`plugin.json`, the second place Copilot looks) or at MANIFEST, as Copilot-only repositories
# publish it; the skills, agents, commands and shipped files are then the plugin folder's own
root = copilot_marketplace.root
HOOKS_FILE = "hooks/hooks.json"
DATA = "${COPILOT_PLUGIN_DATA}"  # set for a plugin's hook commands

# Copilot 1.0.102 shows the model a hook's `additionalContext` on sessionStart,
# userPromptSubmitted, preToolUse, postToolUse and postToolUseFailure (the runtime's
# CONTEXT_EVENTS; tests/e2e/test_copilot_runtime.py); preCompact's output is not read.
_SILENT = "Copilot CLI ignores the output of {} hooks (observe only)"
EVENTS = {
    "session_start": EventSupport("sessionStart"),
    "session_end": EventSupport("sessionEnd"),
    "prompt_submit": EventSupport("userPromptSubmitted"),
    "before_tool": EventSupport("preToolUse"),
    "after_tool": EventSupport("postToolUse"),
    "after_tool_failure": EventSupport("postToolUseFailure"),
    "turn_end": EventSupport("agentStop"),
    "pre_compact": EventSupport("preCompact", caveat=_SILENT.format("preCompact")),
}
# Copilot CLI's hook events (its hooks reference), for hooks bound natively
# (`event: {copilot: ...}`) and read back by import --from-repo (copilot_repo.HOOKS)
NATIVE_EVENTS: tuple[str, ...] = (
    "sessionStart", "sessionEnd", "userPromptSubmitted", "preToolUse", "postToolUse",
    "postToolUseFailure", "agentStop", "subagentStop", "preCompact", "errorOccurred",
    "notification", "permissionRequest",
)  # fmt: skip
# hub option -> Copilot's handler key: its Windows command, and the folder a command runs in
HOOK_OPTIONS: dict[str, str] = {"command_windows": "powershell", "cwd": "cwd"}
HOOK_ENV = frozenset({"COPILOT_PLUGIN_DATA"})  # what DATA names; ${plugin_root} is a path
# Copilot CLI 1.0.102 names a SKILL.md without `name` by its folder
# Copilot CLI 1.0.102 drops a skill whose description is longer: `skill list` leaves it out
# and says "Skill description must be at most 1024 characters" on stderr
SKILL_DESCRIPTION_MAX = DescriptionMax(
    1024, "unsupported", "Copilot CLI 1.0.102 refuses to load a description over 1024"
)
SKILL_NAMES = SkillNames(
    other_name=(
        "caveat",
        "Copilot CLI 1.0.102 lists it under another name (spaces become hyphens: "
        "'Agent Development' is listed as 'Agent-Development')",
    )
)


# Copilot CLI's tool names (its hooks reference). Its preToolUse and postToolUse hooks take a
# `matcher` regex on the tool name (undocumented there, seen working with copilot 1.0.102);
# an MCP tool has no fixed name pattern to match (`<server>-<tool>`), nor a runtime class.
TOOLS: dict[str, tuple[str, ...] | None] = {
    "shell": ("bash",),
    "edit": ("create", "edit"),
    "read": ("view",),
    "search": ("grep", "glob"),
    "web": ("web_fetch",),
    "mcp": None,
    "agent": ("task",),
}


def matcher(names: list[str]) -> str:
    return "^(?:" + "|".join(names) + ")$"


def _not_carried_options(rows: list[CoverageRow], hub: Hub) -> list[CoverageRow]:
    """The hooks' rows, with a caveat where the hub sets an option Copilot has not."""
    dropped = {
        h.id: [o for o, on in (("async", h.is_async), ("statusMessage", h.status_message)) if on]
        for h in hub.hooks
    }
    result = []
    for row in rows:
        options = dropped.get(row.id) if row.status != "unsupported" else None
        if options:
            words = f"Copilot CLI hooks have no {', '.join(options)}; not carried"
            reason = "; ".join(r for r in (row.reason, words) if r)
            row = replace(row, status="caveat", reason=reason)
        result.append(row)
    return result


def _handler(item: MappedHook) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "bash": item.command}
    if item.matcher:
        handler["matcher"] = item.matcher
    if item.hook.timeout is not None:
        handler["timeoutSec"] = item.hook.timeout
    handler.update(item.options)
    return handler


def _hooks(
    hub: Hub, root: str | None, scope: Scope | None
) -> tuple[list[MappedHook], list[CoverageRow]]:
    if scope is None:
        mapped, rows = map_hooks(
            hub, host=name, events=EVENTS, tools=TOOLS, matcher=matcher, root=root, data=DATA
        )
    else:
        mapped, rows = map_install_hooks(
            hub, scope, host=name, events=EVENTS, tools=TOOLS, matcher=matcher
        )
    return mapped, _not_carried_options(rows, hub)


def install_steps(hub: Hub) -> list[str]:
    return [
        "copilot plugin marketplace add <this repository>",
        f"copilot plugin install {hub.plugin.name}@{hub.marketplace.name}",
    ]


# Copilot reads a plugin's agents/*.md (agent `<plugin>:<name>`) and lists commands/*.md as
# the plugin's skills (both seen with copilot 1.0.102).
SHIPPING = Shipping(
    name, bundle_root, agents=as_markdown("agents"), commands=as_markdown("commands")
)


def manifest_path(hub: Hub) -> str:
    """The manifest's path in the plugin's Copilot folder."""
    return hub.plugin.copilot_manifest or MANIFEST


def build(hub: Hub) -> HostBuild:
    base = plugin_dir(hub, root(hub))
    plugin = hub.plugin
    mapped, rows = _hooks(hub, ROOT, None)
    servers: dict[str, Any] = {}
    for server in hub.mcp_servers:
        spec, row = server_spec(hub, server, bundle_launcher(hub, ROOT), "plugin.json mcpServers")
        rows.append(row)
        if spec is not None:
            servers[server.name] = spec
    manifest = compact(
        {
            **plugin_metadata(plugin),
            "category": plugin.category,
            "agents": "./agents/" if any(for_host(a, name) for a in hub.agents) else None,
            "skills": "./skills/" if hub.skills else None,
            "commands": "./commands/" if any(for_host(c, name) for c in hub.commands) else None,
            "hooks": f"./{hooks_path(hub, name, HOOKS_FILE)}" if mapped else None,
            "mcpServers": servers,
        }
    )
    market = hub.marketplace
    source = plugin_source(hub) if hub.plugin.copilot_manifest else f"./{base}"
    entry = copilot_marketplace.plugin_entry(hub, source)
    description = market.description or plugin.description
    marketplace = copilot_marketplace.marketplace_document(market, description, [entry])
    artifacts = [json_artifact(hub, name, MARKETPLACE, marketplace, override="marketplace")]
    if copilot_claude.borrowed(hub):  # another host's manifest and files serve Copilot
        rows = copilot_claude.through(rows, hub, base)
        return with_shipped(hub, replace(SHIPPING, root=root(hub)), artifacts, rows)
    path = f"{base}/{manifest_path(hub)}"
    artifacts.append(json_artifact(hub, name, path, manifest, override="manifest"))
    artifacts += named_mcp_json(hub, base, name)  # the .mcp.json a manifest names
    if mapped:
        hooks = json_bytes(_hooks_file(mapped))
        path = f"{base}/{hooks_path(hub, name, HOOKS_FILE)}"
        artifacts.append(Artifact(path, hooks, owners=(name,)))
    if hub.instructions:
        rows.append(
            CoverageRow(
                name,
                "instructions",
                hub.instructions.source,
                "unsupported",
                "-",
                "a Copilot CLI plugin carries no instruction file (an install writes one)",
            )
        )
    if any(r.reason.startswith(LAUNCHED_BY) for r in rows if r.component == "mcp"):
        artifacts.append(launcher_artifact(hub, root(hub)))
    return with_shipped(hub, replace(SHIPPING, root=root(hub)), artifacts, rows)


def _hooks_file(mapped: list[MappedHook]) -> dict[str, Any]:
    return {"version": 1, "hooks": flat_hooks(mapped, _handler)}


def _copilot_home(scope: Scope) -> Path:
    return scope.env_dir(HOME_ENV, scope.home / ".copilot")


def locations(scope: Scope) -> Locations:
    """User scope: $COPILOT_HOME (~/.copilot) mcp-config.json, hooks/memhub.json, skills/ and
    copilot-instructions.md; project scope: .github/mcp.json (Claude Code's .mcp.json, which
    Copilot reads instead when there is one, holds Claude's entries: the two would clash),
    .github/hooks/memhub.json, .github/skills and AGENTS.md."""
    if scope.kind == "user":
        home = _copilot_home(scope)
        return Locations(
            home / "mcp-config.json",
            "json-key",
            "mcpServers",
            home / "hooks" / "memhub.json",
            home / "skills",
            home / "copilot-instructions.md",
        )
    github = scope.base / ".github"
    return Locations(
        github / "mcp.json",
        "json-key",
        "mcpServers",
        github / "hooks" / "memhub.json",
        github / "skills",
        scope.base / "AGENTS.md",
    )


def install_entries(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's servers, hooks (a hooks file of version 1), skills and instructions."""
    where = locations(scope)
    launcher = install_launcher(hub, scope.script(LAUNCHER_EXECUTABLE))
    target = where.mcp_file.name
    entries, rows = mcp_entries(
        hub,
        name,
        where.mcp_file,
        where.mcp_kind,
        where.mcp_key,
        lambda s: server_spec(hub, s, launcher, target),
    )
    if scope.kind == "project":
        rows = [_shadowed(row) if row.component == "mcp" else row for row in rows]
    mapped, hook_rows = _hooks(hub, None, scope)
    hooks_file = str(where.hooks_file)
    if mapped:
        entries.append(Entry(name, hooks_file, "json-default", ("version",), 1))
    entries += [
        Entry(name, hooks_file, "json-item", ("hooks", item.host_event), _handler(item))
        for item in mapped
    ]
    long = {s.name for s in hub.skills if len(s.description) > SKILL_DESCRIPTION_MAX.chars}
    kept = tuple(s for s in hub.skills if s.name not in long)
    entries += skill_entries(replace(hub, skills=kept), name, where.skills)
    rows += [_too_long(s, where.skills) for s in hub.skills if s.name in long]
    blocks, block_rows = instruction_entries(hub, name, where.instructions)
    return entries + blocks, [*hook_rows, *rows, *block_rows]


def _too_long(skill: Skill, folder: Path) -> CoverageRow:
    """A skill not installed: Copilot CLI would drop it for its description's length."""
    reason = f"description is {len(skill.description)} characters: {SKILL_DESCRIPTION_MAX.beyond}"
    where = str(folder / skill.name)
    return CoverageRow(name, "skill", skill.name, "unsupported", where, f"{reason}; not installed")


SHADOWED = (
    "Copilot reads .github/mcp.json only when the project has no .mcp.json (then it reads "
    "that, Claude Code's file, instead)"
)


def _shadowed(row: CoverageRow) -> CoverageRow:
    """A project server's row, saying when Copilot reads another file instead."""
    if row.status == "unsupported":
        return row
    reason = "; ".join(r for r in (row.reason, SHADOWED) if r)
    return replace(row, status="caveat", reason=reason)


def after_install_steps(hub: Hub, scope: Scope | None = None) -> list[str]:
    """What only Copilot CLI can do after an install."""
    steps = ["start a new copilot session so it reads the new files"]
    if scope is not None and scope.kind == "project":
        steps.append("trust the folder when copilot asks: it reads a project's files only then")
    return steps


# --- doctor ------------------------------------------------------------------------------


def hooks_file_problems(document: Any) -> list[str]:
    """What keeps Copilot CLI from reading a hooks file: it carries `"version": 1`."""
    if not isinstance(document, dict) or document.get("version") != 1:
        return ['it has no "version": 1 (Copilot CLI reads hooks files of format version 1)']
    return []


LOADER_ARGS = ("mcp", "list", "--json")


def loader_refusal(returncode: int, stdout: str, stderr: str) -> str | None:
    """Copilot's words when it cannot read its MCP config (it exits 1), else None."""
    if returncode == 0:
        return None
    words = " ".join(line.strip() for line in stderr.splitlines() if line.strip())
    return words or f"copilot {' '.join(LOADER_ARGS)} exited {returncode}"


hook_switches = HookSwitches(file_problems=hooks_file_problems)
# Offline: no sign-in, update check or telemetry (`copilot help environment`).
loader: Loader | None = Loader(LOADER_ARGS, loader_refusal, {"COPILOT_OFFLINE": "true"})


def read_installed(scope: Scope) -> Installed:
    """What Copilot CLI has installed in `scope`, for `memhub import`: `mcpServers` of
    ~/.copilot/mcp-config.json or the project's .mcp.json (else .github/mcp.json), the
    skills folder and the instruction file (AGENTS.md or .github/copilot-instructions.md in
    a project). Hooks are named, not imported: a hook's command is the host's own."""
    from memhub.compiler.importing.hostconfig import Reader  # for `memhub import` alone

    where = locations(scope)
    reader = Reader(name, scope)
    mcp_file = where.mcp_file
    if scope.kind == "project" and (scope.base / ".mcp.json").exists():
        mcp_file = scope.base / ".mcp.json"  # what Copilot reads then
    servers = (reader.json(mcp_file) or {}).get(where.mcp_key)
    reader.servers(mcp_file, servers, (where.mcp_key,), where.mcp_kind, hub_spec)
    reader.skills(where.skills)
    if where.instructions is not None:
        reader.instructions(where.instructions)
    if scope.kind == "project":
        reader.instructions(scope.base / ".github" / "copilot-instructions.md")
    return reader.result()
