"""Installed hooks name this installation's own `memhub-hook` by absolute path.

After the Quickstart memhub-hook is in .venv/bin, which is not on the PATH a host gives its
hooks; a bare `memhub-hook` then fails on every event. The hook commands `memhub apply`
writes are run here from a shell whose PATH lacks the venv.
"""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path

import pytest
from memhub.compiler.cli import main

BARE_PATH = "/usr/local/bin:/usr/bin:/bin"
SCRIPTS = Path(sysconfig.get_path("scripts"))


def hub_with_a_handler(tmp_path: Path) -> Path:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: hook-probe, version: 0.1.0, description: Hook probe}\n"
        "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        "hooks:\n  - {id: health, event: session_start, handler: capture.health}\n"
    )
    return hub


def test_installed_hooks_run_this_installations_memhub_hook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = hub_with_a_handler(tmp_path)
    code = main(["apply", str(hub), "--scope", "user", "--hosts", "claude,codex,gemini"])
    assert code == 0, capsys.readouterr()
    home = Path(os.environ["HOME"])
    files = {
        "claude": Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json",
        "codex": Path(os.environ["CODEX_HOME"]) / "hooks.json",
        "gemini": home / ".gemini" / "settings.json",
    }
    for host, path in files.items():
        hooks = json.loads(path.read_text())["hooks"]["SessionStart"]
        command = hooks[0]["hooks"][0]["command"]
        assert command.split()[0] == str(SCRIPTS / "memhub-hook"), (host, command)
        proc = subprocess.run(
            ["/bin/sh", "-c", command],
            input="{}",
            env={"PATH": BARE_PATH, "HOME": str(home), "MEMHUB_HOME": str(tmp_path / "m")},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 0 and proc.stdout.strip().startswith("{"), (host, proc)
