"""A repository written the way published ones are, imported and built back, through the real
`claude plugin validate --strict`: every marketplace and plugin folder the original passes
(a plugin folder without plugin.json included) the build passes too, with the same report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main

from .harness import run, validation_problems

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("cpu_load")]  # a busy machine

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "repos" / "published-shapes"
TARGETS = ["", "plugins/recall", "plugins/board", "plugins/toolkit"]


def _report(claude: Path, target: Path, env: dict[str, str]) -> tuple[bool, list[str]]:
    proc = run([claude, "plugin", "validate", "--strict", "--json", target], env=env)
    report = json.loads(proc.stdout)
    problems = [p.replace(str(target), "<target>") for p in validation_problems(report)]
    return report.get("success") is True and proc.returncode == 0, problems


def test_build_of_the_import_validates_as_the_repository_does(
    claude_cli: Path, isolated_home, tmp_path: Path
) -> None:
    into, out = tmp_path / "hub", tmp_path / "bundle"
    assert main(["import", "--from-repo", str(FIXTURE), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    passed = []
    for folder in TARGETS:
        theirs = _report(claude_cli, FIXTURE / folder, isolated_home.env)
        ours = _report(claude_cli, out / folder, isolated_home.env)
        assert ours == theirs, folder or "the marketplace"
        passed += [folder] if theirs[0] else []
    # the folders published clean stay clean, plugin.json-less toolkit among them
    assert passed == ["plugins/recall", "plugins/toolkit"]


REPOS = FIXTURE.parent
SHAPES = [
    # flat and typeless .mcp.json servers, pluginRoot, a hidden git-subdir folder, an unlisted
    # plugin folder
    ("listing-shapes", ["", "plugins/notes", "plugins/draft"]),
    ("shared-folder", [""]),  # strict: false entries sharing ./, each naming its skills
    ("root-url-source", [""]),  # Codex's {source: url, url: ./}, no Cursor marketplace
]


@pytest.mark.parametrize(("name", "targets"), SHAPES, ids=[s[0] for s in SHAPES])
def test_build_of_other_published_shapes_validates_alike(
    name: str, targets: list[str], claude_cli: Path, isolated_home, tmp_path: Path
) -> None:
    into, out = tmp_path / "hub", tmp_path / "bundle"
    assert main(["import", "--from-repo", str(REPOS / name), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    for folder in targets:
        theirs = _report(claude_cli, REPOS / name / folder, isolated_home.env)
        ours = _report(claude_cli, out / folder, isolated_home.env)
        assert ours == theirs, f"{name}/{folder}"


def _provides(claude: Path, target: Path, env: dict[str, str]) -> dict[str, list[str]]:
    proc = run([claude, "plugin", "validate", "--json", target], env=env)
    provides = json.loads(proc.stdout)["provides"]
    return {kind: sorted(provides[kind]) for kind in ("skills", "agents", "commands")}


def test_components_named_apart_or_refused_load_from_the_build_as_from_the_repository(
    claude_cli: Path, isolated_home, tmp_path: Path
) -> None:
    """Agents and commands whose `name:` is not their file name, an agent without `name:`,
    a command without front matter, a SKILL.md strict YAML refuses, a skills/ folder without
    SKILL.md: real Claude Code lists the same skills, agents and commands from the build."""
    into, out, repo = tmp_path / "hub", tmp_path / "bundle", REPOS / "component-shapes"
    assert main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    theirs = _provides(claude_cli, repo / "plugins/kit", isolated_home.env)
    assert theirs["agents"] == ["kit:helper", "kit:kit-api-reviewer", "kit:notes"]
    assert theirs["commands"] == ["kit:publish-all", "kit:scan"]
    assert theirs["skills"] == ["kit:good", "kit:loose"]
    assert _provides(claude_cli, out / "plugins/kit", isolated_home.env) == theirs
