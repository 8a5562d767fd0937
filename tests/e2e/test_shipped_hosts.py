"""Shipped files, agents and commands, proven by the real Claude Code and Gemini CLI offline.

The hub is tests/data/shipped: scripts/ (mark.sh executable), references, two agents, two
commands, and a session_start hook running `"${plugin_root}/scripts/mark.sh"`, which writes
`$MEMHUB_SHIPPED_MARKER`.

* `test_claude_validates_the_bundle`: `claude plugin validate --strict --json` passes on the
  bundle root and the plugin folder, and names the plugin's agents and commands.
* `test_claude_session_offers_them_and_runs_the_shipped_script`: the plugin installed from
  the bundle's marketplace; one `claude -p` turn against the fake model. The request lists
  each agent (Agent tool) and each command (Skill tool) under the plugin's namespace, and
  the hook ran the shipped executable from the installed copy.
* `test_gemini_loads_the_command_toml_and_the_agents`: the extension installed in Gemini
  CLI; `gemini -p "/review-pr 42"` sends the command's prompt with the argument in place
  of `{{args}}`, lists both agents as subagents, and the extension's hook ran the script.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from .harness import REPO_ROOT, describe, run
from .scripted import claude as claude_session
from .scripted import gemini as gemini_session
from .scripted import host_env
from .test_gemini_extension import build_extension, gemini_home, install_extension

pytestmark = pytest.mark.e2e

HUB = REPO_ROOT / "tests" / "data" / "shipped"
DATA = yaml.safe_load((HUB / "hub.yaml").read_text(encoding="utf-8"))
PLUGIN, MARKET = DATA["plugin"]["name"], DATA["marketplace"]["name"]
AGENTS = sorted(p.stem for p in (HUB / "agents").glob("*.md"))
COMMANDS = sorted(p.stem for p in (HUB / "commands").glob("*.md"))
MARKER_TEXT = "shipped script ran\n"  # what scripts/mark.sh writes


def _validate(claude: Path, target: Path, env: dict[str, str]) -> dict:
    proc = run([claude, "plugin", "validate", "--strict", "--json", target], env=env)
    assert proc.returncode == 0, describe(proc)
    report = json.loads(proc.stdout)
    assert report["success"] is True and report["strict"] is True, report
    assert not report["manifest"]["errors"] and not report["manifest"]["warnings"], report
    return report


def test_claude_validates_the_bundle(claude_cli: Path, isolated_home, bundle_for) -> None:
    bundle = bundle_for(HUB)
    assert (bundle / "plugins" / PLUGIN / "scripts" / "mark.sh").stat().st_mode & 0o111
    _validate(claude_cli, bundle, isolated_home.env)
    provides = _validate(claude_cli, bundle / "plugins" / PLUGIN, isolated_home.env)["provides"]
    assert sorted(provides["agents"]) == [f"{PLUGIN}:{a}" for a in AGENTS], provides
    assert sorted(provides["commands"]) == [f"{PLUGIN}:{c}" for c in COMMANDS], provides


def test_claude_session_offers_them_and_runs_the_shipped_script(
    claude_cli: Path, isolated_home, git_repo: Path, bundle_for
) -> None:
    bundle = bundle_for(HUB)
    marker = isolated_home.root / "marker"
    env = host_env(isolated_home, MEMHUB_SHIPPED_MARKER=str(marker))
    for argv in (
        ["plugin", "marketplace", "add", bundle],
        ["plugin", "install", f"{PLUGIN}@{MARKET}"],
    ):
        proc = run([claude_cli, *argv], env=env)
        assert proc.returncode == 0, describe(proc)
    session = claude_session(claude_cli, env, git_repo, "hello", [])
    sent = json.dumps(session.bodies())
    for name in AGENTS + COMMANDS:
        assert f"- {PLUGIN}:{name}: " in sent, (name, sent[-4000:])
    assert marker.read_text() == MARKER_TEXT, describe(session.proc)


def test_gemini_loads_the_command_toml_and_the_agents(
    gemini_cli: Path, isolated_home, git_repo: Path, tmp_path: Path
) -> None:
    folder = build_extension(HUB, tmp_path / "bundle")
    assert (folder / "commands" / "review-pr.toml").is_file()
    gemini_home(isolated_home.home)
    install_extension(gemini_cli, folder, isolated_home.env, isolated_home.root)
    marker = isolated_home.root / "marker"
    env = host_env(isolated_home, MEMHUB_SHIPPED_MARKER=str(marker))
    session = gemini_session(gemini_cli, env, git_repo, "/review-pr 42", [])
    sent = json.dumps(session.bodies())
    body = (HUB / "commands" / "review-pr.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    expected = body.strip().replace("$ARGUMENTS", "42")
    assert expected in sent, sent[-4000:]
    for name in AGENTS:
        assert f"<name>{name}</name>" in sent, (name, sent[-4000:])
    assert marker.read_text() == MARKER_TEXT, describe(session.proc)
