"""Drift in plan and apply: an owned entry edited by hand is a `conflict`, not an update.

Each change carries target / last-written / actual digests (the way doctor reports drift);
apply refuses to overwrite a hand edit without --force, and says what, where and how to fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.compiler.install.entries import Entry, EntryKey

from tests.compiler.installkit import claude_json, run


def _edit_server(path: Path, name: str, **changes: object) -> bytes:
    data = json.loads(path.read_text())
    data["mcpServers"][name].update(changes)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path.read_bytes()


def test_a_hand_edited_server_is_a_conflict_and_apply_refuses_it(
    hub: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    target = claude_json()
    edited = _edit_server(target, "probe-stdio", command="my-python")

    code, out, err = run(capsys, "plan", str(hub), "--hosts", "claude")
    assert code == 2
    assert f"conflict  {target}" in out and f"update  {target}" not in out
    assert f"{target}: mcpServers/probe-stdio was edited since memhub wrote it" in err

    code, out, _ = run(capsys, "plan", str(hub), "--hosts", "claude", "--json")
    (change,) = [t for t in json.loads(out)["data"]["targets"] if t["path"] == str(target)]
    assert change["kind"] == "update" and change["conflict"] is True
    (drift,) = change["drift"]
    assert drift["entry"] == "json-key:mcpServers/probe-stdio"
    assert drift["target"] == drift["last_written"] != drift["actual"]

    code, out, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 2
    assert "apply would overwrite hand edits" in err
    assert f"{target}: mcpServers/probe-stdio" in err and "--force" in err
    assert target.read_bytes() == edited  # nothing written

    code, out, _ = run(capsys, "apply", str(hub), "--hosts", "claude", "--force")
    assert code == 0
    assert json.loads(target.read_text())["mcpServers"]["probe-stdio"]["command"] == "python3"
    assert run(capsys, "undo")[0] == 0  # the hand edit comes back
    assert target.read_bytes() == edited


def test_an_entry_edited_to_what_the_hub_now_wants_is_no_conflict(
    hub: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    hub_yaml = hub / "hub.yaml"
    hub_yaml.write_text(hub_yaml.read_text().replace("LEVEL: debug", "LEVEL: info"))
    # the person made the same edit by hand: apply has nothing of theirs to overwrite
    current = json.loads(claude_json().read_text())["mcpServers"]["probe-stdio"]["env"]
    _edit_server(claude_json(), "probe-stdio", env={**current, "LEVEL": "info"})
    code, out, err = run(capsys, "plan", str(hub), "--hosts", "claude")
    assert code == 0 and "conflict" not in out + err


def test_an_update_from_the_hub_alone_stays_an_update(
    hub: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    hub_yaml = hub / "hub.yaml"
    hub_yaml.write_text(hub_yaml.read_text().replace("LEVEL: debug", "LEVEL: info"))
    code, out, err = run(capsys, "plan", str(hub), "--hosts", "claude")
    assert code == 0 and f"update  {claude_json()}" in out and "conflict" not in out + err
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0


def test_uninstall_refuses_to_remove_a_hand_edited_entry_without_force(
    hub: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    edited = _edit_server(claude_json(), "probe-remote", url="https://mine.example.com/mcp")
    code, _, err = run(capsys, "uninstall", str(hub), "--hosts", "claude")
    assert code == 2 and "mcpServers/probe-remote" in err and "--force" in err
    assert claude_json().read_bytes() == edited
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude", "--force")[0] == 0
    assert "probe-remote" not in json.loads(claude_json().read_text()).get("mcpServers", {})


def test_a_hand_edited_codex_table_is_a_conflict_too(
    hub: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "codex")[0] == 0
    config = home / ".codex" / "config.toml"
    text = config.read_text().replace('"-m"', '"-X"')
    config.write_text(text)
    code, out, err = run(capsys, "plan", str(hub), "--hosts", "codex")
    assert code == 2 and f"conflict  {config}" in out
    assert f"{config}: mcp_servers/probe-stdio was edited" in err


@pytest.mark.parametrize(
    "key",
    [
        "json-key:mcpServers/docs",
        "toml-table:mcp_servers/docs",
        "json-default:version",
        "text-block:memhub",
        "tree:",
        "json-item:hooks/PreToolUse#sha256:" + "0" * 64,
    ],
)
def test_entry_keys_parse_and_format_back(key: str) -> None:
    parsed = EntryKey.parse(key)
    assert str(parsed) == key
    assert EntryKey.parse(str(parsed)) == parsed


def test_an_entry_key_is_what_the_entry_says() -> None:
    item = Entry("claude", "/s.json", "json-item", ("hooks", "Stop"), {"x": 1})
    parsed = EntryKey.parse(item.key)
    assert parsed.kind == "json-item" and parsed.path == ("hooks", "Stop")
    assert parsed.item == item.digest and parsed.format == "json"
    server = Entry("codex", "/c.toml", "toml-table", ("mcp_servers", "a/b"), {})
    assert EntryKey.parse(server.key).name == "mcp_servers/a/b"
    for bad in ("", "mcpServers/docs", "nonsense:x"):
        with pytest.raises(ValueError):
            EntryKey.parse(bad)


def test_diff_shows_the_conflict_with_its_digests(
    hub: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    _edit_server(claude_json(), "probe-stdio", command="my-python")
    code, out, _ = run(capsys, "diff", str(hub), "--scope", "user", "--hosts", "claude")
    assert code == 0
    assert "! conflict: json-key:mcpServers/probe-stdio was edited since memhub wrote it" in out
    assert "apply needs --force" in out
    code, out, _ = run(capsys, "diff", str(hub), "--scope", "user", "--hosts", "claude", "--json")
    changes = json.loads(out)["data"]["changes"]
    (change,) = [c for c in changes if c.get("conflict")]
    assert change["path"].endswith(".claude.json")
    assert change["drift"][0]["actual"] != change["drift"][0]["last_written"]
