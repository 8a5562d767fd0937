"""Every MCP-server feature a hub accepts, proven by each host's own CLI after `memhub apply`.

`tests/e2e/hubs/mcp-matrix` holds one server per feature (stdio, literal env, a reference
under its own name, a renamed one, one inside a value or an argument, cwd, timeouts, tool
filters, HTTP, a header reference, one inside a header value, a bearer token, a URL
reference, OAuth, SSE). One `memhub apply --scope user --hosts claude,codex,gemini` writes
them all; then each host's loader reads its file back: `codex mcp list --json` (and `mcp get
--json` for the fields only it shows), `claude mcp get NAME`, `gemini mcp list`. Each must load
without error and show what the hub says, in that host's syntax. What a host cannot carry
must be named by apply (a caveat, or left out) and leave nothing in the file that breaks it.

`test_codex_starts_launched_servers_with_their_values` then runs one real `codex exec`
session: Codex starts each server memhub routed through its launcher, and the launcher hands
the server the value of a variable Codex itself cannot rename or expand.

Expected values are written from the hub file and the hosts' documented syntax, never from
the compiler. Every host runs behind a refusing loopback proxy: nothing leaves the machine.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from .harness import REPO_ROOT, describe, run
from .test_install_hosts import (
    CODEX_PROVIDER,
    DEAD_BASE_URL,
    GEMINI_REJECTS,
    GEMINI_SETTINGS,
    codex_config,
    parse_claude_mcp_get,
    parse_gemini_mcp_list,
)

pytestmark = pytest.mark.e2e

HUB = REPO_ROOT / "tests" / "e2e" / "hubs" / "mcp-matrix"
HOSTS = "claude,codex,gemini"
LAUNCHER = Path(sys.executable).parent / "memhub-launch"
SESSION_TIMEOUT_S = 150
# Servers Codex must start through memhub's launcher (a reference it cannot express).
LAUNCHED = ("env-renamed", "env-embedded", "arg-reference")
TOKENS = {"MATRIX_TOKEN": "matrix-token-1234", "MATRIX_GH_TOKEN": "matrix-gh-5678"}


def servers() -> dict[str, dict[str, Any]]:
    return yaml.safe_load((HUB / "hub.yaml").read_text())["mcp"]["servers"]


def overrides(host: str) -> dict[str, dict[str, Any]]:
    return yaml.safe_load((HUB / "hub.yaml").read_text())["overrides"][host]["mcp_servers"]


def apply(isolated_home: Any) -> str:
    """The real `memhub apply` as a subprocess; returns what it printed."""
    gemini = isolated_home.home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(GEMINI_SETTINGS)
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(HUB)]
    argv += ["--scope", "user", "--hosts", HOSTS]
    proc = run(argv, env=isolated_home.env, cwd=isolated_home.root)
    assert proc.returncode == 0, describe(proc)
    return proc.stdout


def row(printed: str, host: str, server: str) -> str:
    """The coverage line apply printed for `server` on `host` ("" when none)."""
    for line in printed.splitlines():
        words = line.split()
        if words[:3] == [host, "mcp", server]:
            return line
    return ""


def claude_value(text: str) -> str:
    """The hub's `${env:NAME}` in Claude Code's syntax, `${NAME}`."""
    return text.replace("${env:", "${")


@pytest.fixture
def applied(isolated_home: Any) -> tuple[Any, str]:
    (isolated_home.codex_home / "config.toml").write_text(codex_config(DEAD_BASE_URL))
    return isolated_home, apply(isolated_home)


def test_codex_loads_every_feature(codex_cli: Path, applied: tuple[Any, str]) -> None:
    home, printed = applied
    hub = servers()
    proc = run([codex_cli, "mcp", "list", "--json"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)  # 0.171 refuses a bad config whole
    listed = {s["name"]: s for s in json.loads(proc.stdout)}
    # A URL holding a reference cannot be expressed: left out, and apply says so.
    assert set(listed) == set(hub) - {"http-url-ref"}, sorted(listed)
    assert "http-url-ref" in printed and "URL holds ${env:...}" in printed, printed
    assert all(s["enabled"] for s in listed.values()), listed
    t = {name: s["transport"] for name, s in listed.items()}

    assert (t["stdio-plain"]["command"], t["stdio-plain"]["args"]) == ("python3", ["-V"])
    assert t["env-literal"]["env"] == hub["env-literal"]["env"]
    assert (t["env-same"]["env"], t["env-same"]["env_vars"]) == (None, ["MATRIX_TOKEN"])
    assert t["with-cwd"]["cwd"] == hub["with-cwd"]["cwd"]
    want = overrides("codex")["timeouts"]
    assert listed["timeouts"]["startup_timeout_sec"] == want["startup_timeout_sec"]
    assert listed["timeouts"]["tool_timeout_sec"] == want["tool_timeout_sec"]
    proc = run([codex_cli, "mcp", "get", "tool-filters", "--json"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    got, want = json.loads(proc.stdout), overrides("codex")["tool-filters"]
    assert (got["enabled_tools"], got["disabled_tools"]) == (
        want["enabled_tools"],
        want["disabled_tools"],
    )

    # Renamed and embedded references: the launcher, forwarding only the names it reads.
    for name in LAUNCHED:
        assert t[name]["command"] == str(LAUNCHER), t[name]
        assert t[name]["args"][:2] == ["--hub", str(HUB)], t[name]
        assert "launcher" in row(printed, "codex", name), printed
        assert t[name]["env"] is None, t[name]  # no value, no reference Codex would pass as is
    assert t["env-renamed"]["env_vars"] == ["MATRIX_GH_TOKEN"]
    assert "GITHUB_PERSONAL_ACCESS_TOKEN=%{env:MATRIX_GH_TOKEN}" in t["env-renamed"]["args"]
    assert t["env-embedded"]["env_vars"] == ["MATRIX_TOKEN"]
    assert t["arg-reference"]["args"][-1] == "--token=%{env:MATRIX_TOKEN}"

    assert t["http-plain"]["type"] == "streamable_http"
    assert t["http-plain"]["url"] == hub["http-plain"]["url"]
    assert t["http-header-ref"]["env_http_headers"] == {"X-Api-Key": "MATRIX_KEY"}
    assert t["http-bearer"]["bearer_token_env_var"] == "MATRIX_TOKEN"
    assert listed["http-bearer"]["auth_status"] == "bearer_token"
    # A reference inside a header value: the header is left out, and apply says so.
    assert t["http-header-embedded"]["http_headers"] is None, t["http-header-embedded"]
    assert t["http-header-embedded"]["env_http_headers"] is None, t["http-header-embedded"]
    assert "header X-Team" in row(printed, "codex", "http-header-embedded"), printed
    # SSE: Codex speaks streamable HTTP only (a caveat).
    assert t["sse"]["type"] == "streamable_http" and "SSE" in row(printed, "codex", "sse")
    # OAuth: Codex lists no client id; the loaded file holds it where Codex reads it.
    config = tomllib.loads((home.codex_home / "config.toml").read_text())
    oauth = hub["http-oauth"]["oauth"]
    assert config["mcp_servers"]["http-oauth"]["oauth"] == {"client_id": oauth["client_id"]}
    assert config["mcp_servers"]["http-oauth"]["scopes"] == oauth["scopes"]
    # Codex's callback port is one top-level setting, and it has no metadata URL: caveats.
    assert "callback_port, auth_server_metadata_url" in row(printed, "codex", "http-oauth")
    assert config["model_provider"] == CODEX_PROVIDER  # the person's own settings stay
    assert "${" not in json.dumps(config["mcp_servers"]), "Codex expands no ${...}"


def test_claude_loads_every_feature(claude_cli: Path, applied: tuple[Any, str]) -> None:
    home, printed = applied
    for name, server in servers().items():
        proc = run([claude_cli, "mcp", "get", name], env=home.env, cwd=home.root)
        assert proc.returncode == 0, describe(proc)
        got = parse_claude_mcp_get(proc.stdout)
        assert got.get("Scope", "").startswith("User config"), proc.stdout
        if "command" in server:
            assert got.get("Type") == "stdio", proc.stdout
            assert got.get("Command") == server["command"], proc.stdout
            args = " ".join(claude_value(a) for a in server.get("args", []))
            assert got.get("Args") == args, proc.stdout
            env = {k: claude_value(v) for k, v in server.get("env", {}).items()}
            assert got.get("Environment", {}) == env, proc.stdout
            continue
        assert got.get("Type") == server.get("transport", "http"), proc.stdout
        assert got.get("URL") == claude_value(server["url"]), proc.stdout
        for header, value in server.get("headers", {}).items():
            assert f"    {header}: {claude_value(value)}" in proc.stdout, proc.stdout
        if "oauth" in server:
            port = server["oauth"]["callback_port"]
            assert got.get("OAuth") == f"client_id configured, callback_port {port}", proc.stdout
    # Claude Code has no cwd for stdio servers: a caveat of apply, nothing written for it.
    assert "no cwd" in row(printed, "claude", "with-cwd"), printed
    claude = json.loads((home.claude_dir / ".claude.json").read_text())["mcpServers"]
    assert "cwd" not in claude["with-cwd"]
    assert claude["timeouts"]["timeout"] == overrides("claude")["timeouts"]["timeout"]
    # Its own diagnostics find nothing wrong beyond the variables this test leaves unset.
    proc = run([claude_cli, "mcp", "list"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    problems = [
        line
        for line in proc.stdout.splitlines()
        if ("[Warning]" in line or "[Error]" in line)
        and "Missing environment variables" not in line
    ]
    assert not problems, describe(proc)


def test_gemini_loads_every_feature(gemini_cli: Path, applied: tuple[Any, str]) -> None:
    home, printed = applied
    # Outside any trusted folder Gemini lists the servers without starting them.
    proc = run([gemini_cli, "mcp", "list"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    assert GEMINI_REJECTS not in proc.stdout + proc.stderr, describe(proc)
    got = parse_gemini_mcp_list(proc.stdout + "\n" + proc.stderr)
    want = {}
    for name, server in servers().items():
        if "command" in server:
            line = " ".join([server["command"], *(claude_value(a) for a in server["args"])])
            want[name] = (line, "stdio")
        else:
            want[name] = (claude_value(server["url"]), server.get("transport", "http"))
    assert got == want, describe(proc)
    settings = json.loads((home.home / ".gemini" / "settings.json").read_text())["mcpServers"]
    # Gemini listens for the OAuth callback on its redirect URI's port; no metadata URL.
    port = servers()["http-oauth"]["oauth"]["callback_port"]
    redirect = settings["http-oauth"]["oauth"]["redirectUri"]
    assert redirect == f"http://localhost:{port}/oauth/callback", settings["http-oauth"]
    assert "auth_server_metadata_url" in row(printed, "gemini", "http-oauth"), printed
    for name, values in overrides("gemini").items():
        for key, value in values.items():
            assert settings[name][key] == value, (name, settings[name])


def test_codex_starts_launched_servers_with_their_values(
    codex_cli: Path, isolated_home: Any, git_repo: Path, fake_responses
) -> None:
    """One real session: Codex starts every enabled server; those going through memhub's
    launcher write the value they were given to $HOME/seen-<name>."""
    home = isolated_home
    (home.codex_home / "config.toml").write_text(codex_config(fake_responses.base_url))
    apply(home)
    argv = [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "hello"]
    env = home.with_env(MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake", **TOKENS)
    proc = run(argv, env=env, cwd=git_repo, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    seen = {name: home.home / f"seen-{name}" for name in LAUNCHED}
    got = {name: path.read_text() if path.exists() else None for name, path in seen.items()}
    assert got == {
        "env-renamed": TOKENS["MATRIX_GH_TOKEN"],
        "env-embedded": "Bearer " + TOKENS["MATRIX_TOKEN"],
        "arg-reference": "--token=" + TOKENS["MATRIX_TOKEN"],
    }, describe(proc)
    # The values reached the servers only: no host file holds them.
    for path in (home.codex_home / "config.toml", home.claude_dir / ".claude.json"):
        assert not any(v in path.read_text() for v in TOKENS.values()), path


# A hub asking for the launcher for every server: the value lives only in the hub's .env,
# as for a host started from a desktop launcher, which never saw the shell's environment.
LAUNCHER_HUB = """version: 1
plugin: {name: launcher-secrets, version: 0.1.0, description: Every server via the launcher}
marketplace: {name: probe-market, owner: {name: Probe}}
runtime: {secrets: launcher}
mcp:
  servers:
    seen:
      command: python3
      args: ["-c", "import os; open(os.environ['HOME'] + '/seen-dotenv', 'w').write(os.environ['MATRIX_API_KEY'])"]
      env: {MATRIX_API_KEY: "${env:MATRIX_DOTENV_SECRET}"}
"""
DOTENV_VALUE = "from-the-hub-dotenv-42"


def test_secrets_launcher_gives_each_host_the_env_file_value(
    claude_cli: Path,
    codex_cli: Path,
    gemini_cli: Path,
    isolated_home: Any,
    git_repo: Path,
    fake_anthropic,
    fake_responses,
    fake_gemini,
) -> None:
    home = isolated_home
    hub = home.root / "launcher-hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(LAUNCHER_HUB)
    (hub / ".env").write_text(f"MATRIX_DOTENV_SECRET={DOTENV_VALUE}\n")
    (hub / ".env").chmod(0o600)
    (home.codex_home / "config.toml").write_text(codex_config(fake_responses.base_url))
    (home.home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home.home / ".gemini" / "settings.json").write_text(GEMINI_SETTINGS)
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(hub), "--hosts", HOSTS]
    proc = run(argv, env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    assert all(row(proc.stdout, h, "seen") for h in ("claude", "codex", "gemini")), proc.stdout

    sessions = {
        "claude": (
            [claude_cli, "-p", "hello", "--output-format", "json", "--allowedTools", "Bash"],
            home.with_env(
                ANTHROPIC_BASE_URL=fake_anthropic.base_url,
                ANTHROPIC_API_KEY="sk-memhub-e2e-fake",
                IS_SANDBOX="1",
            ),
        ),
        "codex": (
            [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "hello"],
            home.with_env(MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake"),
        ),
        "gemini": (
            [gemini_cli, "-m", "fake-model", "-p", "hello", "--yolo", "--skip-trust", "-o", "json"],
            home.with_env(
                GEMINI_API_KEY="memhub-e2e-fake", GOOGLE_GEMINI_BASE_URL=fake_gemini.base_url
            ),
        ),
    }
    seen = home.home / "seen-dotenv"
    for host, (argv, env) in sessions.items():
        seen.unlink(missing_ok=True)
        proc = run(argv, env=env, cwd=git_repo, timeout=SESSION_TIMEOUT_S)
        assert proc.returncode == 0, (host, describe(proc))
        assert seen.exists() and seen.read_text() == DOTENV_VALUE, (host, describe(proc))
    for path in (
        home.codex_home / "config.toml",
        home.claude_dir / ".claude.json",
        home.home / ".gemini" / "settings.json",
    ):
        assert DOTENV_VALUE not in path.read_text(), path


def test_codex_plugin_starts_servers_through_the_vendored_launcher(
    codex_cli: Path, isolated_home: Any, git_repo: Path, fake_responses, tmp_path: Path
) -> None:
    """The bundle form: the matrix hub built as a Codex plugin, installed from its marketplace
    offline; one session starts the plugin's launched servers through the vendored
    `memhub_runtime/launcher.py`, and they receive their values."""
    home = isolated_home
    out = tmp_path / "bundle"
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "build", str(HUB), "--out", str(out)]
    proc = run([*argv, "--host", "codex"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    (home.codex_home / "config.toml").write_text(codex_config(fake_responses.base_url))
    data = yaml.safe_load((HUB / "hub.yaml").read_text())
    ref = f"{data['plugin']['name']}@{data['marketplace']['name']}"
    for step in (["marketplace", "add", str(out)], ["add", ref, "--json"]):
        proc = run([codex_cli, "plugin", *step], env=home.env, cwd=home.root)
        assert proc.returncode == 0, describe(proc)
    argv = [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "hello"]
    env = home.with_env(MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake", **TOKENS)
    proc = run(argv, env=env, cwd=git_repo, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    seen = {name: home.home / f"seen-{name}" for name in LAUNCHED}
    got = {name: path.read_text() if path.exists() else None for name, path in seen.items()}
    assert got == {
        "env-renamed": TOKENS["MATRIX_GH_TOKEN"],
        "env-embedded": "Bearer " + TOKENS["MATRIX_TOKEN"],
        "arg-reference": "--token=" + TOKENS["MATRIX_TOKEN"],
    }, describe(proc)


PLUGIN_HUB = """version: 1
plugin: {name: plugin-folders, version: 0.1.0, description: Plugin folder references}
marketplace: {name: probe-market, owner: {name: Probe}}
mcp:
  servers:
    root-probe:
      command: python3
      args: ["-c", "import os, sys; open(os.environ['HOME'] + '/seen-root', 'w').write(sys.argv[1])", "${plugin_root}/bin/tool"]
"""
RAW_PROBE = (
    "import os, sys; open(os.environ['HOME'] + '/seen-raw', 'w').write(sys.argv[1] + ' ' "
    "+ os.environ.get('PLUGIN_DATA', '-'))"
)


def test_codex_plugin_servers_get_plugin_root_from_the_launcher_only(
    codex_cli: Path, isolated_home: Any, git_repo: Path, fake_responses, tmp_path: Path
) -> None:
    """Codex 0.171 expands neither ${PLUGIN_ROOT} nor ${PLUGIN_DATA} in a plugin server's
    command line and sets no such variable (a raw probe server shows it), so memhub starts
    a server naming ${plugin_root} through the launcher, and leaves out one naming
    ${plugin_data}. The launched probe receives the real plugin folder."""
    home = isolated_home
    hub, out = tmp_path / "hub", tmp_path / "bundle"
    hub.mkdir()
    (hub / "hub.yaml").write_text(PLUGIN_HUB)
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "build", str(hub), "--out", str(out)]
    proc = run([*argv, "--host", "codex"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    manifest_path = out / "plugins" / "plugin-folders" / ".codex-plugin" / "plugin.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["mcpServers"]["raw-probe"] = {  # what memhub wrote before: the host's oracle
        "command": "python3",
        "args": ["-c", RAW_PROBE, "${PLUGIN_DATA}/cache"],
    }
    manifest_path.write_text(json.dumps(manifest))
    (home.codex_home / "config.toml").write_text(codex_config(fake_responses.base_url))
    for step in (["marketplace", "add", str(out)], ["add", "plugin-folders@probe-market"]):
        proc = run([codex_cli, "plugin", *step], env=home.env, cwd=home.root)
        assert proc.returncode == 0, describe(proc)
    argv = [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "hello"]
    proc = run(argv, env=home.with_env(MEMHUB_E2E_FAKE_KEY="sk-fake"), cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    raw, root = home.home / "seen-raw", home.home / "seen-root"
    assert raw.exists() and raw.read_text() == "${PLUGIN_DATA}/cache -", describe(proc)
    installed = home.codex_home / "plugins" / "cache" / "probe-market" / "plugin-folders"
    assert root.exists(), describe(proc)
    assert Path(root.read_text()) == next(installed.iterdir()) / "bin" / "tool"
