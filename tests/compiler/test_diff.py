"""diff rendering: key paths for JSON and TOML, unified text otherwise, mode changes."""

from __future__ import annotations

from memhub.compiler.artifact import Artifact
from memhub.compiler.diff import key_changes, plan_json, render_change
from memhub.compiler.plan import Change, Plan


def test_json_changes_are_key_paths() -> None:
    before = b'{"a": {"b": 1, "gone": true}, "list": [1, 2]}'
    after = b'{"a": {"b": 2, "new": "x"}, "list": [1, 2, 3]}'
    assert key_changes("f.json", before, after) == [
        {"op": "change", "key": "a.b", "old": 1, "new": 2},
        {"op": "remove", "key": "a.gone", "old": True},
        {"op": "add", "key": "a.new", "new": "x"},
        {"op": "add", "key": "list[2]", "new": 3},
    ]


def test_toml_changes_keep_comments_out_of_the_way() -> None:
    before = b'# mine\n[mcp_servers.a]\ncommand = "x"  # keep\n'
    after = b'# mine\n[mcp_servers.a]\ncommand = "y"  # keep\n[mcp_servers.b]\nurl = "u"\n'
    assert key_changes("config.toml", before, after) == [
        {"op": "change", "key": "mcp_servers.a.command", "old": "x", "new": "y"},
        {"op": "add", "key": "mcp_servers.b", "new": {"url": "u"}},
    ]


def test_unparsable_json_falls_back_to_a_unified_diff() -> None:
    change = Change("f.json", "update", Artifact("f.json", b'{"a": 1}\n'), "sha256:x", b"{broken\n")
    text = render_change(change)
    assert "-{broken" in text and '+{"a": 1}' in text


def test_mode_only_change_is_shown_as_such() -> None:
    target = Artifact("run.sh", b"echo\n", mode=0o755)
    change = Change("run.sh", "update", target, "sha256:x", b"echo\n", 0o644)
    assert render_change(change).endswith("mode 644 -> 755\n")


def test_plan_json_never_carries_file_contents() -> None:
    secretish = b"some body text that must not leak"
    plan = Plan(
        "out", (Change("notes.md", "update", Artifact("notes.md", b"new"), "sha256:x", secretish),)
    )
    document = plan_json(plan)
    assert "some body text" not in str(document)
    assert document["summary"]["update"] == 1
