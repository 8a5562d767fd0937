"""`${env:NAME:-default}`: refused where hostile, written in each host's own syntax where the
host has defaults, through memhub's launcher (or with a caveat) where it has none, and read
back by import."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.compiler.cli.main import main
from memhub.compiler.hosts import claude_servers, gemini_servers
from memhub.hubspec import HubError, load
from memhub.hubspec.refs import references, with_defaults

from tests.compiler.test_launcher import dump_server, hub_with, start_like_codex

SERVERS = (
    "    local:\n"
    "      command: npx\n"
    '      args: ["tool", "--level", "${env:LEVEL:-info}"]\n'
    '      env: {API_URL: "${env:API_URL:-https://api.example.com}", TOKEN: "${env:TOKEN}"}\n'
    "    remote:\n"
    '      url: "https://${env:MCP_HOST:-mcp.example.com}/mcp"\n'
    '      headers: {X-Region: "${env:REGION:-eu}"}\n'
)


def problems(tmp_path: Path, servers: str) -> list[str]:
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, servers))
    return [str(p) for p in caught.value.problems]


def rows(result, host: str) -> dict[str, str]:
    return {r.id: f"{r.status}: {r.reason}" for r in result.coverage if r.host == host}


def artifact_json(result, suffix: str) -> dict:
    (found,) = [a for a in result.artifacts if a.path.endswith(suffix)]
    return json.loads(found.content)


def test_references_parse_a_default_and_the_checks_read_it() -> None:
    (ref,) = references("${env:LEVEL:-info}")
    assert (ref.kind, ref.name, ref.default) == ("env", "LEVEL", "info")
    (empty,) = references("${env:LEVEL:-}")
    assert empty.default == ""
    assert references("${env:LEVEL}")[0].default is None
    assert with_defaults("--token ${env:T:-abc} ${env:U}") == "--token abc ${env:U}"


@pytest.mark.parametrize(
    ("servers", "expected"),
    [
        (  # a known token shape as a default
            '    s: {command: x, env: {T: "${env:T:-sk-live-' + "a" * 32 + '}"}}\n',
            "credential",
        ),
        (  # a literal default for a variable whose name says secret
            '    s: {command: x, args: ["${env:API_TOKEN:-abc123xyz}"]}\n',
            "API_TOKEN",
        ),
        (  # a literal default under a secret's key
            '    s: {command: x, env: {API_KEY: "${env:K:-abc123xyz}"}}\n',
            "API_KEY",
        ),
        (  # the default sits after --token on the command line
            '    s: {command: x, args: ["--token", "${env:T:-abcdefgh12345678}"]}\n',
            "holds",
        ),
        (  # a bearer default in a header
            '    s: {url: "https://a.example.com", headers: '
            '{Authorization: "Bearer ${env:T:-abcdefgh12345678}"}}\n',
            "credential",
        ),
        ('    s: {command: x, args: ["${env:A:-${env:B}}"]}\n', "nested"),
        ('    s: {command: x, args: ["${env:A:-$HOME}"]}\n', "nested"),
        ('    s: {command: x, args: ["${env:A:-' + "x" * 5000 + '}"]}\n', "at most 1024"),
    ],
)
def test_a_hostile_default_is_refused_with_its_place(
    tmp_path: Path, servers: str, expected: str
) -> None:
    found = problems(tmp_path, servers)
    assert found and any(expected in p for p in found), found
    assert all("hub.yaml:6:" in p for p in found), found  # file:line:col of the value
    assert all("x" * 100 not in p for p in found)  # a huge value is not echoed whole


def test_a_plain_default_loads(tmp_path: Path) -> None:
    hub = load(hub_with(tmp_path, SERVERS))
    assert hub.mcp_servers[0].args[-1] == "${env:LEVEL:-info}"


def test_copilot_writes_its_own_default_syntax(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path, SERVERS)), ["copilot"])
    (manifest,) = [a for a in result.artifacts if a.path.endswith(".github/plugin/plugin.json")]
    servers = json.loads(manifest.content)["mcpServers"]
    assert servers["local"]["args"][-1] == "${LEVEL:-info}"
    assert servers["remote"]["headers"] == {"X-Region": "${REGION:-eu}"}
    assert rows(result, "copilot") == {"local": "mapped: ", "remote": "mapped: "}


def test_claude_and_gemini_write_their_own_default_syntax(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path, SERVERS)), ["claude", "gemini"])
    claude = artifact_json(result, ".mcp.json")["mcpServers"]
    assert claude["local"]["args"][-1] == "${LEVEL:-info}"
    assert claude["local"]["env"] == {
        "API_URL": "${API_URL:-https://api.example.com}",
        "TOKEN": "${TOKEN}",
    }
    assert claude["remote"]["url"] == "https://${MCP_HOST:-mcp.example.com}/mcp"
    assert claude["remote"]["headers"] == {"X-Region": "${REGION:-eu}"}
    assert rows(result, "claude") == {"local": "mapped: ", "remote": "mapped: "}
    gemini = artifact_json(result, "gemini-extension.json")["mcpServers"]
    assert gemini["local"]["args"][-1] == "${LEVEL:-info}"
    assert gemini["remote"]["headers"] == {"X-Region": "${REGION:-eu}"}
    assert rows(result, "gemini") == {"local": "mapped: ", "remote": "mapped: "}


@pytest.mark.parametrize("host", ["codex", "cursor"])
def test_hosts_without_defaults_start_the_server_through_the_launcher(
    tmp_path: Path, host: str
) -> None:
    result = build(load(hub_with(tmp_path, SERVERS)), [host])
    local = rows(result, host)["local"]
    assert local.startswith("caveat: started through memhub's launcher"), local
    assert "${VAR:-default}" in local
    text = "\n".join(a.content.decode() for a in result.artifacts if b"%{env:" in a.content)
    assert "%{env:LEVEL:-info}" in text and "%{env:API_URL:-https://api.example.com}" in text
    assert any(a.path.endswith("memhub_runtime/launcher.py") for a in result.artifacts)


@pytest.mark.parametrize("host", ["cursor", "opencode"])
def test_a_remote_servers_default_is_a_caveat_where_the_host_has_none(
    tmp_path: Path, host: str
) -> None:
    result = build(load(hub_with(tmp_path, SERVERS)), [host])
    remote = rows(result, host)["remote"]
    assert remote.startswith("caveat:") and "the default is not carried" in remote, remote


def test_codex_leaves_out_what_it_cannot_default(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path, SERVERS)), ["codex"])
    assert "URL holds ${env:...}" in rows(result, "codex")["remote"]


def test_a_hook_command_default_is_the_shells(tmp_path: Path) -> None:
    hub = hub_with(tmp_path, SERVERS)
    text = (hub / "hub.yaml").read_text()
    (hub / "hub.yaml").write_text(
        text + "hooks:\n  - id: greet\n    event: session_start\n"
        '    command: echo "${env:GREETING:-hello}"\n'
    )
    result = build(load(hub), ["claude"])
    hooks = json.dumps(artifact_json(result, "hooks/claude-hooks.json"))
    assert 'echo \\"${GREETING:-hello}\\"' in hooks


def test_the_launcher_applies_the_default_only_when_the_variable_is_unset(
    tmp_path: Path, capsys
) -> None:
    out = tmp_path / "seen.json"
    hub = hub_with(tmp_path, dump_server(out, '{LEVEL: "${env:MEMHUB_T_LEVEL:-info}"}'))
    assert main(["apply", str(hub), "--scope", "user", "--hosts", "codex"]) == 0
    printed = capsys.readouterr().out
    assert "${VAR:-default}" in printed
    config = Path(os.environ["CODEX_HOME"]) / "config.toml"
    spec = tomllib.loads(config.read_text())["mcp_servers"]["dump"]
    proc = start_like_codex(spec, {"HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["env"]["LEVEL"] == "info"
    proc = start_like_codex(spec, {"HOME": str(tmp_path), "MEMHUB_T_LEVEL": "debug"})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["env"]["LEVEL"] == "debug"


def test_import_keeps_a_default_and_drops_a_secret_one() -> None:
    spec, _, notes = claude_servers.hub_spec(
        "s",
        {
            "command": "npx",
            "args": ["${LEVEL:-info}"],
            "env": {"T": "${T:-sk-live-" + "a" * 32 + "}", "U": "${API_KEY:-abc123xyz}"},
        },
    )
    assert spec["args"] == ["${env:LEVEL:-info}"]
    assert spec["env"] == {"T": "${env:T}", "U": "${env:API_KEY}"}
    assert notes and all("dropped" in n for n in notes)
    spec, _, notes = gemini_servers.hub_spec("g", {"command": "x", "env": {"L": "${L:-warn}"}})
    assert spec["env"] == {"L": "${env:L:-warn}"} and notes == []


def test_the_launcher_template_round_trips_a_default() -> None:
    from memhub.runtime import launcher

    template = "--url=%{env:URL:-https://a.example.com}/%{env:ID} %%{literal}"
    values = {"ID": "7"}

    def value(name: str, default: str | None = None) -> str:
        return values.get(name) or (default if default is not None else "?")

    assert launcher.expand(template, value) == "--url=https://a.example.com/7 %{literal}"
    values["URL"] = "https://b.example.com"
    assert launcher.expand(template, value) == "--url=https://b.example.com/7 %{literal}"
    assert (
        launcher.to_hub(template) == "--url=${env:URL:-https://a.example.com}/${env:ID} %{literal}"
    )


def test_an_empty_or_missing_value_takes_the_default_and_none_stops_the_start(
    tmp_path: Path,
) -> None:
    from memhub.runtime import launcher

    value = launcher.resolver({"EMPTY": ""}, None, "s")
    assert launcher.expand("%{env:EMPTY:-d1} %{env:UNSET:-d2} %{env:UNSET:-}", value) == "d1 d2 "
    with pytest.raises(launcher.LaunchError, match="UNSET"):
        launcher.expand("%{env:UNSET}", value)


def test_opencode_bundles_say_the_default_is_dropped_and_installs_launch(
    tmp_path: Path, capsys
) -> None:
    result = build(load(hub_with(tmp_path, SERVERS)), ["opencode"])
    assert "the default is not carried" in rows(result, "opencode")["local"]
    assert main(["apply", str(tmp_path / "hub"), "--scope", "user", "--hosts", "opencode"]) == 0
    printed = capsys.readouterr().out
    line = next(x for x in printed.splitlines() if x.split()[:3] == ["opencode", "mcp", "local"])
    assert "launcher" in line and "${VAR:-default}" in line, line
