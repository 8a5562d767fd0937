"""`memhub import --from-repo` on repositories shaped as published ones are, and on odd shapes:
each round-trips whole, or gives a clear result (exit 1, each path with why) or a clear error
(exit 2, nothing written); never an unexpected error (70)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

from tests.hubs import REPO

REPOS = REPO / "tests" / "data" / "repos"


def imported(name: str, into: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    """The import's JSON reply (written into `into`); its round trip must be whole."""
    code = main(
        ["import", "--from-repo", str(REPOS / name), "--into", str(into), "--yes", "--json"]
    )
    reply = json.loads(capsys.readouterr().out)
    assert reply["data"]["round_trip"]["cannot_reproduce"] == []
    assert code == 0
    return reply["data"]


def hub(into: Path, folder: str = "") -> dict[str, object]:
    return yaml.safe_load((into / folder / "hub.yaml").read_text())


def test_published_shapes_round_trip_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = imported("published-shapes", tmp_path / "hub", capsys)
    files = data["round_trip"]["files"]  # type: ignore[index]
    assert files == {"reproduced": 13, "total": 13}


def test_marketplace_keys_memhub_writes_and_the_repository_lacks_are_nulled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    imported("published-shapes", tmp_path / "hub", capsys)
    market = hub(tmp_path / "hub")
    claude = market["overrides"]["claude"]  # type: ignore[index]
    assert claude["marketplace"]["$schema"] is None
    assert claude["key_order"]["marketplace"][:3] == ["name", "version", "description"]
    # the entries' order, merged over entries with and without version and author
    nested = [i for i in claude["key_order"]["marketplace"] if isinstance(i, dict)]
    assert {"owner": ["email", "name"]} in nested
    assert nested[-1]["plugins"] == [
        "name",
        "description",
        "version",
        "author",
        "source",
        "category",
    ]


def test_codex_interface_keys_the_repository_lacks_are_nulled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    imported("published-shapes", tmp_path / "hub", capsys)
    recall = hub(tmp_path / "hub", "plugins/recall")
    interface = recall["overrides"]["codex"]["manifest"]["interface"]  # type: ignore[index]
    assert {k for k, v in interface.items() if v is None} == {
        "longDescription",
        "category",
        "websiteURL",
        "defaultPrompt",
    }


def test_a_server_only_claudes_files_carry_is_limited_to_claude(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex and Cursor manifests without `mcpServers`: those hosts get no server."""
    imported("published-shapes", tmp_path / "hub", capsys)
    recall = hub(tmp_path / "hub", "plugins/recall")
    assert recall["mcp"]["servers"]["recall"]["hosts"] == ["claude"]  # type: ignore[index]


def test_a_plugin_without_version_or_readme_keeps_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    imported("published-shapes", tmp_path / "hub", capsys)
    board = hub(tmp_path / "hub", "plugins/board")
    assert board["plugin"]["readme"] is False  # type: ignore[index]
    assert board["overrides"]["claude"]["manifest"] == {"version": None}  # type: ignore[index]


def test_a_folder_only_a_claude_entry_describes_gets_no_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    imported("published-shapes", tmp_path / "hub", capsys)
    toolkit = hub(tmp_path / "hub", "plugins/toolkit")
    assert toolkit["overrides"] == {"claude": {"manifest": None}}
    assert toolkit["plugin"]["version"] == "0.2.0"  # type: ignore[index]  # from the entry


def test_plugin_folders_without_a_marketplace_round_trip_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder of plugin folders (no marketplace file) was an unexpected error (70)."""
    data = imported("plugin-folders", tmp_path / "hub", capsys)
    assert data["round_trip"]["files"] == {"reproduced": 4, "total": 4}  # type: ignore[index]
    assert hub(tmp_path / "hub")["marketplaces"] == []


def write(root: Path, files: dict[str, object]) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))
    return root


def refusal(repo: Path, into: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"])
    err = capsys.readouterr().err
    assert code == 2
    assert not into.exists()
    return err


MARKET = ".claude-plugin/marketplace.json"


def test_an_empty_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "repo").mkdir()
    assert "no plugin found" in refusal(tmp_path / "repo", tmp_path / "hub", capsys)


def test_a_marketplace_listing_nothing_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = write(tmp_path / "repo", {MARKET: {"name": "m", "owner": {"name": "x"}, "plugins": []}})
    err = refusal(repo, tmp_path / "hub", capsys)
    assert f"{MARKET} lists no plugin" in err


def test_a_marketplace_naming_a_missing_folder_is_a_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The entry naming no folder is left out, named in the marketplace file's row; the
    plugin beside it is imported (the whole repository was once refused)."""
    entries = [{"name": "a", "source": "./a"}, {"name": "gone", "source": "./plugins/gone"}]
    repo = write(
        tmp_path / "repo",
        {
            MARKET: {"name": "m", "owner": {"name": "x"}, "plugins": entries},
            "a/.claude-plugin/plugin.json": {"name": "a", "version": "1.0.0", "description": "A."},
        },
    )
    into = tmp_path / "hub"
    code = main(["import", "--from-repo", str(repo), "--into", str(into), "--yes", "--json"])
    rows = json.loads(capsys.readouterr().out)["data"]["round_trip"]["cannot_reproduce"]
    assert code == 1
    assert rows == [
        {
            "path": MARKET,
            "reason": "plugins/1/source: './plugins/gone' names no folder of the repository "
            "and no plugin of this import, so the marketplace hub cannot list it (no host "
            "installs it either). Fix: name the plugin's folder",
        }
    ]


def test_a_marketplace_source_leaving_the_repository_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [{"name": "up", "source": "./../../etc"}]
    repo = write(
        tmp_path / "repo", {MARKET: {"name": "m", "owner": {"name": "x"}, "plugins": entries}}
    )
    err = refusal(repo, tmp_path / "hub", capsys)
    assert "no plugin found" in err and "lists folders holding no file of the repository" in err
    assert "(./../../etc)" in err


def test_a_plugin_at_the_repository_root_round_trips_as_plugin_path_dot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No marketplace file: a marketplace hub writing none (`marketplaces: []`, as a plugin
    hub would write its own into the plugin itself) over the plugin hub, at the root."""
    manifest = {"name": "solo", "version": "1.0.0", "description": "Solo."}
    skill = "---\nname: s\ndescription: S.\n---\nS\n"
    repo = write(
        tmp_path / "repo",
        {".claude-plugin/plugin.json": manifest, "skills/s/SKILL.md": skill, "LICENSE": "MIT\n"},
    )
    into = tmp_path / "hub"
    code = main(["import", "--from-repo", str(repo), "--into", str(into), "--yes", "--json"])
    trip = json.loads(capsys.readouterr().out)["data"]["round_trip"]
    assert trip == {
        "files": {"reproduced": 3, "total": 3},
        "json_key_paths": {"reproduced": 3, "total": 3},
        "cannot_reproduce": [],
    }
    assert code == 0
    assert hub(into)["marketplaces"] == []
    plugin = hub(into, "solo")["plugin"]
    assert plugin["path"] == "."  # type: ignore[index]


def test_a_root_plugin_only_a_marketplace_entry_names_round_trips(tmp_path: Path) -> None:
    """`source: "./"` names the repository root: its files are the plugin's."""
    entry = {"name": "x", "description": "X.", "version": "1.0.0", "source": "./"}
    skill = "---\nname: s\ndescription: S.\n---\nS\n"
    repo = write(
        tmp_path / "repo",
        {
            MARKET: {"name": "m", "owner": {"name": "x"}, "plugins": [entry]},
            "skills/s/SKILL.md": skill,
        },
    )
    tree = read_tree(repo)
    result = round_trip(tree, import_repo(tree))
    assert result.unreproduced == []
    assert (result.files_same, result.files_total) == (2, 2)


def test_a_root_plugin_keeps_out_the_folders_that_are_not_its_own(tmp_path: Path) -> None:
    """Beside a plugin folder, another host's folder and a build record, a root plugin ships
    none of them: the nested plugin is its own, the others are files of no plugin."""
    entries = [{"name": "solo", "source": "./"}, {"name": "inner", "source": "./plugins/inner"}]
    repo = write(
        tmp_path / "repo",
        {
            MARKET: {"name": "m", "owner": {"name": "x"}, "plugins": entries},
            ".claude-plugin/plugin.json": {"name": "solo", "version": "1.0.0", "description": "S"},
            "plugins/inner/.claude-plugin/plugin.json": {"name": "inner", "description": "I"},
            "plugins/inner/notes.md": "inner\n",
            "gemini/solo/NOTES.md": "gemini\n",
            "copilot/solo/NOTES.md": "copilot\n",
            ".memhub-build.json": {"builds": []},
            "notes.md": "root\n",
        },
    )
    tree = read_tree(repo)
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    assert result.unreproduced == []
    solo = next(h for h, _ in imported.plugins if h.name == "solo")
    assert sorted(solo.files) == ["notes.md"]
    assert sorted(imported.outside) == [
        ".memhub-build.json",
        "copilot/solo/NOTES.md",
        "gemini/solo/NOTES.md",
    ]


def test_a_plugin_folder_inside_a_root_plugins_skills_exits_1_with_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code would read skills/x as a skill folder of the root plugin, which has
    skills: the build of the import refuses it, so plugin x is taken out and listed with
    the build's words (exit 1, not 70); the root plugin is written."""
    repo = write(
        tmp_path / "repo",
        {
            ".claude-plugin/plugin.json": {"name": "root", "version": "1.0.0", "description": "R"},
            "skills/x/.claude-plugin/plugin.json": {"name": "x", "description": "X"},
            "skills/s/SKILL.md": "---\nname: s\ndescription: S.\n---\nS\n",
        },
    )
    code = main(["import", "--from-repo", str(repo), "--into", str(tmp_path / "hub"), "--json"])
    trip = json.loads(capsys.readouterr().out)["data"]["round_trip"]
    assert code == 1
    rows = {row["path"]: row["reason"] for row in trip["cannot_reproduce"]}
    assert (
        "plugin 'x' (folder 'skills/x') sits inside skills/, which the root plugin 'root'"
        in rows["skills/x/.claude-plugin/plugin.json"]
    )
    assert "skills/s/SKILL.md" not in rows


def test_a_refused_skill_ships_as_it_is_and_the_shared_folder_builds(tmp_path: Path) -> None:
    """A skill the hub refuses (a description past the 64 KiB sanity cap) ships as it is,
    with a note naming why; the entries that name its plugin's folder build too, and every
    file comes back."""
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "shared-folder", repo)
    long = "Use when a draft cites " + "a source, " * 6600
    (repo / "skills" / "cite" / "SKILL.md").write_text(
        f"---\nname: cite\ndescription: {long}\n---\nCite it.\n"
    )
    tree = read_tree(repo)
    imported = import_repo(tree)
    trip = round_trip(tree, imported)
    assert trip.unreproduced == []
    assert (trip.files_same, trip.files_total) == (5, 5)
    (note,) = [n for n in imported.notes if "shipped as it is" in n]
    assert note.startswith("skills/cite: ") and f"description is {len(long.strip())}" in note
