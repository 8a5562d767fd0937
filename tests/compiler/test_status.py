"""`memhub status`: what is installed, where, for which plugin, and whether it is intact."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.compiler.installkit import claude_json, run


def status(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    code, out, err = run(capsys, "status", *args, "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["command"] == "status" and document["ok"]
    return document["data"]["entries"]


def by_what(entries: list[dict[str, Any]], host: str) -> dict[str, str]:
    return {e["what"]: e["state"] for e in entries if e["host"] == host}


def test_nothing_installed_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "status")
    assert code == 0 and "installed nothing" in out
    assert status(capsys) == []


def test_a_real_applied_hub_shows_current_drifted_and_missing(
    hub: Path, home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROBE_TOKEN", "a-token-value")
    assert run(capsys, "apply", str(hub), "--hosts", "claude,codex")[0] == 0
    entries = status(capsys)
    assert entries and {e["state"] for e in entries} == {"current"}
    assert {e["plugin"] for e in entries} == {"install-probe"}
    assert {e["scope"] for e in entries} == {"user"}
    assert {e["host"] for e in entries} == {"claude", "codex"}
    claude = by_what(entries, "claude")
    assert claude["mcpServers/probe-stdio"] == "current"
    # edit one server by hand, remove a skill folder memhub copied
    data = json.loads(claude_json().read_text())
    data["mcpServers"]["probe-stdio"]["args"] = ["edited by hand"]
    claude_json().write_text(json.dumps(data))
    skill = home / ".claude" / "skills" / "tidy"
    shutil.rmtree(skill)
    entries = status(capsys)
    claude = by_what(entries, "claude")
    assert claude["mcpServers/probe-stdio"] == "drifted"
    assert claude["mcpServers/probe-remote"] == "current"
    assert claude["tidy"] == "missing"
    assert {s for w, s in by_what(entries, "codex").items()} == {"current"}
    counts = json.loads(run(capsys, "status", "--json")[1])["data"]["counts"]
    assert counts["drifted"] == 1 and counts["missing"] == 1
    # the text lists what is not current, and counts the rest
    code, out, _ = run(capsys, "status")
    assert code == 0
    assert "install-probe (user scope" in out
    assert "  claude: " in out and "1 drifted, 1 missing" in out
    assert f"drifted    json-key mcpServers/probe-stdio  {claude_json()}" in out
    assert f"missing    tree tidy  {skill}" in out
    assert "current    " not in out
    _, verbose, _ = run(capsys, "status", "-v")
    assert "current    json-key mcpServers/probe-remote" in verbose
    # a file that no longer parses is said to be unreadable, not drifted
    (home / ".codex" / "config.toml").write_text("[mcp_servers\n")
    codex = by_what(status(capsys), "codex")
    assert "unreadable" in codex.values()


def test_filters_by_scope_host_and_plugin(
    hub: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "checkout"
    project.mkdir()
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    in_project = ("--scope", "project", "--project", str(project))
    assert run(capsys, "apply", str(hub), "--hosts", "claude", *in_project)[0] == 0
    everything = status(capsys)
    assert {e["scope"] for e in everything} == {"user", f"project:{project}"}
    assert {e["scope"] for e in status(capsys, "--scope", "user")} == {"user"}
    assert {e["scope"] for e in status(capsys, *in_project)} == {f"project:{project}"}
    assert status(capsys, "--hosts", "codex") == []
    assert status(capsys, "--plugin", "someone-else") == []
    assert len(status(capsys, "--plugin", "install-probe")) == len(everything)
    _, out, _ = run(capsys, "status")
    assert f"project scope, {project}" in out and "user scope" in out
    # an uninstall leaves nothing to report in that scope
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude")[0] == 0
    assert {e["scope"] for e in status(capsys)} == {f"project:{project}"}
