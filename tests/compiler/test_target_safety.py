"""Writes stay inside their target: links out of a project, dangling links, special files,
read-only and foreign-owned targets, and hub instructions that carry memhub's own markers.

Every case runs on real files: real symlinks, a real FIFO (`os.mkfifo`), real `chmod` and
`chown`. The cases that used to hang run memhub in a child process under a timeout, so a
regression fails the test instead of blocking the suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.compiler.cli import main

from tests.hubs import REPO

HUB = REPO / "tests" / "data" / "install"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_child(*args: str, cwd: Path | None = None, timeout: float = 30) -> tuple[int, str]:
    """memhub in its own process, killed after `timeout` s: a blocked read fails the test."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memhub.compiler.cli", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env=dict(os.environ),
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"memhub {' '.join(args)} still running after {timeout} s (blocked)")
    return done.returncode, done.stderr


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    target = tmp_path / "hub"
    shutil.copytree(HUB, target)
    return target


def files_under(root: Path) -> dict[str, bytes]:
    """Every file below `root` (links not followed), memhub's own home left out."""
    found = {}
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(folder, name)
            if ".memhub" in path.parts:
                continue
            if path.is_symlink():
                found[str(path.relative_to(root))] = b"-> " + os.fsencode(os.readlink(path))
            elif path.is_file():
                found[str(path.relative_to(root))] = path.read_bytes()
    return found


# -- instructions that carry memhub's markers -----------------------------------------------


def test_instructions_holding_a_memhub_marker_are_refused_at_validate(
    hub: Path, home: Path, capsys
) -> None:
    text = (hub / "INSTRUCTIONS.md").read_text()
    (hub / "INSTRUCTIONS.md").write_text(text + "\nquoted:\n<!-- memhub:end install-probe -->\n")
    code, _, err = run(capsys, "validate", str(hub))
    assert code == 2
    assert f"{hub / 'INSTRUCTIONS.md'}:6:1" in err
    assert "memhub block marker" in err and "Fix:" in err
    assert "Traceback" not in err
    before = files_under(home)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude,codex,gemini")
    assert code == 2 and "memhub block marker" in err
    assert files_under(home) == before, "nothing is written"


def test_marker_like_lines_that_memhub_does_not_read_as_markers_are_fine(hub: Path, capsys) -> None:
    text = (hub / "INSTRUCTIONS.md").read_text()
    (hub / "INSTRUCTIONS.md").write_text(
        text + "\n    <!-- memhub:end install-probe -->\nsee `<!-- memhub:begin x -->`\n"
    )
    code, _, err = run(capsys, "validate", str(hub))
    assert code == 0, err
