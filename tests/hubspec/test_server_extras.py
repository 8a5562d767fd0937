"""A server's `extra: {<host>: ...}`: checked against each host's list of keys, written to
that host's server entry only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.compiler.hosts.server_extras import known_keys, type_problem
from memhub.hubspec import HubError, load

HOSTS = "[claude, codex, cursor, gemini, opencode, agent-plugins, copilot]"


def hub_with(tmp_path: Path, extra: str, rest: str = "") -> Path:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: extra-probe, version: 0.1.0, description: Extra keys probe}\n"
        "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        f"hosts: {HOSTS}\n"
        "mcp:\n  servers:\n    api:\n      command: npx\n      args: [api-mcp]\n"
        "      extra:\n" + extra + rest
    )
    return hub


ALL = (
    "        claude: {timeout: 30000, alwaysLoad: true}\n"
    "        codex: {startup_timeout_sec: 20, enabled_tools: [search]}\n"
    "        gemini: {includeTools: [search]}\n"
    "        cursor: {envFile: ./.env.mcp}\n"
    "        opencode: {enabled: true}\n"
    "        copilot: {tools: [search]}\n"
)
OWN = {
    ".mcp.json": "alwaysLoad",
    ".codex-plugin/plugin.json": "startup_timeout_sec",
    "gemini-extension.json": "includeTools",
    ".cursor-plugin/plugin.json": "envFile",
    "opencode.json": '"enabled"',
    ".github/plugin/plugin.json": '"tools"',
}


def test_each_host_gets_its_own_keys_only(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path, ALL)))
    texts = {
        a.path: a.content.decode() for a in result.artifacts if "api-mcp" in a.content.decode()
    }
    for suffix, key in OWN.items():
        (text,) = [t for p, t in texts.items() if p.endswith(suffix)]
        assert key in text, suffix
        assert all(other not in text for other in OWN.values() if other != key), (suffix, text)
    (agent,) = [t for p, t in texts.items() if p.startswith("agent-plugins/")]
    assert all(key not in agent for key in OWN.values())
    mcp = json.loads(result.artifact("plugins/extra-probe/.mcp.json").content)["mcpServers"]
    assert mcp["api"] == {
        "type": "stdio",
        "command": "npx",
        "args": ["api-mcp"],
        "timeout": 30000,
        "alwaysLoad": True,
    }


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("        codex: {startup_timeout: 20}\n", "codex has no MCP server key 'startup_timeout'"),
        ("        codex: {startup_timeout_sec: -1}\n", "a positive number"),
        ("        codex: {enabled_tools: search}\n", "a list of non-empty strings"),
        ("        codex: {default_tools_approval_mode: always}\n", "one of auto, prompt, approve"),
        ("        claude: {alwaysLoad: 'yes'}\n", "true or false"),
        ("        gemini: {timeout: 1.5}\n", "a positive whole number"),
        ("        agent-plugins: {timeout: 5}\n", "takes no extra server keys"),
        ("        windsurf: {timeout: 5}\n", "windsurf"),
        (
            "        claude: {headersHelper: \"echo 'Authorization: Bearer sk-live-"
            + "a" * 32
            + "'\"}\n",
            "credential",
        ),
    ],
)
def test_a_bad_extra_is_refused_with_its_place(tmp_path: Path, extra: str, expected: str) -> None:
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, extra))
    found = [str(p) for p in caught.value.problems]
    assert any(expected in p for p in found), found
    assert all("hub.yaml:11:" in p for p in found), found


def test_extra_for_a_host_the_server_leaves_out_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, "        codex: {enabled: true}\n", "      hosts: [claude]\n"))
    (found,) = [str(p) for p in caught.value.problems]
    assert "which this server's `hosts` leaves out" in found


def test_a_key_given_twice_is_refused(tmp_path: Path) -> None:
    rest = "overrides:\n  codex:\n    mcp_servers:\n      api: {enabled: false}\n"
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, "        codex: {enabled: true}\n", rest))
    (found,) = [str(p) for p in caught.value.problems]
    assert "also given in overrides.codex.mcp_servers" in found


def test_every_host_lists_typed_keys() -> None:
    tables = known_keys()
    assert tables["agent-plugins"] == {}
    for host, keys in tables.items():
        for key, spec in keys.items():
            assert isinstance(spec, tuple) or type_problem(spec, object()) is not None, (host, key)
