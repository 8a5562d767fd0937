"""`memhub import --from-repo` on marketplace shapes published repositories use: catalogues of
plugins published elsewhere, sources written otherwise than `./folder` from the marketplace's
root, one plugin name kept in a folder per host, per-host plugin order and sets. Each fixture
is a few files written here, named after its shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.artifact import Artifact
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import RepoFile, read_tree
from memhub.compiler.importing.roundtrip import _difference, round_trip
from memhub.compiler.marketplace import build_marketplace
from memhub.hubspec.errors import HubError
from memhub.hubspec.marketplace_loader import load_marketplace

from tests.compiler.repofiles import write_repo as write

CLAUDE_MARKET = ".claude-plugin/marketplace.json"
CODEX_MARKET = ".agents/plugins/marketplace.json"


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


def _per_host_folders() -> dict[str, Any]:
    """One plugin `p` kept in a folder per host, each host's marketplace listing its own."""
    skill = "---\nname: s\ndescription: a skill\n---\nbody\n"
    claude = {"name": "p", "version": "1.0.0", "description": "p for Claude Code"}
    codex = {"name": "p", "version": "1.0.0", "description": "p for Codex"}
    return {
        CLAUDE_MARKET: _market({"name": "p", "source": "./plugins/claude/p"}),
        CODEX_MARKET: {
            "name": "shelf",
            "interface": {"displayName": "Shelf"},
            "plugins": [
                {
                    "name": "p",
                    "source": {"source": "local", "path": "./plugins/codex/p"},
                    "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                    "category": "Design",
                }
            ],
        },
        "plugins/claude/p/.claude-plugin/plugin.json": claude,
        "plugins/claude/p/skills/s/SKILL.md": skill,
        "plugins/claude/p/README.md": "# p\n",
        "plugins/codex/p/.codex-plugin/plugin.json": codex,
        "plugins/codex/p/skills/s/SKILL.md": skill,
        "plugins/codex/p/README.md": "# p\n",
    }


def test_one_plugin_name_in_a_folder_per_host_comes_back_whole(tmp_path: Path) -> None:
    """plugins/claude/p and plugins/codex/p, both `p`: a plugin hub per folder, each host's
    marketplace listing its own (once only one host's plugin survived, and the rebuilt
    repository had no Claude marketplace)."""
    listed, counted = trip(write(tmp_path / "repo", _per_host_folders()))
    assert listed == {}
    assert counted == (8, 8)


def test_two_folders_of_one_name_for_one_host_name_both_folders(tmp_path: Path) -> None:
    """Two Claude plugins named `p` in two folders: the first is kept; each file of the
    other says why (it once said "the build does not write it")."""
    files = _per_host_folders()
    codex = files.pop("plugins/codex/p/.codex-plugin/plugin.json")
    files["plugins/codex/p/.claude-plugin/plugin.json"] = codex
    files.pop(CODEX_MARKET)
    listed, counted = trip(write(tmp_path / "repo", files))
    assert set(listed) == {f"plugins/codex/p/{rel}" for rel in _OTHER}
    assert all(
        why.startswith("plugin 'p' is also in plugins/claude/p/ for claude: a marketplace lists")
        for why in listed.values()
    )
    assert counted == (4, 7)


_OTHER = (".claude-plugin/plugin.json", "skills/s/SKILL.md", "README.md")


def _two_hubs(root: Path, hosts: tuple[str, str]) -> Path:
    """A marketplace hub listing two plugin hubs named `p`, in plugins/<host>/p."""
    for host in hosts:
        (root / host).mkdir(parents=True)
        (root / host / "hub.yaml").write_text(
            "version: 1\n"
            f"plugin: {{name: p, version: 1.0.0, description: p, path: plugins/{host}/p}}\n"
            "marketplace: {name: shelf, owner: {name: Ada}}\n"
            f"hosts: [{host}]\n"
        )
    (root / "hub.yaml").write_text(
        "version: 1\nmarketplace: {name: shelf, owner: {name: Ada}}\n"
        f"hosts: [{', '.join(sorted(set(hosts)))}]\n"
        f"plugins:\n- hub: {hosts[0]}\n- hub: {hosts[1]}\n"
    )
    return root / "hub.yaml"


def test_a_plugin_hub_per_host_under_one_name_lists_each_in_its_hosts_file(
    tmp_path: Path,
) -> None:
    """The hub format's folder per host: two plugin hubs of one name and no host in common
    load; each host's marketplace file lists the one built for it."""
    built = build_marketplace(load_marketplace(_two_hubs(tmp_path, ("claude", "codex"))))
    claude = json.loads(built.artifact(CLAUDE_MARKET).content)  # type: ignore[union-attr]
    codex = json.loads(built.artifact(CODEX_MARKET).content)  # type: ignore[union-attr]
    assert [e["source"] for e in claude["plugins"]] == ["./plugins/claude/p"]
    assert [e["source"]["path"] for e in codex["plugins"]] == ["./plugins/codex/p"]


def test_two_plugin_hubs_of_one_name_for_one_host_are_refused(tmp_path: Path) -> None:
    hub = _two_hubs(tmp_path, ("claude", "codex"))
    (tmp_path / "codex" / "hub.yaml").write_text(
        (tmp_path / "codex" / "hub.yaml").read_text().replace("[codex]", "[claude, codex]")
    )
    with pytest.raises(HubError, match="plugin 'p' is listed twice"):
        load_marketplace(hub)


@pytest.mark.parametrize(
    ("mine", "built", "where"),
    [
        ({"a": {"b": None}}, {"a": {}}, "a/b (only the repository has it)"),
        ({"a": [1, True]}, {"a": [1, 1]}, "a/1 (the repository has true, the build 1)"),
    ],
)
def test_json_that_differs_names_the_first_key_path(mine: Any, built: Any, where: str) -> None:
    """Documents no leaf comparison tells apart (an explicit null the build leaves out, a
    boolean against a number) once said only "JSON differs"."""
    ours = RepoFile(json.dumps(mine).encode())
    theirs = Artifact("x.json", json.dumps(built).encode(), owners=("claude",))
    assert _difference(ours, theirs) == f"JSON differs at {where}"


def test_a_skill_refused_for_its_link_leaves_with_the_link(tmp_path: Path) -> None:
    """A skill holding a link into another plugin (kept as a link) is refused by the loader
    and taken out, its link too: the hub builds (it once failed: "missing SKILL.md")."""
    files = _per_host_folders()
    root = write(tmp_path / "repo", files)
    (root / "plugins/codex/p/skills/s/data").mkdir()
    (root / "plugins/codex/p/skills/s/data/x.txt").write_text("x\n")
    (root / "plugins/claude/p/skills/s/data").symlink_to("../../../../codex/p/skills/s/data")
    listed, counted = trip(root)
    assert "the imported hub does not build" not in " ".join(listed.values())
    # the link inside the skill ships as its target's files: the skill comes back whole
    assert list(listed) == ["plugins/claude/p/skills/s/data"]
    assert "ships as its target's files" in listed["plugins/claude/p/skills/s/data"]
    assert counted[0] == counted[1]


def _both(name: str) -> dict[str, Any]:
    """A plugin with a Claude and a Codex manifest."""
    manifest = {"name": name, "version": "1.0.0", "description": f"the {name} plugin"}
    return {
        f"plugins/{name}/.claude-plugin/plugin.json": manifest,
        f"plugins/{name}/.codex-plugin/plugin.json": manifest,
        f"plugins/{name}/README.md": f"# {name}\n",
    }


def _codex_market(*names: str) -> dict[str, Any]:
    entry = {"policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"}}
    return {
        "name": "shelf",
        "interface": {"displayName": "Shelf"},
        "plugins": [
            {"name": n, "source": {"source": "local", "path": f"./plugins/{n}"}, **entry}
            | {"category": "Productivity"}
            for n in names
        ],
    }


@pytest.mark.parametrize(
    ("claude", "codex"),
    [(["a", "b", "c"], ["c", "a", "b"]), (["a", "b"], ["a", "b", "c"]), (["b", "c"], ["a"])],
)
def test_per_host_plugin_order_and_sets_come_back(
    tmp_path: Path, claude: list[str], codex: list[str]
) -> None:
    """Each host's marketplace file lists its own plugins in its own order (they once came
    back in one host's order, with one host's set)."""
    files = {**_both("a"), **_both("b"), **_both("c")}
    entries = [
        {"name": n, "source": f"./plugins/{n}", "description": f"the {n} plugin"} for n in claude
    ]
    files[CLAUDE_MARKET] = _market(*entries)
    files[CODEX_MARKET] = _codex_market(*codex)
    listed, counted = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (11, 11)


def test_a_marketplace_in_a_sub_folder_listing_its_own_folder(tmp_path: Path) -> None:
    """packages/a holds a plugin and the marketplace listing it as `./`: the hub builds it
    back (it once said the plugin was "not inside this marketplace's folder 'packages/a'")."""
    files = {
        f"packages/a/{rel.removeprefix('plugins/a/')}": value for rel, value in _plugin("a").items()
    }
    entry = {"name": "a", "source": "./", "description": "the a plugin"}
    files[f"packages/a/{CLAUDE_MARKET}"] = _market(entry)
    listed, counted = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (4, 4)


def test_a_null_inside_an_unknown_manifest_value_comes_back(tmp_path: Path) -> None:
    """`"extra": {"a": null, "b": {}}` in a manifest: kept as an override and written back
    with its null (a merge patch once took the null out)."""
    files = _plugin("alpha")
    manifest = f"plugins/alpha/{'.claude-plugin/plugin.json'}"
    files[manifest] = {**files[manifest], "extra": {"a": None, "b": {"c": None}}}
    files[CLAUDE_MARKET] = _market(
        {"name": "alpha", "source": "./plugins/alpha", "description": "the alpha plugin"}
    )
    listed, counted = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (4, 4)


def test_an_empty_server_env_comes_back(tmp_path: Path) -> None:
    """A `.mcp.json` server with `"env": {}` (the hub writes no empty env): kept as written."""
    files = _plugin("alpha")
    server = {"command": "uvx", "args": ["serena"], "env": {}}
    files["plugins/alpha/.mcp.json"] = {"mcpServers": {"serena": server}}
    listed, counted = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (4, 4)


def test_a_file_beside_a_manifest_in_its_folder_is_shipped(tmp_path: Path) -> None:
    """`.claude-plugin/README.md` beside plugin.json: shipped and given back (memhub writes
    only the manifest and the marketplace file there)."""
    files = _plugin("alpha")
    files["plugins/alpha/.claude-plugin/README.md"] = "# about this manifest\n"
    listed, counted = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (4, 4)


def test_a_skill_that_is_a_folder_link_leaves_and_the_hub_builds(tmp_path: Path) -> None:
    """skills/t -> another plugin's skill folder: the loader refuses it, the import takes the
    link out (it once kept it, and the hub did not build: the whole repository lost)."""
    root = write(tmp_path / "repo", _per_host_folders())
    (root / "plugins/claude/p/skills/t").symlink_to("../../../codex/p/skills/s")
    listed, counted = trip(root)
    assert "the imported hub does not build" not in " ".join(listed.values())
    assert counted[0] >= 8


def test_entries_in_contradicting_key_orders_come_back(tmp_path: Path) -> None:
    """One entry `name, version, description, source`, the next `name, description,
    version, source`: the file's one entry order cannot give both, so the second gets its
    own `key_order` (once: "JSON-equal, but the key order differs")."""
    files = {**_plugin("a"), **_plugin("b")}
    first = {
        "name": "a",
        "version": "1.0.0",
        "description": "the a plugin",
        "source": "./plugins/a",
    }
    second = {
        "name": "b",
        "description": "the b plugin",
        "version": "1.0.0",
        "source": "./plugins/b",
    }
    files[CLAUDE_MARKET] = _market(first, second)
    listed, counted = trip(write(tmp_path / "repo", files))
    assert listed == {}
    assert counted == (7, 7)
