"""`plugin.agent_plugins_folder: shared`: the Agent Plugins package in the plugin's own folder,
as some published repositories have it, with what it costs on Codex said (and a required
Codex hook refused); the import reads such a package back into that opt-in."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.hosts.agent_plugins_shared import CODEX_LOSES_HOOKS
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec import HubError, load

from tests.compiler.test_import_repo_shapes import REPOS, imported

REPO = REPOS / "shared-package"
PLUGIN = "plugins/beside"
HUB = """version: 1
plugin: {name: demo, version: 1.0.0, description: d, agent_plugins_folder: %s}
marketplace: {name: m, owner: {name: o}}
hosts: [%s]
hooks:
  - {id: x, event: turn_end, command: echo, required: %s}
"""


def _hub(
    tmp_path: Path,
    folder: str = "shared",
    hosts: str = "codex, agent-plugins",
    required: str = "false",
) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "hub.yaml").write_text(HUB % (folder, hosts, required))
    return tmp_path


def test_the_fixture_round_trips_with_the_opt_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = imported("shared-package", tmp_path / "hub", capsys)
    assert data["round_trip"]["files"] == {"reproduced": 10, "total": 10}  # type: ignore[index]
    hub = yaml.safe_load((tmp_path / "hub" / PLUGIN / "hub.yaml").read_text())
    assert hub["plugin"]["agent_plugins_folder"] == "shared"
    assert "agent-plugins" in hub["hosts"]
    order = hub["overrides"]["agent-plugins"]["key_order"]["manifest"]
    assert order.index("homepage") < order.index("author")  # the repository's order, kept


def test_shared_writes_the_package_in_the_plugin_folder_and_says_so_on_codex(
    tmp_path: Path,
) -> None:
    result = build(load(_hub(tmp_path)))
    paths = {a.path for a in result.artifacts}
    assert {"plugins/demo/plugin.json", "plugins/demo/.codex-plugin/plugin.json"} <= paths
    assert not any(p.startswith("agent-plugins/") for p in paths)
    rows = {(r.host, r.component): r for r in result.coverage}
    assert rows["codex", "hook"].status == "caveat"
    assert rows["codex", "hook"].reason == CODEX_LOSES_HOOKS
    assert rows["codex", "plugin"].target == "plugins/demo/plugin.json"
    assert "loads none of the plugin's hooks" in CODEX_LOSES_HOOKS


def test_apart_by_default_and_without_codex_no_caveat(tmp_path: Path) -> None:
    apart = build(load(_hub(tmp_path / "a", "apart")))
    assert apart.artifact("agent-plugins/demo/plugin.json") is not None
    assert apart.artifact("plugins/demo/plugin.json") is None
    assert all(r.reason != CODEX_LOSES_HOOKS for r in apart.coverage)
    alone = build(load(_hub(tmp_path / "b")), hosts=["agent-plugins", "claude"])
    assert all(r.reason != CODEX_LOSES_HOOKS for r in alone.coverage)


def test_a_required_codex_hook_refuses_the_shared_folder(tmp_path: Path) -> None:
    with pytest.raises(HubError) as caught:
        build(load(_hub(tmp_path, required="true")))
    assert "codex cannot carry required hook 'x'" in str(caught.value)
    assert "plugin.agent_plugins_folder: apart" in str(caught.value)


def test_an_unknown_folder_value_is_refused(tmp_path: Path) -> None:
    with pytest.raises(HubError) as caught:
        load(_hub(tmp_path, "root"))
    assert "agent_plugins_folder" in str(caught.value)


@pytest.mark.parametrize(
    "content",
    ['{"version": "1"}', "not json {", '["a list"]'],
    ids=["no-schema-no-name", "not-json", "not-object"],
)
def test_a_plugin_json_of_another_kind_is_listed_not_read(tmp_path: Path, content: str) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    (repo / PLUGIN / "plugin.json").write_text(content)
    tree = read_tree(repo)
    result = round_trip(tree, import_repo(tree))
    listed = {u.path: u.reason for u in result.unreproduced}
    # (one with a `name` is a Copilot CLI manifest: test_import_repo_copilot_layouts.py)
    assert "neither an Agent Plugins package" in listed[f"{PLUGIN}/plugin.json"]
