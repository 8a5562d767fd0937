"""`memhub import --from-repo`: fixture plugin repositories read into hubs and round-tripped.

Each fixture (tests/data/repos/) is imported, the imported hub is built, and the build is
compared with the repository: what cannot be reproduced is exactly the listed paths.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
import yaml
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo import HOOKS_REASON
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

from tests.hubs import REPO

REPOS = REPO / "tests" / "data" / "repos"


def trip(name: str) -> tuple[dict[str, str], tuple[int, int], tuple[int, int]]:
    tree = read_tree(REPOS / name)
    result = round_trip(tree, import_repo(tree))
    listed = {item.path: item.reason for item in result.unreproduced}
    return listed, (result.files_same, result.files_total), (result.keys_same, result.keys_total)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def repo_files(root: Path) -> dict[str, tuple[bytes, bool]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), bool(p.stat().st_mode & 0o111))
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".memhub-build.json"
    }


def test_marketplace_of_three_plugins_round_trips_whole() -> None:
    listed, files, keys = trip("marketplace")
    assert listed == {}
    assert files == (11, 11)  # the icon too: plugin.icon, written back where it was
    assert keys[0] == keys[1] > 0


def test_skills_named_as_published_plugins_name_them_round_trip() -> None:
    """A SKILL.md without `name:` and one named 'Agent Development' (Claude Code and Codex
    load both) are imported as they are, not dropped."""
    listed, files, keys = trip("skill-names")
    assert listed == {}
    assert files == (8, 8)
    assert keys[0] == keys[1] > 0


def test_claude_only_plugin_round_trips_whole_with_its_hooks() -> None:
    # hooks/hooks.json, which Claude Code loads without a manifest key, comes back there
    listed, files, keys = trip("claude-only")
    assert listed == {}
    assert files == (9, 9)
    assert keys[0] == keys[1] > 0


def test_multi_host_plugin_keeps_per_host_manifests() -> None:
    listed, files, keys = trip("multi-host")
    # every manifest, the MCP config and the plugin's own README (shipped) come back; without
    # a marketplace file the import is a marketplace hub writing none (`marketplaces: []`)
    assert listed == {}
    assert files == (6, 6)
    assert keys[0] == keys[1] > 0


def test_multi_host_manifest_keys_without_a_hub_field_become_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    code, _, _ = run(
        capsys, "import", "--from-repo", str(REPOS / "multi-host"), "--into", str(into), "--yes"
    )
    assert code == 0  # the build gives the repository back whole
    assert yaml.safe_load((into / "hub.yaml").read_text())["marketplaces"] == []
    data = yaml.safe_load((into / "plugins" / "team-recall" / "hub.yaml").read_text())
    assert data["plugin"]["tags"] == ["memory", "recall"]  # a hub field, written for Cursor
    assert data["overrides"] == {
        "cursor": {"manifest": {"description": "Team recall for Cursor."}},
        "codex": {"manifest": {"interface": {"displayName": "Team Recall"}}},
    }
    assert data["mcp"]["servers"]["recall"]["oauth"] == {
        "client_id": "fixture-client",
        "callback_port": 8765,
    }


@pytest.mark.parametrize("name", ["marketplace", "claude-only"])
def test_written_hub_builds_back_the_repository(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into, out = tmp_path / "hub", tmp_path / "out"
    code, text, _ = run(
        capsys, "import", "--from-repo", str(REPOS / name), "--into", str(into), "--yes"
    )
    assert code == 0
    assert "round trip" in text
    assert run(capsys, "build", str(into), "--out", str(out))[0] == 0
    ours, built = repo_files(REPOS / name), repo_files(out)
    assert {p for p in ours if built.get(p) != ours[p]} == set()
    assert set(built) <= set(ours)


def test_written_hub_keeps_executable_bits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    run(capsys, "import", "--from-repo", str(REPOS / "claude-only"), "--into", str(into), "--yes")
    script = into / "plugins" / "review-kit" / "scripts" / "check.sh"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert (into / "plugins" / "review-kit" / "hub.yaml").is_file()


def test_json_preview_writes_nothing_and_reports_the_round_trip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into, repo = tmp_path / "hub", tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    (repo / "plugins/review-kit/hooks/claude-hooks.json").write_text('{"hooks": {}}\n')
    code, out, _ = run(
        capsys, "import", "--from-repo", str(repo), "--into", str(into), "--json", "--dry-run"
    )
    envelope = json.loads(out)
    assert code == envelope["exit_code"] == 1
    assert envelope["command"] == "import"
    data = envelope["data"]
    assert data["written"] is False
    assert data["round_trip"]["files"] == {"reproduced": 9, "total": 10}
    assert data["round_trip"]["cannot_reproduce"] == [
        {"path": "plugins/review-kit/hooks/claude-hooks.json", "reason": HOOKS_REASON}
    ]
    assert data["hubs"] == ["hub.yaml", "plugins/review-kit/hub.yaml"]
    assert not into.exists()


def test_json_without_yes_is_refused_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    code, out, _ = run(
        capsys, "import", "--from-repo", str(REPOS / "marketplace"), "--into", str(into), "--json"
    )
    envelope = json.loads(out)
    assert code == 1
    assert envelope["errors"][0]["error"] == "ConfirmationNeeded"
    assert not into.exists()


def test_no_terminal_and_no_yes_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    code, out, err = run(
        capsys, "import", "--from-repo", str(REPOS / "marketplace"), "--into", str(into)
    )
    assert code == 1
    assert "cannot reproduce" not in out and "11/11 files" in out
    assert "nothing written" in err
    assert not into.exists()


def test_into_holding_a_hub_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    into = tmp_path / "hub"
    into.mkdir()
    (into / "hub.yaml").write_text("version: 1\n")
    code, _, err = run(
        capsys, "import", "--from-repo", str(REPOS / "marketplace"), "--into", str(into), "--yes"
    )
    assert code == 2
    assert "a hub already exists" in err
    assert os.listdir(into) == ["hub.yaml"]


def test_icon_named_by_a_manifest_becomes_plugin_icon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    run(capsys, "import", "--from-repo", str(REPOS / "marketplace"), "--into", str(into), "--yes")
    alpha = yaml.safe_load((into / "plugins" / "alpha" / "hub.yaml").read_text())
    assert alpha["plugin"]["icon"] == "assets/icon.png"
    assert "overrides" not in alpha  # the manifests' icon keys are the adapters' own
    icon = REPOS / "marketplace" / "plugins" / "alpha" / "assets" / "icon.png"
    assert (into / "plugins" / "alpha" / "assets" / "icon.png").read_bytes() == icon.read_bytes()


def test_five_host_bundle_round_trips_whole() -> None:
    # Gemini's extension and the Agent Plugins package live in folders of their own
    # (gemini/<name>/, agent-plugins/<name>/): their manifests join the plugin of that name
    listed, files, keys = trip("five-hosts")
    assert listed == {}
    assert files == (16, 16)
    assert keys[0] == keys[1] > 0


def test_key_order_other_than_memhubs_is_kept_as_a_key_order(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "marketplace", repo)
    manifest = repo / "plugins" / "beta" / ".claude-plugin" / "plugin.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({k: data[k] for k in reversed(data)}, indent=2) + "\n")
    tree = read_tree(repo)
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    assert result.unreproduced == []
    beta = next(hub for hub, _ in imported.plugins if hub.name == "beta")
    assert beta.read.overrides["claude"]["key_order"] == {"manifest": list(reversed(data))}


def test_from_repo_with_hosts_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    code, _, err = run(
        capsys,
        "import",
        "--from-repo",
        str(REPOS / "marketplace"),
        "--into",
        str(into),
        "--hosts",
        "claude",
    )
    assert code == 2
    assert "drop --hosts" in err
    assert not into.exists()


def test_a_repository_that_is_one_plugin_round_trips_whole(tmp_path: Path) -> None:
    """Manifests, marketplace files (listing `./`), skills, agents, commands and shipped
    files all at the root: imported with `plugin.path: .`, built back at the root."""
    listed, files, keys = trip("root-plugin")
    assert listed == {}
    assert files == (15, 15)
    assert keys[0] == keys[1] > 0
    tree = read_tree(REPOS / "root-plugin")
    imported = import_repo(tree)
    (solo, folder), *others = imported.plugins
    assert (folder, others, solo.folder) == ("solo", [], "")
    assert yaml.safe_load(imported.files["solo/hub.yaml"][0])["plugin"]["path"] == "."


def test_host_only_server_keys_go_to_extra_where_the_host_lists_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude's `timeout` and `alwaysLoad` (claude_servers.EXTRA_KEYS) become the server's
    `extra.claude`; `disabled`, which memhub does not list, stays an override."""
    into = tmp_path / "hub"
    run(capsys, "import", "--from-repo", str(REPOS / "claude-only"), "--into", str(into), "--yes")
    hub = yaml.safe_load((into / "plugins" / "review-kit" / "hub.yaml").read_text())
    linter = hub["mcp"]["servers"]["linter"]
    assert linter["extra"] == {"claude": {"timeout": 30000, "alwaysLoad": True}}
    assert hub["overrides"]["claude"]["mcp_servers"] == {"linter": {"disabled": False}}


@pytest.mark.parametrize(
    ("keys", "extra", "override"),
    [
        ({"timeout": "30"}, None, {"timeout": "30"}),  # not of its type
        ({"timeout": 5, "disabled": True}, None, {"timeout": 5, "disabled": True}),  # order
        ({"alwaysLoad": True}, {"alwaysLoad": True}, None),
    ],
    ids=["wrong-type", "before-an-override", "alone"],
)
def test_server_keys_split_so_the_file_comes_back(
    tmp_path: Path,
    keys: dict[str, object],
    extra: dict[str, object] | None,
    override: dict[str, object] | None,
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "claude-only", repo)
    server = {"type": "stdio", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/check.sh", **keys}
    mcp = repo / "plugins/review-kit/.mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"linter": server}}, indent=2) + "\n")
    tree = read_tree(repo)
    imported = import_repo(tree)
    ((hub, _),) = imported.plugins
    assert hub.read.server_extra.get("linter", {}).get("claude") == extra
    assert hub.read.overrides.get("claude", {}).get("mcp_servers", {}).get("linter") == override
    assert round_trip(tree, imported).unreproduced == []
