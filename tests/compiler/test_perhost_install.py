"""Per-host content in `memhub apply`: each host installs its own view of the hub."""

from __future__ import annotations

import json
from pathlib import Path

from memhub.compiler.install.planner import gather_entries
from memhub.compiler.install.scope import Scope
from memhub.hubspec import load

HUB = """\
version: 1
plugin: {name: demo, version: 1.0.0, description: d}
marketplace: {name: m, owner: {name: o}}
hosts: [claude, codex, cursor]
mcp:
  servers:
    only-codex: {command: npx, args: [x], hosts: [codex]}
hooks:
  - {id: claude-stop, event: turn_end, command: echo claude-stop, hosts: [claude]}
  - id: native
    event: {cursor: afterFileEdit, claude: SubagentStop}
    command: echo native
    options: {fail_closed: {cursor: true}}
"""


def test_each_host_installs_its_own_view(tmp_path: Path) -> None:
    (tmp_path / "hub").mkdir()
    (tmp_path / "hub" / "hub.yaml").write_text(HUB)
    hub = load(tmp_path / "hub")
    scope = Scope("user", tmp_path / "home")
    entries, rows = gather_entries(hub, scope, ["claude", "codex", "cursor"])
    by_host: dict[str, str] = {}
    for entry in entries:
        by_host[entry.host] = by_host.get(entry.host, "") + json.dumps(entry.value, default=str)
    assert "claude-stop" in by_host["claude"]
    assert "claude-stop" not in by_host["codex"] + by_host["cursor"]
    assert "only-codex" not in by_host["claude"] + by_host["cursor"]
    cursor = [e for e in entries if e.host == "cursor" and e.path[-1:] == ("afterFileEdit",)]
    assert [e.value for e in cursor] == [{"command": "echo native", "failClosed": True}]
    claude = [e for e in entries if e.host == "claude" and e.path[-1:] == ("SubagentStop",)]
    assert len(claude) == 1
    status = {(r.host, r.id): r.status for r in rows if r.component == "hook"}
    assert status["codex", "native"] == "unsupported"
