"""A server's `extra: {<host>: ...}` keys as each host's own CLI loads them after `memhub apply`.

Codex refuses a config.toml with a key it does not know (the whole file), so `codex mcp get
--json` showing the values proves the keys are its own; Gemini lists the servers without an
"Invalid configuration" error and its settings.json holds the keys; Claude Code's `mcp get`
loads the entry; OpenCode's `debug config` shows the keys it read. No host sees another's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import describe, run
from .test_install_hosts import (
    CODEX_PROVIDER,
    DEAD_BASE_URL,
    GEMINI_REJECTS,
    GEMINI_SETTINGS,
    codex_config,
)
from .test_opencode_host import debug, env_for, opencode_cli  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e

EXTRA = {
    "claude": {"timeout": 34000, "alwaysLoad": True},
    "codex": {
        "startup_timeout_sec": 12,
        "tool_timeout_sec": 34,
        "enabled_tools": ["alpha", "beta"],
        "default_tools_approval_mode": "prompt",
    },
    "gemini": {"timeout": 34000, "trust": True, "includeTools": ["alpha"]},
    "opencode": {"enabled": True, "timeout": 21000},
}


def hub(tmp_path: Path) -> Path:
    folder = tmp_path / "hub"
    folder.mkdir()
    lines = "".join(f"        {host}: {json.dumps(keys)}\n" for host, keys in EXTRA.items())
    (folder / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: extras-probe, version: 0.1.0, description: Extra server keys probe}\n"
        "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        "mcp:\n  servers:\n    tools:\n"
        '      command: python3\n      args: ["-V"]\n      extra:\n' + lines
    )
    return folder


@pytest.fixture
def applied(isolated_home: Any, tmp_path: Path, opencode_cli: Path) -> tuple[Any, dict, str]:  # noqa: F811
    home = isolated_home
    (home.codex_home / "config.toml").write_text(codex_config(DEAD_BASE_URL))
    gemini = home.home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(GEMINI_SETTINGS)
    env = env_for(home, opencode_cli)
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(hub(tmp_path))]
    argv += ["--scope", "user", "--hosts", "claude,codex,gemini,opencode"]
    proc = run(argv, env=env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    return home, env, proc.stdout


def test_each_host_loads_its_own_keys(
    applied: tuple[Any, dict, str],
    codex_cli: Path,
    claude_cli: Path,
    gemini_cli: Path,
    opencode_cli: Path,  # noqa: F811
) -> None:
    home, env, printed = applied
    proc = run([codex_cli, "mcp", "get", "tools", "--json"], env=env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    got = json.loads(proc.stdout)
    for key in ("startup_timeout_sec", "tool_timeout_sec", "enabled_tools"):
        assert got[key] == EXTRA["codex"][key], got
    assert "alwaysLoad" not in json.dumps(got) and "includeTools" not in json.dumps(got)
    toml = (home.codex_home / "config.toml").read_text()
    assert 'default_tools_approval_mode = "prompt"' in toml and CODEX_PROVIDER in toml

    proc = run([claude_cli, "mcp", "get", "tools"], env=env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    claude = json.loads((home.claude_dir / ".claude.json").read_text())["mcpServers"]["tools"]
    assert {k: claude[k] for k in EXTRA["claude"]} == EXTRA["claude"]
    assert "startup_timeout_sec" not in claude and "trust" not in claude

    proc = run([gemini_cli, "mcp", "list"], env=env, cwd=home.root)
    assert proc.returncode == 0 and GEMINI_REJECTS not in proc.stdout + proc.stderr, describe(proc)
    assert "tools" in proc.stdout + proc.stderr, describe(proc)
    settings = json.loads((home.home / ".gemini" / "settings.json").read_text())
    gemini = settings["mcpServers"]["tools"]
    assert {k: gemini[k] for k in EXTRA["gemini"]} == EXTRA["gemini"]

    work = home.root / "work"
    work.mkdir()
    opencode = debug(opencode_cli, env, work, "config")["mcp"]["tools"]
    assert {k: opencode[k] for k in EXTRA["opencode"]} == EXTRA["opencode"], opencode
    assert "caveat" not in [line.split()[3] for line in printed.splitlines() if " tools " in line]
