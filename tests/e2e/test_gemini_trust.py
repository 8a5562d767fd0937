"""Gemini CLI and folder trust, proven with the real `gemini` (0.61): in a folder it has not
trusted it lists every MCP server as Disabled and starts none. `memhub apply` says how to
trust the folder; following that printed step, the same `gemini mcp list` no longer shows
the servers Disabled.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from .harness import REPO_ROOT, describe, run

pytestmark = pytest.mark.e2e

HUB = REPO_ROOT / "tests" / "data" / "install"
SERVERS = ("probe-stdio", "probe-remote")
# the file way of the printed step (the other two, the trust dialog and /permissions, are
# Gemini's interactive UI)
_FILE_STEP = re.compile(r'add "(?P<folder>[^"]+)": "TRUST_FOLDER" to (?P<file>\S+)$')


def _server_lines(output: str) -> dict[str, str]:
    """`gemini mcp list` -> {server: its line}."""
    found = {}
    for line in output.splitlines():
        for name in SERVERS:
            if f" {name}: " in line:
                found[name] = line.strip()
    return found


def test_following_applys_trust_step_enables_the_servers(gemini_cli: Path, isolated_home) -> None:
    home = isolated_home
    gemini_dir = home.home / ".gemini"
    gemini_dir.mkdir()
    (gemini_dir / "settings.json").write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}}}\n'
    )
    project = home.root / "project"
    project.mkdir()
    env = home.with_env(GEMINI_API_KEY="memhub-e2e-fake")
    argv = [
        sys.executable,
        "-m",
        "memhub.compiler.cli.main",
        "apply",
        str(HUB),
        "--scope",
        "project",
    ]
    proc = run([*argv, "--project", str(project), "--hosts", "gemini"], env=env, cwd=project)
    assert proc.returncode == 0, describe(proc)
    [step] = [line for line in proc.stdout.splitlines() if line.startswith("next (gemini): trust")]
    assert str(project) in step and "/permissions" in step, step

    listed = run([gemini_cli, "mcp", "list"], env=env, cwd=project)
    assert listed.returncode == 0, describe(listed)
    before = _server_lines(listed.stdout + listed.stderr)
    assert set(before) == set(SERVERS), describe(listed)
    assert all(line.endswith("Disabled") for line in before.values()), before

    match = _FILE_STEP.search(step)
    assert match, step
    trusted = Path(match["file"])
    assert trusted == gemini_dir / "trustedFolders.json"
    assert not trusted.exists()
    trusted.write_text(json.dumps({match["folder"]: "TRUST_FOLDER"}, indent=2) + "\n")

    listed = run([gemini_cli, "mcp", "list"], env=env, cwd=project)
    assert listed.returncode == 0, describe(listed)
    after = _server_lines(listed.stdout + listed.stderr)
    assert set(after) == set(SERVERS), describe(listed)
    assert not any(line.endswith("Disabled") for line in after.values()), after
    assert "untrusted" not in listed.stdout + listed.stderr, describe(listed)


_USER_STEP = re.compile(r'add "/path/to/folder": "TRUST_FOLDER" .* to (?P<file>\S+)$')


def test_user_scope_step_trusts_any_folder_the_person_names(
    gemini_cli: Path, isolated_home
) -> None:
    """User-level servers are suppressed in an untrusted folder too; the user-scope step
    names the file and the entry, with the person's folder to fill in."""
    home = isolated_home
    (home.home / ".gemini").mkdir()
    work = home.root / "work"
    work.mkdir()
    env = home.with_env(GEMINI_API_KEY="memhub-e2e-fake")
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(HUB), "--scope", "user"]
    proc = run([*argv, "--hosts", "gemini"], env=env, cwd=work)
    assert proc.returncode == 0, describe(proc)
    [step] = [line for line in proc.stdout.splitlines() if "TRUST_FOLDER" in line]
    listed = run([gemini_cli, "mcp", "list"], env=env, cwd=work)
    before = _server_lines(listed.stdout + listed.stderr)
    assert set(before) == set(SERVERS), describe(listed)
    assert all(line.endswith("Disabled") for line in before.values()), before
    match = _USER_STEP.search(step)
    assert match, step
    Path(match["file"]).write_text(json.dumps({str(work): "TRUST_FOLDER"}) + "\n")
    listed = run([gemini_cli, "mcp", "list"], env=env, cwd=work)
    after = _server_lines(listed.stdout + listed.stderr)
    assert set(after) == set(SERVERS), describe(listed)
    assert not any(line.endswith("Disabled") for line in after.values()), after
