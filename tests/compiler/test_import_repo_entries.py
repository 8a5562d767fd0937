"""Marketplace entries as the importer reads them (repo_parts.marketplace_entries)."""

from __future__ import annotations

from typing import Any

import pytest
from memhub.compiler.importing.repo_parts import marketplace_entries, url_source


def _sources(metadata: Any, *sources: Any) -> list[Any]:
    doc = {
        "metadata": metadata,
        "plugins": [{"name": f"p{i}", "source": s} for i, s in enumerate(sources)],
    }
    return [e["source"] for e in marketplace_entries(doc, lambda raw: raw)]


@pytest.mark.parametrize("root", ["plugins", "./plugins", "plugins/"])
def test_a_bare_name_is_read_under_plugin_root(root: str) -> None:
    assert _sources({"pluginRoot": root}, "alpha", "./tools/beta") == [
        "./plugins/alpha",
        "./tools/beta",
    ]


@pytest.mark.parametrize("metadata", [None, {}, {"pluginRoot": 3}, "plugins"])
def test_without_a_plugin_root_a_bare_name_stays(metadata: Any) -> None:
    assert _sources(metadata, "alpha") == ["alpha"]


def test_a_root_escaping_the_repository_stays_visible() -> None:
    """normpath keeps the `..`: the import then refuses the folder (exit 2), never reads it."""
    assert _sources({"pluginRoot": "../elsewhere"}, "alpha") == ["./../elsewhere/alpha"]


def test_a_git_source_ignores_plugin_root() -> None:
    git = {"source": "github", "repo": "acme/x"}
    assert _sources({"pluginRoot": "plugins"}, git) == [git]


@pytest.mark.parametrize(("url", "read"), [("./", "./"), ("./plugins/x", "./plugins/x")])
def test_a_url_source_naming_a_folder_of_the_repository_is_that_folder(url: str, read: str) -> None:
    assert url_source({"source": "url", "url": url}) == read


def test_a_url_source_naming_a_remote_is_a_git_source() -> None:
    raw = {"source": "url", "url": "https://git.example.com/x.git", "ref": "v1", "sha": 5}
    assert url_source(raw) == {"git": "https://git.example.com/x.git", "ref": "v1"}
