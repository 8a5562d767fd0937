"""What a new user hits first: the starter hub, host defaults, restore, import then apply."""

from __future__ import annotations

import json
import os
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


# -- the hub's `hosts:` bounds the default ---------------------------------------------------


def _path_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *exes: str) -> None:
    """PATH holding only executables named like host CLIs (which is all the default reads)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for exe in exes:
        (bin_dir / exe).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / exe).chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))


def _hub_for(tmp_path: Path, hosts: str) -> Path:
    hub = tmp_path / "hub"
    shutil.copytree(HUB, hub)
    text = (hub / "hub.yaml").read_text()
    (hub / "hub.yaml").write_text(text.replace("mcp:\n", f"hosts: [{hosts}]\nmcp:\n", 1))
    return hub


def test_the_hubs_hosts_bound_the_default_and_plan_apply_say_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    home = Path(os.environ["HOME"])
    _path_with(tmp_path, monkeypatch, "claude", "codex", "gemini")
    hub = _hub_for(tmp_path, "claude, cursor, agent-plugins")
    code, out, err = run(capsys, "plan", str(hub), "--json")
    assert code == 0, err
    assert json.loads(out)["hosts"] == ["claude"]
    assert "hosts: claude (" in err and "not on PATH: cursor" in err
    assert "on PATH but not in `hosts:`: codex, gemini" in err
    code, out, err = run(capsys, "apply", str(hub))
    assert code == 0, err
    assert "hosts: claude (" in err
    assert (Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json").is_file()
    assert not Path(os.environ["CODEX_HOME"]).exists(), "codex is not in the hub's hosts"
    assert not (home / ".gemini").exists()
    code, out, err = run(capsys, "apply", str(hub), "--hosts", "codex")
    assert code == 0, err
    assert "hosts: codex (as named by --hosts)" in err
    assert (Path(os.environ["CODEX_HOME"]) / "config.toml").is_file()


def test_a_hub_whose_hosts_have_no_cli_on_path_is_refused_naming_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    _path_with(tmp_path, monkeypatch, "codex")
    hub = _hub_for(tmp_path, "claude, gemini")
    code, _, err = run(capsys, "apply", str(hub))
    assert code == 2
    assert "claude, gemini" in err and "--hosts" in err and "Traceback" not in err
    assert not Path(os.environ["CODEX_HOME"]).exists()
    hub.joinpath("hub.yaml").write_text(
        hub.joinpath("hub.yaml").read_text().replace("[claude, gemini]", "[agent-plugins]")
    )
    code, _, err = run(capsys, "plan", str(hub))
    assert code == 2
    assert "hub.yaml: `hosts:` (agent-plugins) names no host memhub installs into" in err
