"""Overrides as merge patches and a hub's own key order (compiler/hosts/keyorder.py), applied
once after the adapters write their documents: every host's manifest and marketplace file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.errors import BuildError
from memhub.compiler.hosts.common import deep_merge
from memhub.compiler.hosts.keyorder import _merged, order_of, ordered
from memhub.compiler.importing.repo_fill import merge_patch
from memhub.hubspec import load
from memhub.hubspec.errors import HubError

HUB = {
    "version": 1,
    "plugin": {
        "name": "demo",
        "version": "1.0.0",
        "description": "Demo.",
        "author": {"name": "Me", "email": "me@example.com"},
        "homepage": "https://example.com",
    },
    "marketplace": {"name": "demo-market", "owner": {"name": "Me"}},
    "hosts": ["claude", "codex", "cursor", "agent-plugins"],
}


def hub_with(tmp_path: Path, **extra: object) -> Path:
    (tmp_path / "hub.yaml").write_text(yaml.safe_dump({**HUB, **extra}, sort_keys=False))
    return tmp_path


def documents(folder: Path) -> dict[str, dict[str, object]]:
    return {
        a.path: json.loads(a.content)
        for a in build(load(folder)).artifacts
        if a.path.endswith(".json")
    }


def test_ordered_puts_named_keys_first_and_keeps_the_rest_in_order() -> None:
    doc = {"name": 1, "version": 2, "description": 3, "author": {"name": "a", "email": "b"}}
    out = ordered(doc, ["description", {"author": ["email"]}, "absent"])
    assert list(out) == ["description", "author", "name", "version"]
    assert list(out["author"]) == ["email", "name"]
    assert out == doc  # the same document, only its order


def test_an_order_inside_a_list_orders_each_object() -> None:
    doc = {"plugins": [{"name": "a", "source": "./a"}, {"name": "b", "source": "./b", "x": 1}]}
    out = ordered(doc, [{"plugins": ["source", "name"]}])
    assert [list(p) for p in out["plugins"]] == [["source", "name"], ["source", "name", "x"]]


def test_order_of_gives_back_the_repository_order_only_where_it_differs() -> None:
    written = {"name": 1, "version": 2, "author": {"name": "a", "email": "b"}}
    same = {"name": 1, "author": {"name": "a", "email": "b"}}  # a key fewer, same order
    assert order_of(same, written) == []
    theirs = {"version": 2, "name": 1, "author": {"email": "b", "name": "a"}}
    order = order_of(theirs, written)
    assert order == ["version", "name", {"author": ["email", "name"]}]
    assert json.dumps(ordered(written, order)) == json.dumps(theirs)


def test_orders_of_a_lists_objects_are_merged_into_one() -> None:
    short = ["name", "description", "source", "category"]
    long = ["name", "description", "version", "author", "source", "category"]
    assert _merged([short, long]) == long
    assert _merged([]) == []


def test_merge_patch_nulls_what_the_repository_lacks() -> None:
    built = {"$schema": "s", "name": "m", "interface": {"a": 1, "b": 2}, "same": [1]}
    theirs = {"name": "n", "interface": {"a": 1}, "same": [1], "extra": True}
    patch = merge_patch(built, theirs)
    assert patch == {"$schema": None, "name": "n", "interface": {"b": None}, "extra": True}
    assert deep_merge(built, patch) == theirs


def test_deep_merge_is_a_merge_patch() -> None:
    """A merge patch where the build wrote the key; a mapping the build has no value for is
    written as given, nulls too (a manifest's `"x": {"a": null}` comes back)."""
    base = {"a": 1, "b": {"c": 2, "d": 3}}
    assert deep_merge(base, {"a": None, "b": {"c": None}, "e": {"f": None, "g": 1}}) == {
        "b": {"d": 3},
        "e": {"f": None, "g": 1},
    }
    assert base == {"a": 1, "b": {"c": 2, "d": 3}}  # not changed in place


def test_null_and_key_order_reach_every_hosts_manifest(tmp_path: Path) -> None:
    overrides = {
        host: {
            "manifest": {"version": None, "author": {"email": None}},
            "key_order": {"manifest": ["description", "name"]},
        }
        for host in ("claude", "codex", "cursor", "agent-plugins")
    }
    docs = documents(hub_with(tmp_path, overrides=overrides))
    paths = [
        "plugins/demo/.claude-plugin/plugin.json",
        "plugins/demo/.codex-plugin/plugin.json",
        "plugins/demo/.cursor-plugin/plugin.json",
        "agent-plugins/demo/plugin.json",
    ]
    for path in paths:
        assert "version" not in docs[path], path
        assert docs[path]["author"] == {"name": "Me"}, path
        assert list(docs[path])[:2] == ["description", "name"], path


def test_key_order_and_nulls_reach_a_plugin_hubs_marketplace_file(tmp_path: Path) -> None:
    overrides = {
        "claude": {
            "marketplace": {"$schema": None},
            "key_order": {"marketplace": ["owner", {"plugins": ["source", "name"]}]},
        }
    }
    market = documents(hub_with(tmp_path, overrides=overrides))[".claude-plugin/marketplace.json"]
    assert "$schema" not in market
    assert next(iter(market)) == "owner"
    assert list(market["plugins"][0])[:2] == ["source", "name"]


def test_a_key_order_that_is_not_a_list_of_keys_is_refused(tmp_path: Path) -> None:
    bad = {"claude": {"key_order": {"manifest": ["name", {"author": "name", "x": []}]}}}
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, overrides=bad))
    assert "key_order" in str(caught.value)


def test_readme_false_writes_no_readme(tmp_path: Path) -> None:
    folder = hub_with(tmp_path, plugin={**HUB["plugin"], "readme": False})  # type: ignore[dict-item]
    paths = [a.path for a in build(load(folder)).artifacts]
    assert not [p for p in paths if p.endswith("README.md")]
    assert "plugins/demo/.claude-plugin/plugin.json" in paths


def test_claude_manifest_null_writes_no_plugin_json(tmp_path: Path) -> None:
    folder = hub_with(tmp_path, overrides={"claude": {"manifest": None}})
    paths = [a.path for a in build(load(folder)).artifacts]
    assert "plugins/demo/.claude-plugin/plugin.json" not in paths
    assert "plugins/demo/.codex-plugin/plugin.json" in paths
    assert ".claude-plugin/marketplace.json" in paths  # its entry describes the plugin


def test_claude_manifest_null_with_hooks_is_refused(tmp_path: Path) -> None:
    hooks = [{"id": "hello", "event": "session_start", "command": "echo hi"}]
    folder = hub_with(tmp_path, overrides={"claude": {"manifest": None}}, hooks=hooks)
    with pytest.raises(
        BuildError, match=r"finds hooks/claude-hooks\.json only through the manifest"
    ):
        build(load(folder))


def test_a_null_manifest_for_a_host_that_needs_one_is_refused(tmp_path: Path) -> None:
    folder = hub_with(tmp_path, overrides={"codex": {"manifest": None}})
    with pytest.raises(BuildError, match=r"overrides.codex.manifest is null, but codex needs"):
        build(load(folder))
