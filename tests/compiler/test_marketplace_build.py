"""Building a marketplace hub (snapshots of the fixture's every file), each source kind in
each host's shape, and plugin hubs sharing one --out."""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.errors import OutputError
from memhub.compiler.marketplace import MarketplaceBuild, build_marketplace
from memhub.compiler.output import marker_bytes, write_build
from memhub.hubspec.marketplace_loader import load_marketplace

from tests.hubs import HUBS, built, text_files

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "marketplace"
SHA = "0123456789abcdef0123456789abcdef01234567"


@cache
def market() -> MarketplaceBuild:
    return build_marketplace(load_marketplace(FIXTURE))


def _json(path: str) -> Any:
    found = market().artifact(path)
    assert found is not None, path
    return json.loads(found.content)


@pytest.mark.parametrize("owner", ["claude", "codex", "cursor", "shared"])
def test_marketplace_files_match_snapshot(owner: str, snapshot) -> None:
    files = text_files(market(), owner)  # type: ignore[arg-type]  # same attributes as a Build
    assert files and files == snapshot


def test_marketplace_coverage_matches_snapshot(snapshot) -> None:
    assert [row.to_json() for row in market().coverage] == snapshot


def test_every_plugin_is_listed_in_hub_order() -> None:
    claude = _json(".claude-plugin/marketplace.json")
    assert [p["name"] for p in claude["plugins"]] == ["alpha", "beta", "gamma", "delta", "epsilon"]
    assert claude["name"] == "acme-tools" and claude["metadata"] == {"version": "1.0.0"}
    internal = _json("internal/.claude-plugin/marketplace.json")
    assert internal["name"] == "acme-internal"
    assert internal["plugins"][0]["source"] == "./gamma-staging"  # relative to internal/
    assert internal["plugins"][0]["description"].startswith("STAGING")
    assert list(internal["plugins"][0]) == ["name", "source", "description"]  # nulls drop keys
    # the internal plugin is Claude-only: no other host's marketplace lists it
    assert market().artifact("internal/.agents/plugins/marketplace.json") is None


def test_each_source_kind_in_each_hosts_shape() -> None:
    claude = {p["name"]: p["source"] for p in _json(".claude-plugin/marketplace.json")["plugins"]}
    assert claude == {
        "alpha": "./plugins/alpha",
        "beta": "./tools/beta",
        "gamma": {
            "source": "git-subdir",
            "url": "https://github.com/acme/tools.git",
            "path": "plugins/gamma",
            "ref": "gamma--v1.4.0",
            "sha": SHA,
        },
        "delta": {"source": "github", "repo": "acme/delta", "ref": "v2"},
        "epsilon": {
            "source": "url",
            "url": "git@git.acme.example:tools/epsilon.git",
            "sha": "89abcdef0123456789abcdef0123456789abcdef",
        },
    }
    codex = {p["name"]: p["source"] for p in _json(".agents/plugins/marketplace.json")["plugins"]}
    assert codex["alpha"] == {"source": "local", "path": "./plugins/alpha"}
    assert codex["gamma"] == {**claude["gamma"]}
    assert codex["delta"] == {
        "source": "url",
        "url": "https://github.com/acme/delta.git",
        "ref": "v2",
    }
    assert codex["epsilon"] == claude["epsilon"]
    cursor = {p["name"]: p["source"] for p in _json(".cursor-plugin/marketplace.json")["plugins"]}
    # gamma's per-host sources pin Claude Code and Codex; Cursor lists its folder
    assert cursor == {
        "alpha": "./plugins/alpha",
        "beta": "./tools/beta",
        "gamma": "./plugins/gamma",
    }


def test_a_kind_a_host_cannot_express_is_a_coverage_row() -> None:
    rows = [r for r in market().warnings if r.component == "marketplace"]
    assert [(r.host, r.id) for r in rows] == [
        ("cursor", "delta"),
        ("cursor", "epsilon"),
    ]
    assert all("Cursor" in r.reason and r.target == "-" for r in rows)


def test_entry_overrides_per_host() -> None:
    claude = {p["name"]: p for p in _json(".claude-plugin/marketplace.json")["plugins"]}
    assert claude["beta"]["strict"] is True and claude["beta"]["category"] == "productivity"
    assert claude["beta"]["tags"] == ["files"]  # the plugin hub's own marketplace_entry
    codex = {p["name"]: p for p in _json(".agents/plugins/marketplace.json")["plugins"]}
    assert codex["beta"]["policy"] == {
        "installation": "INSTALLED_BY_DEFAULT",
        "authentication": "ON_INSTALL",
    }
    assert codex["beta"]["category"] == "Developer Tools"


def test_plugin_files_are_the_plugin_hubs_own_build() -> None:
    """A plugin built through the marketplace hub gets the files its own hub builds, moved
    to its folder, and no one-plugin marketplace file of its own."""
    from memhub.compiler.build import build
    from memhub.hubspec import load

    alone = build(load(FIXTURE / "gamma"))
    mine = {a.path: a.content for a in market().artifacts if a.path.startswith("plugins/gamma/")}
    theirs = {
        a.path: a.content
        for a in alone.artifacts
        if a.path.startswith("plugins/gamma/") and not a.path.endswith("README.md")
    }
    assert {p: mine[p] for p in theirs} == theirs
    readme = mine["plugins/gamma/README.md"].decode()
    assert "gamma@acme-tools" in readme  # installed from the marketplace hub's marketplace


def test_marketplace_hub_build_is_deterministic() -> None:
    again = build_marketplace(load_marketplace(FIXTURE))
    assert [(a.path, a.content, a.mode) for a in again.artifacts] == [
        (a.path, a.content, a.mode) for a in market().artifacts
    ]


def test_host_option_narrows_the_marketplace() -> None:
    only = build_marketplace(load_marketplace(FIXTURE), ["codex"])
    paths = {a.path for a in only.artifacts}
    assert ".agents/plugins/marketplace.json" in paths
    assert not any(".claude-plugin" in p or ".cursor-plugin" in p for p in paths)


def test_single_plugin_marker_is_unchanged() -> None:
    """A lone plugin build's marker has today's shape and bytes."""
    marker = json.loads(marker_bytes(built("minimal")))
    assert list(marker) == ["generator", "plugin", "hosts", "files"]


# --------------------------------------------------------------------------------------------
# Several builds in one --out
# --------------------------------------------------------------------------------------------


def _plugin_hub(tmp_path: Path, source: str, market_name: str = "pair") -> Path:
    folder = tmp_path / source
    shutil.copytree(FIXTURE / source, folder)
    text = (folder / "hub.yaml").read_text()
    text = text.replace(f"name: {source}-market", f"name: {market_name}")
    text = text.replace(
        "hosts: [claude, codex, cursor, gemini, agent-plugins]", "hosts: [claude, codex, cursor]"
    )
    (folder / "hub.yaml").write_text(text)
    return folder


def _build(hub: Path, out: Path) -> None:
    assert main(["build", str(hub), "--out", str(out)]) == 0


def test_two_plugin_hubs_in_one_out_both_survive(tmp_path: Path, capsys) -> None:
    alpha, gamma, out = (
        _plugin_hub(tmp_path, "alpha"),
        _plugin_hub(tmp_path, "gamma"),
        tmp_path / "out",
    )
    _build(alpha, out)
    _build(gamma, out)
    assert (out / "plugins/alpha/skills/greet/SKILL.md").is_file()
    assert (out / "plugins/gamma/skills/pin/SKILL.md").is_file()
    for path in (".claude-plugin", ".cursor-plugin", ".agents/plugins"):
        document = json.loads((out / path / "marketplace.json").read_text())
        assert [p["name"] for p in document["plugins"]] == ["alpha", "gamma"], path
    marker = json.loads((out / ".memhub-build.json").read_text())
    assert [b["plugin"] for b in marker["builds"]] == ["alpha", "gamma"]
    # rebuilding either changes nothing
    capsys.readouterr()
    _build(alpha, out)
    assert "(8 unchanged)" in capsys.readouterr().out


def test_a_stale_file_of_this_plugin_goes_and_nothing_of_the_other(tmp_path: Path, capsys) -> None:
    alpha, gamma, out = (
        _plugin_hub(tmp_path, "alpha"),
        _plugin_hub(tmp_path, "gamma"),
        tmp_path / "out",
    )
    old = gamma / "skills" / "old"
    old.mkdir()
    (old / "SKILL.md").write_text("---\nname: old\ndescription: An old skill.\n---\nold\n")
    _build(alpha, out)
    _build(gamma, out)
    assert (out / "plugins/gamma/skills/old/SKILL.md").is_file()
    shutil.rmtree(old)
    capsys.readouterr()
    _build(gamma, out)
    printed = capsys.readouterr().out
    assert "delete  plugins/gamma/skills/old/SKILL.md" in printed
    assert not (out / "plugins/gamma/skills/old").exists()
    assert (out / "plugins/alpha/skills/greet/SKILL.md").is_file()
    assert "plugins/alpha" not in printed  # the other build is not even listed


def test_different_marketplaces_in_one_out_are_refused(tmp_path: Path, capsys) -> None:
    alpha, out = _plugin_hub(tmp_path, "alpha"), tmp_path / "out"
    gamma = _plugin_hub(tmp_path, "gamma", market_name="other")
    _build(alpha, out)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    assert main(["build", str(gamma), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "holds marketplace 'pair'" in err and "Fix:" in err
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_a_plugin_built_alone_and_in_a_marketplace_hub_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_build(market(), out)
    from memhub.compiler.build import build
    from memhub.hubspec import load

    with pytest.raises(OutputError, match="written by the build of marketplace acme-tools"):
        write_build(build(load(FIXTURE / "alpha")), out)


def test_diff_against_a_shared_out_shows_only_this_build(tmp_path: Path, capsys) -> None:
    alpha, gamma, out = (
        _plugin_hub(tmp_path, "alpha"),
        _plugin_hub(tmp_path, "gamma"),
        tmp_path / "out",
    )
    _build(alpha, out)
    _build(gamma, out)
    capsys.readouterr()
    assert main(["diff", str(alpha), "--against", str(out), "--exit-code"]) == 0


def test_validate_a_marketplace_hub(capsys) -> None:
    assert main(["validate", str(FIXTURE)]) == 0
    captured = capsys.readouterr()
    assert "valid: marketplace acme-tools (6 plugins" in captured.out
    assert "[build only] cursor: marketplace 'delta'" in captured.err
    assert main(["validate", "--json", str(FIXTURE)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["data"]["marketplace"] == "acme-tools"


def test_examples_still_build_as_plugin_hubs() -> None:
    assert all(not isinstance(built(name), MarketplaceBuild) for name in HUBS)


@pytest.mark.parametrize(
    ("path", "schema"),
    [
        (".claude-plugin/marketplace.json", "claude-code/schemastore/claude-code-marketplace.json"),
        (
            "internal/.claude-plugin/marketplace.json",
            "claude-code/schemastore/claude-code-marketplace.json",
        ),
        (
            ".cursor-plugin/marketplace.json",
            "cursor/cursor-plugins-official/schemas/marketplace.schema.json",
        ),
    ],
)
def test_marketplace_files_match_the_published_schemas(
    path: str, schema: str, material: Path
) -> None:
    import jsonschema

    published = json.loads((material / schema).read_text("utf-8"))
    validator = jsonschema.validators.validator_for(published)(
        published, format_checker=jsonschema.FormatChecker()
    )
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(_json(path))]
    assert errors == []


def test_a_marketplace_hub_takes_over_its_plugins_lone_builds(tmp_path: Path) -> None:
    """A folder where a plugin hub was built alone can become the marketplace hub's: the
    plugin's files are the marketplace hub's now, and nothing is refused."""
    from memhub.compiler.build import build
    from memhub.hubspec import load

    out = tmp_path / "out"
    write_build(build(load(FIXTURE / "alpha")), out)
    assert (out / "gemini/alpha/gemini-extension.json").is_file()
    write_build(market(), out)
    marker = json.loads((out / ".memhub-build.json").read_text())
    assert marker["marketplace"] == "acme-tools"  # the only build left
    assert not (out / "gemini").exists()  # alpha's gemini files were its lone build's


def test_marketplace_override_null_drops_a_key(tmp_path: Path) -> None:
    """`overrides.<host>.marketplace` with `key: null` shapes the file as published (the
    published MemHub Cursor marketplace names its owner without an e-mail)."""
    import yaml

    hub = tmp_path / "hub"
    shutil.copytree(FIXTURE, hub)
    data = yaml.safe_load((hub / "hub.yaml").read_text())
    data["overrides"]["cursor"] = {"marketplace": {"owner": {"email": None}}}
    data["overrides"]["claude"]["marketplace"]["$schema"] = None
    (hub / "hub.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    result = build_marketplace(load_marketplace(hub))
    cursor = json.loads(result.artifact(".cursor-plugin/marketplace.json").content)  # type: ignore[union-attr]
    assert cursor["owner"] == {"name": "Acme"}
    claude = json.loads(result.artifact(".claude-plugin/marketplace.json").content)  # type: ignore[union-attr]
    assert list(claude) == ["name", "description", "owner", "plugins", "metadata"]


def test_a_hostile_marker_cannot_reach_out_of_the_folder(tmp_path: Path) -> None:
    """A marker naming `../x`, an absolute path or a file behind a link is not trusted: the
    build neither reads nor copies those files, and leaves them where they are."""
    import os

    from memhub.compiler.build import build
    from memhub.hubspec import load

    secret = tmp_path / "secret.txt"
    secret.write_text("not yours")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.txt").write_text("outside")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside, out / "linked")
    hostile = {
        "generator": "memhub",
        "plugin": "other",
        "hosts": ["claude"],
        "files": ["../secret.txt", str(secret), "linked/x.txt", ".memhub-build.json"],
    }
    (out / ".memhub-build.json").write_text(json.dumps(hostile))
    write_build(build(load(FIXTURE / "gamma")), out)
    assert not (out / "secret.txt").exists() and secret.read_text() == "not yours"
    assert (outside / "x.txt").read_text() == "outside"
    assert not (out / "linked").exists()  # not this build's, and no build can keep it
    marker = json.loads((out / ".memhub-build.json").read_text())
    assert "builds" not in marker and marker["plugin"] == "gamma"


def test_build_then_diff_a_marketplace_hub(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["build", str(FIXTURE), "--out", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["data"]
    assert data["summary"]["create"] == len(market().artifacts)
    assert main(["diff", str(FIXTURE), "--against", str(out), "--exit-code"]) == 0
    (out / "plugins/alpha/README.md").write_text("edited\n")
    assert main(["diff", str(FIXTURE), "--against", str(out), "--exit-code"]) == 1


def test_a_listed_plugin_may_describe_another_plugins_folder(tmp_path: Path) -> None:
    """A `./folder` entry without `hub:` lists a plugin hub's folder again (Claude Code's
    `strict: false` entries, each naming its own skills), for the hosts that hub builds."""
    import yaml

    hub = tmp_path / "hub"
    shutil.copytree(FIXTURE, hub)
    data = yaml.safe_load((hub / "hub.yaml").read_text())
    lite = {"claude": {"strict": False, "skills": ["./skills/one"]}}
    data["plugins"].append(
        {"name": "alpha-lite", "source": "./plugins/alpha", "description": "Less alpha"}
        | {"overrides": lite}
    )
    data["marketplaces"][0]["plugins"].append("alpha-lite")
    (hub / "hub.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    result = build_marketplace(load_marketplace(hub))
    claude = json.loads(result.artifact(".claude-plugin/marketplace.json").content)  # type: ignore[union-attr]
    (entry,) = [e for e in claude["plugins"] if e["name"] == "alpha-lite"]
    assert entry == {
        "name": "alpha-lite",
        "source": "./plugins/alpha",
        "description": "Less alpha",
        "strict": False,
        "skills": ["./skills/one"],
    }
    codex = json.loads(result.artifact(".agents/plugins/marketplace.json").content)  # type: ignore[union-attr]
    (entry,) = [e for e in codex["plugins"] if e["name"] == "alpha-lite"]
    assert entry["source"] == {"source": "local", "path": "./plugins/alpha"}
