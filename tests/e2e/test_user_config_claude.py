"""`plugin.user_config` as Claude Code's plugin `userConfig`, proven by `claude plugin validate
--strict`: the bundle memhub builds (options of every kind, servers naming them, and
`${env:NAME:-default}` values) validates, and the same bundle with a server naming an option
it does not declare does not (so the validator reads the references it passes)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .harness import HUBS_DIR
from .test_claude_validate import _validate

pytestmark = pytest.mark.e2e

HUB = HUBS_DIR / "user-config"
PLUGIN = "plugins/options-probe"


def test_claude_validates_the_options_memhub_writes(
    claude_cli: Path, isolated_home, bundle_for, tmp_path: Path
) -> None:
    bundle = bundle_for(HUB)
    manifest = json.loads((bundle / PLUGIN / ".claude-plugin/plugin.json").read_text())
    assert list(manifest["userConfig"]) == ["API_URL", "API_TOKEN", "LIMIT", "CACHE"]
    for target in (bundle, bundle / PLUGIN):
        report, failed = _validate(claude_cli, target, isolated_home.env)
        assert report.get("success") is True and report.get("strict") is True, failed

    tampered = tmp_path / "tampered"
    shutil.copytree(bundle / PLUGIN, tampered)
    mcp = tampered / ".mcp.json"
    mcp.write_text(mcp.read_text().replace("user_config.API_URL", "user_config.NOPE"))
    report, _ = _validate(claude_cli, tampered, isolated_home.env)
    assert report.get("success") is False
    assert "user_config.NOPE" in json.dumps(report.get("contents"))
