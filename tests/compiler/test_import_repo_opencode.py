"""`import --from-repo` of the OpenCode config folder memhub writes (`opencode/<name>/`), and
of the instructions files hosts keep apart (OpenCode's AGENTS.md, Gemini's GEMINI.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from memhub.compiler.importing.repo_market import RepoImport, import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip

from tests.hubs import REPO

REPOS = REPO / "tests" / "data" / "repos"


def imported(root: Path) -> tuple[RepoImport, dict[str, str]]:
    tree = read_tree(root)
    result = import_repo(tree)
    trip = round_trip(tree, result)
    return result, {item.path: item.reason for item in trip.unreproduced}


def plugin_hub(result: RepoImport) -> dict[str, object]:
    ((_, into),) = result.plugins
    data = yaml.safe_load(result.files[f"{into}/hub.yaml"][0])
    assert isinstance(data, dict)
    return data


def test_the_opencode_folder_gives_servers_instructions_and_its_own_keys() -> None:
    result, listed = imported(REPOS / "opencode-folder")
    assert listed == {}
    hub = plugin_hub(result)
    assert hub["hosts"] == ["claude", "opencode"]
    assert hub["instructions"] == "instructions/AGENTS.md"
    ((_, into),) = result.plugins
    agents = REPOS / "opencode-folder/opencode/oc-notes/AGENTS.md"
    assert result.files[f"{into}/instructions/AGENTS.md"][0] == agents.read_bytes()
    servers = hub["mcp"]["servers"]  # type: ignore[index]
    assert servers["notes"]["extra"] == {"opencode": {"timeout": 20000}}  # OpenCode's own key
    assert servers["docs"]["headers"] == {"Authorization": "Bearer ${env:DOCS_KEY}"}
    assert hub["overrides"] == {"opencode": {"manifest": {"autoupdate": False}}}


def test_every_host_built_by_memhub_comes_back_whole_with_one_instructions_file() -> None:
    """GEMINI.md, AGENTS.md and the Cursor rule memhub writes from one `instructions`: the
    hub holds the instructions once and no rule of its own."""
    result, listed = imported(REPOS / "every-host")
    assert listed == {}
    hub = plugin_hub(result)
    assert hub["instructions"] == "instructions/GEMINI.md"
    assert "rules" not in hub
    assert set(hub["hosts"]) == {  # type: ignore[arg-type]
        "claude",
        "codex",
        "cursor",
        "gemini",
        "opencode",
        "copilot",
        "agent-plugins",
    }


def test_a_cursor_rule_of_the_plugins_name_with_other_words_keeps_its_place(
    tmp_path: Path,
) -> None:
    """A hand-written rules/<plugin>.mdc is the plugin's own rule: the instructions are not
    taken (the hub cannot hold both names), so the hub still builds and GEMINI.md is listed."""
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "every-host", repo)
    rule = repo / "plugins/hello-hub/rules/hello-hub.mdc"
    rule.write_text("---\ndescription: Our own rule\nalwaysApply: true\n---\nBe brief.\n")
    result, listed = imported(repo)
    hub = plugin_hub(result)
    assert "instructions" not in hub and hub["rules"] == "rules"
    assert "plugins/hello-hub/rules/hello-hub.mdc" not in listed
    assert "hub.yaml" not in listed  # the imported hub builds
    assert set(listed) >= {"gemini/hello-hub/GEMINI.md", "opencode/hello-hub/AGENTS.md"}


def test_an_opencode_json_memhub_cannot_read_is_kept_as_an_override(tmp_path: Path) -> None:
    """Servers the hub has no shape for come back through `overrides.opencode.manifest`
    (the file is still reproduced), and an opencode.json that is no object is listed."""
    repo = tmp_path / "repo"
    shutil.copytree(REPOS / "opencode-folder", repo)
    config = repo / "opencode/oc-notes/opencode.json"
    for mcp, kept in (
        ([1, 2], [1, 2]),
        ({"odd": {"type": "websocket", "url": "wss://x"}}, {"type": "websocket", "url": "wss://x"}),
        ({"bare": "npx thing"}, "npx thing"),
    ):
        config.write_text(json.dumps({"$schema": "https://opencode.ai/config.json", "mcp": mcp}))
        result, listed = imported(repo)
        assert listed == {}
        manifest = plugin_hub(result)["overrides"]["opencode"]["manifest"]  # type: ignore[index]
        assert (
            manifest["mcp"] if isinstance(mcp, list) else manifest["mcp"][next(iter(mcp))]
        ) == kept
    config.write_text("[]")
    _, listed = imported(repo)
    assert listed["opencode/oc-notes/opencode.json"] == "is not a JSON object"
