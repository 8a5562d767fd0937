"""A standalone Gemini CLI extension (gemini-extension.json at the repository root, TOML
commands, GEMINI.md, hooks, a skill, inline MCP servers) imported and built back: the real
Gemini CLI installs the original and the rebuild (`gemini extensions install <folder>`) and
lists the same extension (name, version, context file, MCP servers, skills, settings), and
the installed copies hold the same commands and hooks files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main

from tests.compiler.test_import_repo_gemini import STANDALONE, write

from .harness import CLI_TIMEOUT_S, describe, run
from .test_gemini_extension import GEMINI_REJECTS, gemini_home, parse_extensions_list

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("cpu_load")]  # a busy machine

NAME = "sec-ext"
LOADED = ("commands/scan.toml", "commands/security/analyze.toml", "hooks/hooks.json")


def _listed(gemini: Path, folder: Path, env: dict[str, str], cwd: Path) -> dict[str, object]:
    """Install `folder`, list it (paths made relative), then uninstall it."""
    argv = [str(gemini), "extensions", "install", str(folder), "--consent", "--skip-settings"]
    proc = subprocess.run(
        argv, env=env, cwd=cwd, input="y\n", capture_output=True, text=True, timeout=CLI_TIMEOUT_S
    )
    assert proc.returncode == 0, describe(proc)
    proc = run([gemini, "extensions", "list"], env=env, cwd=cwd)
    assert proc.returncode == 0 and GEMINI_REJECTS not in proc.stderr, describe(proc)
    listed = parse_extensions_list(proc.stdout + "\n" + proc.stderr)
    assert set(listed) == {NAME}, describe(proc)
    ext = listed[NAME]
    installed = Path(str(ext.pop("Path")))
    for key in ("ID", "Source"):  # they name the source folder
        ext.pop(key, None)
    files = {rel: (installed / rel).read_bytes() for rel in LOADED}
    proc = run([gemini, "extensions", "uninstall", NAME], env=env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    return {**ext, "files": files}


def test_the_rebuilt_extension_loads_as_the_original(
    gemini_cli: Path, isolated_home, tmp_path: Path
) -> None:
    repo = write(tmp_path / "repo", STANDALONE)
    into, out = tmp_path / "hub", tmp_path / "out"
    assert main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    gemini_home(isolated_home.home)
    env, cwd = isolated_home.env, isolated_home.root
    theirs = _listed(gemini_cli, repo, env, cwd)
    assert sorted(theirs["MCP servers"]) == ["docs", "scanner"], theirs  # type: ignore[call-overload]
    assert theirs["Context files"] and theirs["Agent skills"], theirs
    assert _listed(gemini_cli, out, env, cwd) == theirs
