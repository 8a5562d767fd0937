"""A repository that is one plugin (tests/data/repos/root-plugin: manifests, marketplace files
listing `./`, skills, agents and commands at the root), imported and built back with
`plugin.path: .`: `claude plugin validate --strict` reports on the build what it reports on
the original, and Claude Code and Codex install the built root plugin from its marketplace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main

from .harness import describe, parse_claude_details, run, validation_problems

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "repos" / "root-plugin"
REF = "solo@solo-market"


@pytest.fixture
def built_root(tmp_path: Path) -> Path:
    into, out = tmp_path / "hub", tmp_path / "bundle"
    assert main(["import", "--from-repo", str(FIXTURE), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    assert (out / ".claude-plugin" / "plugin.json").is_file()
    assert not (out / "plugins").exists()
    return out


def _report(claude: Path, target: Path, env: dict[str, str]) -> tuple[bool, list[str]]:
    proc = run([claude, "plugin", "validate", "--strict", "--json", target], env=env)
    report = json.loads(proc.stdout)
    problems = [p.replace(str(target), "<target>") for p in validation_problems(report)]
    return report.get("success") is True and proc.returncode == 0, problems


def test_claude_validates_and_installs_the_built_root_plugin(
    built_root: Path, claude_cli: Path, isolated_home
) -> None:
    env = isolated_home.env
    ours = _report(claude_cli, built_root, env)
    assert ours == _report(claude_cli, FIXTURE, env)
    assert ours == (True, []), ours
    # the manifest alone, as a plugin folder
    assert _report(claude_cli, built_root / ".claude-plugin" / "plugin.json", env)[0]

    added = run([claude_cli, "plugin", "marketplace", "add", built_root], env=env)
    assert added.returncode == 0 and "solo-market" in added.stdout, describe(added)
    installed = run([claude_cli, "plugin", "install", REF], env=env)
    assert f"Successfully installed plugin: {REF}" in installed.stdout, describe(installed)
    details = run([claude_cli, "plugin", "details", REF], env=env)
    inventory = parse_claude_details(details.stdout)
    # Claude Code lists the plugin's commands among its skills
    assert inventory["Skills"] == (2, ["greet", "hello"]), details.stdout
    assert inventory["Agents"] == (1, ["helper"]), details.stdout
    assert inventory["MCP servers"] == (1, ["notes"]), details.stdout


def test_codex_installs_the_built_root_plugin(
    built_root: Path, codex_cli: Path, isolated_home, git_repo: Path
) -> None:
    env = isolated_home.env
    added = run([codex_cli, "plugin", "marketplace", "add", built_root], env=env)
    assert added.returncode == 0, describe(added)
    plugin_add = run([codex_cli, "plugin", "add", REF, "--json"], env=env)
    assert plugin_add.returncode == 0, describe(plugin_add)
    installed = Path(json.loads(plugin_add.stdout)["installedPath"])
    assert (installed / ".codex-plugin" / "plugin.json").is_file()
    prompt = run([codex_cli, "debug", "prompt-input", "hello"], env=env, cwd=git_repo)
    assert "solo:hello:" in prompt.stdout, describe(prompt)
    mcp = run([codex_cli, "mcp", "list", "--json"], env=env, cwd=git_repo)
    assert {s["name"] for s in json.loads(mcp.stdout)} == {"notes"}, mcp.stdout
