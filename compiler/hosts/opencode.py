"""OpenCode: `opencode.json` `mcp` entries, skills folders and AGENTS.md (hosts.md 7).

OpenCode has no plugin repository format: its plugins are JS/TS modules (npm packages or
files in `.opencode/plugins`). The bundle is a config folder, `opencode/<plugin>/`, that
OpenCode loads as it is with `OPENCODE_CONFIG_DIR` (its opencode.json, AGENTS.md and skills/).
The bundle's `command:` hooks run from a generated plugin in that folder (opencode_plugin.py);
an install writes the same module into a folder memhub owns, `memhub-hooks/<plugin>/` beside
the config file, and names it in the config's `plugin` list (OpenCode loads a plugin from a
path there; its own `plugins/` folder holds the person's files, which memhub cannot own).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhub.compiler.artifact import FILE_MODE, Artifact
from memhub.compiler.digest import skill_tree_value
from memhub.compiler.hosts import opencode_plugin, opencode_prompts
from memhub.compiler.hosts.base import (
    CoverageRow,
    CoverageStatus,
    HookSwitches,
    HostBuild,
    Loader,
    Locations,
    SkillNames,
)
from memhub.compiler.hosts.common import compact, deep_merge, json_artifact, plugin_dir
from memhub.compiler.hosts.entries import (
    instruction_entries,
    instructions_row,
    mcp_entries,
    server_row,
    skill_entries,
)
from memhub.compiler.hosts.launcher import LAUNCHER_EXECUTABLE, install_launcher
from memhub.compiler.hosts.opencode_servers import hub_spec, server_spec
from memhub.compiler.hosts.shipped import Shipping, with_shipped
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec.model import Hub, RemoteServer, StdioServer

if TYPE_CHECKING:
    from memhub.compiler.importing.hostconfig import Installed

name = "opencode"
title = "OpenCode"
# CLIs whose presence on PATH makes `memhub apply` pick this host by default
executables: tuple[str, ...] = ("opencode",)
# variables that move where this host keeps its user files (its global config folder)
XDG_ENV = "XDG_CONFIG_HOME"
placing_env: tuple[str, ...] = (XDG_ENV,)
summary = (
    "OpenCode config folder opencode/<plugin>/: opencode.json mcp, AGENTS.md, skills, hooks plugin"
)

BUNDLE_DIR = "opencode"
bundle_root = BUNDLE_DIR
runs_hooks = False
shows_icon = False
# OpenCode 1.18.33 finds **/SKILL.md (debug skill): tests/e2e/test_skill_groups_hosts.py
SKILL_GROUPS: str | None = None
CONFIG_FILE = "opencode.json"
JSONC_FILE = "opencode.jsonc"  # read too (after opencode.json), JSONC like it
SCHEMA_URL = "https://opencode.ai/config.json"
# Where an install's hooks plugins live: one memhub-owned folder per hub, <plugin>/ in it
HOOKS_FOLDER = "memhub-hooks"
HOOKS_MODULE = "memhub-hooks.js"
PLUGIN_KEY = "plugin"  # opencode.json's list of plugins: npm names or paths to modules

EVENTS = opencode_plugin.EVENTS  # what the bundle's generated plugin carries
TOOLS = opencode_plugin.TOOLS
# The generated plugin binds logical events only: OpenCode's own events (`session.idle`,
# `file.edited`, ...) and hook options are not bound natively yet
NATIVE_EVENTS: tuple[str, ...] = ()
HOOK_OPTIONS: dict[str, str] = {}
HOOK_ENV: frozenset[str] = frozenset()  # ${plugin_root} is substituted, no variable is set
# OpenCode 1.18.33 lists a name that is not kebab-case as written
SKILL_NAMES = SkillNames(
    without_name=(
        "unsupported",
        "OpenCode 1.18.33 skips a SKILL.md without `name` (opencode debug skill)",
    )
)


# A bundle names no path to memhub's launcher: OpenCode has no reference to its config folder.
NO_BUNDLE_LAUNCHER = (
    "not started through memhub's launcher (runtime: secrets: launcher): a bundle cannot name "
    "it; OpenCode expands {env:NAME} from its own environment"
)


def install_steps(hub: Hub) -> list[str]:
    base = plugin_dir(hub, BUNDLE_DIR)
    return [
        f"OPENCODE_CONFIG_DIR=<this repository>/{base} opencode",
        "(or copy its opencode.json mcp entries, AGENTS.md and skills/ into ~/.config/opencode)",
    ]


def _server_row(
    server: StdioServer | RemoteServer, spec: dict[str, Any] | None, reason: str, where: str
) -> CoverageRow:
    if spec is None:
        return server_row(name, server.name, "unsupported", "-", reason)
    status: CoverageStatus = "caveat" if reason else "mapped"
    return server_row(name, server.name, status, f"{where} mcp.{server.name}", reason)


def _spec(
    hub: Hub, server: StdioServer | RemoteServer, spec: dict[str, Any] | None
) -> dict[str, Any] | None:
    """`spec` with `overrides.opencode.mcp_servers.<name>` merged in last."""
    if spec is None:
        return None
    return deep_merge(spec, hub.override(name, "mcp_servers").get(server.name, {}))


# agents and commands in OpenCode's own front matter (opencode_prompts.py)
SHIPPING = Shipping(
    name, BUNDLE_DIR, agents=opencode_prompts.agent, commands=opencode_prompts.command
)


def build(hub: Hub) -> HostBuild:
    base = plugin_dir(hub, BUNDLE_DIR)
    mapped, rows = opencode_plugin.plugin_hooks(hub, name)
    servers: dict[str, Any] = {}
    by_launcher = hub.runtime.secrets == "launcher"
    for server in hub.mcp_servers:
        raw, reason = server_spec(hub, server, None)
        if raw is not None and isinstance(server, StdioServer) and by_launcher:
            reason = "; ".join(r for r in (reason, NO_BUNDLE_LAUNCHER) if r)
        spec = _spec(hub, server, raw)
        rows.append(_server_row(server, spec, reason, CONFIG_FILE))
        if spec is not None:
            servers[server.name] = spec
    config = compact({"$schema": SCHEMA_URL, "mcp": servers})
    artifacts = [json_artifact(hub, name, f"{base}/{CONFIG_FILE}", config, override="manifest")]
    if mapped:
        artifacts.append(opencode_plugin.plugin_artifact(base, name, mapped))
    if hub.instructions:
        text = hub.instructions.text
        body = text if text.endswith("\n") else text + "\n"
        artifacts.append(Artifact(f"{base}/AGENTS.md", body.encode("utf-8"), owners=(name,)))
        rows += instructions_row(
            hub,
            name,
            "caveat",
            "AGENTS.md (global instructions of the config folder)",
            "OpenCode reads the AGENTS.md of OPENCODE_CONFIG_DIR instead of "
            "~/.config/opencode/AGENTS.md",
        )
    return with_shipped(hub, SHIPPING, artifacts, rows)


def _config_home(scope: Scope) -> Path:
    """OpenCode's global config folder: $XDG_CONFIG_HOME/opencode (default ~/.config)."""
    return scope.env_dir(XDG_ENV, scope.home / ".config") / "opencode"


def config_file(folder: Path) -> Path:
    """The config file memhub edits in `folder`: opencode.jsonc when the person has only that
    one, else opencode.json (OpenCode 1.18 reads both, JSONC each: jsonedit keeps comments)."""
    jsonc = folder / JSONC_FILE
    plain = folder / CONFIG_FILE
    return jsonc if jsonc.is_file() and not plain.exists() else plain


def locations(scope: Scope) -> Locations:
    """User scope: ~/.config/opencode/opencode.json(c), skills/ and AGENTS.md; project scope:
    opencode.json(c) at the project root, .opencode/skills and AGENTS.md (found walking up)."""
    if scope.kind == "user":
        folder = _config_home(scope)
        return Locations(
            config_file(folder),
            "json-key",
            "mcp",
            folder / HOOKS_FOLDER,
            folder / "skills",
            folder / "AGENTS.md",
        )
    dot = scope.base / ".opencode"
    return Locations(
        config_file(scope.base),
        "json-key",
        "mcp",
        dot / HOOKS_FOLDER,
        dot / "skills",
        scope.base / "AGENTS.md",
    )


def install_entries(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's servers (`mcp` of opencode.json), skills and instructions."""
    where = locations(scope)
    # server_spec starts a server through it when the hub asks or a ${VAR:-default} needs it
    launcher = install_launcher(hub, scope.script(LAUNCHER_EXECUTABLE))

    def spec_of(server: StdioServer | RemoteServer) -> tuple[dict[str, Any] | None, CoverageRow]:
        raw, reason = server_spec(hub, server, launcher)
        spec = _spec(hub, server, raw)
        return spec, _server_row(server, spec, reason, where.mcp_file.name)

    entries, rows = mcp_entries(hub, name, where.mcp_file, "json-key", "mcp", spec_of)
    if entries:  # a new opencode.json names its schema, as OpenCode's own files do
        entries.insert(
            0, Entry(name, str(where.mcp_file), "json-default", ("$schema",), SCHEMA_URL)
        )
    hooks, hook_rows = _install_hooks(hub, where)
    entries += hooks
    entries += skill_entries(hub, name, where.skills)
    blocks, block_rows = instruction_entries(hub, name, where.instructions)
    return entries + blocks, [*hook_rows, *rows, *block_rows]


def _install_hooks(hub: Hub, where: Locations) -> tuple[list[Entry], list[CoverageRow]]:
    """The hub's `command:` hooks as the generated plugin module, in memhub's own folder
    (a `tree`), and its path (relative to the config file, as OpenCode resolves it) as one
    item of the config's `plugin` list."""
    mapped, rows = opencode_plugin.plugin_hooks(hub, name, root=None)
    if not mapped:
        return [], rows
    files = ((HOOKS_MODULE, opencode_plugin.module_text(mapped), FILE_MODE),)
    folder = where.hooks_file / hub.plugin.name
    tree = Entry(name, str(folder), "tree", (), skill_tree_value(files), files=files)
    module = folder / HOOKS_MODULE
    spec = "./" + module.relative_to(where.mcp_file.parent).as_posix()
    item = Entry(name, str(where.mcp_file), "json-item", (PLUGIN_KEY,), spec)
    return [tree, item], rows


def after_install_steps(hub: Hub, scope: Scope | None = None) -> list[str]:
    """OpenCode loads its config once, when it starts."""
    return ["restart OpenCode (it reads opencode.json, skills and AGENTS.md when it starts)"]


# --- doctor: OpenCode's own loader (tests/e2e/test_opencode_host.py) -----------------------

# Loads and validates every config file as OpenCode starts (offline, starts no server):
# 1.18 exits 1 naming the file and each wrong key on stderr.
LOADER_ARGS = ("debug", "config")
# OPENCODE_PURE (`--pure`): no external plugin is loaded. A config naming a plugin (the
# install's hooks module) otherwise makes 1.18 install @opencode-ai/plugin into the config
# folder first, which offline waits past the doctor's timeout; the config is still validated.
LOADER_ENV = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_PURE": "1",
}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def loader_refusal(returncode: int, stdout: str, stderr: str) -> str | None:
    """OpenCode's own words when it refuses its config, else None."""
    if returncode == 0:
        return None
    lines = [_ANSI.sub("", line).strip() for line in stderr.splitlines()]
    words = " ".join(line for line in lines if line)
    return words or f"opencode {' '.join(LOADER_ARGS)} exited {returncode}"


hook_switches = HookSwitches()  # OpenCode has no setting that turns plugins' hooks off
loader: Loader | None = Loader(LOADER_ARGS, loader_refusal, LOADER_ENV)


def read_installed(scope: Scope) -> Installed:
    """What OpenCode has installed in `scope`, for `memhub import`: the `mcp` servers of
    opencode.json and opencode.jsonc (comments and trailing commas read as JSONC), the
    skills folder and AGENTS.md."""
    from memhub.compiler.importing.hostconfig import Reader  # for `memhub import` alone

    where = locations(scope)
    reader = Reader(name, scope)
    for config in (where.mcp_file.with_name(CONFIG_FILE), where.mcp_file.with_name(JSONC_FILE)):
        servers = (reader.json(config) or {}).get(where.mcp_key)
        reader.servers(config, servers, (where.mcp_key,), where.mcp_kind, hub_spec)
    reader.skills(where.skills)
    if where.instructions is not None:
        reader.instructions(where.instructions)
    return reader.result()
