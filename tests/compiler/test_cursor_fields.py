"""Cursor's `tags` and `minClientVersions` as hub fields: validated, written for Cursor only,
read back by the Cursor repo reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.cli.main import main
from memhub.hubspec import HubError, load

HOSTS = "[claude, codex, cursor, gemini, opencode, agent-plugins, copilot]"


def hub_with(tmp_path: Path, extra: str) -> Path:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(
        "version: 1\n"
        "plugin:\n"
        "  name: tag-probe\n"
        "  version: 0.1.0\n"
        "  description: Tags probe\n"
        + extra
        + "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        f"hosts: {HOSTS}\n"
    )
    return hub


FIELDS = "  tags: [memory, team recall]\n  min_client_versions: {cursor: 1.7.0}\n"


def test_tags_and_min_client_versions_are_written_for_cursor_only(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path, FIELDS)))
    (manifest,) = [a for a in result.artifacts if a.path.endswith(".cursor-plugin/plugin.json")]
    doc = json.loads(manifest.content)
    assert doc["tags"] == ["memory", "team recall"]
    assert doc["minClientVersions"] == {"cursor": "1.7.0"}
    assert list(doc)[-2:] == ["tags", "minClientVersions"]
    others = [a.path for a in result.artifacts if a is not manifest and b"team recall" in a.content]
    assert others == []
    assert not any(b"minClientVersions" in a.content for a in result.artifacts if a is not manifest)


def test_a_hub_without_them_writes_neither(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path, "")), ["cursor"])
    assert not any(b'"tags"' in a.content or b"minClient" in a.content for a in result.artifacts)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("  min_client_versions: {claude: 1.0.0}\n", "claude"),
        ("  min_client_versions: {cursor: latest}\n", "latest"),
        ("  min_client_versions: {cursor: 1.7}\n", "string"),
        ("  min_client_versions: {cursor: '1.7'}\n", "1.7"),
        ("  tags: [memory, memory]\n", "plugin.tags"),
        ("  tags: [' padded']\n", "plugin.tags"),
        ("  tags: ['']\n", "plugin.tags"),
        ("  tags: ['" + "t" * 5000 + "']\n", "plugin.tags"),
        ("  tags: memory\n", "plugin.tags"),
    ],
)
def test_bad_values_are_refused_with_their_place(tmp_path: Path, extra: str, expected: str) -> None:
    with pytest.raises(HubError) as caught:
        load(hub_with(tmp_path, extra))
    found = [str(p) for p in caught.value.problems]
    assert found and any(expected in p for p in found), found
    assert all("hub.yaml:6:" in p for p in found), found
    assert all("t" * 200 not in p for p in found), found


def test_import_reads_them_back_and_the_hub_rebuilds_the_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, into = tmp_path / "out", tmp_path / "imported"
    assert main(["build", str(hub_with(tmp_path, FIELDS)), "--out", str(out)]) == 0
    main(["import", "--from-repo", str(out), "--into", str(into), "--yes"])
    capsys.readouterr()
    imported = into / "plugins" / "tag-probe"  # a marketplace hub naming the plugin's hub
    plugin = yaml.safe_load((imported / "hub.yaml").read_text())["plugin"]
    assert plugin["tags"] == ["memory", "team recall"]
    assert plugin["min_client_versions"] == {"cursor": "1.7.0"}
    again = tmp_path / "again"
    assert main(["build", str(imported), "--out", str(again)]) == 0
    path = "plugins/tag-probe/.cursor-plugin/plugin.json"
    assert (again / path).read_text() == (out / path).read_text()
