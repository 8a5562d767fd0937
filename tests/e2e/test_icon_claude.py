"""An SVG plugin icon as Claude Code checks it: the plain SVG memhub ships passes `claude plugin
validate --strict` with no icon finding from its directory checks, and the same bundle with a
`<style>` element in the icon (what hubspec/icons.py refuses) gets ICON_INVALID."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from .harness import describe, run
from .test_claude_validate import _validate

pytestmark = pytest.mark.e2e

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><defs><linearGradient id="g">'
    '<stop offset="0" stop-color="#36c"/></linearGradient></defs>'
    '<rect width="512" height="512" fill="url(#g)"/></svg>\n'
)


def icon_findings(report: dict) -> list[str]:
    findings = (report.get("directory") or {}).get("findings") or []
    return [f["code"] for f in findings if str(f.get("code", "")).startswith("ICON")]


def test_claude_takes_the_svg_icon_memhub_ships(
    claude_cli: Path, isolated_home, tmp_path: Path
) -> None:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "logo.svg").write_text(SVG)
    (hub / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: icon-probe, version: 0.1.0, description: Icon probe, icon: logo.svg,"
        " author: {name: memhub e2e}, license: Apache-2.0}\n"
        "marketplace: {name: probe-market, owner: {name: memhub e2e}}\n"
        "hosts: [claude]\n"
    )
    out = tmp_path / "out"
    built = run([sys.executable, "-m", "memhub.compiler.cli.main", "build", str(hub), "--out",
                 str(out)], env=isolated_home.env)  # fmt: skip
    assert built.returncode == 0, describe(built)
    plugin = out / "plugins" / "icon-probe"
    manifest = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["icon"] == "./assets/icon.svg"
    assert (plugin / "assets" / "icon.svg").read_text() == SVG
    report, failed = _validate(claude_cli, plugin, isolated_home.env)
    assert report.get("success") is True, failed
    assert icon_findings(report) == [], report.get("directory")

    tampered = tmp_path / "tampered"
    shutil.copytree(plugin, tampered)
    (tampered / "assets" / "icon.svg").write_text(SVG.replace("<defs>", "<style>*{}</style><defs>"))
    report, _ = _validate(claude_cli, tampered, isolated_home.env)
    assert icon_findings(report) == ["ICON_INVALID"], report.get("directory")
