"""What a new user hits first: the starter hub, host defaults, restore, import then apply."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from memhub.compiler.cli import main

from tests.hubs import REPO

HUB = REPO / "tests" / "data" / "install"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# -- ${env:NAME} counts only in values -------------------------------------------------------


def test_the_starter_hub_plans_without_a_warning(tmp_path: Path, capsys) -> None:
    """`memhub init` writes `${env:NAME}` in a comment; a comment is not a reference."""
    assert run(capsys, "init", str(tmp_path / "hub"))[0] == 0
    assert "${env:NAME}" in (tmp_path / "hub" / "hub.yaml").read_text()
    project = tmp_path / "project"
    project.mkdir()
    code, out, err = run(
        capsys,
        "plan",
        str(tmp_path / "hub"),
        "--scope",
        "project",
        "--project",
        str(project),
        "--hosts",
        "claude",
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["warnings"] == []
    assert "warning" not in err


def test_only_values_reference_variables(tmp_path: Path) -> None:
    from memhub.compiler.secrets import referenced_names
    from memhub.hubspec import load

    hub = tmp_path / "hub"
    shutil.copytree(HUB, hub)
    text = (hub / "hub.yaml").read_text()
    text = "# ${env:IN_A_COMMENT} is how a secret is named\n" + text
    text = text.replace("mcp:\n", "mcp:  # e.g. ${env:AFTER_A_KEY}\n", 1)
    (hub / "hub.yaml").write_text(text)
    names = referenced_names(load(hub))
    assert "IN_A_COMMENT" not in names and "AFTER_A_KEY" not in names
    assert "PROBE_TOKEN" in names
