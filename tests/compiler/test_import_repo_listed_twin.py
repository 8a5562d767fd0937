"""Two folders holding a plugin of one name for one host, the marketplace listing the second
(a source folder and the built copy beside or inside it): the import keeps the folder the
marketplace lists, which is the one the host installs; the unlisted one is the row."""

from __future__ import annotations

import json
from pathlib import Path

from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

MANIFEST = {"name": "p", "version": "1.0.0", "description": "A plugin"}
AGENT = "---\nname: reviewer\ndescription: Reviews\n---\nReview it.\n"


def test_the_listed_folder_of_a_twice_published_name_is_kept(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    market = {
        "name": "m",
        "owner": {"name": "o"},
        "plugins": [{"name": "p", "source": "./src/_dist"}],
    }
    files = {
        ".claude-plugin/marketplace.json": json.dumps(market, indent=2) + "\n",
        "src/.claude-plugin/plugin.json": json.dumps(MANIFEST, indent=2) + "\n",
        "src/build.py": "print('build')\n",
        "src/_dist/.claude-plugin/plugin.json": json.dumps(MANIFEST, indent=2) + "\n",
        "src/_dist/agents/reviewer.md": AGENT,
        "src/_dist/README.md": "# p\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    tree = read_tree(root)
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    rows = {u.path: u.reason for u in result.unreproduced}
    assert sorted(rows) == ["src/.claude-plugin/plugin.json", "src/build.py"]
    assert all("is also in src/_dist/ for claude" in why for why in rows.values())
    assert "src/_dist/hub.yaml" in imported.files
    assert result.files_same == result.files_total - 2
