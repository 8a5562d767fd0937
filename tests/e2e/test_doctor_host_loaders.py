"""`memhub doctor` runs each present host's own loader and fails with the host's own words.

memhub applies the install hub to Claude Code, Codex and Gemini CLI in an isolated home with
the real CLIs on PATH. Doctor then passes its `host-loader` check for all three. Next, each
host file gets one entry its host refuses (what an older memhub wrote for Codex, a server
without a command for Claude Code, a number for Gemini's command): doctor must exit 1 and
quote each host's message, which only the host's own CLI knows. A host whose CLI is not on
PATH is skipped, never failed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import REPO_ROOT, describe, run
from .test_install_hosts import DEAD_BASE_URL, GEMINI_SETTINGS, codex_config

pytestmark = pytest.mark.e2e

HUB = REPO_ROOT / "tests" / "data" / "install"
HOSTS = "claude,codex,gemini"
# What memhub wrote for a renamed variable before the launcher (codex 0.171 refuses it).
CODEX_BAD = '\n[mcp_servers.mine]\ncommand = "x"\nenv_vars = [{name = "A", source = "B"}]\n'


def memhub(env: dict[str, str], cwd: Path, *args: str) -> Any:
    return run([sys.executable, "-m", "memhub.compiler.cli.main", *args], env=env, cwd=cwd)


def doctor(env: dict[str, str], cwd: Path) -> tuple[int, dict[str, list[dict[str, str]]]]:
    proc = memhub(env, cwd, "doctor", "--scope", "user", "--hosts", HOSTS, "--json")
    assert proc.returncode in (0, 1), describe(proc)
    checks: dict[str, list[dict[str, str]]] = {}
    for check in json.loads(proc.stdout)["data"]["checks"]:
        if check["name"] == "host-loader":
            checks.setdefault(check["host"], []).append(check)
    return proc.returncode, checks


@pytest.fixture
def home(isolated_home: Any, claude_cli: Path, codex_cli: Path, gemini_cli: Path) -> Any:
    clis = [str(p.parent) for p in (claude_cli, codex_cli, gemini_cli)]
    isolated_home.env["PATH"] = ":".join([*dict.fromkeys(clis), isolated_home.env["PATH"]])
    gemini = isolated_home.home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(GEMINI_SETTINGS)
    (isolated_home.codex_home / "config.toml").write_text(codex_config(DEAD_BASE_URL))
    proc = memhub(isolated_home.env, isolated_home.root, "apply", str(HUB), "--hosts", HOSTS)
    assert proc.returncode == 0, describe(proc)
    return isolated_home


def test_doctor_passes_when_each_host_loads_its_config(home: Any) -> None:
    _, checks = doctor(home.env, home.root)
    assert sorted(checks) == ["claude", "codex", "gemini"], checks
    assert all(c["status"] == "ok" for found in checks.values() for c in found), checks


def test_doctor_fails_naming_each_hosts_own_refusal(home: Any) -> None:
    with (home.codex_home / "config.toml").open("a") as handle:
        handle.write(CODEX_BAD)
    claude_json = home.claude_dir / ".claude.json"
    data = json.loads(claude_json.read_text())
    data["mcpServers"]["mine"] = {"type": "stdio", "args": ["x"]}
    claude_json.write_text(json.dumps(data, indent=2))
    settings = home.home / ".gemini" / "settings.json"
    data = json.loads(settings.read_text())
    data["mcpServers"]["mine"] = {"command": 5}
    settings.write_text(json.dumps(data, indent=2))

    code, checks = doctor(home.env, home.root)
    assert code == 1
    detail = {host: found[0]["detail"] for host, found in checks.items()}
    assert all(found[0]["status"] == "fail" for found in checks.values()), checks
    assert "unsupported env_vars source `B`" in detail["codex"], detail
    assert "mcpServers.mine" in detail["claude"] and "command" in detail["claude"], detail
    assert "mcpServers.mine.command" in detail["gemini"], detail


def test_doctor_skips_a_host_whose_cli_is_not_on_path(home: Any) -> None:
    env = {**home.env, "PATH": "/usr/bin:/bin"}
    _, checks = doctor(env, home.root)
    assert checks == {}, checks
