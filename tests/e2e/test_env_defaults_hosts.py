"""`${env:NAME:-default}` as the real Claude Code and Gemini CLIs read what memhub applied.

`claude mcp get NAME` starts a user-scope stdio server to check it; the server here writes
the argv and env it was started with. Unset, the hub's default arrives; set, the variable's
value wins. (Claude Code shows `${NAME}` in its listing, without the default: only the
started process proves the expansion.) `gemini mcp list` prints the command line expanded.
Codex expands nothing: a real session starts the server through memhub's launcher.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .harness import describe, run
from .test_install_hosts import GEMINI_REJECTS, GEMINI_SETTINGS, codex_config

pytestmark = pytest.mark.e2e
SESSION_TIMEOUT_S = 150

DUMP = (
    "import json, os, sys; json.dump({'argv': sys.argv[1:], 'url': os.environ.get('API_URL')}, "
    "open(sys.argv[1], 'w'))"
)


def hub(tmp_path: Path, out: Path) -> Path:
    folder = tmp_path / "hub"
    folder.mkdir()
    (folder / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: default-probe, version: 0.1.0, description: Env defaults probe}\n"
        "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        "mcp:\n  servers:\n    dump:\n"
        f"      command: {sys.executable}\n"
        f'      args: ["-c", "{DUMP}", "{out}", "${{env:MEMHUB_T_LEVEL:-info}}"]\n'
        '      env: {API_URL: "${env:MEMHUB_T_URL:-https://api.example.com}"}\n',
        "utf-8",
    )
    return folder


def test_claude_starts_the_server_with_the_hubs_default(
    claude_cli: Path, isolated_home, tmp_path: Path
) -> None:
    out = tmp_path / "seen.json"
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(hub(tmp_path, out))]
    applied = run([*argv, "--scope", "user", "--hosts", "claude"], env=isolated_home.env)
    assert applied.returncode == 0, describe(applied)
    written = json.loads((isolated_home.claude_dir / ".claude.json").read_text())["mcpServers"]
    assert written["dump"]["args"][-1] == "${MEMHUB_T_LEVEL:-info}"

    got = run([claude_cli, "mcp", "get", "dump"], env=isolated_home.env, cwd=tmp_path)
    assert got.returncode in (0, 1) and "dump" in got.stdout, describe(got)
    seen = json.loads(out.read_text())
    assert seen == {"argv": [str(out), "info"], "url": "https://api.example.com"}, seen

    out.unlink()
    env = isolated_home.with_env(MEMHUB_T_LEVEL="debug", MEMHUB_T_URL="https://b.example.com")
    got = run([claude_cli, "mcp", "get", "dump"], env=env, cwd=tmp_path)
    assert "dump" in got.stdout, describe(got)
    seen = json.loads(out.read_text())
    assert seen == {"argv": [str(out), "debug"], "url": "https://b.example.com"}, seen


def test_gemini_lists_the_server_with_the_hubs_default(
    gemini_cli: Path, isolated_home, tmp_path: Path
) -> None:
    """`gemini mcp list` prints each server's command line as Gemini expands it on load."""
    gemini = isolated_home.home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(GEMINI_SETTINGS)
    out = tmp_path / "seen.json"
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(hub(tmp_path, out))]
    applied = run([*argv, "--scope", "user", "--hosts", "gemini"], env=isolated_home.env)
    assert applied.returncode == 0, describe(applied)
    written = json.loads((gemini / "settings.json").read_text())["mcpServers"]["dump"]
    assert written["args"][-1] == "${MEMHUB_T_LEVEL:-info}"

    listed = run([gemini_cli, "mcp", "list"], env=isolated_home.env, cwd=tmp_path)
    text = listed.stdout + "\n" + listed.stderr  # where it prints depends on the terminal
    assert listed.returncode == 0 and GEMINI_REJECTS not in text, describe(listed)
    line = next(x for x in text.splitlines() if "dump:" in x)
    assert line.split(" (stdio)")[0].endswith(f"{out} info"), line
    env = isolated_home.with_env(MEMHUB_T_LEVEL="debug")
    listed = run([gemini_cli, "mcp", "list"], env=env, cwd=tmp_path)
    line = next(x for x in (listed.stdout + "\n" + listed.stderr).splitlines() if "dump:" in x)
    assert line.split(" (stdio)")[0].endswith(f"{out} debug"), line


def test_codex_starts_the_server_through_the_launcher_with_the_default(
    codex_cli: Path, isolated_home, git_repo: Path, fake_responses, tmp_path: Path
) -> None:
    """Codex expands nothing: a real `codex exec` session starts the launcher memhub wrote,
    which hands the server the hub's default (the variable is unset)."""
    home = isolated_home
    (home.codex_home / "config.toml").write_text(codex_config(fake_responses.base_url))
    out = home.home / "seen-default.json"
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(hub(tmp_path, out))]
    applied = run([*argv, "--scope", "user", "--hosts", "codex"], env=home.env)
    assert applied.returncode == 0 and "launcher" in applied.stdout, describe(applied)
    session = [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "hello"]
    env = home.with_env(MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake")
    proc = run(session, env=env, cwd=git_repo, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    seen = json.loads(out.read_text())
    assert seen == {"argv": [str(out), "info"], "url": "https://api.example.com"}, seen
