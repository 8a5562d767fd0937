"""The skill prefix in workflow texts: `/<plugin>:` in a Claude plugin, `/` for skills memhub
apply installed, the MemHub spelling elsewhere and whenever the manifest cannot be read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memhub.runtime.workflows.skillnames import DEFAULT, MAX_MANIFEST, skill_prefix


def _plugin(tmp_path: Path, manifest: bytes | None) -> dict[str, str]:
    folder = tmp_path / ".claude-plugin"
    folder.mkdir()
    if manifest is not None:
        (folder / "plugin.json").write_bytes(manifest)
    return {"CLAUDE_PLUGIN_ROOT": str(tmp_path)}


def test_a_claude_plugin_names_its_skills_by_the_manifests_name(tmp_path: Path) -> None:
    assert skill_prefix("claude", _plugin(tmp_path, b'{"name": "team-memory"}')) == "/team-memory:"


def test_skills_installed_into_the_persons_folder_have_no_plugin_part() -> None:
    assert skill_prefix("claude", {}) == "/"


def test_other_hosts_keep_the_memhub_spelling(tmp_path: Path) -> None:
    env = _plugin(tmp_path, b'{"name": "team-memory"}')
    for host in ("codex", "gemini", "cursor", "copilot", "opencode"):
        assert skill_prefix(host, env) == DEFAULT


@pytest.mark.parametrize(
    "manifest",
    [
        None,  # no manifest
        b"{not json",
        b'["name"]',
        b'{"name": 3}',
        b'{"name": ""}',
        b'{"name": "a b`; rm -rf ~"}',  # nothing that could break out of the text's code span
        b'{"name": "\\u0000x"}',
        b'{"name": "' + b"a" * MAX_MANIFEST + b'"}',  # larger than any manifest
        b"\xff\xfe not utf-8",
    ],
)
def test_an_unreadable_or_odd_manifest_falls_back_to_the_memhub_spelling(
    tmp_path: Path, manifest: bytes | None
) -> None:
    assert skill_prefix("claude", _plugin(tmp_path, manifest)) == DEFAULT


def test_a_folder_where_the_manifest_should_be_is_not_read(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin" / "plugin.json").mkdir(parents=True)
    assert skill_prefix("claude", {"CLAUDE_PLUGIN_ROOT": str(tmp_path)}) == DEFAULT


def test_a_fifo_where_the_manifest_should_be_never_hangs(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    os.mkfifo(tmp_path / ".claude-plugin" / "plugin.json")
    assert skill_prefix("claude", {"CLAUDE_PLUGIN_ROOT": str(tmp_path)}) == DEFAULT
