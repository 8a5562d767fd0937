"""`memhub doctor`'s server-start check: a server memhub installed that the host cannot start
is a failure naming the host's own words, read from each host's own report.

The reports are real: `claude mcp list` (2.1.332), Codex 0.171's app-server
`mcpServerStatus/list` and `gemini mcp list` (0.61, in a trusted folder), each over the same
three servers: memhub's memory server by absolute path (starts), the bare word `memhub` with
no memhub on PATH (the Quickstart's venv), and a command that exits at once. Paths in them are
a made-up home's. The end-to-end form with the real CLIs is tests/e2e/test_memory_hosts.py.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main
from memhub.compiler.hosts import claude_servers, codex_servers, gemini_servers

from tests.hubs import REPO

REPORTS = REPO / "tests" / "data" / "server-starts"
ENOENT = 'Failed to connect — ENOENT: Executable not found in $PATH: "memhub"'


def report(name: str) -> str:
    return (REPORTS / name).read_text(encoding="utf-8")


def test_claude_code_health_lines_are_read() -> None:
    found = claude_servers.started(report("claude.stdout"), "")
    assert found == {
        "memhub-memory": None,
        "bare-memhub": ENOENT,
        "dies": "Failed to connect — CONNECTION_CLOSED: Connection closed",
        "remote": "Failed to connect — ECONNREFUSED: Unable to connect. Is the computer able "
        "to access the url?",
    }


def test_codex_app_server_status_is_read() -> None:
    found = codex_servers.started(report("codex.stdout"), "")
    assert found["memhub-memory"] is None
    assert found["bare-memhub"] == "MCP startup failed: No such file or directory (os error 2)"
    assert (found["dies"] or "").startswith("MCP startup failed: handshaking with MCP server")
    answer = report("codex.stdout").splitlines()
    assert [line for line in answer if codex_servers.STARTS.answered(line)] == answer[-1:]  # type: ignore[misc]


def test_gemini_list_is_read_from_stderr() -> None:
    found = gemini_servers.started("", report("gemini.stderr"))
    assert found == {"memhub-memory": None, "bare-memhub": "Disconnected", "dies": "Disconnected"}
    untrusted = "○ memhub-memory: memhub mcp serve (stdio) - Disabled\n"
    assert gemini_servers.started("", untrusted) == {}, "a server it did not start"


def test_nothing_recognised_reports_nothing() -> None:
    for read in (claude_servers.started, codex_servers.started, gemini_servers.started):
        assert read("Checking MCP server health…\n\nNo MCP servers configured.\n", "") == {}


# -- doctor, with stand-ins for the host CLIs that answer with the real reports -------------

HUB = """\
version: 1
plugin: {name: starts-probe, version: 0.1.0, description: Server start probe}
marketplace: {name: probe-market, owner: {name: Probe}}
mcp:
  servers:
    bare-memhub: {command: memhub, args: [mcp, serve]}
    dies: {command: sh, args: ["-c", "exit 3"]}
"""


def stand_ins(folder: Path) -> None:
    """`claude` and `gemini` print their report; `codex mcp list` loads, and `codex
    app-server` answers once it has read the three requests, then waits for its input to end
    (as the real one does: it answers nothing after that)."""
    scripts = {
        "claude": f"#!/bin/sh\ncat '{REPORTS / 'claude.stdout'}'\n",
        "gemini": f"#!/bin/sh\ncat '{REPORTS / 'gemini.stderr'}' >&2\n",
        "codex": textwrap.dedent(f"""\
            #!/bin/sh
            [ "$1" = app-server ] || {{ echo '[]'; exit 0; }}
            read a; read b; read c
            case "$c" in *mcpServerStatus/list*) cat '{REPORTS / "codex.stdout"}';; esac
            cat >/dev/null
            """),
    }
    folder.mkdir()
    for name, text in scripts.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]]]:
    code = main(["doctor", *args, "--json"])
    out, err = capsys.readouterr()
    assert out, err
    return code, json.loads(out)["data"]["checks"]


def test_doctor_fails_naming_each_hosts_words_for_a_server_that_cannot_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(HUB)
    monkeypatch.chdir(tmp_path)
    assert main(["apply", str(hub), "--hosts", "claude,codex,gemini"]) == 0
    capsys.readouterr()
    stand_ins(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin")
    code, checks = doctor(capsys, "--hosts", "claude,codex,gemini")
    starts = {
        (c["host"], c["detail"].split(": ", 2)[1]): c for c in checks if c["name"] == "server-start"
    }
    assert code == 1
    assert {status for status in (c["status"] for c in starts.values())} == {"fail"}
    assert sorted(starts) == [
        (host, f"{name} does not start")
        for host in ("claude", "codex", "gemini")
        for name in ("bare-memhub", "dies")
    ], sorted(starts)
    bare = {
        host: starts[(host, "bare-memhub does not start")] for host in ("claude", "codex", "gemini")
    }
    assert bare["claude"]["detail"] == f"`claude mcp list`: bare-memhub does not start: {ENOENT}"
    assert "No such file or directory (os error 2)" in bare["codex"]["detail"]
    assert "codex app-server mcpServerStatus/list" in bare["codex"]["detail"]
    assert bare["gemini"]["detail"].endswith("does not start: Disconnected")
    assert bare["claude"]["target"].endswith(".claude.json") and bare["claude"]["fix"]
    loaders = [c for c in checks if c["name"] == "host-loader"]
    assert {c["status"] for c in loaders} == {"ok"}, loaders
