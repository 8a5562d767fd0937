"""`import --from-repo` of a published Gemini CLI extension, kept in place
(`plugin.gemini_folder: shared`): a repository that is one extension (gemini-extension.json
at the root, commands/*.toml, GEMINI.md, hooks/hooks.json, skills, inline MCP servers), and
an extension beside another host's manifest in one plugin folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.cli.main import main
from memhub.compiler.errors import BuildError
from memhub.compiler.importing.repo import MIXED_COMMANDS
from memhub.compiler.importing.repo_market import RepoImport, import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec.errors import HubError
from memhub.hubspec.files import reserved
from memhub.hubspec.loader import load as load_hub

# A standalone extension as published: no `description`, `settings` and `excludeTools` of
# Gemini's own, servers inline with ${extensionPath}, keys in the author's order.
EXTENSION = {
    "name": "sec-ext",
    "version": "0.4.0",
    "contextFileName": "GEMINI.md",
    "settings": [{"name": "API Key", "description": "The key.", "envVar": "SEC_KEY"}],
    "excludeTools": ["run_shell_command(rm -rf *)"],
    "mcpServers": {
        "scanner": {"command": "node", "args": ["${extensionPath}/server/index.js"]},
        "docs": {"httpUrl": "https://docs.example.com/mcp"},
    },
}
GEMINI_HOOKS = {
    "hooks": {
        "BeforeAgent": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "node ${extensionPath}/hooks/before.js",
                        "name": "inject",
                        "description": "Inject context",
                        "timeout": 10000,
                    }
                ]
            }
        ]
    }
}
STANDALONE = {
    "gemini-extension.json": json.dumps(EXTENSION, indent=2) + "\n",
    "GEMINI.md": "# Security\n\nUse the scanner.\n",
    "README.md": "# sec-ext\n",
    "commands/scan.toml": 'description = "Scan"\nprompt = "Scan {{args}}"\n',
    "commands/security/analyze.toml": 'description = "Analyze"\nprompt = """\nLook.\n"""\n',
    "hooks/hooks.json": json.dumps(GEMINI_HOOKS, indent=2) + "\n",
    "hooks/before.js": "console.log('{}')\n",
    "server/index.js": "#!/usr/bin/env node\n",
    "skills/triage/SKILL.md": "---\nname: triage\ndescription: Triage findings.\n---\nSort.\n",
    ".github/workflows/release.yml": "on: push\n",
}
CLAUDE_MANIFEST = {"name": "kit", "version": "1.0.0", "description": "A kit."}
CLAUDE_HOOKS = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}
# A plugin folder of another host holding its own extension: Claude's manifest, hooks file
# (which Gemini CLI loads too) and agents beside gemini-extension.json and GEMINI.md.
BESIDE = {
    ".claude-plugin/marketplace.json": json.dumps(
        {
            "name": "kits",
            "owner": {"name": "Me"},
            "plugins": [{"name": "kit", "source": "./plugins/kit", "description": "A kit."}],
        },
        indent=2,
    )
    + "\n",
    "plugins/kit/.claude-plugin/plugin.json": json.dumps(CLAUDE_MANIFEST, indent=2) + "\n",
    "plugins/kit/gemini-extension.json": json.dumps(
        {
            "name": "kit",
            "description": "A kit.",
            "version": "1.0.0",
            "contextFileName": "GEMINI.md",
        },
        indent=2,
    )
    + "\n",
    "plugins/kit/GEMINI.md": "Be kind.\n",
    "plugins/kit/README.md": "# kit\n",
    "plugins/kit/hooks/hooks.json": json.dumps(CLAUDE_HOOKS, indent=2) + "\n",
    "plugins/kit/agents/helper.md": "---\nname: helper\ndescription: Helps.\nmodel: opus\n---\nHi.\n",
    "plugins/kit/skills/tidy/SKILL.md": "---\nname: tidy\ndescription: Tidy up.\n---\nTidy.\n",
}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel.startswith("server/"):
            path.chmod(0o755)
    return root


def imported(root: Path) -> tuple[RepoImport, dict[str, str], tuple[int, int]]:
    tree = read_tree(root)
    result = import_repo(tree)
    trip = round_trip(tree, result)
    listed = {item.path: item.reason for item in trip.unreproduced}
    return result, listed, (trip.files_same, trip.files_total)


def plugin_yaml(result: RepoImport) -> dict[str, object]:
    ((_, into),) = result.plugins
    data = yaml.safe_load(result.files[f"{into}/hub.yaml"][0])
    assert isinstance(data, dict)
    return data


def test_a_standalone_extension_is_one_plugin_hub_given_back_whole(tmp_path: Path) -> None:
    """Refused before ("no plugin found"): now every file comes back, the extension at the
    root, its TOML commands shipped as they are."""
    result, listed, files = imported(write(tmp_path / "repo", STANDALONE))
    assert listed == {}
    assert files == (len(STANDALONE), len(STANDALONE))
    hub = plugin_yaml(result)
    plugin = hub["plugin"]
    assert isinstance(plugin, dict)
    assert (plugin["path"], plugin["gemini_folder"]) == (".", "shared")
    assert hub["hosts"] == ["gemini"]
    assert hub["instructions"] == "instructions/GEMINI.md"
    assert "commands" not in hub  # TOML commands ship as they are, file by file
    assert {"from": "commands/scan.toml"} in hub["files"]  # type: ignore[operator]
    assert hub["hooks"][0]["event"] == {"gemini": "BeforeAgent"}  # type: ignore[index]


def test_the_written_hub_builds_the_extension_back_at_the_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, into, out = write(tmp_path / "repo", STANDALONE), tmp_path / "hub", tmp_path / "out"
    assert main(["import", "--from-repo", str(repo), "--into", str(into), "--yes"]) == 0
    assert main(["build", str(into), "--out", str(out)]) == 0
    capsys.readouterr()
    for rel in STANDALONE:
        assert (out / rel).read_bytes() == (repo / rel).read_bytes(), rel
    assert os.stat(out / "server/index.js").st_mode & 0o111
    assert not (out / "gemini").exists()


def test_an_extension_beside_a_claude_manifest_comes_back_in_place(tmp_path: Path) -> None:
    """Before: "memhub writes the Gemini extension in gemini/<name>/" and GEMINI.md lost.
    Claude's hooks/hooks.json, which Gemini loads too, comes back once from Claude's hooks."""
    result, listed, files = imported(write(tmp_path / "repo", BESIDE))
    assert listed == {}
    assert files == (len(BESIDE), len(BESIDE))
    hub = plugin_yaml(result)
    assert hub["plugin"]["gemini_folder"] == "shared"  # type: ignore[index]
    assert set(hub["hosts"]) == {"claude", "gemini"}  # type: ignore[arg-type]
    assert [h["hosts"] for h in hub["hooks"]] == [["claude"]]  # type: ignore[union-attr]


def test_toml_beside_markdown_commands_is_listed_and_the_markdown_ones_skip_gemini(
    tmp_path: Path,
) -> None:
    files = {
        **BESIDE,
        "plugins/kit/commands/go.md": "---\ndescription: Go.\n---\nGo.\n",
        "plugins/kit/commands/ns/run.toml": 'prompt = "Run"\n',
    }
    result, listed, _ = imported(write(tmp_path / "repo", files))
    assert listed == {"plugins/kit/commands/ns/run.toml": MIXED_COMMANDS}
    # Gemini loads only TOML commands: the Markdown ones stay the other hosts' (no new file)
    assert plugin_yaml(result)["commands"] == {"from": "commands", "hosts": ["claude"]}


# --- the build: plugin.gemini_folder ----------------------------------------------------------

HUB = """\
version: 1
plugin: {name: kit, version: 1.0.0, description: A kit., path: tools/kit%s}
marketplace: {name: kits, owner: {name: Me}}
hosts: [claude, gemini]
agents: agents
instructions: GEMINI.md
"""
AGENT = "---\nname: helper\ndescription: Helps.\nmodel: opus\n---\nHi.\n"


def hub_folder(tmp_path: Path, shared: bool, extra: str = "") -> Path:
    root = tmp_path / ("shared" if shared else "apart")
    (root / "agents").mkdir(parents=True)
    (root / "agents/helper.md").write_text(AGENT)
    (root / "GEMINI.md").write_text("Be kind.\n")
    (root / "hub.yaml").write_text(HUB % (", gemini_folder: shared" if shared else "") + extra)
    return root


def test_shared_writes_the_extension_into_the_plugin_folder(tmp_path: Path) -> None:
    built = build(load_hub(hub_folder(tmp_path, shared=True)))
    paths = {a.path for a in built.artifacts}
    assert {"tools/kit/gemini-extension.json", "tools/kit/GEMINI.md"} <= paths
    assert not any(p.startswith("gemini/") for p in paths)
    # Gemini reads the agent file the Claude copy holds: one file, the hub's bytes
    assert built.artifact("tools/kit/agents/helper.md").content == AGENT.encode()  # type: ignore[union-attr]
    row = next(r for r in built.coverage if r.host == "gemini" and r.component == "agent")
    assert row.status == "caveat" and "model" in row.reason


def test_apart_stays_the_default(tmp_path: Path) -> None:
    built = build(load_hub(hub_folder(tmp_path, shared=False)))
    paths = {a.path for a in built.artifacts}
    assert "gemini/kit/gemini-extension.json" in paths
    assert "tools/kit/gemini-extension.json" not in paths


def test_shared_gemini_hooks_on_claudes_hooks_file_are_refused(tmp_path: Path) -> None:
    hooks = (
        "hook_files: {claude: hooks/hooks.json}\n"
        "hooks:\n- {id: a, event: {claude: Stop}, command: echo a, hosts: [claude]}\n"
        "- {id: b, event: {gemini: AfterAgent}, command: echo b, hosts: [gemini]}\n"
    )
    with pytest.raises(BuildError, match="gemini_folder: shared"):
        build(load_hub(hub_folder(tmp_path, shared=True, extra=hooks)))


def test_a_shipped_toml_command_where_the_hubs_command_lands_is_refused(tmp_path: Path) -> None:
    extra = "commands: cmds\nfiles: [{from: ship, to: commands}]\n"
    root = hub_folder(tmp_path, shared=True, extra=extra)
    (root / "cmds").mkdir()
    (root / "cmds/go.md").write_text("---\ndescription: Go.\n---\nGo.\n")
    (root / "ship").mkdir()
    (root / "ship/go.toml").write_text('prompt = "x"\n')
    with pytest.raises((BuildError, HubError), match=r"commands/go\.toml"):
        build(load_hub(root))


def test_gemini_toml_commands_may_ship_into_commands() -> None:
    assert reserved("commands/security/analyze.toml") is None
