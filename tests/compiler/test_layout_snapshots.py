"""Snapshots of tests/data/layout (a plugin at the bundle root, a skill group, Cursor rules):
every generated file per host and the coverage table (update only for intended changes)."""

from __future__ import annotations

from functools import cache

import pytest
from memhub.compiler.build import Build, build
from memhub.hubspec import load

from tests.hubs import REPO, text_files

HUB = REPO / "tests" / "data" / "layout"


@cache
def built() -> Build:
    return build(load(HUB))


@pytest.mark.parametrize("owner", [*built().hosts, "shared"])
def test_layout_files_match_snapshot(owner: str, snapshot) -> None:
    files = text_files(built(), owner)
    assert files and files == snapshot


def test_layout_coverage_matches_snapshot(snapshot) -> None:
    assert [row.to_json() for row in built().coverage] == snapshot
