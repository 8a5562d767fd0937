"""Loading a marketplace hub: its model, and every malformed input refused with file:line:col
and a fix (nothing written by `memhub build`)."""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from memhub.compiler.cli.main import main
from memhub.hubspec import HubError
from memhub.hubspec.marketplace import MarketplaceHub, PluginSource
from memhub.hubspec.marketplace_loader import is_marketplace_text, load_any, load_marketplace

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "marketplace"
SHA = "0123456789abcdef0123456789abcdef01234567"


def test_fixture_loads_into_the_model() -> None:
    market = load_marketplace(FIXTURE)
    assert [e.name for e in market.entries] == [
        "alpha",
        "beta",
        "gamma",
        "gamma-staging",
        "delta",
        "epsilon",
    ]
    by_name = {e.name: e for e in market.entries}
    assert by_name["alpha"].source == PluginSource("path", path="plugins/alpha")
    assert by_name["beta"].folder == "tools/beta"  # its plugin.path
    assert by_name["gamma"].source == PluginSource("path", path="plugins/gamma")
    assert by_name["gamma"].source_for("codex") == by_name["gamma"].source_for("claude")
    assert by_name["gamma"].source_for("claude") == PluginSource(
        "git-subdir",
        url="https://github.com/acme/tools.git",
        path="plugins/gamma",
        ref="gamma--v1.4.0",
        sha=SHA,
    )
    assert by_name["gamma"].folder == "plugins/gamma"  # built here, installed from git
    assert by_name["gamma-staging"].folder == "internal/gamma-staging"
    assert by_name["delta"].source == PluginSource("github", repo="acme/delta", ref="v2")
    assert by_name["delta"].hub is None
    assert by_name["epsilon"].source.kind == "git"
    assert [(m.name, m.path, m.hosts) for m in market.marketplaces] == [
        ("acme-tools", "", ("claude", "codex", "cursor")),
        ("acme-internal", "internal", ("claude",)),
    ]
    assert market.marketplaces[1].plugins == ("gamma-staging",)


def test_load_any_tells_the_kinds_apart() -> None:
    assert isinstance(load_any(FIXTURE), MarketplaceHub)
    assert not isinstance(load_any(FIXTURE / "alpha"), MarketplaceHub)
    assert is_marketplace_text("version: 1\nplugins:\n  - hub: a\n")
    assert not is_marketplace_text("version: 1\nplugin:\n  name: a\n  # plugins: no\n")
    assert not is_marketplace_text("version: 1\nplugin:\n  name: a\nplugins: x\n")


def test_default_marketplace_lists_every_plugin_for_every_host(tmp_path: Path) -> None:
    hub = _copy(tmp_path, lambda d: d.pop("marketplaces"))
    market = load_marketplace(hub)
    (only,) = market.marketplaces
    assert only.path == "" and only.plugins == tuple(e.name for e in market.entries)
    assert only.hosts == ("claude", "codex", "cursor")


def test_plugin_path_moves_the_plugin_folder(tmp_path: Path) -> None:
    from memhub.compiler.build import build
    from memhub.hubspec import load

    folder = tmp_path / "beta"
    shutil.copytree(FIXTURE / "beta", folder)
    paths = {a.path for a in build(load(folder)).artifacts}
    assert "tools/beta/.claude-plugin/plugin.json" in paths
    assert not any(p.startswith("plugins/") for p in paths)


# --------------------------------------------------------------------------------------------
# Malformed marketplace hubs: (id, mutation of the fixture's data, line text, message part)
# --------------------------------------------------------------------------------------------


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def apply(data: dict[str, Any]) -> None:
        target = data
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value

    return apply


CASES: list[tuple[str, Any, str]] = [
    (
        "short-sha",
        _set(("plugins", 2, "sources", "claude"), {"git": "https://x.example/y.git", "sha": "abc"}),
        "is not a full commit sha",
    ),
    ("upper-sha", _set(("plugins", 4, "source", "sha"), SHA.upper()), "is not a full commit sha"),
    ("empty-ref", _set(("plugins", 4, "source", "ref"), ""), "is not a git ref name"),
    ("ref-space", _set(("plugins", 4, "source", "ref"), "v 2"), "is not a git ref name"),
    (
        "http-url",
        _set(("plugins", 5, "source"), {"git": "http://git.acme.example/e.git"}),
        "is not a git URL memhub accepts",
    ),
    (
        "file-url",
        _set(("plugins", 5, "source"), {"git": "file:///srv/e.git"}),
        "is not a git URL memhub accepts",
    ),
    ("github-shape", _set(("plugins", 4, "source"), {"github": "acme"}), "is not a GitHub"),
    (
        "both-kinds",
        _set(("plugins", 4, "source"), {"github": "a/b", "git": "https://x/y.git"}),
        "unknown key",
    ),
    ("no-kind", _set(("plugins", 4, "source"), {"ref": "v1"}), "a source is ./folder"),
    ("bare-folder", _set(("plugins", 3, "source"), "internal/x"), "is not a ./folder"),
    ("dotdot-folder", _set(("plugins", 3, "source"), "./../x"), "'.' or '..' segment"),
    ("reserved-folder", _set(("plugins", 3, "source"), "./gemini/x"), "another host's"),
    (
        "subdir-dotdot",
        _set(("plugins", 4, "source", "path"), "../gamma"),
        "'.' or '..' segment",
    ),
    ("subdir-empty-segment", _set(("plugins", 4, "source", "path"), "a//b"), "plain relative"),
    ("subdir-absolute", _set(("plugins", 4, "source", "path"), "/abs"), "absolute path"),
    (
        "host-source-folder",
        _set(("plugins", 2, "sources", "cursor"), "./plugins/gamma"),
        "a git source is",
    ),
    (
        "host-source-host",
        _set(("plugins", 2, "sources", "windsurf"), {"github": "a/b"}),
        "is not one of",
    ),
    ("listed-no-source", lambda d: d["plugins"][4].pop("source"), "needs a `source:`"),
    (
        "listed-local",
        _set(("plugins", 4, "source"), "./plugins/delta"),
        "no plugin hub builds it",
    ),
    ("no-name", lambda d: d["plugins"].append({"source": {"github": "a/b"}}), "`name:`"),
    ("wrong-name", _set(("plugins", 0, "name"), "omega"), "is not the name of the plugin"),
    ("duplicate", lambda d: d["plugins"].append({"hub": "alpha"}), "listed twice"),
    ("missing-hub", _set(("plugins", 0, "hub"), "nowhere"), "holds no hub.yaml"),
    ("self-hub", _set(("plugins", 0, "hub"), "."), "the marketplace hub's own folder"),
    ("escaping-hub", _set(("plugins", 0, "hub"), "../alpha"), "'.' or '..' segment"),
    ("unknown-key", _set(("plugins", 0, "folder"), "x"), "unknown key 'folder'"),
    ("unknown-plugin", _set(("marketplaces", 1, "plugins"), ["nope"]), "no plugin 'nope'"),
    ("foreign-host", _set(("marketplaces", 1, "hosts"), ["gemini"]), "not one of this hub's"),
    (
        "outside-market",
        _set(("marketplaces", 1, "plugins"), ["alpha"]),
        "is not inside this marketplace's folder",
    ),
    (
        "same-file",
        lambda d: d["marketplaces"].append({"hosts": ["claude"], "plugins": ["alpha"]}),
        "both write claude's marketplace file",
    ),
    ("bad-market-path", _set(("marketplaces", 1, "path"), "/abs"), "is an absolute path"),
    ("no-plugins", _set(("plugins",), []), "needs at least 1"),
    (
        "override-secret",
        _set(
            ("plugins", 4, "overrides"),
            {"claude": {"env": {"API_KEY": "sk-live-12345678901234567890"}}},
        ),
        "a hub is committed",
    ),
]


def _copy(tmp_path: Path, mutate: Any) -> Path:
    hub = tmp_path / "hub"
    shutil.copytree(FIXTURE, hub)
    data = yaml.safe_load((hub / "hub.yaml").read_text())
    data = copy.deepcopy(data)
    mutate(data)
    (hub / "hub.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return hub


@pytest.mark.parametrize("path", [".github/plugins/x", "gemini/x", "agent-plugins/x"])
def test_a_folder_of_another_repository_may_be_hidden_or_reserved(
    path: str, tmp_path: Path
) -> None:
    """memhub writes nothing in the repository a git-subdir source names, so its folder only
    has to be a relative path (a published marketplace lists .github/plugins/<name>)."""
    hub = _copy(tmp_path, _set(("plugins", 4, "source", "path"), path))
    delta = {e.name: e for e in load_marketplace(hub).entries}["delta"]
    assert delta.source == PluginSource(
        "git-subdir", url="https://github.com/acme/delta.git", path=path, ref="v2"
    )


@pytest.mark.parametrize(("case", "mutate", "expected"), CASES, ids=[c[0] for c in CASES])
def test_malformed_marketplace_hub_is_refused(
    case: str, mutate: Any, expected: str, tmp_path: Path, capsys
) -> None:
    hub = _copy(tmp_path, mutate)
    with pytest.raises(HubError) as caught:
        load_marketplace(hub)
    text = str(caught.value)
    assert expected in text, text
    assert "Fix:" in text
    problem = caught.value.problems[0]
    assert problem.origin.line is not None, text  # file:line:col
    out = tmp_path / "out"
    assert main(["build", str(hub), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "hub.yaml:" in err and "Traceback" not in err
    assert not out.exists()


def test_plugin_hub_errors_name_their_own_file(tmp_path: Path) -> None:
    hub = _copy(tmp_path, lambda d: None)
    text = (hub / "alpha" / "hub.yaml").read_text().replace("version: 1.0.0", "version: one")
    (hub / "alpha" / "hub.yaml").write_text(text)
    with pytest.raises(HubError) as caught:
        load_marketplace(hub)
    assert "alpha/hub.yaml:" in str(caught.value)


def test_plugin_hub_through_a_link_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    shutil.copytree(FIXTURE / "alpha", outside)
    hub = _copy(tmp_path, _set(("plugins", 0, "hub"), "linked"))
    os.symlink(outside, hub / "linked")
    with pytest.raises(HubError, match="resolves outside the marketplace hub's folder"):
        load_marketplace(hub)


def test_plugin_hub_yaml_as_a_symlink_is_refused(tmp_path: Path) -> None:
    hub = _copy(tmp_path, lambda d: None)
    target = hub / "alpha" / "real.yaml"
    (hub / "alpha" / "hub.yaml").rename(target)
    os.symlink(target, hub / "alpha" / "hub.yaml")
    with pytest.raises(HubError, match=r"holds no hub\.yaml"):
        load_marketplace(hub)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("../x", "'.' or '..' segment"),
        ("/abs/x", "absolute path"),
        (".claude-plugin/x", "memhub writes a host's manifest or marketplace in"),
        (".github/plugin/x", "memhub writes a host's manifest or marketplace in"),
        ("a b/x", "not a plain relative folder"),
        ("agent-plugins/x", "another host's plugin folders"),
        ("a//b", "not a plain relative folder"),
    ],
)
def test_malformed_plugin_path_is_refused(value: str, expected: str, tmp_path: Path) -> None:
    from memhub.hubspec import load

    folder = tmp_path / "beta"
    shutil.copytree(FIXTURE / "beta", folder)
    text = (folder / "hub.yaml").read_text().replace("path: tools/beta", f"path: {value!r}")
    (folder / "hub.yaml").write_text(text)
    with pytest.raises(HubError) as caught:
        load(folder)
    assert expected in str(caught.value) and "plugin.path" in str(caught.value)
    assert "hub.yaml:8:" in str(caught.value)


def test_a_marketplace_hub_where_a_plugin_hub_is_wanted_says_so() -> None:
    from memhub.hubspec import load

    with pytest.raises(HubError) as caught:
        load(FIXTURE)
    text = str(caught.value)
    assert "this is a marketplace hub" in text and "hub.yaml:11:1:" in text, text


def test_a_fifo_as_a_plugin_hubs_hub_yaml_is_refused(tmp_path: Path) -> None:
    hub = _copy(tmp_path, lambda d: None)
    (hub / "alpha" / "hub.yaml").unlink()
    os.mkfifo(hub / "alpha" / "hub.yaml")
    with pytest.raises(HubError, match=r"holds no hub\.yaml"):
        load_marketplace(hub)


def test_the_marketplace_schema_is_a_valid_schema_naming_every_host() -> None:
    import json

    import jsonschema
    from memhub import schemas
    from memhub.hubspec.marketplace_schema import SCHEMA_FILE, _validator
    from memhub.hubspec.vocabulary import bundle_hosts

    published = json.loads(Path(schemas.__file__).with_name(SCHEMA_FILE).read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(published)
    assert _validator().schema["$defs"]["host"]["enum"] == list(bundle_hosts())
