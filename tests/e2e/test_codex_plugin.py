"""(c) Codex installs the bundle offline from its marketplace and shows the plugin's skills,
MCP servers and hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import CODEX_EVENTS, CodexAppServer, describe, hub_params, read_hub, run

pytestmark = pytest.mark.e2e


def _install(codex: Path, bundle: Path, info, env: dict[str, str]) -> dict:
    added = run([codex, "plugin", "marketplace", "add", bundle], env=env)
    assert added.returncode == 0, describe(added)
    assert f"Added marketplace `{info.marketplace}`" in added.stdout + added.stderr, describe(added)

    ref = f"{info.plugin}@{info.marketplace}"
    plugin_add = run([codex, "plugin", "add", ref, "--json"], env=env)
    assert plugin_add.returncode == 0, describe(plugin_add)
    try:
        result = json.loads(plugin_add.stdout)
    except ValueError as exc:
        raise AssertionError(
            f"codex plugin add --json printed no JSON\n{describe(plugin_add)}"
        ) from exc
    assert result.get("pluginId") == ref, result
    assert result.get("marketplaceName") == info.marketplace, result
    return result


@pytest.mark.parametrize("hub", hub_params())
def test_codex_marketplace_install_prompt_skills_and_mcp(
    hub: Path, codex_cli: Path, isolated_home, git_repo: Path, bundle_for
) -> None:
    info = read_hub(hub)
    if "codex" not in info.hosts:
        pytest.skip(f"{hub.name} does not target codex")
    bundle = bundle_for(hub)
    env = isolated_home.env
    result = _install(codex_cli, bundle, info, env)
    installed = Path(result["installedPath"])
    assert installed.is_relative_to(isolated_home.codex_home), result
    assert (installed / ".codex-plugin" / "plugin.json").is_file(), result

    prompt = run([codex_cli, "debug", "prompt-input", "hello"], env=env, cwd=git_repo)
    assert prompt.returncode == 0, describe(prompt)
    missing = [s for s in sorted(info.skills) if f"{info.plugin}:{s}:" not in prompt.stdout]
    assert not missing, (
        f"skills {missing} of {info.plugin} are not in the prompt's skill list\n"
        + "\n".join(line for line in prompt.stdout.split("\\n") if "SKILL.md" in line)[:4000]
    )

    mcp = run([codex_cli, "mcp", "list", "--json"], env=env, cwd=git_repo)
    assert mcp.returncode == 0, describe(mcp)
    names = {server["name"] for server in json.loads(mcp.stdout)}
    assert names == set(info.mcp_servers), mcp.stdout


@pytest.mark.parametrize("hub", hub_params())
def test_codex_plugin_hooks_listed(
    hub: Path, codex_cli: Path, isolated_home, git_repo: Path, bundle_for
) -> None:
    """Codex loads the plugin's hooks file: `hooks/list` (app-server) shows one plugin hook
    per hub hook event that Codex has, with no load errors or warnings."""
    info = read_hub(hub)
    if "codex" not in info.hosts:
        pytest.skip(f"{hub.name} does not target codex")
    bundle = bundle_for(hub)
    _install(codex_cli, bundle, info, isolated_home.env)

    with CodexAppServer(codex_cli, env=isolated_home.env, cwd=git_repo) as server:
        listed = server.call("hooks/list", {"cwds": [str(git_repo)]})
    entries = listed["data"]
    problems = [
        f"{kind}: {msg}"
        for e in entries
        for kind in ("errors", "warnings")
        for msg in e.get(kind) or []
    ]
    assert not problems, problems
    plugin_hooks = [h for e in entries for h in e["hooks"] if h.get("source") == "plugin"]
    manifests = sorted(
        str(p.relative_to(bundle)) for p in bundle.glob(f"plugins/{info.plugin}/**/plugin.json")
    )
    assert plugin_hooks or not info.codex_hook_events, (
        f"Codex loaded none of the plugin's hooks (hub events {sorted(info.codex_hook_events)}); "
        f"hooks/list answered {json.dumps(listed)}. Seen with Codex 0.171.0: a root plugin.json "
        f"with an Agent Plugins $schema wins over .codex-plugin/plugin.json and loads no hooks; "
        f"manifests in the bundle: {manifests}"
    )
    events = {h["eventName"] for h in plugin_hooks}
    expected = {e[0].lower() + e[1:] for e in info.codex_hook_events}
    assert {e[0].lower() + e[1:] for e in events} == expected, json.dumps(plugin_hooks, indent=1)
    # a `command:` hook is one entry; `handler:` hooks share one dispatcher per Codex event
    # (after_tool and after_tool_failure are both PostToolUse there)
    handlers = [e for e in info.codex_handler_events if e in CODEX_EVENTS]
    commands = sum(1 for e in info.codex_events if e in CODEX_EVENTS) - len(handlers)
    n_expected = commands + len({CODEX_EVENTS[e] for e in handlers})
    assert len(plugin_hooks) == n_expected, json.dumps(plugin_hooks, indent=1)
    assert all(h["key"].startswith(f"{info.plugin}@{info.marketplace}:") for h in plugin_hooks), (
        json.dumps(plugin_hooks, indent=1)
    )
