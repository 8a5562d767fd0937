"""`memhub apply --adopt` then `memhub uninstall`, read back by the real hosts.

A person has their own MCP server named like one of the hub's (`probe-stdio`) in Claude
Code, Codex and Gemini CLI. Adopting replaces it with the hub's; the hosts run in between
(Claude Code rewrites `.claude.json` as it starts, so the file is no longer what memhub
wrote); uninstall must give each host the person's own server back, as each host's own
loader reports it. And once Claude Code rewrote `.claude.json`, uninstall keeps the
person's own empty `"mcpServers": {}`: only containers memhub created are pruned.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .harness import REPO_ROOT, describe, run
from .test_install_hosts import (
    CLAUDE_SETTINGS,
    DEAD_BASE_URL,
    GEMINI_SETTINGS,
    Home,
    codex_config,
    parse_claude_mcp_get,
    parse_gemini_mcp_list,
)

pytestmark = pytest.mark.e2e

HUB = REPO_ROOT / "tests" / "data" / "install"
HOSTS = "codex,claude,gemini"
MINE = {"command": "my-own-server", "args": ["--mine"]}


@pytest.fixture
def person(isolated_home, refusing_proxy) -> Home:
    """The isolated home with a person's own settings, as test_install_hosts has it."""
    h = Home(
        isolated_home.root, isolated_home.home, dict(isolated_home.env),
        isolated_home.claude_dir, isolated_home.codex_home, refusing_proxy,
    )  # fmt: skip
    h.gemini_dir.mkdir(parents=True, exist_ok=True)
    (h.gemini_dir / "settings.json").write_text(GEMINI_SETTINGS)
    (h.claude_dir / "settings.json").write_text(CLAUDE_SETTINGS)
    (h.codex_home / "config.toml").write_text(codex_config(DEAD_BASE_URL))
    return h


def memhub(h: Home, *args: str) -> None:
    proc = run([sys.executable, "-m", "memhub.compiler.cli.main", *args], env=h.env, cwd=h.root)
    assert proc.returncode == 0, describe(proc)


def own_server_in_every_host(h: Home) -> None:
    (h.claude_dir / ".claude.json").write_text(json.dumps({"mcpServers": {"probe-stdio": MINE}}))
    with (h.codex_home / "config.toml").open("a") as config:
        config.write('\n[mcp_servers.probe-stdio]\ncommand = "my-own-server"\nargs = ["--mine"]\n')
    settings = json.loads((h.gemini_dir / "settings.json").read_text())
    settings["mcpServers"] = {"probe-stdio": MINE}
    (h.gemini_dir / "settings.json").write_text(json.dumps(settings, indent=2))


def commands(h: Home, claude: Path, codex: Path, gemini: Path, cwd: Path) -> dict[str, str]:
    """The command line of `probe-stdio` as each host's own loader reports it."""
    proc = run([claude, "mcp", "get", "probe-stdio"], env=h.env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    got = parse_claude_mcp_get(proc.stdout)
    found = {"claude": f"{got.get('Command')} {got.get('Args')}"}
    proc = run([codex, "mcp", "list", "--json"], env=h.env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    transport = {s["name"]: s for s in json.loads(proc.stdout)}["probe-stdio"]["transport"]
    found["codex"] = " ".join([transport["command"], *transport["args"]])
    proc = run([gemini, "mcp", "list"], env=h.env, cwd=h.root)
    assert proc.returncode == 0, describe(proc)
    found["gemini"] = parse_gemini_mcp_list(proc.stdout + "\n" + proc.stderr)["probe-stdio"][0]
    return found


def test_uninstall_gives_every_host_back_the_persons_adopted_server(
    codex_cli: Path, claude_cli: Path, gemini_cli: Path, person: Home, git_repo: Path
) -> None:
    home = person
    own_server_in_every_host(home)
    clis = (claude_cli, codex_cli, gemini_cli, git_repo)
    mine = "my-own-server --mine"
    assert commands(home, *clis) == dict.fromkeys(("claude", "codex", "gemini"), mine)
    memhub(home, "apply", str(HUB), "--scope", "user", "--hosts", HOSTS, "--adopt")
    adopted = commands(home, *clis)  # the hosts start, and Claude rewrites its file
    assert mine not in adopted.values(), adopted
    memhub(home, "uninstall", str(HUB), "--scope", "user", "--hosts", HOSTS)
    assert commands(home, *clis) == dict.fromkeys(("claude", "codex", "gemini"), mine)


def test_uninstall_after_claude_rewrote_its_file_keeps_the_persons_empty_mcp_servers(
    claude_cli: Path, person: Home
) -> None:
    """Claude Code rewrites `.claude.json` as it starts, so uninstall has no base to return
    to and removes entries one by one: the person's own empty `"mcpServers": {}` (there
    before memhub's first write) stays, and Claude lists no server afterwards."""
    claude_json = person.claude_dir / ".claude.json"
    claude_json.write_text('{\n  "mcpServers": {}\n}\n')
    memhub(person, "apply", str(HUB), "--scope", "user", "--hosts", "claude")
    written = claude_json.read_bytes()
    proc = run([claude_cli, "mcp", "get", "probe-stdio"], env=person.env, cwd=person.root)
    assert proc.returncode == 0, describe(proc)
    assert claude_json.read_bytes() != written, "the real Claude Code rewrote its file"
    memhub(person, "uninstall", str(HUB), "--scope", "user", "--hosts", "claude")
    data = json.loads(claude_json.read_text())
    assert data["mcpServers"] == {}, data
    proc = run([claude_cli, "mcp", "list"], env=person.env, cwd=person.root)
    assert proc.returncode == 0, describe(proc)
    assert "probe-" not in proc.stdout, proc.stdout
