"""memhub's OpenCode output read and used by the real `opencode` CLI (hostcli.PINS), offline.

The hub (written here) has one stdio MCP server (tests/e2e/fake_github_mcp.py, its argument
an `${env:...}` reference), one skill and instructions, each carrying a marker.

* `test_user_install_is_loaded_listed_and_reaches_the_model`: `memhub apply --scope user`
  merges into a person's own ~/.config/opencode/opencode.json, written with comments and a
  trailing comma (JSONC, kept as they are); `opencode debug config` shows
  the server as the hub has it and the install's hooks plugin in `plugin`, `opencode mcp list` connects it, `opencode debug skill`
  lists the skill from ~/.config/opencode/skills, and one `opencode run` against the fake
  Anthropic API (tests/e2e/fake_anthropic.py, set as the person's provider `baseURL`) sends
  a request holding the instructions, the skill and the server's tool, while the install's
  memhub-hooks/<plugin>/memhub-hooks.js runs the hub's hooks (the guard blocks a shell call);
  `memhub uninstall` gives the commented file back byte for byte.
* `test_project_install_is_loaded_from_the_checkout`: `--scope project` writes the
  project's opencode.json, .opencode/skills and AGENTS.md; OpenCode started there reads them.
* `test_bundle_folder_loads_with_opencode_config_dir`: the built `opencode/<plugin>/` folder
  loads as it is with OPENCODE_CONFIG_DIR (server, skill, AGENTS.md in the request).
* `test_doctor_asks_opencode_to_load_its_config`: `memhub doctor` runs `opencode debug config`:
  ok after the apply; a key OpenCode's schema refuses fails with OpenCode's own words.
* `test_shipped_agents_and_commands_load_in_opencode`: tests/data/shipped's Claude-style
  agents and commands, built for OpenCode, load from the bundle folder (`debug config`:
  each description and body; `agent list`: each agent a subagent).

  The hub's `command:` hooks run from the bundle's generated plugins/memhub-hooks.js
  (session start, prompt, before and after a shell call, turn end, a script named through
  `${plugin_root}`), and a before-tool hook's exit code 2 blocks the shell call.
Every CLI runs with HTTP(S)_PROXY at a loopback proxy that refuses everything.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from .conftest import IsolatedHome, _host_cli
from .fake_anthropic import FakeAnthropic
from .fakeserver import Reply
from .harness import REPO_ROOT, describe, run

pytestmark = pytest.mark.e2e

FAKE_MCP = REPO_ROOT / "tests" / "e2e" / "fake_github_mcp.py"
PR_URL = "https://github.example/o/r/pull/7"
INSTRUCTIONS_MARK = "oc-e2e-instructions-5k2w"
SKILL_MARK = "oc-e2e-skill-8h1c"
TOOL = "fakegh_create_pull_request"
HOOK_LOG = "oc-hooks.log"  # the hub's hooks append to $HOME/oc-hooks.log
FORBIDDEN = "forbidden-9x"  # a shell command holding it is blocked by the hub's guard hook
GUARD_SAYS = "memhub guard: no forbidden-9x"  # OpenCode names an MCP tool <server>_<tool>
SESSION_TIMEOUT_S = 180
QUIET = {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1"}

HUB_YAML = f"""\
version: 1
plugin: {{name: oc-e2e, version: 0.1.0, description: OpenCode e2e hub}}
marketplace: {{name: m, owner: {{name: o}}}}
hosts: [opencode]
mcp:
  servers:
    fakegh:
      command: {json.dumps(sys.executable)}
      args: [{json.dumps(str(FAKE_MCP))}, "${{env:OC_E2E_PR_URL}}"]
skills: skills
instructions: INSTRUCTIONS.md
hooks:
  - {{id: on-start, event: session_start, command: 'echo "start $OPENCODE_CONFIG_FOLDER" >> "$HOME/{HOOK_LOG}"'}}
  - {{id: on-prompt, event: prompt_submit, command: 'echo prompt >> "$HOME/{HOOK_LOG}"'}}
  - {{id: on-turn, event: turn_end, command: 'echo turn >> "$HOME/{HOOK_LOG}"'}}
  - {{id: in-folder, event: turn_end, command: 'sh "${{plugin_root}}/skills/oc-e2e-skill/mark.sh"'}}
  - {{id: on-shell, event: before_tool, tools: [shell], command: 'echo before >> "$HOME/{HOOK_LOG}"'}}
  - {{id: after-shell, event: after_tool, tools: [shell], command: 'echo after >> "$HOME/{HOOK_LOG}"'}}
  - {{id: guard, event: before_tool, tools: [shell], command: 'if grep -q {FORBIDDEN}; then echo "{GUARD_SAYS}" >&2; exit 2; fi'}}
"""
SKILL_MD = (
    f"---\nname: oc-e2e-skill\ndescription: Use for {SKILL_MARK}.\n---\n\nSay {SKILL_MARK}.\n"
)


@pytest.fixture(scope="session")
def opencode_cli() -> Path:
    return _host_cli("opencode")


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    root = tmp_path / "hub"
    (root / "skills" / "oc-e2e-skill").mkdir(parents=True)
    (root / "hub.yaml").write_text(HUB_YAML)
    (root / "skills" / "oc-e2e-skill" / "SKILL.md").write_text(SKILL_MD)
    (root / "skills" / "oc-e2e-skill" / "mark.sh").write_text(
        f'echo folder >> "$HOME/{HOOK_LOG}"\n'
    )
    (root / "INSTRUCTIONS.md").write_text(f"# E2E\n\nThe marker is {INSTRUCTIONS_MARK}.\n")
    return root


class FakeOpenCodeModel(FakeAnthropic):
    """The fake Anthropic API for OpenCode, whose shell tool is `bash` (Claude Code's `Bash`)."""

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        tools = [
            {**t, "name": "Bash"} if isinstance(t, dict) and t.get("name") == "bash" else t
            for t in body.get("tools") or []
        ]
        reply = super().answer(path, {**body, "tools": tools})
        if reply.label != "tool_use":
            return reply
        return replace(reply, payload=reply.payload.replace(b'"name": "Bash"', b'"name": "bash"'))


@pytest.fixture
def fake_model() -> Iterator[FakeAnthropic]:
    server = FakeOpenCodeModel([]).start()  # no shell call unless a test sets bash_commands
    try:
        yield server
    finally:
        server.stop()


def env_for(home: IsolatedHome, cli: Path, **extra: str) -> dict[str, str]:
    """The isolated env with opencode on PATH (doctor looks for it there) and the hub's secret."""
    path = f"{cli.parent}{os.pathsep}{home.env['PATH']}"
    return home.with_env(PATH=path, OC_E2E_PR_URL=PR_URL, **QUIET, **extra)


def memhub(env: dict[str, str], *args: str | Path, cwd: Path | None = None) -> Any:
    return run([sys.executable, "-m", "memhub.compiler.cli.main", *args], env=env, cwd=cwd)


def person_config(base_url: str) -> dict[str, Any]:
    """A person's own opencode.json: their provider, pointed at the fake model."""
    return {
        "$schema": "https://opencode.ai/config.json",
        "model": "anthropic/claude-sonnet-4-5",
        "share": "disabled",
        "autoupdate": False,
        "provider": {"anthropic": {"options": {"baseURL": base_url + "/v1", "apiKey": "sk-fake"}}},
    }


def debug(cli: Path, env: dict[str, str], cwd: Path, *what: str) -> Any:
    proc = run([cli, "debug", *what], env=env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    return json.loads(proc.stdout)


def session_request(cli: Path, env: dict[str, str], cwd: Path, fake: FakeAnthropic) -> str:
    """The body of the main (not title) request one `opencode run` sends, as text."""
    proc = run([cli, "run", "say hello"], env=env, cwd=cwd, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    bodies = [json.dumps(r.body) for r in fake.requests if r.body.get("tools")]
    assert bodies, f"no request offered tools: {[r.path for r in fake.requests]}"
    return bodies[-1]


def assert_loaded(cli: Path, env: dict[str, str], cwd: Path, skill_dir: Path) -> None:
    config = debug(cli, env, cwd, "config")
    assert config["mcp"]["fakegh"] == {
        "type": "local",
        "command": [sys.executable, str(FAKE_MCP), PR_URL],  # {env:...} expanded by OpenCode
    }
    skills = {s["name"]: s["location"] for s in debug(cli, env, cwd, "skill")}
    assert skills.get("oc-e2e-skill") == str(skill_dir / "oc-e2e-skill" / "SKILL.md"), skills


def commented(config: dict[str, Any]) -> str:
    """The person's config as JSONC, as OpenCode accepts it: comments and a trailing comma."""
    text = json.dumps(config, indent=2)
    text = text.replace("{\n", "{\n  // mine: memhub keeps this comment\n", 1)
    return text[: text.rindex("\n}")] + ", /* trailing comma */\n}\n"


def test_user_install_is_loaded_listed_and_reaches_the_model(
    opencode_cli: Path, isolated_home: IsolatedHome, hub: Path, fake_model: FakeAnthropic
) -> None:
    """Into the person's commented opencode.json: OpenCode loads the server, skill and
    instructions, and the install's hooks plugin runs the hub's command hooks."""
    folder = isolated_home.home / ".config" / "opencode"
    folder.mkdir(parents=True)
    own = commented(person_config(fake_model.origin))
    (folder / "opencode.json").write_text(own)
    env = env_for(isolated_home, opencode_cli)
    proc = memhub(env, "apply", hub, "--hosts", "opencode")
    assert proc.returncode == 0, describe(proc)
    text = (folder / "opencode.json").read_text()
    assert "// mine: memhub keeps this comment\n" in text and "/* trailing comma */" in text
    work = isolated_home.root / "work"
    work.mkdir()
    assert_loaded(opencode_cli, env, work, folder / "skills")
    module = folder / "memhub-hooks" / "oc-e2e" / "memhub-hooks.js"
    plugins = debug(opencode_cli, env, work, "config")["plugin"]
    assert any(module.as_uri() in str(p) for p in plugins), plugins
    listed = run([opencode_cli, "mcp", "list"], env=env, cwd=work)
    assert listed.returncode == 0, describe(listed)
    assert "fakegh" in listed.stdout and "connected" in listed.stdout, describe(listed)
    home = isolated_home.home
    fake_model.bash_commands = [
        f'echo allowed > "{home}/allowed.txt"',
        f'echo {FORBIDDEN} > "{home}/forbidden.txt"',
    ]
    body = session_request(opencode_cli, env, work, fake_model)
    assert INSTRUCTIONS_MARK in body, "AGENTS.md reaches the system prompt"
    assert SKILL_MARK in body, "the skill is offered"
    assert TOOL in body, "the MCP server's tool is offered"
    # the install's plugin ran the hooks; in-folder names ${plugin_root}: not installed
    fired = (home / HOOK_LOG).read_text().splitlines()
    assert fired == [f"start {module.parent.parent}", "prompt", "before", "after", "before", "turn"]
    assert (home / "allowed.txt").is_file()
    assert not (home / "forbidden.txt").exists(), "the guard's exit code 2 blocked the call"
    proc = memhub(env, "uninstall", hub, "--hosts", "opencode")
    assert proc.returncode == 0, describe(proc)
    assert (folder / "opencode.json").read_text() == own, "uninstall gives the file back"
    assert not (folder / "memhub-hooks").exists()
    assert "plugin" not in debug(opencode_cli, env, work, "config") or not [
        p for p in debug(opencode_cli, env, work, "config")["plugin"] if "memhub" in str(p)
    ]


def test_project_install_is_loaded_from_the_checkout(
    opencode_cli: Path, isolated_home: IsolatedHome, hub: Path, fake_model: FakeAnthropic
) -> None:
    folder = isolated_home.home / ".config" / "opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.json").write_text(json.dumps(person_config(fake_model.origin)))
    project = isolated_home.root / "project"
    project.mkdir()
    (project / ".git").mkdir()  # OpenCode's project root is the worktree
    env = env_for(isolated_home, opencode_cli)
    proc = memhub(env, "apply", hub, "--hosts", "opencode", "--scope", "project", cwd=project)
    assert proc.returncode == 0, describe(proc)
    assert (project / "opencode.json").is_file() and (project / "AGENTS.md").is_file()
    assert not (folder / "skills").exists()
    assert_loaded(opencode_cli, env, project, project / ".opencode" / "skills")
    body = session_request(opencode_cli, env, project, fake_model)
    assert INSTRUCTIONS_MARK in body and SKILL_MARK in body and TOOL in body
    # the project's .opencode/memhub-hooks/oc-e2e/memhub-hooks.js, named in its opencode.json
    fired = (isolated_home.home / HOOK_LOG).read_text().splitlines()
    module_folder = project / ".opencode" / "memhub-hooks"
    assert fired[:2] == [f"start {module_folder}", "prompt"] and fired[-1] == "turn", fired


def test_bundle_folder_loads_with_opencode_config_dir(
    opencode_cli: Path, isolated_home: IsolatedHome, hub: Path, fake_model: FakeAnthropic
) -> None:
    folder = isolated_home.home / ".config" / "opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.json").write_text(json.dumps(person_config(fake_model.origin)))
    out = isolated_home.root / "dist"
    env = env_for(isolated_home, opencode_cli)
    proc = memhub(env, "build", hub, "--out", out)
    assert proc.returncode == 0, describe(proc)
    bundle = out / "opencode" / "oc-e2e"
    assert sorted(p.name for p in bundle.iterdir()) == [
        "AGENTS.md",
        "README.md",
        "opencode.json",
        "plugins",
        "skills",
    ]
    work = isolated_home.root / "work"
    work.mkdir()
    loaded = {**env, "OPENCODE_CONFIG_DIR": str(bundle)}
    assert_loaded(opencode_cli, loaded, work, bundle / "skills")
    home = isolated_home.home
    fake_model.bash_commands = [
        f'echo allowed > "{home}/allowed.txt"',
        f'echo {FORBIDDEN} > "{home}/forbidden.txt"',
    ]
    body = session_request(opencode_cli, loaded, work, fake_model)
    assert INSTRUCTIONS_MARK in body and SKILL_MARK in body and TOOL in body
    # the generated plugins/memhub-hooks.js ran the hub's command hooks, in event order
    fired = (home / HOOK_LOG).read_text().splitlines()
    assert fired == [f"start {bundle}", "prompt", "before", "after", "before", "turn", "folder"]
    assert (home / "allowed.txt").is_file()
    assert not (home / "forbidden.txt").exists(), "the guard's exit code 2 blocked the call"
    assert GUARD_SAYS in body, "the guard's stderr is the tool's error the model reads"


def test_doctor_asks_opencode_to_load_its_config(
    opencode_cli: Path, isolated_home: IsolatedHome, hub: Path
) -> None:
    env = env_for(isolated_home, opencode_cli)
    proc = memhub(env, "apply", hub, "--hosts", "opencode")
    assert proc.returncode == 0, describe(proc)
    proc = memhub(env, "doctor", "--hosts", "opencode", "--json")
    assert proc.returncode == 0, describe(proc)
    checks = json.loads(proc.stdout)["data"]["checks"]
    loader = [c for c in checks if c["name"] == "host-loader"]
    assert [c["status"] for c in loader] == ["ok"], checks
    config = isolated_home.home / ".config" / "opencode" / "opencode.json"
    data = json.loads(config.read_text())
    # a person's hand-written server of the wrong shape: OpenCode refuses the whole file
    data["mcp"]["mine"] = {"type": "local", "command": "not-a-list"}
    config.write_text(json.dumps(data, indent=2) + "\n")
    proc = memhub(env, "doctor", "--hosts", "opencode", "--json")
    assert proc.returncode == 1, describe(proc)
    checks = json.loads(proc.stdout)["data"]["checks"]
    failed = [c for c in checks if c["name"] == "host-loader"]
    assert [c["status"] for c in failed] == ["fail"], checks
    assert "Configuration is invalid" in failed[0]["detail"], failed
    assert "mcp.mine.command" in failed[0]["detail"], failed


def test_shipped_agents_and_commands_load_in_opencode(
    opencode_cli: Path, isolated_home: IsolatedHome, tmp_path: Path
) -> None:
    """tests/data/shipped built for OpenCode: its Claude-style agents and commands (with
    `tools:`, `color:`, `allowed-tools:` that OpenCode's schema refuses) load from the
    bundle's config folder as OpenCode agents (subagents) and commands."""
    from memhub.hubspec import load

    hub = tmp_path / "shipped"
    shutil.copytree(REPO_ROOT / "tests" / "data" / "shipped", hub)
    loaded_hub = load(hub)
    out = isolated_home.root / "dist"
    env = env_for(isolated_home, opencode_cli)
    proc = memhub(env, "build", hub, "--out", out, "--host", "opencode")
    assert proc.returncode == 0, describe(proc)
    bundle = out / "opencode" / loaded_hub.plugin.name
    work = isolated_home.root / "work"
    work.mkdir()
    config = debug(opencode_cli, {**env, "OPENCODE_CONFIG_DIR": str(bundle)}, work, "config")
    for agent in loaded_hub.agents:
        assert config["agent"][agent.name]["description"] == agent.description
        assert config["agent"][agent.name]["mode"] == "subagent"
        assert config["agent"][agent.name]["prompt"].strip() == agent.body.strip()
    for command in loaded_hub.commands:
        assert config["command"][command.name]["description"] == command.description
        assert config["command"][command.name]["template"].strip() == command.body.strip()
    listed = run(
        [opencode_cli, "agent", "list"], env={**env, "OPENCODE_CONFIG_DIR": str(bundle)}, cwd=work
    )
    assert listed.returncode == 0, describe(listed)
    for agent in loaded_hub.agents:
        assert f"{agent.name} (subagent)" in listed.stdout, listed.stdout
