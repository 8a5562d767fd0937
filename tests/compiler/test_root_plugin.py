"""A plugin at the bundle root (`plugin.path: .`): built at the root of --out for the hosts
that share the plugin folder, listed as `./`, and refused where its files would land on
something else the bundle holds (marketplace files, the build record, other hosts' folders,
another plugin's folder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.compiler.marketplace import build_marketplace
from memhub.hubspec import load
from memhub.hubspec.errors import HubError
from memhub.hubspec.marketplace_loader import load_marketplace

SKILL = "---\nname: hello\ndescription: Says hello.\n---\nHello.\n"
PLUGIN = """\
version: 1
plugin:
  name: solo
  version: 1.0.0
  description: Solo.
  path: {path}
marketplace:
  name: solo-market
  owner: {{name: x}}
hosts: {hosts}
skills: skills
"""


def plugin_hub(
    root: Path, *, path: str = ".", hosts: str = "[claude, codex, cursor, gemini]", extra: str = ""
) -> Path:
    (root / "skills" / "hello").mkdir(parents=True)
    (root / "skills" / "hello" / "SKILL.md").write_text(SKILL)
    (root / "notes.txt").write_text("notes\n")
    (root / "hub.yaml").write_text(PLUGIN.format(path=path, hosts=hosts) + extra)
    return root


def sources(result, path: str) -> list[object]:
    found = result.artifact(path)
    assert found is not None, path
    return [p["source"] for p in json.loads(found.content)["plugins"]]


def test_a_root_plugin_is_built_at_the_root_and_listed_as_dot_slash(tmp_path: Path) -> None:
    result = build(load(plugin_hub(tmp_path / "hub")))
    paths = {a.path for a in result.artifacts}
    assert {
        ".claude-plugin/plugin.json",
        ".codex-plugin/plugin.json",
        ".cursor-plugin/plugin.json",
        "skills/hello/SKILL.md",
        "README.md",
    } <= paths
    # the hosts with a folder of their own keep it
    assert "gemini/solo/gemini-extension.json" in paths
    assert "gemini/solo/skills/hello/SKILL.md" in paths
    assert not any(p.startswith(("plugins/", "./")) for p in paths)
    assert sources(result, ".claude-plugin/marketplace.json") == ["./"]
    assert sources(result, ".cursor-plugin/marketplace.json") == ["./"]
    assert sources(result, ".agents/plugins/marketplace.json") == [
        {"source": "local", "path": "./"}
    ]


FILES = """\
files:
  - from: notes.txt
    to: {to}
"""


@pytest.mark.parametrize(
    ("to", "why"),
    [
        ("gemini/notes.txt", "inside gemini/, another host's folder"),
        (".agents/plugins/marketplace.json", "a file memhub writes there itself"),
        (".github/plugin/marketplace.json", "a file memhub writes there itself"),
        (".memhub-build.json", "a file memhub writes there itself"),
    ],
)
def test_a_root_plugins_file_landing_on_the_bundles_own_is_refused(
    tmp_path: Path, to: str, why: str
) -> None:
    hub = load(plugin_hub(tmp_path / "hub", extra=FILES.format(to=to)))
    with pytest.raises(HubError) as caught:
        build(hub)
    message = str(caught.value)
    assert f"hub.yaml:13:5: files[0]: notes.txt lands on {to} of the root plugin" in message
    assert why in message and "Fix: ship it under another `to:` path" in message


def test_another_hosts_folder_is_free_when_that_host_is_not_built(tmp_path: Path) -> None:
    extra = FILES.format(to="gemini/notes.txt")
    hub = load(plugin_hub(tmp_path / "hub", hosts="[claude, codex]", extra=extra))
    assert build(hub).artifact("gemini/notes.txt") is not None


def test_the_same_file_in_a_plugin_folder_is_no_clash(tmp_path: Path) -> None:
    extra = FILES.format(to="gemini/notes.txt")
    hub = load(plugin_hub(tmp_path / "hub", path="tools/solo", extra=extra))
    assert build(hub).artifact("tools/solo/gemini/notes.txt") is not None


def test_dot_is_the_only_dot_path(tmp_path: Path) -> None:
    with pytest.raises(HubError) as caught:
        load(plugin_hub(tmp_path / "hub", path="./solo"))
    assert "plugin.path: './solo' has a '.' or '..' segment" in str(caught.value)


MARKET = """\
version: 1
marketplace: {{name: m, owner: {{name: x}}}}
hosts: [claude, codex, cursor]
plugins:
  - hub: solo
    source: ./
  - hub: other
{other}
"""


def market_hub(root: Path, other: str = "", solo_extra: str = "", other_path: str = "") -> Path:
    plugin_hub(root / "solo", path="'.'", hosts="[claude, codex, cursor]", extra=solo_extra)
    text = PLUGIN.replace("solo", "other").format(
        path=other_path or "plugins/other", hosts="[claude, codex, cursor]"
    )
    (root / "other" / "skills" / "hi").mkdir(parents=True)
    (root / "other" / "skills" / "hi" / "SKILL.md").write_text(SKILL.replace("hello", "hi"))
    (root / "other" / "hub.yaml").write_text(text)
    (root / "hub.yaml").write_text(MARKET.format(other=other))
    return root


def test_a_marketplace_lists_a_root_plugin_beside_a_plugin_folder(tmp_path: Path) -> None:
    result = build_marketplace(load_marketplace(market_hub(tmp_path / "m")))
    assert sources(result, ".claude-plugin/marketplace.json") == ["./", "./plugins/other"]
    assert result.artifact("skills/hello/SKILL.md") is not None
    assert result.artifact("plugins/other/skills/hi/SKILL.md") is not None


def test_a_plugin_folder_inside_one_the_root_plugin_writes_is_refused(tmp_path: Path) -> None:
    root = market_hub(tmp_path / "m", other_path="skills/other")
    with pytest.raises(HubError) as caught:
        build_marketplace(load_marketplace(root))
    assert "plugin 'other' (folder 'skills/other') sits inside skills/, which the root " in str(
        caught.value
    )


def test_a_root_plugins_file_inside_another_plugin_is_refused(tmp_path: Path) -> None:
    root = market_hub(tmp_path / "m", solo_extra=FILES.format(to="plugins/other/notes.txt"))
    with pytest.raises(HubError) as caught:
        build_marketplace(load_marketplace(root))
    assert "the root plugin 'solo' writes plugins/other/notes.txt, inside plugin 'other'" in str(
        caught.value
    )


def test_a_root_plugins_file_on_a_sub_marketplace_file_is_refused(tmp_path: Path) -> None:
    extra = "marketplaces:\n  - plugins: [solo, other]\n  - name: sub\n    path: plugins\n"
    extra += "    plugins: [other]\n"
    to = "plugins/.claude-plugin/marketplace.json"
    root = market_hub(tmp_path / "m", other=extra, solo_extra=FILES.format(to=to))
    with pytest.raises(HubError) as caught:
        build_marketplace(load_marketplace(root))
    assert f"notes.txt lands on {to} of the root plugin" in str(caught.value)


def test_a_marketplace_in_a_sub_folder_cannot_list_a_root_plugin(tmp_path: Path) -> None:
    extra = "marketplaces:\n  - name: sub\n    path: internal\n    plugins: [solo]\n"
    with pytest.raises(HubError) as caught:
        load_marketplace(market_hub(tmp_path / "m", other=extra))
    assert "plugin 'solo' (folder '.') is not inside this marketplace's folder 'internal'" in str(
        caught.value
    )


def test_a_plugin_folder_beside_a_root_plugins_file_in_a_plain_folder_builds(
    tmp_path: Path,
) -> None:
    """A root plugin shipping `plugins/README.md` beside `plugins/other`: no host reads
    plugins/ as the root plugin's components, so both build (a published root Gemini
    extension with its plugins under plugins/ was refused whole)."""
    root = market_hub(tmp_path / "m", solo_extra=FILES.format(to="plugins/README.md"))
    result = build_marketplace(load_marketplace(root))
    assert result.artifact("plugins/README.md") is not None
    assert result.artifact("plugins/other/skills/hi/SKILL.md") is not None
