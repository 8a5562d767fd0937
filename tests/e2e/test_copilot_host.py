"""GitHub Copilot CLI (@github/copilot, pinned in hostcli.PINS), offline, in an isolated HOME.

* `test_bundle_installs_from_its_marketplace`: the probe hub with `hosts: [claude, copilot]`,
  built by the real `memhub build`. `copilot plugin marketplace add <bundle>` reads its
  `.github/plugin/marketplace.json` (not Claude's, beside it), `plugin install
  <plugin>@<market>` installs it; `plugin list`, `mcp list --json` and `skill list --json`
  show the plugin's version, the hub's MCP server (from the plugin, with its command line)
  and every skill.
* `test_marketplace_hub_lists_every_plugin_for_copilot`: tests/fixtures/marketplace with
  copilot named, built by the real `memhub build`: `marketplace add` takes its one
  `.github/plugin/marketplace.json` (its github entry passes Copilot's own source
  validation; an scp-style git address, which Copilot refuses as `Invalid url`, is left
  out), `marketplace browse` lists the built plugins and the published ones, and `plugin
  install alpha@acme-tools` installs from `copilot/alpha/`.
* `test_session_fires_the_plugin_hooks`: `copilot -p` against `fake_anthropic.py` (Copilot's
  own provider settings: `COPILOT_PROVIDER_TYPE=anthropic`, `COPILOT_OFFLINE=true`): the
  installed plugin's sessionStart, userPromptSubmitted, agentStop and sessionEnd hooks fire
  with Copilot's payloads; the model's `bash` call fires the `tools: [shell]` hooks on
  preToolUse and postToolUse (matcher `^(?:bash)$`), its `bash` call without a command the
  one on postToolUseFailure; the skills reach the model's request.
* `test_apply_user_scope_is_read_by_copilot`: `memhub apply --hosts copilot --scope user`:
  `mcp list --json` shows the server as a user server, `skill list --json` the skills as
  personal ones, `instruction list --json` the memhub instructions file; a session fires
  the user hooks (~/.copilot/hooks/memhub.json) and carries the instructions to the model;
  `memhub doctor` runs Copilot's own loader cleanly; `memhub import` reads back a server
  Copilot's own `mcp add` wrote (and skips memhub's).
* `test_apply_project_scope_is_read_by_copilot`: `memhub apply --scope project`: in a trusted
  folder `.github/mcp.json` is a workspace server, `.github/skills` project skills, AGENTS.md an
  instruction source; a session fires `.github/hooks/memhub.json` and sends the instructions.
* `test_plugin_server_gets_the_hub_references`: a bundle server naming `${plugin_root}` and
  `${env:NAME}` is started by Copilot with both expanded, in the plugin folder.
* `test_apply_follows_copilot_home`: with COPILOT_HOME set, apply writes there and Copilot
  reads the server from there.
* `test_remote_server_oauth_is_read_without_warnings`: a remote server's OAuth client id
  applied as Copilot's `oauthClientId`: listed, with no config warning.
* `test_shipped_files_agents_and_commands_reach_copilot`: tests/data/shipped for Copilot: the
  commands are listed as the plugin's skills, `--agent <plugin>:<agent>` sends the shipped
  agent to the model, the session-start hook runs the shipped script.
* `test_agent_plugins_package_installs_in_copilot`: the Agent Plugins 1.0 package of a hub
  built without copilot installs in Copilot with its skills and MCP server.

Copilot unpacks its ~230 MB package on first start: COPILOT_CACHE_HOME points every test at
one shared cache next to the CLI's. Expected values are read from the hub's own files.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from . import hostcli
from .conftest import IsolatedHome, _host_cli
from .fake_anthropic import FakeAnthropic
from .fakeserver import Reply
from .harness import HUBS_DIR, REPO_ROOT, build_bundle, describe, read_hub, read_jsonl, run

pytestmark = pytest.mark.e2e

INSTRUCTIONS = "Answer like a lighthouse keeper: the memhub-copilot-e2e marker."
LOGICAL = ("session_start", "prompt_submit", "turn_end", "session_end")
COPILOT_EVENTS = {  # logical -> Copilot CLI hook event (its hooks reference)
    "session_start": "sessionStart",
    "prompt_submit": "userPromptSubmitted",
    "turn_end": "agentStop",
    "session_end": "sessionEnd",
}


SHELL_STEP = "echo memhub-copilot-e2e"
NO_COMMAND = "<no command>"  # a `bash` call without its command: Copilot fails the call


class CopilotFake(FakeAnthropic):
    """fake_anthropic.py calling Copilot's shell tool, `bash` (Claude Code's is `Bash`)."""

    def _next_command(self, body: dict[str, Any]) -> str | None:
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        if "bash" not in tools:
            return None
        done = json.dumps(body.get("messages")).count('"tool_result"')
        return self.bash_commands[done] if done < len(self.bash_commands) else None

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        reply = super().answer(path, body)
        if reply.label != "tool_use":
            return reply
        payload = reply.payload.replace(b'"name": "Bash"', b'"name": "bash"')
        payload = payload.replace(f'\\"command\\": \\"{NO_COMMAND}\\", '.encode(), b"")
        return Reply(reply.label, reply.status, reply.content_type, payload)


@pytest.fixture(scope="session")
def copilot_cli() -> Path:
    return _host_cli("copilot")


@pytest.fixture
def fake_model() -> Any:
    server = CopilotFake([SHELL_STEP, NO_COMMAND]).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    """The probe hub, built for Claude Code and Copilot, with an instruction file."""
    root = tmp_path / "hub"
    shutil.copytree(HUBS_DIR / "probe", root)
    text = (root / "hub.yaml").read_text(encoding="utf-8")
    text = text.replace("hosts: [claude, codex, cursor, agent-plugins]", "hosts: [claude, copilot]")
    (root / "hub.yaml").write_text(text + "instructions: INSTRUCTIONS.md\n", encoding="utf-8")
    (root / "INSTRUCTIONS.md").write_text(INSTRUCTIONS + "\n", encoding="utf-8")
    return root


def _env(iso: IsolatedHome, out: Path, **extra: str) -> dict[str, str]:
    cache = hostcli.cache_root() / "copilot-cache"
    cache.mkdir(parents=True, exist_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    front = f"{Path(sys.executable).parent}:{iso.env.get('PATH', '')}"
    return iso.with_env(
        COPILOT_OFFLINE="true",
        COPILOT_CACHE_HOME=str(cache),
        COPILOT_AUTO_UPDATE="false",
        MEMHUB_E2E_OUT=str(out),
        PATH=front,
        **extra,
    )


def _copilot(cli: Path, env: dict[str, str], cwd: Path, *args: str) -> Any:
    proc = run([cli, *args], env=env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    return proc


def _json(cli: Path, env: dict[str, str], cwd: Path, *args: str) -> Any:
    return json.loads(_copilot(cli, env, cwd, *args, "--json").stdout)


def _memhub(env: dict[str, str], cwd: Path, *args: str) -> Any:
    proc = run([sys.executable, "-m", "memhub.compiler.cli.main", *args], env=env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    return proc


def _install_bundle(cli: Path, env: dict[str, str], cwd: Path, hub: Path, out: Path) -> None:
    info = read_hub(hub)
    build_bundle(hub, out)
    _copilot(cli, env, cwd, "plugin", "marketplace", "add", str(out))
    _copilot(cli, env, cwd, "plugin", "install", f"{info.plugin}@{info.marketplace}")


def _session(cli: Path, env: dict[str, str], cwd: Path, fake: FakeAnthropic) -> Any:
    session = {
        "COPILOT_PROVIDER_BASE_URL": fake.base_url,
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_API_KEY": "sk-memhub-e2e-fake",
        "COPILOT_MODEL": "claude-sonnet-4.5",
    }
    args = ["-p", "say hello", "--allow-all-tools", "--trust-folder", "-s"]
    return _copilot(cli, {**env, **session}, cwd, *args)


def _requests_text(fake: FakeAnthropic) -> str:
    return json.dumps([r.body for r in fake.requests if isinstance(r.body, dict)])


def test_bundle_installs_from_its_marketplace(
    copilot_cli: Path, isolated_home: IsolatedHome, git_repo: Path, hub: Path
) -> None:
    info = read_hub(hub)
    env = _env(isolated_home, isolated_home.root / "out")
    bundle = isolated_home.root / "bundle"
    _install_bundle(copilot_cli, env, git_repo, hub, bundle)

    listed = _copilot(copilot_cli, env, git_repo, "plugin", "list").stdout
    assert f"{info.plugin}@{info.marketplace} (v0.1.0)" in listed, listed
    servers = _json(copilot_cli, env, git_repo, "mcp", "list")["mcpServers"]
    assert set(servers) >= info.mcp_servers
    probe = servers["probe"]
    assert (probe["source"], probe["sourcePlugin"]) == ("plugin", info.plugin)
    assert (probe["command"], probe["args"]) == ("python3", ["-c", "pass"])
    skills = {s["name"]: s for s in _json(copilot_cli, env, git_repo, "skill", "list")}
    for skill in info.skills:
        assert skills[skill]["source"] == "plugin"
        assert f"/copilot/{info.plugin}/skills/" in skills[skill]["path"]


def test_marketplace_hub_lists_every_plugin_for_copilot(
    copilot_cli: Path, isolated_home: IsolatedHome, git_repo: Path, tmp_path: Path
) -> None:
    market = tmp_path / "market"
    shutil.copytree(REPO_ROOT / "tests" / "fixtures" / "marketplace", market)
    for hub_file in (
        market / "alpha" / "hub.yaml",
        market / "beta" / "hub.yaml",
        market / "hub.yaml",
    ):
        text = hub_file.read_text(encoding="utf-8")
        hub_file.write_text(text.replace("cursor", "cursor, copilot", 1), encoding="utf-8")
    env = _env(isolated_home, isolated_home.root / "out")
    bundle = isolated_home.root / "bundle"
    _memhub(env, git_repo, "build", str(market), "--out", str(bundle))
    listing = json.loads((bundle / ".github" / "plugin" / "marketplace.json").read_text())
    names = [p["name"] for p in listing["plugins"]]
    # gamma builds no Copilot copy; epsilon's scp-style git address is refused (a coverage row)
    assert names == ["alpha", "beta", "delta"]
    _copilot(copilot_cli, env, git_repo, "plugin", "marketplace", "add", str(bundle))
    browsed = _copilot(copilot_cli, env, git_repo, "plugin", "marketplace", "browse", "acme-tools")
    for name in names:
        assert f"• {name} - " in browsed.stdout, browsed.stdout
    _copilot(copilot_cli, env, git_repo, "plugin", "install", "alpha@acme-tools")
    listed = _copilot(copilot_cli, env, git_repo, "plugin", "list").stdout
    assert "alpha@acme-tools" in listed, listed


def test_session_fires_the_plugin_hooks(
    copilot_cli: Path,
    isolated_home: IsolatedHome,
    git_repo: Path,
    hub: Path,
    fake_model: CopilotFake,
) -> None:
    info = read_hub(hub)
    out = isolated_home.root / "out"
    env = _env(isolated_home, out)
    _install_bundle(copilot_cli, env, git_repo, hub, isolated_home.root / "bundle")
    _session(copilot_cli, env, git_repo, fake_model)

    for logical in LOGICAL:
        assert logical in info.hook_events
        payloads = read_jsonl(out / f"{logical}.jsonl")
        assert len(payloads) == 1, (logical, payloads)
        assert payloads[0]["cwd"] == str(git_repo), (COPILOT_EVENTS[logical], payloads)
    assert read_jsonl(out / "prompt_submit.jsonl")[0]["prompt"] == "say hello"
    assert read_jsonl(out / "session_start.jsonl")[0]["source"] == "new"
    assert read_jsonl(out / "turn_end.jsonl")[0]["stopReason"] == "end_turn"
    before = read_jsonl(out / "before_tool.jsonl")  # `tools: [shell]`: matched on `bash`
    assert [p["toolName"] for p in before] == ["bash", "bash"], before
    (after,) = read_jsonl(out / "after_tool.jsonl")
    for payload in (before[0], after):
        assert payload["toolName"] == "bash", payload
        assert payload["toolArgs"]["command"] == SHELL_STEP, payload
    (failed,) = read_jsonl(out / "after_tool_failure.jsonl")  # the call without a command
    assert failed["toolName"] == "bash" and "command" in failed["error"], failed
    assert fake_model.tool_use_count() == 2
    sent = _requests_text(fake_model)
    assert "memhub-copilot-e2e" in sent  # the shell step ran and its output went back
    for skill in info.skills:
        assert skill in sent, f"skill {skill} is not in the model's request"


def test_apply_user_scope_is_read_by_copilot(
    copilot_cli: Path,
    isolated_home: IsolatedHome,
    git_repo: Path,
    hub: Path,
    fake_model: CopilotFake,
) -> None:
    info = read_hub(hub)
    out = isolated_home.root / "out"
    env = _env(isolated_home, out)
    _memhub(env, git_repo, "apply", str(hub), "--scope", "user", "--hosts", "copilot")

    servers = _json(copilot_cli, env, git_repo, "mcp", "list")["mcpServers"]
    assert servers["probe"]["source"] == "user"
    assert (servers["probe"]["command"], servers["probe"]["args"]) == ("python3", ["-c", "pass"])
    skills = {s["name"]: s["source"] for s in _json(copilot_cli, env, git_repo, "skill", "list")}
    assert {skills.get(s) for s in info.skills} == {"personal-copilot"}, skills
    sources = _json(copilot_cli, env, git_repo, "instruction", "list")
    home_file = str(isolated_home.home / ".copilot" / "copilot-instructions.md")
    assert home_file in [s["sourcePath"] for s in sources], sources

    _session(copilot_cli, env, git_repo, fake_model)
    for logical in ("session_start", "prompt_submit", "turn_end", "session_end"):
        assert len(read_jsonl(out / f"{logical}.jsonl")) == 1, logical
    assert INSTRUCTIONS in _requests_text(fake_model).replace("\\n", "\n")

    on_path = {**env, "PATH": f"{copilot_cli.parent}:{env['PATH']}"}  # doctor finds `copilot`
    args = ("doctor", str(hub), "--scope", "user", "--hosts", "copilot", "--json")
    checks = json.loads(_memhub(on_path, git_repo, *args).stdout)
    text = json.dumps(checks)
    assert "copilot mcp list --json` loads the config" in text, text
    assert checks["data"]["summary"]["fail"] == 0, text
    # The person's own server (written by Copilot itself) is imported; memhub's are not.
    add = ("mcp", "add", "own-server", "--env", "TOKEN=${OWN_TOKEN}", "--", "own-mcp", "--flag")
    _copilot(copilot_cli, env, git_repo, *add)
    into = isolated_home.root / "imported"
    preview = _memhub(
        env, git_repo, "import", "--hosts", "copilot", "--into", str(into), "--dry-run", "--json"
    ).stdout
    assert "own-server" in preview and "own-mcp" in preview, preview
    assert '"probe"' not in preview, preview


def test_apply_project_scope_is_read_by_copilot(
    copilot_cli: Path,
    isolated_home: IsolatedHome,
    git_repo: Path,
    hub: Path,
    fake_model: CopilotFake,
) -> None:
    """`memhub apply --scope project`: in a trusted folder Copilot reads the project's
    .github/mcp.json (a workspace server), .github/skills, AGENTS.md and .github/hooks."""
    info = read_hub(hub)
    out = isolated_home.root / "out"
    env = _env(isolated_home, out)
    args = ("apply", str(hub), "--scope", "project", "--project", str(git_repo))
    _memhub(env, git_repo, *args, "--hosts", "copilot")
    assert (git_repo / ".github" / "hooks" / "memhub.json").is_file()

    trusted = {**env, "COPILOT_ALLOW_ALL": "true"}  # trusts the working folder
    servers = _json(copilot_cli, trusted, git_repo, "mcp", "list")["mcpServers"]
    assert servers["probe"]["source"] == "workspace", servers
    assert servers["probe"]["sourcePath"].endswith(".github/mcp.json"), servers
    skills = {
        s["name"]: s["source"] for s in _json(copilot_cli, trusted, git_repo, "skill", "list")
    }
    assert {skills.get(s) for s in info.skills} == {"project"}, skills
    sources = _json(copilot_cli, trusted, git_repo, "instruction", "list")
    assert "AGENTS.md" in [s["sourcePath"] for s in sources], sources

    _session(copilot_cli, env, git_repo, fake_model)
    for logical in ("session_start", "prompt_submit", "after_tool", "turn_end", "session_end"):
        assert len(read_jsonl(out / f"{logical}.jsonl")) == 1, logical
    assert INSTRUCTIONS in _requests_text(fake_model).replace("\\n", "\n")


RECORD_ARGV = (
    "import json, os, sys; "
    "open(sys.argv[1], 'w').write(json.dumps([sys.argv[2:], os.getcwd(), os.environ['TOKEN']]))"
)


def test_plugin_server_gets_the_hub_references(
    copilot_cli: Path,
    isolated_home: IsolatedHome,
    git_repo: Path,
    hub: Path,
    fake_model: CopilotFake,
) -> None:
    """A bundle server naming `${plugin_root}` and `${env:NAME}` (args and env): Copilot
    starts it with both expanded, in the plugin folder."""
    text = (hub / "hub.yaml").read_text(encoding="utf-8")
    server = json.dumps(
        {
            "command": "python3",
            "args": ["-c", RECORD_ARGV, "${env:MEMHUB_E2E_OUT}/argv.json", "${plugin_root}/x"],
            "env": {"TOKEN": "${env:E2E_TOKEN}"},
        }
    )
    text = text.replace('probe: {command: python3, args: ["-c", "pass"]}', f"probe: {server}")
    (hub / "hub.yaml").write_text(text, encoding="utf-8")
    out = isolated_home.root / "out"
    env = _env(isolated_home, out, E2E_TOKEN="token-from-copilots-env")
    _install_bundle(copilot_cli, env, git_repo, hub, isolated_home.root / "bundle")
    _session(copilot_cli, env, git_repo, fake_model)

    args, cwd, token = json.loads((out / "argv.json").read_text(encoding="utf-8"))
    folder = isolated_home.root / "bundle" / "copilot" / read_hub(hub).plugin
    assert args == [f"{folder}/x"]
    assert Path(cwd) == folder and token == "token-from-copilots-env"


def test_agent_plugins_package_installs_in_copilot(
    copilot_cli: Path, isolated_home: IsolatedHome, git_repo: Path, tmp_path: Path
) -> None:
    """Copilot also reads the Agent Plugins 1.0 package (root plugin.json + mcp.json) that a
    hub without `copilot` in `hosts:` gets: its skills and MCP server load."""
    probe = HUBS_DIR / "probe"
    info = read_hub(probe)
    env = _env(isolated_home, isolated_home.root / "out")
    bundle = tmp_path / "bundle"
    build_bundle(probe, bundle)
    package = bundle / "agent-plugins" / info.plugin
    _copilot(copilot_cli, env, git_repo, "plugin", "install", str(package))
    servers = _json(copilot_cli, env, git_repo, "mcp", "list")["mcpServers"]
    assert {n for n, s in servers.items() if s.get("source") == "plugin"} == info.mcp_servers
    skills = {s["name"]: s["source"] for s in _json(copilot_cli, env, git_repo, "skill", "list")}
    assert {skills.get(s) for s in info.skills} == {"plugin"}, skills


def test_apply_follows_copilot_home(
    copilot_cli: Path, isolated_home: IsolatedHome, git_repo: Path, hub: Path
) -> None:
    """With COPILOT_HOME set, memhub writes there and Copilot reads it from there."""
    moved = isolated_home.root / "copilot-home"
    env = _env(isolated_home, isolated_home.root / "out", COPILOT_HOME=str(moved))
    _memhub(env, git_repo, "apply", str(hub), "--scope", "user", "--hosts", "copilot")
    assert (moved / "mcp-config.json").is_file()
    assert not (isolated_home.home / ".copilot" / "mcp-config.json").exists()
    servers = _json(copilot_cli, env, git_repo, "mcp", "list")["mcpServers"]
    assert servers["probe"]["source"] == "user", servers


def test_remote_server_oauth_is_read_without_warnings(
    copilot_cli: Path, isolated_home: IsolatedHome, git_repo: Path
) -> None:
    """tests/data/install's remote server (OAuth client id) applied for Copilot: `mcp list`
    shows it with Copilot's own `oauthClientId` and no config warning."""
    install = REPO_ROOT / "tests" / "data" / "install"
    env = _env(isolated_home, isolated_home.root / "out", PROBE_TOKEN="t")
    _memhub(env, git_repo, "apply", str(install), "--scope", "user", "--hosts", "copilot")
    servers = _json(copilot_cli, env, git_repo, "mcp", "list")["mcpServers"]
    remote = next(s for s in servers.values() if s.get("type") == "http")
    assert remote["oauthClientId"] and "configWarnings" not in remote, remote
    assert all("configWarnings" not in s for s in servers.values()), servers


def test_shipped_files_agents_and_commands_reach_copilot(
    copilot_cli: Path,
    isolated_home: IsolatedHome,
    git_repo: Path,
    tmp_path: Path,
    fake_model: CopilotFake,
) -> None:
    """tests/data/shipped built for Copilot: its commands are listed as the plugin's skills,
    `--agent <plugin>:<agent>` runs the shipped agent (its text in the model's request), and
    the session-start hook runs the shipped script through `${PLUGIN_ROOT}`."""
    hub = tmp_path / "shipped"
    shutil.copytree(REPO_ROOT / "tests" / "data" / "shipped", hub)
    text = (hub / "hub.yaml").read_text(encoding="utf-8")
    (hub / "hub.yaml").write_text(text + "hosts: [copilot]\n", encoding="utf-8")
    info = read_hub(hub)
    marker = isolated_home.root / "shipped-marker"
    env = _env(isolated_home, isolated_home.root / "out", MEMHUB_SHIPPED_MARKER=str(marker))
    _install_bundle(copilot_cli, env, git_repo, hub, isolated_home.root / "bundle")

    skills = {s["name"]: s["source"] for s in _json(copilot_cli, env, git_repo, "skill", "list")}
    for command in sorted((hub / "commands").glob("*.md")):
        assert skills.get(command.stem) == "plugin", skills
    agent = sorted((hub / "agents").glob("*.md"))[0]
    session = {
        "COPILOT_PROVIDER_BASE_URL": fake_model.base_url,
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_API_KEY": "sk-memhub-e2e-fake",
        "COPILOT_MODEL": "claude-sonnet-4.5",
    }
    args = ["--agent", f"{info.plugin}:{agent.stem}", "-p", "review", "--allow-all-tools"]
    _copilot(copilot_cli, {**env, **session}, git_repo, *args, "--trust-folder", "-s")
    body = agent.read_text(encoding="utf-8").split("---", 2)[2].strip().splitlines()[0]
    assert body in _requests_text(fake_model).replace("\\n", "\n")
    assert marker.read_text(encoding="utf-8") == "shipped script ran\n"
