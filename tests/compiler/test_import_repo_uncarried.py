"""Agents and commands of a plugin whose hosts carry none (Codex plugins carry no agents or
commands): shipped as they are, so the build gives them back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.compiler.repofiles import trip_with_hub

PLUGIN = "plugins/kit"
MANIFEST = {"name": "kit", "version": "1.0.0", "description": "A kit", "skills": "./skills/"}


def _trip(root: Path, files: dict[str, Any]) -> tuple[dict[str, str], tuple[int, int], Any]:
    return trip_with_hub(root, files, "kit")


def test_commands_and_agents_of_a_codex_only_plugin_come_back(tmp_path: Path) -> None:
    listed, files, hub = _trip(
        tmp_path / "repo",
        {
            f"{PLUGIN}/.codex-plugin/plugin.json": json.dumps(MANIFEST, indent=2) + "\n",
            f"{PLUGIN}/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nbody\n",
            f"{PLUGIN}/commands/fix.md": "# /fix\n\nFix it.\n",
            f"{PLUGIN}/commands/run.md": "---\ndescription: Run it\n---\nRun.\n",
            f"{PLUGIN}/agents/expert.md": "---\nname: expert\ndescription: e\n---\nAn expert.\n",
        },
    )
    assert listed == {} and files[0] == files[1] == 5
    assert hub["hosts"] == ["codex"]
    assert "commands" not in hub and "agents" not in hub  # no hub components: plain files
    assert {f["from"] for f in hub["files"]} >= {"commands/fix.md", "agents/expert.md"}


def test_a_claude_plugin_keeps_its_commands_as_components(tmp_path: Path) -> None:
    listed, files, hub = _trip(
        tmp_path / "repo",
        {
            f"{PLUGIN}/.claude-plugin/plugin.json": json.dumps(MANIFEST, indent=2) + "\n",
            f"{PLUGIN}/.codex-plugin/plugin.json": json.dumps(MANIFEST, indent=2) + "\n",
            f"{PLUGIN}/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nbody\n",
            f"{PLUGIN}/commands/run.md": "---\ndescription: Run it\n---\nRun.\n",
        },
    )
    assert listed == {} and files[0] == files[1]
    assert hub["commands"] == "commands"
