"""`memhub import --from-repo` on plugin folders nested inside other plugin folders (a suite
plugin whose own `plugins/` holds plugins of their own, with their own marketplace): each
plugin comes back in place, and a clash of two hub files is a row, never a refused import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo_market import _settle_clashes, import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

from tests.compiler.repofiles import write_repo as write

SUITE = "plugins/acme/suite"


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


def test_a_listed_folder_inside_a_plugin_folder_is_its_own_plugin(tmp_path: Path) -> None:
    """A marketplace lists a folder without a manifest that sits inside another plugin's
    folder: its files are that plugin's only (they were the outer one's too: exit 2)."""
    entries = [{"name": "a", "source": "./packs/a"}, {"name": "b", "source": "./packs/a/b"}]
    repo = write(
        tmp_path / "repo",
        {
            ".claude-plugin/marketplace.json": {
                "name": "m",
                "owner": {"name": "x"},
                "plugins": entries,
            },
            "packs/a/.claude-plugin/plugin.json": {
                "name": "a",
                "version": "1.0.0",
                "description": "A",
            },
            "packs/a/b/skills/t/SKILL.md": "---\nname: t\ndescription: T.\n---\nT\n",
            "packs/a/b/NOTES.md": "notes\n",
        },
    )
    tree = read_tree(repo)
    imported = import_repo(tree)
    outer = next(hub for hub, _ in imported.plugins if hub.folder == "packs/a")
    assert outer.files == {}
    result = round_trip(tree, imported)
    assert result.unreproduced == []
    assert result.files_same == result.files_total == len(tree)


def test_a_root_plugin_named_as_a_plugin_folder_is_placed_beside_it(tmp_path: Path) -> None:
    """A root plugin's hub goes to INTO/<its name>; a plugin folder of that name takes that
    place, so the root plugin's goes to <name>-root (both once wrote tools/hub.yaml: exit 2)."""
    repo = write(
        tmp_path / "repo",
        {
            ".claude-plugin/plugin.json": {"name": "tools", "version": "1.0.0", "description": "R"},
            "NOTES.md": "root\n",
            "tools/.codex-plugin/plugin.json": {
                "name": "inner",
                "version": "1.0.0",
                "description": "I",
            },
            "tools/NOTES.md": "inner\n",
        },
    )
    tree = read_tree(repo)
    imported = import_repo(tree)
    assert sorted(into for _, into in imported.plugins) == ["tools", "tools-root"]
    result = round_trip(tree, imported)
    assert result.unreproduced == []
    assert result.files_same == result.files_total == len(tree)


def test_two_plugins_writing_one_hub_file_give_rows_not_a_refusal(tmp_path: Path) -> None:
    """The safety net: should two plugin hubs still write one hub file, the second plugin's
    file is a row naming both, and the import's files are written (no RepoError)."""
    tree = read_tree(suite_of_plugins(tmp_path / "repo"))
    imported = import_repo(tree)
    (suite, _), (alpha, alpha_into) = (
        next(p for p in imported.plugins if p[0].name == n) for n in ("suite", "alpha")
    )
    suite.files["plugins/alpha/LICENSE"] = tree[f"{SUITE}/plugins/alpha/LICENSE"]
    suite.shipped.append("plugins/alpha/LICENSE")
    _settle_clashes(imported)
    assert f"{alpha_into}/LICENSE" in imported.files  # no "two sources" RepoError
    rows = {u.path: u.reason for u in imported.unreproduced}
    assert "plugins/alpha/LICENSE" not in suite.files and "LICENSE" in alpha.files
    why = rows[f"{SUITE}/plugins/alpha/LICENSE"]
    assert f"{alpha_into}/LICENSE is written for plugin 'alpha'" in why
