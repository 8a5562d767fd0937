"""`plugin.agent_plugins_folder: shared` costs Codex every plugin hook, as the build's caveat
says (compiler/hosts/agent_plugins_shared.py): real Codex reads the Agent Plugins plugin.json
at the plugin folder's root instead of .codex-plugin/plugin.json. Kept apart (the default),
the same hub's hooks load. If a Codex release changes this, the first case fails and the
caveat must be revised."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .harness import CodexAppServer, build_bundle
from .test_codex_plugin import _install

pytestmark = pytest.mark.e2e

PROBE = Path(__file__).parent / "hubs" / "probe"


def _hub(tmp_path: Path, shared: bool) -> Path:
    """The probe hub (Codex and Agent Plugins, eight command hooks), with the opt-in or not."""
    hub = tmp_path / "hub"
    shutil.copytree(PROBE, hub)
    if shared:
        text = (hub / "hub.yaml").read_text()
        opt_in = "  license: Apache-2.0\n  agent_plugins_folder: shared\n"
        (hub / "hub.yaml").write_text(text.replace("  license: Apache-2.0\n", opt_in, 1))
    return hub


@pytest.mark.parametrize("shared", [True, False], ids=["shared", "apart"])
def test_codex_loads_no_plugin_hooks_beside_an_agent_plugins_manifest(
    shared: bool, tmp_path: Path, codex_cli: Path, isolated_home, git_repo: Path
) -> None:
    bundle = tmp_path / "bundle"
    build_bundle(_hub(tmp_path, shared), bundle)
    folder = bundle / "plugins" / "e2e-probe"
    assert (folder / "plugin.json").is_file() is shared
    assert (bundle / "agent-plugins" / "e2e-probe" / "plugin.json").is_file() is not shared
    info = type("Info", (), {"plugin": "e2e-probe", "marketplace": "e2e-market"})
    _install(codex_cli, bundle, info, isolated_home.env)

    with CodexAppServer(codex_cli, env=isolated_home.env, cwd=git_repo) as server:
        listed = server.call("hooks/list", {"cwds": [str(git_repo)]})
    hooks = [h for e in listed["data"] for h in e["hooks"] if h.get("source") == "plugin"]
    if shared:
        assert hooks == [], (
            "Codex now loads plugin hooks beside an Agent Plugins plugin.json: revise "
            f"agent_plugins_shared.CODEX_LOSES_HOOKS\n{json.dumps(hooks, indent=1)}"
        )
    else:
        assert len(hooks) >= 5, json.dumps(listed, indent=1)
