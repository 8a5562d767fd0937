"""bench/import_wild_hosts.py's pure part: where each host finds plugins, what its CLI's output
says is loaded, the before/after count by name; and a missing CLI is reported, not guessed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import import_wild_hostparse as hp  # noqa: E402
import import_wild_hosts as hosts  # noqa: E402


def _doc(value: object) -> bytes:
    return json.dumps(value).encode()


def test_claude_validates_each_manifest_and_each_listed_folder_without_one() -> None:
    files = {
        ".claude-plugin/marketplace.json": _doc(
            {"plugins": [{"name": "a", "source": "./plugins/a"}, {"name": "b", "source": "./b"}]}
        ),
        "plugins/a/.claude-plugin/plugin.json": _doc({"name": "alpha"}),
        "plugins/a/skills/s/SKILL.md": b"",
        "b/commands/c.md": b"",
    }
    assert hp.claude_targets(files) == [
        ("b", "b"),
        ("alpha", "plugins/a/.claude-plugin/plugin.json"),
    ]


def test_marketplace_roots_and_codex_plugins_no_marketplace_lists() -> None:
    files = {
        "sub/.agents/plugins/marketplace.json": _doc(
            {"plugins": [{"name": "p", "source": {"source": "local", "path": "./p"}}]}
        ),
        "sub/p/.codex-plugin/plugin.json": _doc({"name": "p"}),
        "lone/.codex-plugin/plugin.json": _doc({"name": "lone"}),
        "ext/gemini-extension.json": _doc({"name": "e"}),
    }
    assert hp.market_roots(files, ".agents/plugins/marketplace.json") == ["sub"]
    assert hp.unlisted_codex_plugins(files) == ["lone"]
    assert hp.gemini_extensions(files) == ["ext"]


def test_claude_provides_become_keys_named_by_plugin() -> None:
    report = {
        "provides": {
            "skills": ["p:s"],
            "hooks": [{"event": "Stop", "matcher": "", "type": "prompt", "prompt": "check"}],
            "mcpServers": [{"name": "db", "type": "http", "target": "https://x"}],
            "agents": [],
        }
    }
    assert hp.claude_components("p", report) == {
        "skills": ["p:s"],
        "hooks": ["p:Stop||prompt|check"],
        "mcpServers": ["p:db"],
    }
    assert hp.claude_components("p", {"provides": None}) == {}


GEMINI_LIST = """\
\u2713 sec (0.1.0)
 ID: 91d9
 name: d499
 Path: /h/ext
 Source: /h/ext (Type: link)
 Enabled (User): true
 Context files:
  /h/ext/GEMINI.md
 MCP servers:
  osv
 Agent skills:
  scan: Scans things: carefully.
\u2717 off (2.0.0)
 Path: /h/off
 MCP servers:
  other
"""


def test_gemini_list_gives_enabled_extensions_and_their_lists() -> None:
    listed = hp.parse_gemini_list(GEMINI_LIST)
    assert listed["sec"]["Agent skills"] == ["scan: Scans things: carefully."]
    assert hp.gemini_components(listed) == {
        "extensions": ["sec"],
        "context files": ["sec:GEMINI.md"],
        "mcp servers": ["sec:osv"],
        "agent skills": ["sec:scan"],
    }


def test_copilot_marketplace_name_and_keys() -> None:
    assert hp.copilot_market_name('Marketplace "tools" added successfully.') == "tools"
    assert hp.copilot_market_name("error: no marketplace.json") is None
    servers = {
        "mcpServers": {"a": {"source": "plugin", "sourcePlugin": "p"}, "u": {"source": "user"}}
    }
    assert hosts._copilot_keys("mcp servers", servers) == ["p:a"]
    skills = [{"name": "s", "source": "plugin"}, {"name": "t", "source": "project"}]
    assert hosts._copilot_keys("skills", skills) == ["s"]
    plugins = [{"name": "p", "marketplace": "m", "enabled": True}, {"name": "q", "enabled": False}]
    assert hosts._copilot_keys("plugins", plugins) == ["p@m"]


def test_compare_counts_by_name_as_a_multiset() -> None:
    before = {"skills": ["a", "a", "b"], "hooks": ["h"]}
    after = {"skills": ["a", "b", "c"]}
    assert hp.compare(before, after) == {
        "hooks": {"original": 1, "rebuild": 0, "lost": ["h"]},
        "skills": {"original": 3, "rebuild": 2, "lost": ["a"]},
    }


def test_hosts_table_sums_per_host_and_kind_and_says_why_a_cli_failed() -> None:
    row = {
        "repo": "o/r",
        "hosts": {
            "codex": {
                "original": {"status": "ok", "errors": []},
                "rebuild": {"status": "failed", "errors": ["marketplace add .: exit 1: no file"]},
                "kinds": {"plugins": {"original": 2, "rebuild": 0, "lost": ["p@m", "q@m"]}},
            }
        },
    }
    table = hp.hosts_table([row, row])
    assert "| o/r | codex | plugins 0/2 | p@m; q@m; rebuild: failed marketplace add" in table
    assert table.splitlines()[-1] == "| **all** | | codex plugins 0/4 | |"


def test_a_missing_cli_is_reported_as_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMHUB_HOST_CACHE", str(tmp_path / "empty"))
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "gemini-extension.json").write_text('{"name": "e"}')
    result = hosts.measure(tmp_path, tmp_path, ["gemini", "claude"], timeout=5)
    assert list(result) == ["gemini"]  # no Claude layout: not measured
    assert result["gemini"]["original"]["status"] == "missing"
    assert "not installed" in result["gemini"]["original"]["errors"][0]
    assert result["gemini"]["kinds"] == {}
