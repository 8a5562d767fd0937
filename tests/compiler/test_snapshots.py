"""Snapshots of every generated file of every hub, per host (update only for intended changes)."""

from __future__ import annotations

import pytest

from tests.hubs import HUBS, built, text_files

CASES = [(hub, owner) for hub in HUBS for owner in (*built(hub).hosts, "shared")]


@pytest.mark.parametrize(("hub", "owner"), CASES, ids=[f"{h}-{o}" for h, o in CASES])
def test_generated_files_match_snapshot(hub: str, owner: str, snapshot) -> None:
    files = text_files(built(hub), owner)
    assert files, f"{owner} produced no file for {hub}"
    assert files == snapshot


@pytest.mark.parametrize("hub", list(HUBS))
def test_coverage_table_matches_snapshot(hub: str, snapshot) -> None:
    assert [row.to_json() for row in built(hub).coverage] == snapshot


# Genuine gaps of one example's bundles, each listed: a Claude Code or Codex plugin carries
# no instruction file (the install target does; team-memory is one).
# The PR and spec hooks speak only to the model: Cursor shows it nothing of an after-tool or
# before-tool hook, Gemini CLI nothing of a BeforeTool one (the push reminder).
WORKFLOW_GAPS = [
    ("cursor", "hook", "pr-link"),
    ("cursor", "hook", "pr-babysit"),
    ("cursor", "hook", "spec-owner-edit"),
    ("cursor", "hook", "spec-owner-push"),
    ("gemini", "hook", "spec-owner-push"),
]
BUNDLE_GAPS = {
    # the same gaps, in the order examples/memhub binds its hooks (the published plugin's)
    "memhub": [WORKFLOW_GAPS[i] for i in (3, 2, 0, 1, 4)],
    "team-memory": [
        ("claude", "instructions", "memory"),
        ("codex", "instructions", "memory"),
        *WORKFLOW_GAPS[:4],
        # rulebook advice, too, only speaks to the model (Gemini gets it on AfterTool)
        ("cursor", "hook", "rules-before-tool"),
        ("cursor", "hook", "rules-after-tool"),
        # so the hub's book has no hook there to fire it (its coverage row says so)
        ("cursor", "rulebook", "team-migrations"),
        *WORKFLOW_GAPS[4:],
        ("gemini", "hook", "rules-before-tool"),
    ],
}


@pytest.mark.parametrize("hub", [h for h in HUBS if h != "full"])
def test_examples_build_with_no_warning(hub: str) -> None:
    """No warning but the genuine host gaps: hooks (and the books they fire) on a host that
    runs none (Agent Plugins), and those BUNDLE_GAPS lists."""
    from memhub.compiler.hosts import ADAPTERS

    gaps = [
        (row.host, row.component, row.id)
        for row in built(hub).warnings
        if not (row.component in ("hook", "rulebook") and not ADAPTERS[row.host].runs_hooks)
    ]
    assert gaps == BUNDLE_GAPS.get(hub, [])


@pytest.mark.parametrize("hub", [h for h in HUBS if built(h).hub.needs_runtime])
def test_vendored_runtime_is_the_package(hub: str) -> None:
    """Every bundle folder that runs hooks carries the runtime's modules byte for byte."""
    from importlib import resources

    from memhub.compiler.build import build
    from memhub.hubspec import load

    fresh = build(load(HUBS[hub]))  # not the cached build: the runtime is read now
    package = resources.files("memhub.runtime")
    sources = {
        entry.name: entry.read_bytes()
        for entry in package.iterdir()
        if entry.is_file() and entry.name.endswith(".py")
    }
    copies: dict[str, dict[str, bytes]] = {}
    for artifact in fresh.artifacts:
        folder, _, name = artifact.path.rpartition("/")
        if folder.endswith("/memhub_runtime"):
            assert artifact.mode == 0o644, artifact.path
            copies.setdefault(folder, {})[name] = artifact.content
    assert copies
    for folder, files in copies.items():
        assert files == sources, folder
