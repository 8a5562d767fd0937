"""`memhub import` of servers installed the way a person does it: with the real host CLIs.

In an isolated temp HOME, `claude mcp add -s user`, `codex mcp add` and `gemini mcp add -s user`
install stdio and HTTP servers, some with a literal token (an env var, an Authorization
header); then the real `memhub import --hosts claude,codex,gemini --into DIR --yes` runs as a
subprocess. The hub must hold each server with the fields given to the host CLI, every
literal secret as `${env:NAME}` with its value only in DIR/.env (mode 0600), and the host
files must be byte for byte as the CLIs left them. Expected values are the arguments given
to the host CLIs, never the compiler's output.
"""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
import yaml

from .harness import describe, run

pytestmark = pytest.mark.e2e

GITHUB_TOKEN = "ghp_E2eImportToken0123456789abcdefABCD"
LINEAR_KEY = "sk-e2e-import-linear-0123456789abcdef"
FILES_KEY = "files-e2e-import-key-0123"
WEATHER_TOKEN = "weather-e2e-import-token-42"
SECRETS = (GITHUB_TOKEN, LINEAR_KEY, FILES_KEY, WEATHER_TOKEN)
GITHUB_ARGS = ["-y", "@modelcontextprotocol/server-github"]


def host_cli(argv: list, env: dict[str, str], cwd: Path) -> None:
    proc = run(argv, env=env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)


def files_under(root: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".memhub" not in p.relative_to(root).parts
    }


def test_servers_added_with_host_clis_are_imported(
    claude_cli: Path, codex_cli: Path, gemini_cli: Path, isolated_home
) -> None:
    env, home, cwd = isolated_home.env, isolated_home.home, isolated_home.root
    host_cli(
        [claude_cli, "mcp", "add", "-s", "user", "github",
         "-e", f"GITHUB_PERSONAL_ACCESS_TOKEN={GITHUB_TOKEN}", "-e", "LOG_LEVEL=info",
         "--", "npx", *GITHUB_ARGS],
        env, cwd,
    )  # fmt: skip
    host_cli(
        [claude_cli, "mcp", "add", "-s", "user", "--transport", "http", "linear",
         "https://mcp.linear.app/mcp", "-H", f"Authorization: Bearer {LINEAR_KEY}"],
        env, cwd,
    )  # fmt: skip
    host_cli(
        [codex_cli, "mcp", "add", "sentry", "--url", "https://mcp.sentry.dev/mcp",
         "--bearer-token-env-var", "SENTRY_TOKEN"],
        env, cwd,
    )  # fmt: skip
    host_cli(
        [codex_cli, "mcp", "add", "files", "--env", f"FILES_API_KEY={FILES_KEY}",
         "--", "files-mcp", "--root", "/srv"],
        env, cwd,
    )  # fmt: skip
    host_cli(
        [gemini_cli, "mcp", "add", "-s", "user", "-e", f"WEATHER_TOKEN={WEATHER_TOKEN}",
         "weather", "python3", "-m", "weather_mcp"],
        env, cwd,
    )  # fmt: skip
    host_cli(
        [gemini_cli, "mcp", "add", "-s", "user", "-t", "http", "docs",
         "https://docs.example.com/mcp"],
        env, cwd,
    )  # fmt: skip
    before = files_under(home)

    into = isolated_home.root / "imported"
    proc = run(
        [sys.executable, "-m", "memhub.compiler.cli.main", "import", "--hosts", "claude,codex,gemini",
         "--into", into, "--yes"],
        env=env, cwd=cwd,
    )  # fmt: skip
    assert proc.returncode == 0, describe(proc)
    assert not any(s in proc.stdout + proc.stderr for s in SECRETS), describe(proc)
    assert files_under(home) == before, "the host files are only read"

    servers = yaml.safe_load((into / "hub.yaml").read_text())["mcp"]["servers"]
    assert servers["github"] == {
        "command": "npx",
        "args": GITHUB_ARGS,
        "env": {
            "GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_PERSONAL_ACCESS_TOKEN}",
            "LOG_LEVEL": "info",
        },
    }
    assert servers["linear"] == {
        "url": "https://mcp.linear.app/mcp",
        "headers": {"Authorization": "Bearer ${env:LINEAR_TOKEN}"},
    }
    assert servers["sentry"] == {
        "url": "https://mcp.sentry.dev/mcp",
        "headers": {"Authorization": "Bearer ${env:SENTRY_TOKEN}"},
    }
    assert servers["files"] == {
        "command": "files-mcp",
        "args": ["--root", "/srv"],
        "env": {"FILES_API_KEY": "${env:FILES_API_KEY}"},
    }
    assert servers["weather"] == {
        "command": "python3",
        "args": ["-m", "weather_mcp"],
        "env": {"WEATHER_TOKEN": "${env:WEATHER_TOKEN}"},
    }
    assert servers["docs"] == {"url": "https://docs.example.com/mcp"}

    env_file = into / ".env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    lines = set(env_file.read_text().splitlines())
    assert {
        f"GITHUB_PERSONAL_ACCESS_TOKEN={GITHUB_TOKEN}",
        f"LINEAR_TOKEN={LINEAR_KEY}",
        f"FILES_API_KEY={FILES_KEY}",
        f"WEATHER_TOKEN={WEATHER_TOKEN}",
    } <= lines
    for path in into.rglob("*"):
        if path.is_file() and path != env_file:
            assert not any(s.encode() in path.read_bytes() for s in SECRETS), path
    proc = run(
        [sys.executable, "-m", "memhub.compiler.cli.main", "validate", into], env=env, cwd=cwd
    )
    assert proc.returncode == 0, describe(proc)
