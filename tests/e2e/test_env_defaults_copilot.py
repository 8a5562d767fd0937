"""`${env:NAME:-default}` as GitHub Copilot CLI starts the servers memhub wrote for it.

Copilot CLI expands `${NAME:-default}` itself, so memhub writes it as that (no launcher), in a
user install (`~/.copilot/mcp-config.json`) and in a plugin bundle. A real session (the fake
model behind it) starts each server, which records the argument and env value it got: the
hub's default while the variable is unset, the variable's value once it is set.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import IsolatedHome
from .test_copilot_host import (  # noqa: F401 (fixtures)
    CopilotFake,
    _env,
    _install_bundle,
    _memhub,
    _session,
    copilot_cli,
    fake_model,
    hub,
)

pytestmark = pytest.mark.e2e

RECORD = (
    "import json, os, sys; json.dump([sys.argv[1:], os.environ.get('API_URL')], "
    "open(os.environ['MEMHUB_E2E_OUT'] + '/seen.json', 'w'))"
)
SERVER = json.dumps(
    {
        "command": "python3",
        "args": ["-c", RECORD, "${env:MEMHUB_T_LEVEL:-info}"],
        "env": {"API_URL": "${env:MEMHUB_T_URL:-https://api.example.com}"},
    }
)


def with_default_server(hub_folder: Path) -> None:
    text = (hub_folder / "hub.yaml").read_text(encoding="utf-8")
    text = text.replace('probe: {command: python3, args: ["-c", "pass"]}', f"probe: {SERVER}")
    (hub_folder / "hub.yaml").write_text(text, encoding="utf-8")


def seen(out: Path) -> list:
    return json.loads((out / "seen.json").read_text(encoding="utf-8"))


def test_a_user_install_passes_the_default_and_then_the_value(
    copilot_cli: Path,  # noqa: F811
    isolated_home: IsolatedHome,
    git_repo: Path,
    hub: Path,  # noqa: F811
    fake_model: CopilotFake,  # noqa: F811
) -> None:
    with_default_server(hub)
    out = isolated_home.root / "out"
    env = _env(isolated_home, out)
    applied = _memhub(env, git_repo, "apply", str(hub), "--scope", "user", "--hosts", "copilot")
    assert "launcher" not in applied.stdout
    config = json.loads((isolated_home.home / ".copilot" / "mcp-config.json").read_text())
    assert config["mcpServers"]["probe"]["args"][-1] == "${MEMHUB_T_LEVEL:-info}"
    _session(copilot_cli, env, git_repo, fake_model)
    assert seen(out) == [["info"], "https://api.example.com"]
    env = _env(isolated_home, out, MEMHUB_T_LEVEL="debug", MEMHUB_T_URL="https://b.example.com")
    _session(copilot_cli, env, git_repo, fake_model)
    assert seen(out) == [["debug"], "https://b.example.com"]


def test_a_plugin_bundle_passes_the_default(
    copilot_cli: Path,  # noqa: F811
    isolated_home: IsolatedHome,
    git_repo: Path,
    hub: Path,  # noqa: F811
    fake_model: CopilotFake,  # noqa: F811
) -> None:
    with_default_server(hub)
    out = isolated_home.root / "out"
    env = _env(isolated_home, out)
    _install_bundle(copilot_cli, env, git_repo, hub, isolated_home.root / "bundle")
    _session(copilot_cli, env, git_repo, fake_model)
    assert seen(out) == [["info"], "https://api.example.com"]
