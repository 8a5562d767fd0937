"""(b) Claude Code installs the bundle from its marketplace and sees skills, MCP server, hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import describe, hub_params, parse_claude_details, read_hub, run

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("hub", hub_params())
def test_claude_marketplace_install_details(
    hub: Path, claude_cli: Path, isolated_home, bundle_for
) -> None:
    info = read_hub(hub)
    if "claude" not in info.hosts:
        pytest.skip(f"{hub.name} does not target claude")
    bundle = bundle_for(hub)
    env = isolated_home.env
    ref = f"{info.plugin}@{info.marketplace}"

    added = run([claude_cli, "plugin", "marketplace", "add", bundle], env=env)
    assert added.returncode == 0, describe(added)
    assert f"Successfully added marketplace: {info.marketplace}" in added.stdout, describe(added)

    installed = run([claude_cli, "plugin", "install", ref], env=env)
    assert installed.returncode == 0, describe(installed)
    assert f"Successfully installed plugin: {ref}" in installed.stdout, describe(installed)

    details = run([claude_cli, "plugin", "details", ref], env=env)
    assert details.returncode == 0, describe(details)
    inventory = parse_claude_details(details.stdout)
    assert {"Skills", "Hooks", "MCP servers"} <= inventory.keys(), describe(details)

    skills_n, skills = inventory["Skills"]
    assert set(skills) == info.skills and skills_n == len(info.skills), details.stdout
    mcp_n, servers = inventory["MCP servers"]
    assert set(servers) == info.mcp_servers and mcp_n == len(info.mcp_servers), details.stdout
    hooks_n, hook_events = inventory["Hooks"]
    assert set(hook_events) == info.claude_hook_events, details.stdout
    assert hooks_n >= len(info.claude_hook_events), details.stdout

    # The install went to the isolated config dir (and so not to the real one).
    state = isolated_home.claude_dir / "plugins" / "installed_plugins.json"
    assert state.is_file(), f"no {state}: the install did not land in the isolated home"
    assert ref in json.dumps(json.loads(state.read_text())), state.read_text()
