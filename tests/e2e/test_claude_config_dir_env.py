"""Host folders the environment moves: an empty CLAUDE_CONFIG_DIR, a relative CODEX_HOME.

memhub used to treat `CLAUDE_CONFIG_DIR=` as set for `.claude.json` (writing
`~/.claude/.claude.json`) and as unset for settings. The real `claude` CLI is the oracle:
with the variable empty, `claude mcp add -s user` writes `~/.claude.json`, and `claude mcp
get` finds the server memhub applied there. (Claude Code does put `backups/` under the
current folder then, as if the empty value were a relative path; every run here has
cwd=tmp_path.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .harness import describe, run

pytestmark = pytest.mark.e2e

HUB = """version: 1
plugin:
  name: config-dir-probe
  version: 0.1.0
  description: One MCP server, to see where memhub and Claude Code put it.
  author: {name: memhub}
marketplace:
  name: config-dir-market
  owner: {name: memhub}
mcp:
  servers:
    probe-server:
      command: "true"
"""


def test_empty_config_dir_puts_servers_where_claude_reads_them(
    claude_cli: Path, isolated_home, tmp_path: Path
) -> None:
    env = isolated_home.with_env(CLAUDE_CONFIG_DIR="")
    home = isolated_home.home
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(HUB, "utf-8")

    # Claude Code's own rule for an empty value.
    add = ["mcp", "add", "-s", "user", "own-server", "--", "true"]
    added = run([claude_cli, *add], env=env, cwd=tmp_path)
    assert added.returncode == 0, describe(added)
    assert "own-server" in json.loads((home / ".claude.json").read_text())["mcpServers"]

    apply = ["apply", str(hub), "--scope", "user", "--hosts", "claude"]
    applied = run([sys.executable, "-m", "memhub.compiler.cli.main", *apply], env=env, cwd=tmp_path)
    assert applied.returncode == 0, describe(applied)
    servers = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert {"own-server", "probe-server"} <= servers.keys(), servers
    assert not (home / ".claude" / ".claude.json").exists()

    got = run([claude_cli, "mcp", "get", "probe-server"], env=env, cwd=tmp_path)
    assert got.returncode == 0, describe(got)
    assert "User config" in got.stdout, describe(got)


def test_relative_codex_home_is_refused_because_codex_resolves_it_per_folder(
    codex_cli: Path, isolated_home, tmp_path: Path
) -> None:
    """The real codex reads a relative CODEX_HOME against the folder it starts in, so one
    value names a different folder per checkout; memhub refuses it instead of guessing."""
    env = isolated_home.with_env(CODEX_HOME="rel-codex-home")
    for name in ("first", "second"):
        folder = tmp_path / name
        (folder / "rel-codex-home").mkdir(parents=True)
        added = run([codex_cli, "mcp", "add", f"srv-{name}", "--", "true"], env=env, cwd=folder)
        assert added.returncode == 0, describe(added)
        config = (folder / "rel-codex-home" / "config.toml").read_text("utf-8")
        assert f"srv-{name}" in config, config

    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(HUB, "utf-8")
    apply = ["apply", str(hub), "--scope", "user", "--hosts", "codex"]
    refused = run([sys.executable, "-m", "memhub.compiler.cli.main", *apply], env=env, cwd=tmp_path)
    assert refused.returncode == 2, describe(refused)
    assert "CODEX_HOME='rel-codex-home' is a relative path" in refused.stderr, describe(refused)
    assert "Traceback" not in refused.stderr
    assert not (tmp_path / "rel-codex-home").exists()
