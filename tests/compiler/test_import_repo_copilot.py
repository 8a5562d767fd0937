"""`memhub import --from-repo` of GitHub Copilot CLI plugins (compiler/hosts/copilot_repo.py).

tests/data/repos/copilot is memhub's build of a Copilot-only plugin (marketplace at
.github/plugin/marketplace.json, the plugin at copilot/<name>/ with .github/plugin/plugin.json,
inline MCP servers, a skill, an agent, a command, a shipped script, a hooks file with a
matcher, a timeout, Copilot's options and a native event); copilot-mixed is the
same plugin built for Claude Code and Copilot, whose Copilot copy joins the Claude plugin.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo import HOOKS_REASON
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import RepoError, read_tree

from tests.compiler.test_import_repo import REPOS, trip

PLUGIN = "copilot/pr-helper"
MANIFEST = f"{PLUGIN}/.github/plugin/plugin.json"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(REPOS / "copilot", copy)
    return copy


def test_copilot_only_plugin_round_trips_whole() -> None:
    listed, files, keys = trip("copilot")
    assert listed == {}
    assert files == (8, 8)
    assert keys[0] == keys[1] > 0


def test_copilot_plugin_reads_into_its_own_hub(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    code = main(["import", "--from-repo", str(REPOS / "copilot"), "--into", str(into), "--yes"])
    _, err = capsys.readouterr()
    assert code == 0, err
    market = yaml.safe_load((into / "hub.yaml").read_text())
    assert market["hosts"] == ["copilot"]
    assert market["marketplace"]["description"] == "Pull request helpers"
    assert market["plugins"] == [{"hub": PLUGIN}]
    hub = yaml.safe_load((into / PLUGIN / "hub.yaml").read_text())
    assert hub["plugin"]["category"] == "productivity"
    assert hub["mcp"]["servers"]["local"] == {
        "command": "${plugin_root}/bin/server",
        "extra": {"copilot": {"tools": ["lint", "fix"]}},  # a key in copilot_servers.EXTRA_KEYS
    }
    assert hub["mcp"]["servers"]["tracker"]["env"] == {"TRACKER_TOKEN": "${env:TRACKER_TOKEN}"}
    assert hub["overrides"] == {"copilot": {"manifest": {"logo": "assets/logo.png"}}}
    assert hub["files"] == [{"from": "bin"}]
    assert (into / PLUGIN / "skills/triage/SKILL.md").is_file()
    assert (into / PLUGIN / "agents/reviewer.md").is_file()
    assert (into / PLUGIN / "commands/summary.md").is_file()
    assert not (into / PLUGIN / ".github").exists(), "the manifest is read, not shipped"


def test_copilot_copy_joins_the_plugin_other_hosts_have() -> None:
    listed, files, keys = trip("copilot-mixed")
    assert listed == {}
    assert files == (15, 15)
    assert keys[0] == keys[1] > 0
    result = import_repo(read_tree(REPOS / "copilot-mixed"))
    ((hub, into),) = result.plugins
    assert into == "plugins/pr-both" and hub.read.hosts == ["claude", "copilot"]
    assert result.market_hub is not None and result.market_hub["hosts"] == ["claude", "copilot"]


def test_hooks_read_back_as_copilot_hooks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "hub"
    assert (
        main(["import", "--from-repo", str(REPOS / "copilot"), "--into", str(into), "--yes"]) == 0
    )
    capsys.readouterr()
    hub = yaml.safe_load((into / PLUGIN / "hub.yaml").read_text())
    hooks = {h["id"]: h for h in hub["hooks"]}
    start = hooks["copilot-session-start"]
    assert start["event"] == {"copilot": "sessionStart"}
    assert start["command"] == '"${plugin_root}"/bin/server --note start'
    assert start["timeout"] == 10
    guard = hooks["copilot-pre-tool-use"]
    assert guard["matcher"] == "^(?:bash)$"
    assert guard["command"] == 'echo guard >> "${plugin_data}/guard.log"'
    assert guard["options"] == {"command_windows": "Write-Output guard", "cwd": "."}
    assert hooks["copilot-error-occurred"]["event"] == {"copilot": "errorOccurred"}
    assert "hooks" not in hub["overrides"]["copilot"]["manifest"]  # written from the file


HOOKS_FILE = f"{PLUGIN}/hooks/hooks.json"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"version": 2}, "version: is 2; memhub writes 1"),
        (
            {"hooks": {"sessionStart": [{"type": "prompt", "prompt": "/go"}]}},
            "hooks/sessionStart/0: is a 'prompt' hook; the hub carries `command` hooks only",
        ),
        (
            {"hooks": {"agentStop": [{"type": "command", "bash": "x", "env": {"A": "1"}}]}},
            "hooks/agentStop/0/env: not a key memhub writes for a copilot hook",
        ),
        (
            {"hooks": {"Stop": [{"type": "command", "bash": "x"}]}},
            "hooks/Stop: copilot has no hook event 'Stop'",
        ),
        (
            {"hooks": {"agentStop": [{"type": "command", "powershell": "x"}]}},
            "hooks/agentStop/0: has no `command`",
        ),
        (
            {"hooks": {"agentStop": [{"type": "command", "bash": "$CLAUDE_PLUGIN_ROOT/x"}]}},
            "names CLAUDE_PLUGIN_ROOT, which copilot does not set",
        ),
    ],
    ids=["version", "prompt", "env", "event", "powershell-only", "foreign"],
)
def test_a_hooks_file_memhub_cannot_write_back_is_listed(
    repo: Path, change: dict[str, object], why: str
) -> None:
    path = repo / HOOKS_FILE
    data = {**json.loads(path.read_text()), **change}
    path.write_text(json.dumps(data, indent=2) + "\n")
    result = import_repo(read_tree(repo))
    listed = {u.path: u.reason for u in result.unreproduced}
    assert why in listed[HOOKS_FILE]


def test_a_hooks_file_no_manifest_names_is_listed(repo: Path) -> None:
    path = repo / MANIFEST
    data = json.loads(path.read_text())
    del data["hooks"]
    path.write_text(json.dumps(data, indent=2) + "\n")
    result = import_repo(read_tree(repo))
    listed = {u.path: u.reason for u in result.unreproduced}
    assert listed == {HOOKS_FILE: HOOKS_REASON}


def test_a_manifest_key_the_hub_does_not_hold_goes_to_overrides(repo: Path) -> None:
    path = repo / MANIFEST
    data = json.loads(path.read_text())
    data["skills"] = "./more-skills/"  # not where memhub writes them: kept as written
    data["strict"] = False
    path.write_text(json.dumps(data, indent=2) + "\n")
    result = import_repo(read_tree(repo))
    ((hub, _),) = result.plugins
    assert hub.read.overrides["copilot"]["manifest"] == {
        "skills": "./more-skills/",
        "logo": "assets/logo.png",
        "strict": False,
    }


def test_servers_that_are_not_objects_are_listed(repo: Path) -> None:
    path = repo / MANIFEST
    data = json.loads(path.read_text())
    data["mcpServers"]["broken"] = "npx thing"
    path.write_text(json.dumps(data, indent=2) + "\n")
    result = import_repo(read_tree(repo))
    reasons = [u.reason for u in result.unreproduced if u.path == MANIFEST]
    assert "server 'broken' is not an object" in reasons
    ((hub, _),) = result.plugins
    assert "broken" not in hub.read.servers and "tracker" in hub.read.servers
    data["mcpServers"] = ["not", "a", "table"]
    path.write_text(json.dumps(data, indent=2) + "\n")
    result = import_repo(read_tree(repo))
    assert any("is not an object" in u.reason for u in result.unreproduced)


def test_a_manifest_that_is_not_an_object_names_no_plugin(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / MANIFEST).write_text("[1, 2]\n")
    with pytest.raises(RepoError, match="no plugin found"):
        import_repo(read_tree(repo))
    into = tmp_path / "hub"
    assert main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"]) == 2
    assert not into.exists()
    capsys.readouterr()


def test_marketplace_sources_of_every_kind_read_back(repo: Path) -> None:
    path = repo / ".github/plugin/marketplace.json"
    data = json.loads(path.read_text())
    data["plugins"] += [
        {"name": "gh", "source": {"source": "github", "repo": "o/r", "ref": "v1"}},
        {"name": "git", "source": {"source": "url", "url": "https://git.example/r.git"}},
        {
            "name": "sub",
            "source": {
                "source": "git-subdir",
                "url": "ssh://git@h/r",
                "path": "p",
                "sha": "a" * 40,
            },
        },
    ]
    path.write_text(json.dumps(data, indent=2) + "\n")
    result = import_repo(read_tree(repo))
    assert result.market_hub is not None
    listed = {p.get("name"): p.get("source") for p in result.market_hub["plugins"]}
    assert listed["gh"] == {"github": "o/r", "ref": "v1"}
    assert listed["git"] == {"git": "https://git.example/r.git"}
    assert listed["sub"] == {"git": "ssh://git@h/r", "path": "p", "sha": "a" * 40}
