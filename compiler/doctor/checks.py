"""`memhub doctor`: for each host, will it actually load what memhub applied?

Every check reads; nothing here writes, and Codex hook trust is only reported (memhub never
trusts a hook on the person's behalf). The checks, each a `Check` record per finding:

- `parse`: an owned target that no longer parses (the parser's message, with line and column).
- `drift`: an owned entry edited by hand since apply, or gone (`install.current_digest`).
- `location`: an owned entry in a file or folder the host does not read in that scope (a moved
  CODEX_HOME or CLAUDE_CONFIG_DIR), or at a hook event the host does not have.
- `hooks-on`: settings that turn the host's hooks off (`disableAllHooks`, `[features] hooks`,
  `hooksConfig`), and hook files the host will not read (Cursor's `version`).
- `hook-trust`: Codex hooks not trusted in /hooks (Codex skips them: a fail).
- `hook-command`: the first word of each owned hook command on PATH; an interpreter's script.
- `skill`: each owned skill folder a real folder with no links, its SKILL.md within the hub
  limits (`hubspec.skills.read_skill`).
- `mcp-scopes`: one MCP server name defined in both user and project scope (a warning).
- `hub`: with a hub, each entry it wants applied, current, and nothing left over.
- `host-loader`: each host whose CLI is on PATH loads its own config (the adapter's
  `loader`, e.g. `codex mcp list --json`), offline and with a timeout; a refusal fails
  with the host's own words. A host whose CLI is not on PATH is skipped, never failed.
- `server-start`: each stdio MCP server memhub owns there starts, as the host's CLI reports
  it (`loader.starts`: `claude mcp list`, Codex's app-server, `gemini mcp list`); one that
  does not fails with the host's own words (doctor/servers.py).

Where each host reads is the adapter's `locations` (doctor/places.py); what turns its hooks
off, its `hook_switches`. This module runs the checks; each family has its own module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from memhub.compiler.doctor.documents import at
from memhub.compiler.doctor.entries import check_target, what_of
from memhub.compiler.doctor.hooks import check_hooks_on
from memhub.compiler.doctor.loader import check_loader
from memhub.compiler.doctor.places import Places, owned_in_scope, places
from memhub.compiler.doctor.records import HUB, MCP_SCOPES, Check, Run
from memhub.compiler.doctor.servers import check_starts
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.install.engine import gather_entries
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.state import Owned, Owner, State, memhub_home
from memhub.hubspec.model import Hub


def run_doctor(
    state: State,
    hosts: Sequence[str],
    scope: Scope,
    other: Scope,
    *,
    hub: Hub | None = None,
    env: Mapping[str, str] | None = None,
) -> list[Check]:
    """Every check for `hosts` in `scope` (`other` is the other scope, for duplicate servers)."""
    run = Run(scope, state, dict(os.environ) if env is None else env)
    mine = {h: places(h, scope) for h in hosts}
    owner = Owner.of_hub(hub) if hub is not None else None
    owned = owned_in_scope(state, scope.kind, mine, scope.home, hub=owner, hosts=hosts)
    hooked: set[str] = set()
    for target, entries in owned.items():
        check_target(run, target, entries, mine, hooked)
    for host in hosts:
        if host in hooked:
            check_hooks_on(run, host)
        check_scopes(run, host, mine[host], places(host, other), other)
    if hub is not None and owner is not None:
        check_hub(run, hub, owner, hosts, owned)
    for host in hosts:
        check_loader(run, host)
        check_starts(run, host, mine[host], owned.get(mine[host].mcp[0], {}))
    return run.checks


def _server_names(run: Run, mcp: tuple[str, str, tuple[str, ...]]) -> set[str]:
    container = at(run.docs.read(mcp[0]), mcp[2])
    return set(container) if isinstance(container, dict) else set()


def check_scopes(run: Run, host: str, here: Places, there: Places, other: Scope) -> None:
    """Warn about a server name defined in both the user's and the project's MCP file."""
    if here.mcp[0] == there.mcp[0]:
        return
    both = sorted(_server_names(run, here.mcp) & _server_names(run, there.mcp))
    files = {run.scope.kind: here.mcp[0], other.kind: there.mcp[0]}
    if not both:
        run.add(host, MCP_SCOPES, "ok", here.mcp[0], "no MCP server in both user and project scope")
    for name in both:
        run.add(
            host,
            MCP_SCOPES,
            "warn",
            files["user"],
            f"MCP server {name} is defined in user scope ({files['user']}) and in project "
            f"scope ({files['project']}); {INSTALLERS[host].title} uses one of them",
            "keep one: remove it from the other file (`memhub uninstall --scope ...` for the "
            "one memhub applied)",
        )


def check_hub(
    run: Run,
    hub: Hub,
    hub_owner: Owner,
    hosts: Sequence[str],
    owned: Mapping[str, Mapping[str, Owned]],
) -> None:
    """Each entry the hub wants is applied and current; nothing applied is left over."""
    wanted: dict[tuple[str, str], Entry] = {}
    labels: dict[tuple[str, str], list[str]] = {}
    home = memhub_home(dict(run.env))  # where the hub's rulebooks are installed
    for entry in gather_entries(hub, run.scope, hosts, home)[0]:
        if entry.kind != "json-default":
            wanted.setdefault((entry.target, entry.key), entry)
            labels.setdefault((entry.target, entry.key), []).append(entry.host)
    for (target, key), entry in wanted.items():
        host = ",".join(labels[(target, key)])
        owner = run.state.owner(target, key)
        what = what_of(key) or Path(target).name
        if owner is None or not hub_owner.owns(owner.hub):
            by = f" (owned by memhub plugin {owner.hub})" if owner else ""
            run.add(
                host,
                HUB,
                "fail",
                target,
                f"{what}: the hub wants it, and memhub has not applied it here{by}",
                "run `memhub apply` (with --adopt to take over an entry someone else owns)",
            )
        elif owner.digest != entry.digest:
            run.add(
                host,
                HUB,
                "warn",
                target,
                f"{what}: the hub changed since it was applied",
                "run `memhub apply` to bring it up to date",
            )
        else:
            run.add(host, HUB, "ok", target, f"{what}: applied and current")
    for target, entries in owned.items():
        for key, entry_owner in entries.items():
            if (target, key) not in wanted:
                what = what_of(key) or Path(target).name
                run.add(
                    entry_owner.host,
                    HUB,
                    "warn",
                    target,
                    f"{what}: applied earlier, and the hub no longer has it here",
                    "run `memhub apply`: it removes what the hub no longer has",
                )
