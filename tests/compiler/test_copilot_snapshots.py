"""Snapshots of every hub built for GitHub Copilot CLI, which a hub names to get (OPT_IN_HOSTS):
the existing hubs' own snapshots (test_snapshots.py) stay as they are."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest
from memhub.compiler.build import Build, build
from memhub.hubspec import load

from tests.hubs import HUBS, text_files


@cache
def built_for_copilot(name: str) -> Build:
    return build(replace(load(HUBS[name]), hosts=("copilot",)))


CASES = [(hub, owner) for hub in HUBS for owner in ("copilot", "shared")]


@pytest.mark.parametrize(("hub", "owner"), CASES, ids=[f"{h}-{o}" for h, o in CASES])
def test_copilot_files_match_snapshot(hub: str, owner: str, snapshot) -> None:
    files = text_files(built_for_copilot(hub), owner)
    assert files, f"{owner} produced no file for {hub}"
    assert files == snapshot


@pytest.mark.parametrize("hub", list(HUBS))
def test_copilot_coverage_matches_snapshot(hub: str, snapshot) -> None:
    assert [row.to_json() for row in built_for_copilot(hub).coverage] == snapshot
