"""`memhub import --from-repo` on malformed repositories: one clear error naming the file (and
line:col for JSON), exit 2, nothing written (links, FIFOs and over-size files cost their own
path alone: test_import_repo_unread.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main

from tests.hubs import REPO

FIXTURE = REPO / "tests" / "data" / "repos" / "claude-only"
PLUGIN = "plugins/review-kit"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(FIXTURE, copy)
    return copy


def refused(capsys: pytest.CaptureFixture[str], repo: Path, into: Path) -> str:
    code = main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"])
    _, err = capsys.readouterr()
    assert code == 2
    assert not into.exists()
    assert len([line for line in err.splitlines() if line.strip()]) == 1
    return err


def test_manifest_that_does_not_parse(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / PLUGIN / ".claude-plugin" / "plugin.json").write_text('{\n  "name": "x",\n  oops\n}\n')
    err = refused(capsys, repo, tmp_path / "hub")
    assert f"{PLUGIN}/.claude-plugin/plugin.json:3:3: does not parse as JSON" in err
    assert "Fix: correct the JSON" in err


def test_marketplace_that_is_not_an_object(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".claude-plugin" / "marketplace.json").write_text("[]\n")
    err = refused(capsys, repo, tmp_path / "hub")
    assert ".claude-plugin/marketplace.json: is not a JSON object" in err


def test_repository_without_a_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "repo"
    (empty / "docs").mkdir(parents=True)
    (empty / "docs" / "notes.md").write_text("# notes\n")
    err = refused(capsys, empty, tmp_path / "hub")
    assert "no plugin found" in err


def test_plugin_root_leaving_the_repository(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bare source is read under `metadata.pluginRoot`: one leading out names no folder
    of the repository, but a plugin of that name: the entry joins it, its own source kept
    (no host installs it from there; the import once refused the whole repository)."""
    market = repo / ".claude-plugin" / "marketplace.json"
    text = market.read_text().replace('"./plugins/review-kit"', '"review-kit"')
    market.write_text(
        text.replace('"plugins": [', '"metadata": {"pluginRoot": "../x"},\n  "plugins": [')
    )
    into = tmp_path / "hub"
    code = main(["import", "--from-repo", str(repo), "--into", str(into), "--yes", "--json"])
    reply = json.loads(capsys.readouterr().out)
    assert reply["data"]["round_trip"]["cannot_reproduce"] == []
    assert code == 0
