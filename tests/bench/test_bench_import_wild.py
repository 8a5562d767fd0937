"""bench/bench_import_wild.py's comparisons: key order counts, key paths are leaf paths, the
plugin files of a checkout are decided from the checkout alone, and a run without mirrors
skips every entry. Nothing here needs the corpus repositories."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_import_wild.py"
sys.path.insert(0, str(BENCH.parent))
_spec = importlib.util.spec_from_file_location("bench_import_wild", BENCH)
assert _spec is not None and _spec.loader is not None
wild = importlib.util.module_from_spec(_spec)
sys.modules["bench_import_wild"] = wild
_spec.loader.exec_module(wild)
import import_wild_compare as cmp  # noqa: E402


def test_json_equal_needs_the_same_key_order() -> None:
    assert cmp.json_equal_ordered(b'{"a": 1, "b": [1, {"c": 2}]}', b'{"a":1,"b":[1,{"c":2}]}')
    assert not cmp.json_equal_ordered(b'{"a": 1, "b": 2}', b'{"b": 2, "a": 1}')
    assert not cmp.json_equal_ordered(b'{"x": {"a": 1, "b": 2}}', b'{"x": {"b": 2, "a": 1}}')
    assert not cmp.json_equal_ordered(b'{"a": 1}', b"not json")


def test_key_paths_are_leaves_and_a_missing_rebuild_keeps_none() -> None:
    orig = b'{"name": "p", "hooks": {"Stop": [{"command": "x", "async": false}]}, "env": {}}'
    assert sorted(cmp.leaf_paths(json.loads(orig))) == [
        "env",
        "hooks.Stop[0].async",
        "hooks.Stop[0].command",
        "name",
    ]
    rebuilt = b'{"name": "p", "hooks": {"Stop": [{"command": "x"}]}}'
    assert cmp.key_paths_kept(orig, rebuilt) == (2, 4, ["hooks.Stop[0].async", "env"])
    assert cmp.key_paths_kept(orig, None)[:2] == (0, 4)
    # 1 and true are different values to a host reading the file
    assert cmp.key_paths_kept(b'{"a": true}', b'{"a": 1}')[:2] == (0, 1)


def _market(entries: list[object], root: str | None = None) -> bytes:
    doc: dict[str, object] = {"name": "m", "plugins": entries}
    if root:
        doc["metadata"] = {"pluginRoot": root}
    return json.dumps(doc).encode()


def test_plugin_files_come_from_manifests_and_marketplace_sources() -> None:
    files = {
        ".claude-plugin/marketplace.json": _market(
            [
                {"name": "a", "source": "./plugins/a"},
                {"name": "b", "source": "b"},
                {"name": "g", "source": {"source": "github", "repo": "o/g"}},
            ],
            root="./plugins",
        ),
        ".agents/plugins/marketplace.json": _market(
            [{"name": "c", "source": {"source": "local", "path": "./codex/c"}}]
        ),
        "plugins/a/skills/s/SKILL.md": b"",
        "plugins/b/commands/x.md": b"",
        "codex/c/.codex-plugin/plugin.json": b"{}",
        "codex/c/README.md": b"",
        "ext/gemini-extension.json": b"{}",
        "ext/commands/t.toml": b"",
        "docs/index.md": b"",
        "README.md": b"",
    }
    assert cmp.plugin_files(files) == [
        ".agents/plugins/marketplace.json",
        ".claude-plugin/marketplace.json",
        "codex/c/.codex-plugin/plugin.json",
        "codex/c/README.md",
        "ext/commands/t.toml",
        "ext/gemini-extension.json",
        "plugins/a/skills/s/SKILL.md",
        "plugins/b/commands/x.md",
    ]
    assert cmp.layouts(files) == [
        "claude-marketplace",
        "codex-marketplace",
        "codex-plugin",
        "gemini-extension",
    ]


def test_a_root_plugin_makes_every_file_a_plugin_file() -> None:
    copilot_root = {"plugin.json": b'{"name": "p"}', "agents/r.agent.md": b"", "LICENSE": b""}
    assert cmp.plugin_files(copilot_root) == sorted(copilot_root)
    assert cmp.layouts(copilot_root) == ["copilot-agent-md", "copilot-plugin-root"]
    self_listing = {
        "sub/.claude-plugin/marketplace.json": _market([{"name": "s", "source": "./"}]),
        "sub/x.md": b"",
        "y.md": b"",
    }
    assert cmp.plugin_files(self_listing) == ["sub/.claude-plugin/marketplace.json", "sub/x.md"]


def test_compare_file_names_the_cause(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "m.json").write_text('{"a": 1, "b": 2}')
    (b / "m.json").write_text('{\n  "a": 1,\n  "b": 2\n}\n')
    assert cmp.compare_file(a / "m.json", b / "m.json") is None
    (b / "m.json").write_text('{"b": 2, "a": 1}')
    assert cmp.compare_file(a / "m.json", b / "m.json") == "json differs"
    (a / "run.sh").write_text("echo\n")
    (b / "run.sh").write_text("echo\n")
    os.chmod(a / "run.sh", 0o755)
    assert cmp.compare_file(a / "run.sh", b / "run.sh") == "mode differs"
    (b / "run.sh").write_text("echo \n")
    assert cmp.compare_file(a / "run.sh", b / "run.sh") == "bytes differ"
    assert cmp.compare_file(a / "run.sh", b / "gone.sh") == "missing"
    os.symlink("run.sh", a / "l")
    os.symlink("other.sh", b / "l")
    assert cmp.compare_file(a / "l", b / "l") == "link target differs"


def test_without_mirrors_every_entry_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMHUB_IMPORT_CORPUS_MIRRORS", raising=False)
    assert wild.main([]) == 0
    assert "every entry skipped" in capsys.readouterr().err
    assert wild.main(["--mirrors", str(tmp_path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert len(rows) >= 40 and all(r["skipped"] == "no mirror" for r in rows)


def test_the_corpus_lists_forty_held_out_repositories_with_commits() -> None:
    doc = json.loads((BENCH.parent / "import_corpus" / "corpus.json").read_text())
    repos = doc["repositories"]
    others = [e for e in repos if e["group"] == "others"]
    assert len(others) >= 40
    assert len({e["repo"] for e in repos}) == len(repos)
    assert all(len(e["commit"]) == 40 and e["layouts"] for e in repos)


def test_a_second_held_out_group_is_left_out_of_all() -> None:
    doc = json.loads((BENCH.parent / "import_corpus" / "corpus.json").read_text())
    groups = {e["repo"].lower(): e["group"] for e in doc["repositories"]}
    second = [r for r, g in groups.items() if g == "heldout2"]
    assert len(second) >= 25
    assert [wild.in_group("heldout2", g) for g in ("all", "others", "heldout2", "every")] == [
        False,
        False,
        True,
        True,
    ]
    assert wild.in_group("tuned", "all") and wild.in_group("others", "all")


def test_sources_resolve_under_plugin_root_or_from_the_file_folder() -> None:
    files = {
        ".claude-plugin/marketplace.json": _market(
            [{"name": "m", "source": "./meta"}], root="./plugins"
        ),
        ".github/plugin/marketplace.json": _market([{"name": "a", "source": "../../pkgs/a"}]),
        "plugins/meta/SKILL.md": b"",
        "pkgs/a/plugin.json": b"{}",
        "meta.md": b"",
    }
    assert cmp.plugin_roots(files)[0] == {"plugins/meta", "pkgs/a"}
