"""memhub import: a person's own host configs (all four hosts) read back into a new hub.

The home holds what a person set up by hand, with their unrelated settings and TOML
comments, literal secrets (a token in an env var, Authorization headers, URL user:password),
and entries `memhub apply` installed earlier (which import must skip). Expected values are
written here from the host formats, never computed by the code under test.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import tomllib
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from memhub.compiler.cli import import_ as import_cli
from memhub.compiler.cli.main import main
from memhub.compiler.importing.secretmove import env_line
from memhub.compiler.install.secrets import parse_env
from memhub.hubspec import load
from memhub.hubspec.schema_check import hub_schema
from memhub.schemas import schema_hosts

from tests.hubs import REPO

ALL = "claude,codex,cursor,gemini"
INSTALL_HUB = REPO / "tests" / "data" / "install"

GITHUB_TOKEN = "ghp_Zq8XkLmN3pQrStUvWx0123456789AbCdEf"
LINEAR_KEY = "lin_api_7f3c9e1d2b4a6f8e0c1d3b5a7f9e"
SENTRY_TOKEN = "sntrys_eyJpYXQiOjE3MDAwMDAwMDB9_a1b2c3d4e5f6"
FILES_KEY = "files-key-4e8a1c9d7b3f"
TRACKER_PASSWORD = "pa55w0rd-tracker-91"
SECRETS = (GITHUB_TOKEN, LINEAR_KEY, SENTRY_TOKEN, FILES_KEY, TRACKER_PASSWORD)

CLAUDE_JSON = {
    "numStartups": 12,
    "theme": "dark",
    "mcpServers": {
        "github": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": GITHUB_TOKEN, "LOG_LEVEL": "info"},
        },
        "linear": {
            "type": "http",
            "url": "https://mcp.linear.app/mcp",
            "headers": {"Authorization": f"Bearer {LINEAR_KEY}"},
            "timeout": 30000,
        },
        "docs": {
            "type": "sse",
            "url": "https://docs.example.com/sse",
            "oauth": {"clientId": "docs-public", "callbackPort": 8765, "scopes": "read write"},
        },
        "search": {"command": "search-mcp", "env": {"SEARCH_KEY": "${SEARCH_KEY}"}},
        "tracker": {
            "type": "http",
            "url": f"https://bot:{TRACKER_PASSWORD}@tracker.example.com/mcp",
        },
    },
    "projects": {"/home/me/work": {"allowedTools": [], "hasTrustDialogAccepted": True}},
}
CODEX_TOML = f"""\
# my Codex settings
model = "o3"  # the one I like
approval_policy = "on-request"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = {{ LOG_LEVEL = "info" }}
env_vars = ["GITHUB_PERSONAL_ACCESS_TOKEN"]

# Sentry, with the token pasted in (a bad habit memhub import cleans up)
[mcp_servers.sentry]
url = "https://mcp.sentry.dev/mcp"
http_headers = {{ Authorization = "Bearer {SENTRY_TOKEN}" }}
startup_timeout_sec = 20.0
enabled_tools = ["search_issues"]

[mcp_servers.files]
command = "/usr/local/bin/files-mcp"
cwd = "/srv/data"
env = {{ FILES_API_KEY = "{FILES_KEY}" }}

[mcp_servers.linear]
url = "https://mcp.linear.app/mcp"
bearer_token_env_var = "LINEAR_API_KEY"
"""
CURSOR_JSON = {
    "mcpServers": {
        "postgres": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/app"],
        },
        "notion": {
            "url": "https://mcp.notion.com/mcp",
            "headers": {"X-Api-Key": "${env:NOTION_KEY}"},
        },
        "workspace": {"command": "ws-mcp", "args": ["${workspaceFolder}"]},
    }
}
GEMINI_JSON = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "ui": {"theme": "GitHub"},
    "mcpServers": {
        "weather": {
            "command": "python3",
            "args": ["-m", "weather_mcp"],
            "env": {"WEATHER_API_KEY": "$WEATHER_API_KEY", "UNITS": "metric"},
            "timeout": 15000,
            "trust": False,
        }
    },
}
TIDY_SKILL = (
    "---\nname: lint-fix\ndescription: Use when lint fails; fixes it.\n---\nRun the linter.\n"
)
CLAUDE_MD = "# My rules\n\nAlways run the tests before committing.\n"
GEMINI_MD = "# Gemini notes\n\nPrefer small diffs.\n"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def home() -> Path:
    return Path(os.environ["HOME"])


def claude_dir() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def codex_home() -> Path:
    return Path(os.environ["CODEX_HOME"])


def write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def person_setup() -> None:
    """The hosts as a person configured them by hand, plus one `memhub apply` before."""
    write(claude_dir() / ".claude.json", json.dumps(CLAUDE_JSON, indent=2) + "\n", 0o600)
    write(claude_dir() / "skills" / "lint-fix" / "SKILL.md", TIDY_SKILL)
    write(claude_dir() / "skills" / "lint-fix" / "run.sh", "#!/bin/sh\nmake lint\n", 0o755)
    write(claude_dir() / "CLAUDE.md", CLAUDE_MD)
    write(codex_home() / "config.toml", CODEX_TOML)
    write(codex_home() / "AGENTS.md", CLAUDE_MD)  # the same rules, kept in both
    write(home() / ".cursor" / "mcp.json", json.dumps(CURSOR_JSON, indent=4) + "\n")
    write(home() / ".gemini" / "settings.json", json.dumps(GEMINI_JSON, indent=2) + "\n")
    write(home() / ".gemini" / "GEMINI.md", GEMINI_MD)


def apply_install_hub(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """memhub's own entries in the same files: servers, a skill, instruction blocks."""
    hub = tmp_path / "installed-hub"
    shutil.copytree(INSTALL_HUB, hub)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", ALL)
    assert code == 0, err


def host_files() -> dict[str, tuple[bytes, int, int]]:
    """Every file under HOME except memhub's own: bytes, mode, mtime (ns)."""
    out = {}
    for path in sorted(home().rglob("*")):
        if path.is_file() and ".memhub" not in path.relative_to(home()).parts:
            info = path.stat()
            out[str(path)] = (path.read_bytes(), stat.S_IMODE(info.st_mode), info.st_mtime_ns)
    return out


@pytest.fixture
def person(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    person_setup()
    apply_install_hub(tmp_path, capsys)


def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    into = tmp_path / "my-agents"
    code, out, err = run(capsys, "import", "--hosts", ALL, "--into", str(into), "--yes", *extra)
    assert code == 0, err
    for secret in SECRETS:
        assert secret not in out + err
    return into


def has_overrides(host: str) -> bool:
    """Whether hub.yaml may carry `overrides.<host>` (Gemini gains them with its bundle)."""
    return host in schema_hosts(hub_schema())


def hub_data(into: Path) -> dict[str, Any]:
    return yaml.safe_load((into / "hub.yaml").read_text())


# -------------------------------------------------------------------------------- preview


def test_preview_lists_everything_and_no_secret_value(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "my-agents"
    code, out, err = run(capsys, "import", "--hosts", ALL, "--into", str(into), "--dry-run")
    assert code == 0, err
    for server in ("github", "linear-claude", "linear-codex", "docs", "search", "tracker"):
        assert f"    {server}:" in out, server
    for server in ("sentry", "files", "postgres", "notion", "weather"):
        assert f"    {server}:" in out, server
    assert f"skills/lint-fix/  <-  {claude_dir() / 'skills' / 'lint-fix'}" in out
    assert f"instructions/AGENTS.md  <-  {claude_dir() / 'CLAUDE.md'}" in out
    assert f"instructions/gemini-GEMINI.md  <-  {home() / '.gemini' / 'GEMINI.md'}" in out
    secrets = {
        "GITHUB_PERSONAL_ACCESS_TOKEN": f"{claude_dir() / '.claude.json'} mcpServers.github "
        "env.GITHUB_PERSONAL_ACCESS_TOKEN",
        "LINEAR_TOKEN": "mcpServers.linear headers.Authorization",
        "SENTRY_TOKEN": f"{codex_home() / 'config.toml'} mcp_servers.sentry headers.Authorization",
        "FILES_API_KEY": "mcp_servers.files env.FILES_API_KEY",
        "TRACKER_BASIC_AUTH": "mcpServers.tracker url user:password",
    }
    for name, where in secrets.items():
        line = next(line for line in out.splitlines() if line.startswith(f"  {name}=********"))
        assert where in line
    # memhub's own entries and the unexpressible Cursor variable are named as skipped
    assert "MCP server 'probe-stdio'" in out and "importing memhub's own output" in out
    assert "skill 'tidy'" in out and "memhub block 'install-probe'" in out
    assert "MCP server 'workspace'" in out and "${workspaceFolder}" in out
    if not has_overrides("gemini"):
        assert "timeout, trust were not imported: the hub has no gemini overrides" in out
    for secret in SECRETS:
        assert secret not in out + err
    assert base64.b64encode(f"bot:{TRACKER_PASSWORD}".encode()).decode() not in out
    assert not into.exists(), "--dry-run writes nothing"


def test_json_preview_holds_no_secret_value(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "my-agents"
    code, out, _ = run(capsys, "import", "--into", str(into), "--dry-run", "--json")
    assert code == 0
    preview = json.loads(out)["data"]
    assert {s["name"] for s in preview["secrets"]} >= {
        "GITHUB_PERSONAL_ACCESS_TOKEN",
        "FILES_API_KEY",
    }
    assert all(secret not in out for secret in SECRETS)
    assert not into.exists()


def test_without_a_terminal_and_without_yes_nothing_is_written(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "my-agents"
    code, out, err = run(capsys, "import", "--into", str(into))
    assert code == 1
    assert "hub.yaml" in out and "--yes" in err
    assert not into.exists()


def test_on_a_terminal_it_asks_first(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    answers: list[str] = []
    monkeypatch.setattr(import_cli, "interactive", lambda: True)
    monkeypatch.setattr(click, "confirm", lambda text, **kw: answers.append(text) or False)
    into = tmp_path / "my-agents"
    code, _, err = run(capsys, "import", "--into", str(into))
    assert (code, answers) == (1, [f"Write this hub into {into}?"])
    assert "nothing written" in err and not into.exists()
    monkeypatch.setattr(click, "confirm", lambda text, **kw: True)
    assert run(capsys, "import", "--into", str(into))[0] == 0
    assert (into / "hub.yaml").is_file()


# -------------------------------------------------------------------------------- the hub


def test_written_hub_loads_validates_and_builds(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = imported(tmp_path, capsys)
    hub = load(into)
    assert {s.name for s in hub.mcp_servers} == {
        "github", "linear-claude", "linear-codex", "docs", "search", "tracker",
        "sentry", "files", "postgres", "notion", "weather",
    }  # fmt: skip
    assert [s.name for s in hub.skills] == ["lint-fix"]
    assert hub.instructions is not None and hub.instructions.text == CLAUDE_MD
    code, out, err = run(capsys, "validate", str(into))
    assert code == 0, err
    assert out.startswith("valid: my-agents 0.1.0")
    code, _, err = run(capsys, "build", str(into), "--out", str(tmp_path / "dist"))
    assert code == 0, err


def test_servers_keep_their_fields_with_secrets_as_references(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    servers = hub_data(imported(tmp_path, capsys))["mcp"]["servers"]
    assert servers["github"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {
            "GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_PERSONAL_ACCESS_TOKEN}",
            "LOG_LEVEL": "info",
        },
    }, "the same server in Claude (literal token) and Codex (env_vars) imports once"
    assert servers["linear-claude"]["headers"] == {"Authorization": "Bearer ${env:LINEAR_TOKEN}"}
    assert servers["linear-codex"]["headers"] == {"Authorization": "Bearer ${env:LINEAR_API_KEY}"}
    assert servers["docs"] == {
        "url": "https://docs.example.com/sse",
        "transport": "sse",
        "oauth": {"client_id": "docs-public", "callback_port": 8765, "scopes": ["read", "write"]},
    }
    assert servers["search"]["env"] == {"SEARCH_KEY": "${env:SEARCH_KEY}"}
    assert servers["tracker"] == {
        "url": "https://tracker.example.com/mcp",
        "headers": {"Authorization": "Basic ${env:TRACKER_BASIC_AUTH}"},
    }
    assert servers["sentry"]["headers"] == {"Authorization": "Bearer ${env:SENTRY_TOKEN}"}
    assert servers["files"] == {
        "command": "/usr/local/bin/files-mcp",
        "env": {"FILES_API_KEY": "${env:FILES_API_KEY}"},
    }
    assert servers["notion"]["headers"] == {"X-Api-Key": "${env:NOTION_KEY}"}
    assert servers["weather"]["env"] == {
        "WEATHER_API_KEY": "${env:WEATHER_API_KEY}",
        "UNITS": "metric",
    }
    for probe in ("probe-stdio", "probe-remote", "workspace"):
        assert probe not in servers


def test_host_only_keys_become_overrides_and_sources_are_recorded(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = imported(tmp_path, capsys)
    overrides = hub_data(into)["overrides"]
    assert overrides["claude"]["mcp_servers"] == {"linear-claude": {"timeout": 30000}}
    assert overrides["codex"]["mcp_servers"] == {
        "sentry": {"startup_timeout_sec": 20.0, "enabled_tools": ["search_issues"]},
        "files": {"cwd": "/srv/data"},
    }
    if has_overrides("gemini"):
        assert overrides["gemini"]["mcp_servers"] == {"weather": {"timeout": 15000, "trust": False}}
    else:
        assert "gemini" not in overrides
    text = (into / "hub.yaml").read_text()
    claude_json = claude_dir() / ".claude.json"
    assert (
        f"    # imported from {claude_json} mcpServers.github\n"
        f"    #   also in {codex_home() / 'config.toml'} mcp_servers.github\n"
        "    github:\n"
    ) in text
    assert f"# imported from {home() / '.cursor' / 'mcp.json'} mcpServers.notion\n" in text
    assert f"# skills/lint-fix/ imported from {claude_dir() / 'skills' / 'lint-fix'}\n" in text
    assert (
        f"# imported from {claude_dir() / 'CLAUDE.md'}\n#   also in {codex_home() / 'AGENTS.md'}\n"
    ) in text


def test_secrets_go_to_a_private_env_file_and_nowhere_else(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = imported(tmp_path, capsys)
    env_file = into / ".env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    values = parse_env(env_file.read_text())
    assert values == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": GITHUB_TOKEN,
        "LINEAR_TOKEN": LINEAR_KEY,
        "TRACKER_BASIC_AUTH": base64.b64encode(f"bot:{TRACKER_PASSWORD}".encode()).decode(),
        "SENTRY_TOKEN": SENTRY_TOKEN,
        "FILES_API_KEY": FILES_KEY,
    }
    assert ".env" in (into / ".gitignore").read_text().split()
    for path in into.rglob("*"):
        if path.is_file() and path != env_file:
            data = path.read_bytes()
            assert not any(secret.encode() in data for secret in SECRETS), path


def test_skills_and_instructions_are_copied_byte_for_byte(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = imported(tmp_path, capsys)
    skill = into / "skills" / "lint-fix"
    assert (skill / "SKILL.md").read_text() == TIDY_SKILL
    assert os.access(skill / "run.sh", os.X_OK)
    assert not (into / "skills" / "tidy").exists(), "memhub's own skill is not imported"
    assert (into / "instructions" / "AGENTS.md").read_text() == CLAUDE_MD
    assert (into / "instructions" / "gemini-GEMINI.md").read_text() == GEMINI_MD
    assert hub_data(into)["instructions"] == "instructions/AGENTS.md"


def test_host_files_are_left_exactly_as_they_were(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = host_files()
    assert any("CLAUDE.md" in p for p in before)  # with memhub's block appended to it
    imported(tmp_path, capsys)
    assert host_files() == before


def test_an_existing_hub_is_refused_and_nothing_written(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "my-agents"
    write(into / "hub.yaml", "version: 1\n")
    write(into / ".env", "KEEP=1\n", 0o600)
    code, _, err = run(capsys, "import", "--into", str(into), "--yes")
    assert code == 2 and "a hub already exists" in err
    assert sorted(p.name for p in into.iterdir()) == [".env", "hub.yaml"]
    assert (into / ".env").read_text() == "KEEP=1\n"


def test_an_existing_env_gains_only_missing_names_and_conflicts_are_reported(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "my-agents"
    mine = f"# my secrets\nexport FILES_API_KEY={FILES_KEY}\nLINEAR_TOKEN=an-older-linear-key\n"
    write(into / ".env", mine, 0o600)
    code, out, err = run(capsys, "import", "--hosts", ALL, "--into", str(into), "--yes")
    assert code == 0, err
    text = (into / ".env").read_text()
    assert text.startswith(mine), "existing lines are kept as they are"
    values = parse_env(text)
    assert values["LINEAR_TOKEN"] == "an-older-linear-key", "a different value is not replaced"
    assert values["GITHUB_PERSONAL_ACCESS_TOKEN"] == GITHUB_TOKEN
    assert text.count("FILES_API_KEY=") == 1
    assert "LINEAR_TOKEN=********" in out and "(CONFLICT)" in out
    assert "conflict: .env already sets LINEAR_TOKEN" in out
    assert stat.S_IMODE((into / ".env").stat().st_mode) == 0o600
    assert LINEAR_KEY not in out + err


# -------------------------------------------------------------------------------- round trip


def applied_servers() -> dict[str, dict[str, Any]]:
    """The MCP servers each host file holds after an apply (parsed values)."""
    return {
        "claude": json.loads((claude_dir() / ".claude.json").read_text())["mcpServers"],
        "codex": tomllib.loads((codex_home() / "config.toml").read_text())["mcp_servers"],
        "cursor": json.loads((home() / ".cursor" / "mcp.json").read_text())["mcpServers"],
        "gemini": json.loads((home() / ".gemini" / "settings.json").read_text())["mcpServers"],
    }


def test_applying_the_imported_hub_to_a_fresh_home_gives_equivalent_servers(
    person: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    into = imported(tmp_path, capsys)
    fresh = tmp_path / "fresh-home"
    for key, value in {
        "HOME": fresh,
        "MEMHUB_HOME": fresh / ".memhub",
        "CLAUDE_CONFIG_DIR": fresh / ".claude",
        "CODEX_HOME": fresh / ".codex",
    }.items():
        monkeypatch.setenv(key, str(value))
    code, _, err = run(capsys, "apply", str(into), "--hosts", ALL)
    assert code == 0, err
    got = applied_servers()
    # The originals, with each literal secret as the host's own reference to its .env name.
    claude = got["claude"]
    assert claude["github"] == {
        **CLAUDE_JSON["mcpServers"]["github"],
        "env": {
            "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}",
            "LOG_LEVEL": "info",
        },
    }
    assert claude["linear-claude"] == {
        **CLAUDE_JSON["mcpServers"]["linear"],
        "headers": {"Authorization": "Bearer ${LINEAR_TOKEN}"},
    }
    assert claude["docs"] == CLAUDE_JSON["mcpServers"]["docs"]
    assert claude["search"] == {"type": "stdio", **CLAUDE_JSON["mcpServers"]["search"]}
    assert claude["tracker"] == {
        "type": "http",
        "url": "https://tracker.example.com/mcp",
        "headers": {"Authorization": "Basic ${TRACKER_BASIC_AUTH}"},
    }
    codex = got["codex"]
    original = tomllib.loads(CODEX_TOML)["mcp_servers"]
    assert codex["github"] == original["github"]
    assert codex["linear-codex"] == original["linear"]
    assert codex["sentry"] == {
        "url": "https://mcp.sentry.dev/mcp",
        "bearer_token_env_var": "SENTRY_TOKEN",
        "startup_timeout_sec": 20.0,
        "enabled_tools": ["search_issues"],
    }
    assert codex["files"] == {
        "command": "/usr/local/bin/files-mcp",
        "env_vars": ["FILES_API_KEY"],
        "cwd": "/srv/data",
    }
    cursor = got["cursor"]
    assert cursor["postgres"] == CURSOR_JSON["mcpServers"]["postgres"]
    assert cursor["notion"] == CURSOR_JSON["mcpServers"]["notion"]
    gemini = got["gemini"]["weather"]
    assert gemini["env"] == {"WEATHER_API_KEY": "${WEATHER_API_KEY}", "UNITS": "metric"}
    assert (gemini["command"], gemini["args"]) == ("python3", ["-m", "weather_mcp"])
    if has_overrides("gemini"):
        assert (gemini["timeout"], gemini["trust"]) == (15000, False)


# -------------------------------------------------------------------------------- scopes


def test_project_scope_reads_project_files_and_claude_local_servers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "repo"
    write(project / ".mcp.json", json.dumps({"mcpServers": {"db": {"command": "db-mcp"}}}))
    local = {"projects": {str(project): {"mcpServers": {"ci": {"command": "ci-mcp"}}}}}
    write(claude_dir() / ".claude.json", json.dumps(local))
    write(
        project / ".cursor" / "mcp.json", json.dumps({"mcpServers": {"db": {"command": "db-mcp"}}})
    )
    write(project / "AGENTS.md", "Project rules.\n")  # read by Codex and Cursor: one copy
    write(project / ".cursor" / "rules" / "style.mdc", "---\nalwaysApply: true\n---\nx\n")
    write(
        project / ".agents" / "skills" / "ship" / "SKILL.md", TIDY_SKILL.replace("lint-fix", "ship")
    )
    into = tmp_path / "project-hub"
    code, out, err = run(
        capsys, "import", "--scope", "project", "--project", str(project), "--into", str(into),
        "--hosts", ALL, "--yes",
    )  # fmt: skip
    assert code == 0, err
    data = hub_data(into)
    assert data["mcp"]["servers"] == {"db": {"command": "db-mcp"}, "ci": {"command": "ci-mcp"}}
    assert (
        f"# imported from {claude_dir() / '.claude.json'} projects.{project}.mcpServers.ci"
        in (into / "hub.yaml").read_text()
    )
    assert (into / "instructions" / "AGENTS.md").read_text() == "Project rules.\n"
    assert sorted(p.name for p in (into / "instructions").iterdir()) == ["AGENTS.md"]
    assert (into / "skills" / "ship" / "SKILL.md").is_file()
    assert "Cursor rule" in out and "style.mdc" in out
    load(into)


def test_nothing_installed_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "empty"
    code, _, err = run(capsys, "import", "--into", str(into), "--yes")
    assert code == 0 and "nothing to import" in err
    assert not into.exists()


def test_a_host_file_that_does_not_parse_is_named_and_the_rest_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(home() / ".cursor" / "mcp.json", '{"mcpServers": {\n  "x": \n}\n')
    write(home() / ".gemini" / "settings.json", json.dumps({"mcpServers": {"w": {"command": "w"}}}))
    into = tmp_path / "hub"
    code, out, err = run(capsys, "import", "--into", str(into), "--yes")
    assert code == 0, err
    assert "mcp.json" in out and "does not parse" in out
    assert hub_data(into)["mcp"]["servers"] == {"w": {"command": "w"}}


# -------------------------------------------------------------------------------- .env format


@pytest.mark.parametrize(
    "value", ["plain-token_1.2", "with space", 'it\'s "quoted"', "dollar $HOME ${X}", "a#b"]
)
def test_env_lines_read_back_as_written(value: str) -> None:
    line = env_line("NAME", value)
    assert parse_env(line + "\n") == {"NAME": value}
    dotenv = pytest.importorskip("dotenv")
    import io

    assert dotenv.dotenv_values(stream=io.StringIO(line + "\n"), interpolate=False) == {
        "NAME": value
    }
