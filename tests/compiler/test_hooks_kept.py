"""`hooks_kept`: a host's hooks file shipped byte for byte from the hub folder (what
`import --from-repo` writes for a file the hub's hooks cannot hold), named by the manifest
where the host needs that, shared by hosts that load one file; and the loader's refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.hubspec import HubError, load

HEAD = (
    "version: 1\nplugin: {name: demo, version: 1.0.0, description: d}\n"
    "marketplace: {name: m, owner: {name: o}}\n"
)
# what the hub's hooks cannot hold: a prompt handler, `async: false`, an empty matcher
ODD = (
    b'{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "prompt", "prompt": "ok?"},'
    b' {"type": "command", "command": "x", "async": false, "timeout": 900}]}]}}'
)


def _hub(tmp_path: Path, hosts: str, body: str, files: dict[str, bytes]) -> Path:
    (tmp_path / "hub.yaml").write_text(f"{HEAD}hosts: {hosts}\n{body}")
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(content)
    return tmp_path


def _artifacts(root: Path) -> dict[str, bytes]:
    return {a.path: a.content for a in build(load(root)).artifacts}


def test_a_kept_file_ships_byte_for_byte_and_the_manifest_names_it(tmp_path: Path) -> None:
    root = _hub(
        tmp_path,
        "[claude, codex, cursor]",
        "hook_files: {claude: hooks/odd.json, cursor: hooks/hooks.json}\n"
        "hooks_kept: [claude, codex, cursor]\n",
        {"hooks/odd.json": ODD, "hooks/codex-hooks.json": ODD, "hooks/hooks.json": ODD},
    )
    built = _artifacts(root)
    base = "plugins/demo"
    for rel in ("hooks/odd.json", "hooks/codex-hooks.json", "hooks/hooks.json"):
        assert built[f"{base}/{rel}"] == ODD
    assert json.loads(built[f"{base}/.claude-plugin/plugin.json"])["hooks"] == "./hooks/odd.json"
    codex = json.loads(built[f"{base}/.codex-plugin/plugin.json"])
    assert codex["hooks"] == "./hooks/codex-hooks.json"
    cursor = json.loads(built[f"{base}/.cursor-plugin/plugin.json"])
    assert cursor["hooks"] == "./hooks/hooks.json"


def test_claude_s_own_file_is_not_named(tmp_path: Path) -> None:
    root = _hub(
        tmp_path,
        "[claude]",
        "hook_files: {claude: hooks/hooks.json}\nhooks_kept: [claude]\n",
        {"hooks/hooks.json": ODD},
    )
    built = _artifacts(root)
    assert built["plugins/demo/hooks/hooks.json"] == ODD
    assert "hooks" not in json.loads(built["plugins/demo/.claude-plugin/plugin.json"])


def test_two_hosts_that_load_one_file_share_it(tmp_path: Path) -> None:
    """Claude Code and Codex both load hooks/hooks.json: kept for both, written once."""
    root = _hub(
        tmp_path,
        "[claude, codex]",
        "hook_files: {claude: hooks/hooks.json, codex: hooks/hooks.json}\n"
        "hooks_kept: [claude, codex]\n",
        {"hooks/hooks.json": ODD},
    )
    built = build(load(root)).artifacts
    shared = [a for a in built if a.path == "plugins/demo/hooks/hooks.json"]
    assert [a.content for a in shared] == [ODD]


CODEX_HOOK = "hooks:\n  - {id: c, event: turn_end, command: echo, hosts: [codex]}\n"


@pytest.mark.parametrize(
    ("hosts", "body", "files", "message"),
    [
        (
            "[claude]",
            "hooks_kept: [claude]\nhooks:\n  - {id: a, event: turn_end, command: echo}\n",
            {"hooks/claude-hooks.json": ODD},
            "hook 'a' reaches claude, whose hooks file ships as it is",
        ),
        ("[claude]", "hooks_kept: [codex]\n", {}, "codex writes no hooks file for this hub"),
        ("[claude]", "hooks_kept: [claude]\n", {}, "cannot be read"),
        (
            "[claude, codex]",
            "hook_files: {codex: hooks/hooks.json}\nhooks_kept: [claude]\n" + CODEX_HOOK,
            {"hooks/claude-hooks.json": ODD},
            "claude loads hooks/hooks.json by itself",
        ),
    ],
    ids=["a hook reaches it", "not a host", "no file", "beside a written file"],
)
def test_the_loader_refuses(
    tmp_path: Path, hosts: str, body: str, files: dict[str, bytes], message: str
) -> None:
    root = _hub(tmp_path, hosts, body, files)
    with pytest.raises(HubError) as caught:
        load(root)
    assert message in str(caught.value)
