"""`plugin.user_config`: install-time options, validated, written as Claude Code's plugin
`userConfig`, a coverage row (and the servers naming them left out) everywhere else, read back
by import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.cli.main import main
from memhub.hubspec import HubError, load
from memhub.hubspec.userconfig import importable

from tests.compiler.installkit import claude_json

HOSTS = "[claude, codex, cursor, gemini, opencode, agent-plugins, copilot]"
OPTIONS = (
    "  user_config:\n"
    "    API_URL: {type: string, title: API URL, description: Where it lives,"
    ' default: "https://api.example.com"}\n'
    "    API_TOKEN: {type: string, title: Token, description: The token, sensitive: true,"
    " required: true}\n"
    "    LIMIT: {type: number, title: Limit, description: Page size, min: 1, max: 50,"
    " default: 10}\n"
)
SERVERS = (
    "mcp:\n  servers:\n"
    "    api:\n      command: npx\n"
    '      args: ["api-mcp", "--url", "${user_config.API_URL}"]\n'
    '      env: {API_TOKEN: "${user_config.API_TOKEN}"}\n'
    '    plain: {command: npx, args: ["plain-mcp"]}\n'
)


def hub_with(tmp_path: Path, options: str = OPTIONS, rest: str = SERVERS) -> Path:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(
        "version: 1\n"
        "plugin:\n"
        "  name: uc-probe\n"
        "  version: 0.1.0\n"
        "  description: Options probe\n"
        + options
        + "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        f"hosts: {HOSTS}\n" + rest
    )
    return hub


def test_claude_gets_user_config_as_written_and_keeps_the_references(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path)))
    manifest = json.loads(result.artifact("plugins/uc-probe/.claude-plugin/plugin.json").content)
    assert list(manifest["userConfig"]) == ["API_URL", "API_TOKEN", "LIMIT"]
    assert manifest["userConfig"]["LIMIT"] == {
        "type": "number",
        "title": "Limit",
        "description": "Page size",
        "min": 1,
        "max": 50,
        "default": 10,
    }
    servers = json.loads(result.artifact("plugins/uc-probe/.mcp.json").content)["mcpServers"]
    assert servers["api"]["args"][-1] == "${user_config.API_URL}"
    assert servers["api"]["env"] == {"API_TOKEN": "${user_config.API_TOKEN}"}
    rows = {(r.component, r.id): r.status for r in result.coverage if r.host == "claude"}
    assert rows[("user_config", "API_TOKEN")] == "mapped" and rows[("mcp", "api")] == "mapped"


@pytest.mark.parametrize("host", ["codex", "cursor", "gemini", "opencode", "copilot"])
def test_other_hosts_leave_out_the_servers_naming_an_option(tmp_path: Path, host: str) -> None:
    result = build(load(hub_with(tmp_path)), [host])
    rows = {(r.component, r.id): (r.status, r.reason) for r in result.coverage}
    assert rows[("user_config", "API_URL")][0] == "unsupported"
    status, reason = rows[("mcp", "api")]
    assert status == "unsupported" and reason.startswith("names ${user_config.API_URL}")
    text = b"".join(a.content for a in result.artifacts)
    assert b"user_config" not in text and b"api-mcp" not in text and b"plain-mcp" in text


def test_cursor_says_why_its_variables_are_not_written(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path)), ["cursor"])
    (row,) = [r for r in result.coverage if r.id == "LIMIT"]
    assert "variables" in row.reason


def test_an_install_leaves_out_the_servers_naming_an_option(tmp_path: Path, capsys) -> None:
    assert main(["apply", str(hub_with(tmp_path)), "--scope", "user", "--hosts", "claude"]) == 0
    printed = capsys.readouterr().out
    assert "install-time options exist only in a Claude Code plugin" in printed
    claude = json.loads(claude_json().read_text())["mcpServers"]
    assert set(claude) == {"plain"}


OPTION = "  user_config:\n    {}\n"


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        (  # a secret never has a default
            "TOKEN: {type: string, title: T, description: D, sensitive: true, default: abc}",
            "sensitive and has a default",
        ),
        (  # a literal default under a secret's name
            "API_KEY: {type: string, title: T, description: D, default: abc123xyz}",
            "literal credential",
        ),
        (  # a known token shape as a default
            "URL: {type: string, title: T, description: D, default: sk-live-" + "a" * 32 + "}",
            "literal credential",
        ),
        ("N: {type: number, title: T, description: D, default: ten}", "not a number"),
        ("B: {type: boolean, title: T, description: D, default: yes please}", "true or false"),
        ("S: {type: string, title: T, description: D, min: 1}", "applies to a number"),
        ("N: {type: number, title: T, description: D, min: 5, max: 1}", "above `max`"),
        ("N: {type: number, title: T, description: D, max: 5, default: 9}", "outside"),
        ("B: {type: boolean, title: T, description: D, multiple: true}", "`multiple`"),
        ("bad-key: {type: string, title: T, description: D}", "bad-key"),
        ("C: {type: colour, title: T, description: D}", "colour"),
        ("C: {type: string, description: D}", "title"),
        ("C: {type: string, title: '" + "t" * 5000 + "', description: D}", "title"),
        ("S: {type: string, title: T, description: D, default: '" + "x" * 5000 + "'}", "1024"),
    ],
)
def test_bad_options_are_refused_with_their_place(
    tmp_path: Path, option: str, expected: str
) -> None:
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, OPTION.format(option), ""))
    found = [str(p) for p in caught.value.problems]
    assert found and any(expected in p for p in found), found
    assert all("hub.yaml:7:" in p for p in found), found
    assert all("x" * 200 not in p and "t" * 200 not in p for p in found)


@pytest.mark.parametrize(
    ("servers", "expected"),
    [
        ('    s: {command: x, args: ["${user_config.NOPE}"]}\n', "names no option"),
        ('    s: {command: x, args: ["${user_config.bad-name}"]}\n', "not a valid option name"),
    ],
)
def test_a_server_names_only_a_declared_option(tmp_path: Path, servers: str, expected: str) -> None:
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, rest="mcp:\n  servers:\n" + servers))
    (found,) = [str(p) for p in caught.value.problems]  # one problem, not one per check
    assert expected in found, found


def test_a_hook_command_cannot_name_an_option(tmp_path: Path) -> None:
    hooks = 'hooks:\n  - {id: h, event: session_start, command: "echo ${user_config.API_URL}"}\n'
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, rest=hooks))
    (found,) = [str(p) for p in caught.value.problems]
    assert "CLAUDE_PLUGIN_OPTION_API_URL" in found, found


def test_import_reads_user_config_back_as_written(tmp_path: Path, capsys) -> None:
    out, into = tmp_path / "out", tmp_path / "imported"
    assert main(["build", str(hub_with(tmp_path)), "--out", str(out)]) == 0
    main(["import", "--from-repo", str(out), "--into", str(into), "--yes"])
    capsys.readouterr()
    hub_file = into / "plugins" / "uc-probe" / "hub.yaml"
    plugin = yaml.safe_load(hub_file.read_text())["plugin"]
    assert list(plugin["user_config"]) == ["API_URL", "API_TOKEN", "LIMIT"]
    assert plugin["user_config"]["API_TOKEN"]["sensitive"] is True
    again = tmp_path / "again"
    assert main(["build", str(hub_file.parent), "--out", str(again)]) == 0
    path = "plugins/uc-probe/.claude-plugin/plugin.json"
    assert (again / path).read_text() == (out / path).read_text()


def test_import_keeps_a_user_config_the_hub_refuses_as_an_override() -> None:
    good = {"K": {"type": "string", "title": "T", "description": "D"}}
    assert importable(good)
    assert not importable({"K": {**good["K"], "sensitive": True, "default": "abc"}})
    assert not importable({"K": {**good["K"], "colour": "red"}})
    assert not importable({"bad-key": good["K"]})
    assert not importable([good])
