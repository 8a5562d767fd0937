"""Copilot CLI's own layout, built by memhub (`plugin.copilot_manifest`), loaded by the real
copilot binary: a repository that is one plugin (`plugin.path: .`, its manifest the root
`plugin.json`) and its marketplace in `.github/plugin/`. `plugin marketplace add` takes the
bundle, `plugin install` the plugin, and `plugin list` / `skill list` show it loaded from the
repository root itself (no `copilot/<name>/` copy); the `.github/plugin/plugin.json` layout
in a plugin folder is loaded from that folder the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import IsolatedHome
from .harness import build_bundle
from .test_copilot_host import _copilot, _env, _json, copilot_cli  # noqa: F401 (fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("cpu_load")]  # a busy machine

HUB = """version: 1
plugin: {name: tidy-kit, version: 1.4.0, description: Tidying, %s}
marketplace: {name: shelf, owner: {name: Ann}}
hosts: [copilot]
skills: skills
"""
SKILL = "---\nname: tidy\ndescription: Tidy the workspace.\n---\nTidy it.\n"


def _hub(root: Path, plugin: str) -> Path:
    (root / "skills" / "tidy").mkdir(parents=True)
    (root / "skills" / "tidy" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (root / "hub.yaml").write_text(HUB % plugin, encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("plugin", "manifest", "folder"),
    [
        ("path: ., copilot_manifest: plugin.json", "plugin.json", ""),
        (
            "path: tools/tidy, copilot_manifest: .github/plugin/plugin.json",
            ".github/plugin/plugin.json",
            "tools/tidy/",
        ),
    ],
)
def test_copilot_loads_the_plugin_from_its_own_folder(
    copilot_cli: Path,  # noqa: F811 (fixture)
    isolated_home: IsolatedHome,
    git_repo: Path,
    tmp_path: Path,
    plugin: str,
    manifest: str,
    folder: str,
) -> None:
    bundle = tmp_path / "bundle"
    build_bundle(_hub(tmp_path / "hub", plugin), bundle)
    assert (bundle / folder / manifest).is_file()
    assert not (bundle / "copilot").exists()
    env = _env(isolated_home, isolated_home.root / "out")
    _copilot(copilot_cli, env, git_repo, "plugin", "marketplace", "add", str(bundle))
    _copilot(copilot_cli, env, git_repo, "plugin", "install", "tidy-kit@shelf")
    listed = _copilot(copilot_cli, env, git_repo, "plugin", "list").stdout
    assert "tidy-kit@shelf (v1.4.0)" in listed, listed
    skills = {s["name"]: s for s in _json(copilot_cli, env, git_repo, "skill", "list")}
    assert skills["tidy"]["source"] == "plugin"
    assert Path(skills["tidy"]["path"]) == bundle / folder / "skills" / "tidy"
