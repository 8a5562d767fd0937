"""examples/team-memory applied with `memhub apply --scope user`, read back by the real hosts.

Codex (`codex mcp list --json`), Claude Code (`claude mcp get`) and Gemini CLI (`gemini mcp
list`) each list the memhub-memory stdio server with the arguments the hub's `memory:` asks
for (no `--project`: the server serves the project of the folder the host starts it in),
started by the `memhub` of the installation that applied it, by absolute path; Codex's entry
forwards MEMHUB_HOME, and Codex's prompt holds the memory guidance from its AGENTS.md.
Expected values come from the hub file, not the compiler. The hosts start the server while
each core is kept busy (`cpu_load`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from . import test_install_hosts as install
from .harness import REPO_ROOT, describe, run
from .test_install_hosts import Home, memhub, parse_claude_mcp_get, parse_gemini_mcp_list

pytestmark = [pytest.mark.e2e, pytest.mark.memory_e2e, pytest.mark.usefixtures("cpu_load")]

home = install.home  # the install tests' fixture: a person's own host settings in a temp home
TEAM = REPO_ROOT / "examples" / "team-memory"
SERVER = "memhub-memory"
INSTALLED = str(Path(sys.executable).parent / "memhub")  # the memhub that applies the hub


def _expected_args() -> list[str]:
    memory = yaml.safe_load((TEAM / "hub.yaml").read_text("utf-8"))["memory"]
    args = ["mcp", "serve"]  # no --project: the server starts in the session's folder
    if memory.get("server") == "write":
        args.append("--write")
    for scope in memory.get("scopes", ["shared", "project"]):
        args += ["--scope", scope]
    return args


def test_hosts_list_the_memory_server_and_codex_reads_the_guidance(
    codex_cli: Path, claude_cli: Path, gemini_cli: Path, home: Home, git_repo: Path
) -> None:
    args = _expected_args()
    proc = memhub(["apply", str(TEAM), "--scope", "user", "--hosts", "codex,claude,gemini"], home)
    assert proc.returncode == 0, describe(proc)

    proc = run([codex_cli, "mcp", "list", "--json"], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    listed = {s["name"]: s for s in json.loads(proc.stdout)}
    transport = listed[SERVER]["transport"]
    assert (transport["type"], transport["command"], transport["args"]) == (
        "stdio",
        INSTALLED,
        args,
    ), transport
    assert "MEMHUB_HOME" in transport["env_vars"], transport

    proc = run([claude_cli, "mcp", "get", SERVER], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    got = parse_claude_mcp_get(proc.stdout)
    assert (got.get("Type"), got.get("Command")) == ("stdio", INSTALLED), proc.stdout
    assert got.get("Args") == " ".join(args), proc.stdout

    proc = run([gemini_cli, "mcp", "list"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    listed_gemini = parse_gemini_mcp_list(proc.stdout + "\n" + proc.stderr)
    assert listed_gemini.get(SERVER) == (" ".join([INSTALLED, *args]), "stdio"), describe(proc)

    proc = run([codex_cli, "debug", "prompt-input", "hello"], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    assert "`search_memory`" in proc.stdout and "`save_memory`" in proc.stdout, proc.stdout[-3000:]


PROBE = """#!/bin/sh
printf '%s|%s\\n' "$(pwd -P)" "$*" >> "$HOME/memory-server-cwd.log"
exit 1
"""


def stand_in(home: Home) -> Path:
    """A `memhub` stand-in that records the folder it is started in, put where the install
    named this installation's `memhub` (each host file's command, by absolute path)."""
    probe = home.root / "probe-bin" / "memhub"
    probe.parent.mkdir()
    probe.write_text(PROBE)
    probe.chmod(0o755)
    files = [home.claude_dir / ".claude.json", home.gemini_dir / "settings.json"]
    for file in [*files, home.codex_home / "config.toml"]:
        if file.exists() and INSTALLED in file.read_text():
            file.write_text(file.read_text().replace(INSTALLED, str(probe)))
    return probe


def test_claude_and_gemini_start_the_server_in_the_folder_they_run_in(
    claude_cli: Path, gemini_cli: Path, home: Home, git_repo: Path
) -> None:
    """A `memhub` stand-in (where the install named memhub) records the folder each host
    starts it in: the session's folder, whose project the server serves (the host's probe
    then fails to connect, as meant)."""
    proc = memhub(["apply", str(TEAM), "--scope", "user", "--hosts", "claude,gemini"], home)
    assert proc.returncode == 0, describe(proc)
    stand_in(home)
    env = home.env
    work = git_repo / "src"
    work.mkdir()
    trusted = {str(git_repo.resolve()): "TRUST_FOLDER"}
    (home.gemini_dir / "trustedFolders.json").write_text(json.dumps(trusted))
    log = home.home / "memory-server-cwd.log"

    run([claude_cli, "mcp", "get", SERVER], env=env, cwd=work)
    claude_lines = log.read_text().splitlines() if log.exists() else []
    assert claude_lines, "claude did not start the server"
    assert {line.split("|")[0] for line in claude_lines} == {str(work.resolve())}, claude_lines
    assert claude_lines[0].split("|")[1] == " ".join(_expected_args())

    log.unlink()
    run([gemini_cli, "mcp", "list"], env=env, cwd=work)
    gemini_lines = log.read_text().splitlines() if log.exists() else []
    assert gemini_lines, "gemini did not start the server"
    assert {line.split("|")[0] for line in gemini_lines} == {str(work.resolve())}, gemini_lines


def test_codex_starts_the_server_in_its_working_folder(
    codex_cli: Path, home: Home, git_repo: Path, fake_responses
) -> None:
    """Codex gives a stdio server no cwd of its own: the server starts where Codex works,
    `codex exec` run in the folder or pointed at it with `-C`."""
    (home.codex_home / "config.toml").write_text(install.codex_config(fake_responses.base_url))
    proc = memhub(["apply", str(TEAM), "--scope", "user", "--hosts", "codex"], home)
    assert proc.returncode == 0, describe(proc)
    stand_in(home)
    env = {**home.env, "MEMHUB_E2E_FAKE_KEY": "sk-memhub-e2e-fake"}
    work = git_repo / "src"
    work.mkdir()
    log = home.home / "memory-server-cwd.log"
    seen = {}
    for name, argv, cwd in (
        ("in the folder", [codex_cli, "exec", "--json", "--skip-git-repo-check", "hi"], work),
        ("with -C", [codex_cli, "exec", "--json", "-C", str(work), "hi"], home.root),
    ):
        log.unlink(missing_ok=True)
        proc = run(argv, env=env, cwd=cwd, timeout=150)
        lines = log.read_text().splitlines() if log.exists() else []
        seen[name] = {line.split("|")[0] for line in lines} or describe(proc)
    assert seen == {"in the folder": {str(work.resolve())}, "with -C": {str(work.resolve())}}
