"""What the install-side CLI tests share: the probe hub, the hosts, and running `memhub`
in process (the home, the hub copy and the host folders come from conftest fixtures)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main

from tests.hubs import REPO

HUB = REPO / "tests" / "data" / "install"
ALL = "claude,codex,cursor,gemini"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`memhub ARGS` in this process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def claude_json() -> Path:
    """Claude keeps .claude.json inside CLAUDE_CONFIG_DIR when set (the tests set it)."""
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    return folder / ".claude.json"
