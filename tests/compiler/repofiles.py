"""Small plugin repositories written from a dict, for the `import --from-repo` tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip


def write_repo(root: Path, files: dict[str, Any]) -> Path:
    """Write `files` (path -> text, or a JSON value written indented) under `root`."""
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = value if isinstance(value, str) else json.dumps(value, indent=2) + "\n"
        path.write_text(text, encoding="utf-8")
    return root


def trip_with_hub(
    root: Path, files: dict[str, Any], hub_folder: str
) -> tuple[dict[str, str], tuple[int, int], Any]:
    """`files` written under `root` and imported: what cannot come back (path -> why), (files
    given back, files), and the hub.yaml of the plugin hub whose folder ends in `hub_folder`."""
    tree = read_tree(write_repo(root, files))
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    name = next(p for p in imported.files if p.endswith(f"{hub_folder}/hub.yaml"))
    hub = yaml.safe_load(imported.files[name][0])
    listed = {item.path: item.reason for item in result.unreproduced}
    return listed, (result.files_same, result.files_total), hub
