"""`memhub import --from-repo` of a Copilot marketplace at the repository root
(`marketplace.json`, which Copilot CLI reads before `.github/plugin/marketplace.json`): the
hub's marketplace names the file (`file: marketplace.json`) and the build writes it back there,
beside `.github/plugin/marketplace.json` when the repository has both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec.errors import HubError
from memhub.hubspec.marketplace_loader import load_marketplace

from tests.compiler.repofiles import write_repo

SKILL = "---\nname: tidy\ndescription: Tidy up.\n---\nTidy.\n"
MANIFEST = {"name": "tidy-kit", "description": "Tidy things", "version": "1.0.0"}


def market(name: str) -> dict[str, Any]:
    entry = {"name": "tidy-kit", "source": "./plugins/tidy-kit", "description": "Tidy things"}
    return {"name": name, "owner": {"name": "Ann"}, "plugins": [entry]}


def repo_files(*markets: str) -> dict[str, Any]:
    files: dict[str, Any] = {
        "plugins/tidy-kit/.claude-plugin/plugin.json": MANIFEST,
        "plugins/tidy-kit/skills/tidy/SKILL.md": SKILL,
    }
    for path in markets:
        files[path] = market("root-shelf" if path == "marketplace.json" else "shelf")
    return files


@pytest.mark.parametrize(
    "markets",
    [("marketplace.json",), ("marketplace.json", ".github/plugin/marketplace.json")],
    ids=["root-only", "root-and-github"],
)
def test_a_root_marketplace_json_comes_back(tmp_path: Path, markets: tuple[str, ...]) -> None:
    """Before: the root marketplace.json was a file of no plugin, lost by the build (Copilot
    then loads none of the plugins it lists)."""
    tree = read_tree(write_repo(tmp_path / "repo", repo_files(*markets)))
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    assert [item.path for item in result.unreproduced] == []
    assert (result.files_same, result.files_total) == (len(tree), len(tree))
    hub = yaml.safe_load(imported.files["hub.yaml"][0])
    assert {"name": "root-shelf", "hosts": ["copilot"], "plugins": ["tidy-kit"]} | {
        "file": "marketplace.json"
    } in hub["marketplaces"]


def test_file_is_for_copilot_only(tmp_path: Path) -> None:
    """`file:` names Copilot CLI's file; another host's marketplace cannot take it."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "hub.yaml").write_text(
        "version: 1\nmarketplace: {name: m, owner: {name: Ann}}\n"
        "plugin: {name: p, version: 1.0.0, description: P}\nhosts: [claude, copilot]\n"
    )
    (tmp_path / "hub.yaml").write_text(
        "version: 1\nmarketplace: {name: m, owner: {name: Ann}}\nhosts: [claude, copilot]\n"
        "plugins: [{hub: p}]\nmarketplaces: [{file: marketplace.json}]\n"
    )
    with pytest.raises(HubError, match="only Copilot CLI reads a marketplace"):
        load_marketplace(tmp_path / "hub.yaml")
