"""`memhub import --from-repo` on marketplace shapes published repositories use: catalogues of
plugins published elsewhere, sources written otherwise than `./folder` from the marketplace's
root, one plugin name kept in a folder per host, per-host plugin order and sets. Each fixture
is a few files written here, named after its shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

CLAUDE_MARKET = ".claude-plugin/marketplace.json"
CODEX_MARKET = ".agents/plugins/marketplace.json"


def write(root: Path, files: dict[str, Any]) -> Path:
    """Write `files` (path -> JSON value, or text) under `root`."""
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        text = value if isinstance(value, str) else json.dumps(value, indent=2) + "\n"
        path.write_text(text, encoding="utf-8")
    return root


def trip(root: Path) -> tuple[dict[str, str], tuple[int, int]]:
    """The round trip of `root`: the paths not given back (with why), files given back."""
    tree = read_tree(root)
    result = round_trip(tree, import_repo(tree))
    listed = {item.path: item.reason for item in result.unreproduced}
    return listed, (result.files_same, result.files_total)


def test_a_catalogue_of_remote_plugins_only_imports_as_its_marketplace_file(
    tmp_path: Path,
) -> None:
    """Every entry a git source, no plugin folder: a marketplace hub without plugin hubs,
    whose build gives the marketplace file back (the import once said "no plugin found")."""
    market = {
        "name": "catalogue",
        "owner": {"name": "Ada"},
        "metadata": {"description": "plugins kept elsewhere", "version": "1.0.0"},
        "plugins": [
            {
                "name": "alpha",
                "description": "the first",
                "version": "1.5.2",
                "source": {"source": "github", "repo": "ada/alpha"},
                "author": {"name": "Ada"},
                "keywords": ["a", "b"],
            },
            {"name": "beta", "source": {"source": "url", "url": "https://git.example/b.git"}},
        ],
    }
    root = write(tmp_path / "repo", {CLAUDE_MARKET: market, "README.md": "# catalogue\n"})
    listed, files = trip(root)
    assert listed == {}
    assert files == (1, 1)


def _plugin(name: str) -> dict[str, Any]:
    return {
        f"plugins/{name}/.claude-plugin/plugin.json": {
            "name": name,
            "version": "1.0.0",
            "description": f"the {name} plugin",
        },
        f"plugins/{name}/skills/{name}-skill/SKILL.md": (
            f"---\nname: {name}-skill\ndescription: a skill of {name}\n---\nbody\n"
        ),
        f"plugins/{name}/README.md": f"# {name}\n",
    }


def _market(*entries: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": "shelf", "owner": {"name": "Ada"}, **extra, "plugins": list(entries)}


def test_a_dot_source_under_plugin_root_is_read_where_copilot_reads_it(tmp_path: Path) -> None:
    """`metadata.pluginRoot: ./plugins` with `"source": "./alpha"`: Copilot CLI reads
    plugins/alpha (Claude Code reads ./alpha, which is not there); the import reads the
    plugin there and gives the entry's own source back (it once refused: "holds no file")."""
    entry = {"name": "alpha", "source": "./alpha", "description": "the alpha plugin"}
    files = {
        CLAUDE_MARKET: _market(entry, metadata={"pluginRoot": "./plugins"}),
        **_plugin("alpha"),
    }
    listed, counted = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (4, 4)


def test_a_source_relative_to_the_marketplace_file_is_read_from_its_folder(
    tmp_path: Path,
) -> None:
    """`../plugins/alpha` written from `.claude-plugin/`'s own folder (no host installs it):
    the plugin is read from plugins/alpha and the entry comes back as written."""
    entry = {"name": "alpha", "source": "../plugins/alpha", "description": "the alpha plugin"}
    files = {CLAUDE_MARKET: _market(entry), **_plugin("alpha")}
    listed, counted = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (4, 4)


def test_a_source_naming_no_folder_is_one_row_not_a_refusal(tmp_path: Path) -> None:
    """An entry whose folder is nowhere: the marketplace file is a row naming the entry's
    key path; the other plugins still come back."""
    gone = {"name": "gone", "source": "../../nowhere", "description": "lost"}
    alpha = {"name": "alpha", "source": "./plugins/alpha", "description": "the alpha plugin"}
    files = {CLAUDE_MARKET: _market(alpha, gone), **_plugin("alpha")}
    listed, counted = trip(write(tmp_path / "repo", files))
    assert list(listed) == [CLAUDE_MARKET]
    assert listed[CLAUDE_MARKET].startswith("plugins/1/source: '../../nowhere' names no folder")
    assert counted == (3, 4)
