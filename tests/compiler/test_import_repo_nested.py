"""`memhub import --from-repo` on plugin folders nested inside other plugin folders (a suite
plugin whose own `plugins/` holds plugins of their own, with their own marketplace): each
plugin comes back in place, and a clash of two hub files is a row, never a refused import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

SUITE = "plugins/acme/suite"


def write(root: Path, files: dict[str, Any]) -> Path:
    """Write `files` (path -> JSON value, or text) under `root`."""
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = value if isinstance(value, str) else json.dumps(value, indent=2) + "\n"
        path.write_text(text, encoding="utf-8")
    return root


def suite_of_plugins(root: Path) -> Path:
    """A marketplace listing a suite plugin that holds two plugins (and a marketplace of
    them) in its own plugins/ folder; each holds files right in its folder too."""
    inner = {}
    for name in ("alpha", "beta"):
        folder = f"{SUITE}/plugins/{name}"
        manifest = {"name": name, "version": "1.0.0", "description": f"The {name} part."}
        inner |= {
            f"{folder}/.claude-plugin/plugin.json": manifest,
            f"{folder}/.codex-plugin/plugin.json": manifest,
            f"{folder}/.codexignore": "*.log\n",
            f"{folder}/LICENSE": f"{name} licence\n",
            f"{folder}/skills/{name}-tip/SKILL.md": (
                f"---\nname: {name}-tip\ndescription: Use for {name}.\n---\nTip.\n"
            ),
        }
    sources = [{"name": n, "source": f"./plugins/{n}"} for n in ("alpha", "beta")]
    return write(
        root,
        {
            ".claude-plugin/marketplace.json": {
                "name": "acme",
                "owner": {"name": "Acme"},
                "plugins": [{"name": "suite", "source": f"./{SUITE}"}],
            },
            f"{SUITE}/.codex-plugin/plugin.json": {
                "name": "suite",
                "version": "1.0.0",
                "description": "Every part.",
            },
            f"{SUITE}/.codexignore": "*.log\n",
            f"{SUITE}/LICENSE": "suite licence\n",
            f"{SUITE}/.claude-plugin/marketplace.json": {
                "name": "suite-parts",
                "owner": {"name": "Acme"},
                "plugins": sources,
            },
            **inner,
        },
    )


def test_plugins_nested_in_a_plugin_folder_each_come_back_in_place(tmp_path: Path) -> None:
    """The files right in a nested plugin's folder are its own, not the outer plugin's too
    (the import once refused the repository: "two sources would write this hub file")."""
    tree = read_tree(suite_of_plugins(tmp_path / "repo"))
    imported = import_repo(tree)
    folders = {hub.name: hub.folder for hub, _ in imported.plugins}
    assert folders == {
        "suite": SUITE,
        "alpha": f"{SUITE}/plugins/alpha",
        "beta": f"{SUITE}/plugins/beta",
    }
    suite = next(hub for hub, _ in imported.plugins if hub.name == "suite")
    assert sorted(suite.files) == [".codexignore", "LICENSE"]
    result = round_trip(tree, imported)
    assert result.unreproduced == []
    assert result.files_same == result.files_total == len(tree)


def test_a_nested_suite_imports_and_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the command: exit 0, every hub written, the build gives each file back."""
    repo = suite_of_plugins(tmp_path / "repo")
    into = tmp_path / "hub"
    code = main(["import", "--from-repo", str(repo), "--into", str(into), "--yes", "--json"])
    reply = json.loads(capsys.readouterr().out)
    assert reply["data"]["round_trip"]["cannot_reproduce"] == []
    assert code == 0
    assert (into / SUITE / "plugins" / "alpha" / "hub.yaml").is_file()
