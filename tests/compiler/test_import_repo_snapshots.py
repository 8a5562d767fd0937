"""Snapshots of what `import --from-repo` writes for each fixture repository (tests/data/repos):
every hub.yaml, and the round trip's figures and unreproduced paths. The hub an author gets
from their repository is the import's real output; update only for intended changes."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from memhub.compiler.importing.repo_market import HUB_FILE, RepoImport, import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

from tests.hubs import REPO

REPOS = REPO / "tests" / "data" / "repos"
FIXTURES = sorted(p.name for p in REPOS.iterdir() if p.is_dir())


@cache
def imported(name: str) -> tuple[RepoImport, Any]:
    tree = read_tree(REPOS / name)
    result = import_repo(tree)
    return result, round_trip(tree, result)


def test_every_fixture_is_listed() -> None:
    """A fixture added without a snapshot would be skipped silently: there are this many."""
    assert len(FIXTURES) >= 13


@pytest.mark.parametrize("name", FIXTURES)
def test_imported_hubs_match_snapshot(name: str, snapshot) -> None:
    result, _ = imported(name)
    hubs = {
        path: content.decode("utf-8")
        for path, (content, _) in sorted(result.files.items())
        if path == HUB_FILE or path.endswith("/" + HUB_FILE)
    }
    assert hubs and hubs == snapshot


@pytest.mark.parametrize("name", FIXTURES)
def test_round_trip_figures_match_snapshot(name: str, snapshot) -> None:
    _, trip = imported(name)
    figures = {
        "files": [trip.files_same, trip.files_total],
        "json_key_paths": [trip.keys_same, trip.keys_total],
        "cannot_reproduce": sorted((item.path, item.reason) for item in trip.unreproduced),
    }
    assert figures["files"][1] > 0 and figures == snapshot
