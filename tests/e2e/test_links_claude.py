"""Links kept as links through the real Claude Code CLI, offline: `claude plugin validate
--strict` reports the same on the fixture repository (tests/data/repos/linked) and on the
build of its import, and a local marketplace install of the built plugin whose skills/,
hooks/ and scripts/ are links into a sibling plugin loads the linked skill and hook.

Seen (claude 2.1.x): validate reads nothing through a linked folder and warns (hooks/ as a
link is a blocking HOOKS_FILE_UNREAD finding for the directory); `plugin install` from a
local marketplace copies the plugin into its cache with the links followed (real folders
there), and `plugin details` lists the linked skill and hook."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main

from .harness import describe, parse_claude_details, run, validation_problems

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "repos" / "linked"
DEV = "plugins/tools-dev"


@pytest.fixture
def bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    into, out = tmp_path / "hub", tmp_path / "bundle"
    assert main(["import", "--from-repo", str(FIXTURE), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into / "hub.yaml"), "--out", str(out)]) == 0
    capsys.readouterr()
    assert os.readlink(out / DEV / "skills") == "../tools/skills"
    return out


def _report(claude: Path, target: Path, env: dict[str, str]) -> tuple[bool, list[str]]:
    proc = run([claude, "plugin", "validate", "--strict", "--json", target], env=env)
    report = json.loads(proc.stdout)
    problems = [p.replace(str(target), "<target>") for p in validation_problems(report)]
    return report.get("success") is True and proc.returncode == 0, problems


@pytest.mark.parametrize("folder", ["", "plugins/tools", DEV])
def test_validate_reports_the_same_on_the_fixture_and_the_build(
    folder: str, claude_cli: Path, isolated_home, bundle: Path
) -> None:
    theirs = _report(claude_cli, FIXTURE / folder, isolated_home.env)
    ours = _report(claude_cli, bundle / folder, isolated_home.env)
    assert ours == theirs
    if folder == DEV:  # the oracle saw the links as links
        assert any("is a symlink" in p for p in ours[1]), ours


def test_a_local_marketplace_install_loads_the_linked_skill_and_hook(
    claude_cli: Path, isolated_home, bundle: Path
) -> None:
    env = isolated_home.env
    added = run([claude_cli, "plugin", "marketplace", "add", bundle], env=env)
    assert "Successfully added marketplace: linked-tools" in added.stdout, describe(added)
    ref = "tools-dev@linked-tools"
    installed = run([claude_cli, "plugin", "install", ref], env=env)
    assert f"Successfully installed plugin: {ref}" in installed.stdout, describe(installed)
    details = run([claude_cli, "plugin", "details", ref], env=env)
    inventory = parse_claude_details(details.stdout)
    assert inventory["Skills"] == (1, ["greet"]), details.stdout
    assert inventory["Hooks"][1] == ["SessionStart"], details.stdout
    state = json.loads(
        (isolated_home.claude_dir / "plugins" / "installed_plugins.json").read_text()
    )
    cached = Path(state["plugins"][ref][0]["installPath"])
    assert (cached / "skills" / "greet" / "SKILL.md").is_file()
    assert not (cached / "skills").is_symlink()  # Claude copies what the link reaches
