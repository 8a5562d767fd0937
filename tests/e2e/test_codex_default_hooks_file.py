"""Codex loads a plugin's `hooks/hooks.json` with no `hooks` key in its manifest (reference/
hosts.md says so; real codex is the oracle), so codex_repo.HOOKS reads that file as the one
Codex loads by itself (`auto_file`), and a hub asking for that layout builds it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import CodexAppServer, build_bundle
from .test_codex_agent_plugins_shared import PROBE
from .test_codex_plugin import _install

pytestmark = pytest.mark.e2e


def _plugin_hooks(codex: Path, env: dict[str, str], cwd: Path) -> list[dict]:
    with CodexAppServer(codex, env=env, cwd=cwd) as server:
        listed = server.call("hooks/list", {"cwds": [str(cwd)]})
    return [h for e in listed["data"] for h in e["hooks"] if h.get("source") == "plugin"]


def test_codex_loads_hooks_json_without_a_manifest_key(
    tmp_path: Path, codex_cli: Path, isolated_home, git_repo: Path
) -> None:
    bundle = tmp_path / "bundle"
    build_bundle(PROBE, bundle)
    folder = bundle / "plugins" / "e2e-probe"
    manifest_path = folder / ".codex-plugin" / "plugin.json"
    manifest = json.loads(manifest_path.read_text())
    named = folder / manifest.pop("hooks")
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    named.rename(folder / "hooks" / "hooks.json")
    (folder / "plugin.json").unlink(missing_ok=True)
    info = type("Info", (), {"plugin": "e2e-probe", "marketplace": "e2e-market"})
    _install(codex_cli, bundle, info, isolated_home.env)
    hooks = _plugin_hooks(codex_cli, isolated_home.env, git_repo)
    assert len(hooks) >= 5, json.dumps(hooks, indent=1)


def test_codex_ignores_hooks_json_when_its_manifest_names_a_file(
    tmp_path: Path, codex_cli: Path, isolated_home, git_repo: Path
) -> None:
    """Unlike Claude Code, Codex loads hooks/hooks.json only when its manifest names no file
    (codex_repo.HOOKS `auto_beside=False`): a Claude hooks/hooks.json beside a Codex manifest
    naming hooks/codex-hooks.json is not Codex's."""
    bundle = tmp_path / "bundle"
    build_bundle(PROBE, bundle)
    folder = bundle / "plugins" / "e2e-probe"
    (folder / "plugin.json").unlink(missing_ok=True)
    extra = {"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    (folder / "hooks" / "hooks.json").write_text(json.dumps(extra))
    info = type("Info", (), {"plugin": "e2e-probe", "marketplace": "e2e-market"})
    _install(codex_cli, bundle, info, isolated_home.env)
    hooks = _plugin_hooks(codex_cli, isolated_home.env, git_repo)
    sources = {Path(h.get("sourcePath", "")).name for h in hooks}
    assert sources == {"codex-hooks.json"}, json.dumps(hooks, indent=1)
