"""The import's invariant: `memhub import --from-repo` either writes a hub that `memhub build`
builds (exit 0, or 1 with cannot_reproduce rows), or exits 2 naming the file that stops it.
What the hub cannot hold is taken out at the smallest unit (a shipped file, an MCP server, a
marketplace file, at worst one plugin) and listed with the build's own words."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo_degrade import culprit
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.repo_writer import write_repo_hub
from memhub.hubspec import MemhubError

Files = dict[str, Any]  # path -> text, JSON data, or ("link", target)


def manifest(name: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "version": "1.0.0", "description": f"{name} plugin", **more}


def two_plugins() -> Files:
    listed = [{"name": n, "source": f"./plugins/{n}"} for n in ("a", "b")]
    return {
        ".claude-plugin/marketplace.json": {"name": "m", "owner": {"name": "o"}, "plugins": listed},
        "plugins/a/.claude-plugin/plugin.json": manifest("a"),
        "plugins/a/README.md": "a\n",
        "plugins/b/.claude-plugin/plugin.json": manifest("b"),
        "plugins/b/README.md": "b\n",
    }


def write(root: Path, files: Files) -> Path:
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, tuple):
            os.symlink(value[1], path)
        else:
            path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2))
    return root


def imported(
    tmp_path: Path, files: Files, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    """Import `files` as a repository with --yes --json: the exit code and the JSON reply."""
    repo = write(tmp_path / "repo", files)
    capsys.readouterr()
    args = ["import", "--from-repo", str(repo), "--into", str(tmp_path / "hub"), "--yes"]
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def builds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    code = main(["build", str(tmp_path / "hub"), "--out", str(tmp_path / "out")])
    capsys.readouterr()
    return code


def rows(reply: dict[str, Any]) -> dict[str, str]:
    return {r["path"]: r["reason"] for r in reply["data"]["round_trip"]["cannot_reproduce"]}


def test_a_refused_mcp_server_is_listed_and_the_rest_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = two_plugins()
    servers = {"f": {"type": "http", "url": "ftp://x.example/"}, "ok": {"command": "node"}}
    files["plugins/a/.mcp.json"] = {"mcpServers": servers}
    code, reply = imported(tmp_path, files, capsys)
    assert code == 1
    listed = rows(reply)
    assert list(listed) == ["plugins/a/.mcp.json"]
    assert "MCP server 'f'" in listed["plugins/a/.mcp.json"]
    assert (
        "mcp.servers.f.url: 'ftp://x.example/' is not an http(s) URL"
        in (listed["plugins/a/.mcp.json"])
    )
    assert builds(tmp_path, capsys) == 0
    assert "ok" in json.loads((tmp_path / "out" / "plugins/a/.mcp.json").read_text())["mcpServers"]


def test_a_refused_shipped_file_is_listed_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {**two_plugins(), "plugins/b/notes\\x.md": "x\n", "plugins/b/ok.md": "ok\n"}
    code, reply = imported(tmp_path, files, capsys)
    assert code == 1
    listed = rows(reply)
    assert list(listed) == ["plugins/b/notes\\x.md"]
    assert "holds a backslash" in listed["plugins/b/notes\\x.md"]
    assert builds(tmp_path, capsys) == 0
    assert (tmp_path / "out" / "plugins/b/ok.md").read_text() == "ok\n"


def test_a_refused_plugin_leaves_the_other_plugins_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = two_plugins()
    # a name no hub can carry (a version outside semver is kept as an override)
    files["plugins/b/.claude-plugin/plugin.json"] = manifest("B b")
    code, reply = imported(tmp_path, files, capsys)
    assert code == 1
    listed = rows(reply)
    why = listed["plugins/b/.claude-plugin/plugin.json"]
    assert "plugin.name: 'B b' is not kebab-case" in why
    assert listed["plugins/b/README.md"] == why
    assert not any(path.startswith("plugins/a/") for path in listed)
    assert builds(tmp_path, capsys) == 0
    assert (tmp_path / "out" / "plugins/a/.claude-plugin/plugin.json").exists()


def test_a_repository_whose_only_plugin_is_refused_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {".claude-plugin/plugin.json": manifest("P p")}
    repo = write(tmp_path / "repo", files)
    code = main(["import", "--from-repo", str(repo), "--into", str(tmp_path / "hub"), "--yes"])
    err = capsys.readouterr().err
    assert code == 2
    assert "hub.yaml" in err and "'P p" in err and "nothing written" in err
    assert not (tmp_path / "hub" / "hub.yaml").exists()


def test_the_bisection_names_the_plugin_a_refusal_without_problems_stops(tmp_path: Path) -> None:
    """A refusal naming no hub file (a build error of the bundle): the first plugin whose
    build with those before it fails is the one taken out."""
    files = two_plugins()
    for name in ("c", "d", "e"):
        files[f"plugins/{name}/.claude-plugin/plugin.json"] = manifest(name)
    tree = read_tree(write(tmp_path / "repo", files))
    result = import_repo(tree)
    probes: list[list[str]] = []

    def without_d(probe: Any) -> bool:
        names = [hub.name for hub, _ in probe.plugins]
        probes.append(names)
        return "d" not in names

    found = culprit(result, without_d)
    assert found is not None and found.name == "d"
    assert len(probes) <= 3  # log2(5), not one build per plugin
    assert [] not in probes  # a marketplace of no plugin does not build: never probed


def test_the_writer_refuses_a_hub_its_build_refuses(tmp_path: Path) -> None:
    hub = b"version: 1\nmarketplace: {name: m, owner: {name: o}}\nplugins: []\n"
    with pytest.raises(MemhubError, match="would not build"):
        write_repo_hub({"hub.yaml": (hub, 0o644)}, tmp_path / "hub")
    assert not (tmp_path / "hub" / "hub.yaml").exists()
