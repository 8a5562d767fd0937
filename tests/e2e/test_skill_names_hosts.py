"""Skills named the way published plugins name them, loaded by the real hosts.

A hub with a SKILL.md without `name:` (`handoff`) and one named 'Agent Development' in the
folder `agent-development`, built for Claude Code, Gemini CLI and OpenCode:

* `claude plugin validate --strict` passes the plugin folder (Claude Code takes both);
* `gemini skills list` lists 'Agent Development' and not `handoff`, and `opencode debug
  skill` the same from the bundle's config folder: the `unsupported` rows the build gives
  those hosts for `handoff` are what the hosts do.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from .conftest import IsolatedHome, _host_cli
from .harness import describe, run

pytestmark = pytest.mark.e2e

HUB = """version: 1
plugin:
  name: notes-kit
  version: 1.0.0
  description: Skills named as published.
  author: {name: Notes}
  license: MIT
marketplace: {name: notes-market, owner: {name: Notes}}
hosts: [claude, gemini, opencode]
"""
NO_NAME = "---\ndescription: Use when handing a session to a teammate.\n---\n\nWrite it.\n"
SPACED = "---\nname: Agent Development\ndescription: Use when writing a subagent.\n---\n\nGo.\n"


@pytest.fixture()
def bundle(tmp_path: Path, isolated_home: IsolatedHome) -> Path:
    hub = tmp_path / "hub"
    for rel, text in {
        "hub.yaml": HUB,
        "skills/handoff/SKILL.md": NO_NAME,
        "skills/agent-development/SKILL.md": SPACED,
    }.items():
        (hub / rel).parent.mkdir(parents=True, exist_ok=True)
        (hub / rel).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "memhub.compiler.cli.main", "build", hub, "--out", out]
    proc = run(command, env=isolated_home.env)
    assert proc.returncode == 0, describe(proc)
    return out


def test_claude_validates_both_skills(
    claude_cli: Path, isolated_home: IsolatedHome, bundle: Path
) -> None:
    target = bundle / "plugins" / "notes-kit"
    proc = run(
        [claude_cli, "plugin", "validate", "--strict", "--json", target], env=isolated_home.env
    )
    report = json.loads(proc.stdout)
    assert proc.returncode == 0 and report.get("success") is True, describe(proc)


def test_gemini_lists_the_named_skill_only(
    gemini_cli: Path, isolated_home: IsolatedHome, bundle: Path
) -> None:
    skills = isolated_home.home / ".agents" / "skills"  # where memhub installs Gemini's skills
    shutil.copytree(bundle / "gemini" / "notes-kit" / "skills", skills)
    proc = run([gemini_cli, "skills", "list"], env=isolated_home.env, cwd=isolated_home.root)
    assert proc.returncode == 0, describe(proc)
    assert "Agent Development [Enabled]" in proc.stdout, describe(proc)
    assert "handoff" not in proc.stdout, describe(proc)


def test_opencode_lists_the_named_skill_only(isolated_home: IsolatedHome, bundle: Path) -> None:
    opencode = _host_cli("opencode")
    folder = bundle / "opencode" / "notes-kit"
    env = {**isolated_home.env, "OPENCODE_CONFIG_DIR": str(folder)}
    proc = run([opencode, "debug", "skill"], env=env, cwd=isolated_home.root)
    assert proc.returncode == 0, describe(proc)
    names = {s["name"] for s in json.loads(proc.stdout)}
    assert "Agent Development" in names and "handoff" not in names, names
