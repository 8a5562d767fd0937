"""What each host adapter makes of hub features: events, matchers, references, overrides."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from memhub.compiler.artifact import Artifact
from memhub.compiler.build import _merge, build
from memhub.compiler.errors import BuildError
from memhub.compiler.hosts import claude, codex
from memhub.hubspec import HubError, load

from tests.hubs import HUBS, built


def doc(path_suffix: str, hub: str = "full") -> Any:
    (artifact,) = [a for a in built(hub).artifacts if a.path.endswith(path_suffix)]
    return json.loads(artifact.content)


def test_claude_translates_references_and_oauth() -> None:
    servers = doc("/.mcp.json")["mcpServers"]
    assert servers["local-tool"] == {
        "type": "stdio",
        "command": "${CLAUDE_PLUGIN_ROOT}/bin/tool",
        "args": ["--data", "${CLAUDE_PLUGIN_DATA}/cache", "--verbose"],
        "env": {"TOOL_TOKEN": "${TOOL_TOKEN}", "LOG_LEVEL": "info"},
    }
    remote = servers["remote-api"]
    assert remote["headers"]["Authorization"] == "Bearer ${EXAMPLE_API_TOKEN}"
    assert remote["oauth"] == {
        "clientId": "public-client-123",
        "callbackPort": 8765,
        "scopes": "read write",
    }
    assert remote["timeout"] == 30000, "overrides.claude.mcp_servers is merged last"
    assert servers["legacy-sse"]["type"] == "sse"


def test_codex_passes_secrets_as_variable_names_only() -> None:
    servers = doc("/.codex-plugin/plugin.json")["mcpServers"]
    # Codex 0.171 gives a plugin server no ${PLUGIN_DATA} (tests/e2e/test_mcp_matrix.py).
    assert "local-tool" not in servers
    rows = {(r.component, r.id): r for r in built("full").coverage if r.host == "codex"}
    assert rows[("mcp", "local-tool")].status == "unsupported"
    assert servers["remote-api"]["bearer_token_env_var"] == "EXAMPLE_API_TOKEN"
    assert servers["remote-api"]["http_headers"] == {"X-Client": "memhub-probe"}
    assert servers["legacy-sse"]["env_http_headers"] == {"X-Api-Key": "SSE_KEY"}
    assert servers["npx-server"]["startup_timeout_sec"] == 20
    assert "${" not in json.dumps(servers["remote-api"])


def test_cursor_uses_its_own_reference_syntax_and_drops_plugin_data() -> None:
    servers = doc("/.cursor-plugin/plugin.json")["mcpServers"]
    assert "local-tool" not in servers, "Cursor has no ${plugin_data}: left out, with a warning"
    assert servers["remote-api"]["headers"]["Authorization"] == "Bearer ${env:EXAMPLE_API_TOKEN}"
    assert servers["remote-api"]["auth"] == {
        "CLIENT_ID": "public-client-123",
        "scopes": ["read", "write"],
    }
    rows = {(r.component, r.id): r for r in built("full").coverage if r.host == "cursor"}
    assert rows[("mcp", "local-tool")].status == "unsupported"


def test_agent_plugins_keeps_only_literal_servers() -> None:
    document = doc("agent-plugins/full-probe/mcp.json")
    assert document["$schema"] == "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
    assert list(document["mcpServers"]) == ["npx-server"]


def test_hook_events_and_matchers_per_host() -> None:
    claude_hooks = doc("hooks/claude-hooks.json")["hooks"]
    assert list(claude_hooks) == [
        "SessionStart",
        "SessionEnd",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "PreCompact",
    ]
    assert claude_hooks["PreToolUse"][0]["matcher"] == "Bash"
    assert claude_hooks["PreToolUse"][0]["hooks"][0] == {
        "type": "command",
        "command": '"${CLAUDE_PLUGIN_ROOT}/bin/guard" --token "${GUARD_TOKEN}"',
        "timeout": 8,
        "statusMessage": "Checking the command",
    }
    assert claude_hooks["PostToolUse"][0]["matcher"] == "Edit|MultiEdit|Write|NotebookEdit|Read"
    assert "matcher" not in claude_hooks["PostToolUse"][1]
    assert claude_hooks["PostToolUseFailure"][0]["matcher"] == "^(?:mcp__.*|WebFetch|WebSearch)$"
    codex_hooks = doc("hooks/codex-hooks.json")["hooks"]
    assert codex_hooks["PreToolUse"][0]["matcher"] == "^(?:Bash|shell|local_shell)$"
    assert codex_hooks["PreToolUse"][0]["hooks"][0]["command"].startswith(
        '"${PLUGIN_ROOT}/bin/guard"'
    )
    assert [g.get("matcher") for g in codex_hooks["PostToolUse"]] == [
        "^(?:apply_patch|Edit|Write)$",
        None,
        "^(?:mcp__.*)$",
    ]
    cursor_hooks = doc("hooks/cursor-hooks.json")
    assert cursor_hooks["version"] == 1
    assert "sessionStart" not in cursor_hooks["hooks"], (
        "start uses ${plugin_data}, absent on Cursor"
    )
    assert cursor_hooks["hooks"]["preToolUse"] == [
        {
            "command": '"${CURSOR_PLUGIN_ROOT}/bin/guard" --token "${GUARD_TOKEN}"',
            "matcher": "^(?:Shell)$",
            "timeout": 8,
        }
    ]


def test_manifests_point_at_their_own_hooks_file() -> None:
    assert doc("/.claude-plugin/plugin.json")["hooks"] == "./hooks/claude-hooks.json"
    assert doc("/.codex-plugin/plugin.json")["hooks"] == "./hooks/codex-hooks.json"
    assert doc("/.cursor-plugin/plugin.json")["hooks"] == "./hooks/cursor-hooks.json"
    # hooks/hooks.json is the one name Gemini reads, in its own extension folder only.
    hooks_json = [a.path for a in built("full").artifacts if a.path.endswith("hooks/hooks.json")]
    assert hooks_json == ["gemini/full-probe/hooks/hooks.json"]


def test_gemini_extension_translates_references_and_drops_plugin_data() -> None:
    manifest = doc("gemini/full-probe/gemini-extension.json")
    assert (manifest["name"], manifest["version"]) == ("full-probe", "1.2.3")
    assert manifest["contextFileName"] == "GEMINI.md"
    assert built("full").artifact("gemini/full-probe/GEMINI.md") is not None
    servers = manifest["mcpServers"]
    assert "local-tool" not in servers, "Gemini has no ${plugin_data}: left out, with a warning"
    assert servers["remote-api"]["httpUrl"] == "https://api.example.com/mcp"
    assert servers["remote-api"]["headers"]["Authorization"] == "Bearer ${EXAMPLE_API_TOKEN}"
    # Gemini 0.61 connects a bare `url` as streamable HTTP; SSE needs `type: sse`.
    assert servers["legacy-sse"] == {
        "url": "https://sse.example.com/events",
        "type": "sse",
        "headers": {"X-Api-Key": "${SSE_KEY}"},
    }
    hooks = doc("gemini/full-probe/hooks/hooks.json")["hooks"]
    assert [g.get("matcher") for g in hooks["BeforeTool"]] == ["^(?:run_shell_command)$"]
    assert hooks["BeforeTool"][0]["hooks"] == [
        {
            "type": "command",
            "name": "shell-guard",
            "command": '"${extensionPath}/bin/guard" --token "${GUARD_TOKEN}"',
            "timeout": 8000,
            "description": "Checking the command",
        }
    ]
    assert "SessionStart" not in hooks, "the start hook writes to ${plugin_data}"


def test_gemini_extension_servers_start_from_the_extension_folder(tmp_path: Path) -> None:
    root = tmp_path / "hub"
    shutil.copytree(HUBS["minimal"], root)
    data = yaml.safe_load((root / "hub.yaml").read_text())
    data["mcp"]["servers"]["local"] = {
        "command": "${plugin_root}/bin/server",
        "args": ["--flag", "${env:FLAG}"],
        "env": {"API_TOKEN": "${env:API_TOKEN}"},
        "cwd": "./work",
    }
    (root / "hub.yaml").write_text(yaml.safe_dump(data))
    result = build(load(root), ["gemini"])
    manifest = json.loads(result.artifact("gemini/hello-hub/gemini-extension.json").content)
    assert manifest["mcpServers"]["local"] == {
        "command": "${extensionPath}/bin/server",
        "args": ["--flag", "${FLAG}"],
        "env": {"API_TOKEN": "${API_TOKEN}"},
        "cwd": "${extensionPath}/work",
    }
    assert "settings" not in manifest, "Gemini expands ${VAR} from its environment"
    assert result.warnings == ()


def test_overrides_are_merged_last() -> None:
    assert doc("/.claude-plugin/plugin.json")["homepage"] == "https://example.com/claude"
    assert doc("/.codex-plugin/plugin.json")["homepage"] == "https://example.com/full-probe"


def test_claude_matcher_is_an_exact_list_when_it_can_be() -> None:
    assert claude.matcher(["Bash", "Edit"]) == "Bash|Edit"
    assert claude.matcher(["Bash", "mcp__.*"]) == "^(?:Bash|mcp__.*)$"
    assert codex.matcher(["Bash"]) == "^(?:Bash)$"


def _hub_with(tmp_path: Path, hooks: str) -> Path:
    root = tmp_path / "hub"
    shutil.copytree(HUBS["minimal"], root)
    with (root / "hub.yaml").open("a") as handle:
        handle.write(hooks)
    return root


def test_required_hook_a_host_cannot_carry_fails_that_build(tmp_path: Path) -> None:
    root = _hub_with(
        tmp_path, "hooks:\n  - {id: must, event: turn_end, command: x, required: true}\n"
    )
    hub = load(root)
    with pytest.raises(HubError) as caught:
        build(hub)
    (problem,) = caught.value.problems
    assert str(problem).startswith(f"{root / 'hub.yaml'}:")
    assert problem.key_path == "hooks[0].required"
    assert (
        "agent-plugins cannot carry required hook 'must': Agent Plugins 1.0 defines no hooks"
        in str(problem)
    )
    assert build(hub, ["claude", "codex"]).warnings == ()


def test_tool_hook_with_no_hookable_tool_is_unsupported_on_codex(tmp_path: Path) -> None:
    root = _hub_with(
        tmp_path, "hooks:\n  - {id: reads, event: before_tool, tools: [read], command: x}\n"
    )
    rows = {r.host: r for r in build(load(root)).coverage if r.component == "hook"}
    assert rows["codex"].status == "unsupported"
    assert "no hookable tool for: read" in rows["codex"].reason
    assert rows["claude"].status == "mapped" and rows["claude"].target == "PreToolUse [Read]"


def test_handler_hooks_launch_the_vendored_runtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memhub.runtime import handlers

    monkeypatch.setitem(handlers.HANDLERS, "probe.echo", "test handler")
    root = _hub_with(tmp_path, "hooks:\n  - {id: h, event: turn_end, handler: probe.echo}\n")
    result = build(load(root), ["claude"])
    hooks = json.loads(result.artifact("plugins/hello-hub/hooks/claude-hooks.json").content)
    assert hooks["hooks"]["Stop"][0]["hooks"][0]["command"] == (
        'python3 -S "${CLAUDE_PLUGIN_ROOT}/memhub_runtime/hook.py" claude Stop probe.echo'
    )
    vendored = {a.path for a in result.artifacts if "/memhub_runtime/" in a.path}
    assert "plugins/hello-hub/memhub_runtime/handlers.py" in vendored
    result = build(load(root), ["gemini"])
    hooks = json.loads(result.artifact("gemini/hello-hub/hooks/hooks.json").content)
    assert hooks["hooks"]["AfterAgent"][0]["hooks"][0]["command"] == (
        'python3 -S "${extensionPath}/memhub_runtime/hook.py" gemini AfterAgent probe.echo'
    )
    assert result.artifact("gemini/hello-hub/memhub_runtime/handlers.py") is not None


def test_shared_paths_must_agree_byte_for_byte() -> None:
    same = [
        Artifact("a.json", b"1", owners=("claude",)),
        Artifact("a.json", b"1", owners=("codex",)),
    ]
    (merged,) = _merge(same)
    assert merged.owners == ("claude", "codex")
    with pytest.raises(BuildError, match="generate different contents"):
        _merge([Artifact("a.json", b"1", owners=("x",)), Artifact("a.json", b"2", owners=("y",))])


def test_artifact_paths_must_be_relative() -> None:
    for bad in ("/abs", "../up", "a/../../b", ""):
        with pytest.raises(ValueError):
            Artifact(bad, b"")


def test_no_secret_value_reaches_any_generated_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canary = "canary-7f3a9c1e-secret-value"
    root = tmp_path / "hub"
    shutil.copytree(HUBS["full"], root)
    (root / ".env").write_text(f"EXAMPLE_API_TOKEN={canary}\nTOOL_TOKEN={canary}\n")
    for name in ("EXAMPLE_API_TOKEN", "TOOL_TOKEN", "GUARD_TOKEN", "SSE_KEY"):
        monkeypatch.setenv(name, canary)
    result = build(load(root))
    assert not [a.path for a in result.artifacts if canary.encode() in a.content]


def test_icon_is_shipped_once_and_referenced_by_each_native_manifest() -> None:
    result = built("memhub")
    icon = result.artifact("plugins/memhub/assets/icon.png")
    assert icon is not None and icon.content.startswith(b"\x89PNG")
    assert doc("/.claude-plugin/plugin.json", "memhub")["icon"] == "./assets/icon.png"
    assert doc("/.cursor-plugin/plugin.json", "memhub")["logo"] == "./assets/icon.png"
    assert doc("/.codex-plugin/plugin.json", "memhub")["interface"]["logo"] == "./assets/icon.png"
    assert result.artifact("agent-plugins/memhub/assets/icon.png") is None


@pytest.mark.parametrize("flat", ["true", "false"])
def test_claude_mcp_file_is_flat_when_the_hub_says_so(tmp_path: Path, flat: str) -> None:
    """`mcp.flat: true` writes .mcp.json as `{name: server}` (Claude Code reads both shapes)."""
    root = tmp_path / "hub"
    shutil.copytree(HUBS["minimal"], root)
    text = (root / "hub.yaml").read_text()
    (root / "hub.yaml").write_text(text.replace("mcp:\n", f"mcp:\n  flat: {flat}\n", 1))
    (mcp,) = [a for a in build(load(root)).artifacts if a.path.endswith("/.mcp.json")]
    document = json.loads(mcp.content)
    servers = document if flat == "true" else document["mcpServers"]
    assert list(document) == (["filesystem"] if flat == "true" else ["mcpServers"])
    assert servers["filesystem"]["command"] == "npx"


@pytest.mark.parametrize("value", ["yes-please", "[claude]", "{claude: true}"])
def test_mcp_flat_is_a_boolean(tmp_path: Path, value: str) -> None:
    root = tmp_path / "hub"
    shutil.copytree(HUBS["minimal"], root)
    text = (root / "hub.yaml").read_text()
    (root / "hub.yaml").write_text(text.replace("mcp:\n", f"mcp:\n  flat: {value}\n", 1))
    with pytest.raises(HubError) as caught:
        load(root)
    assert "hub.yaml:14:" in str(caught.value) and "flat" in str(caught.value)


def test_claude_mcp_file_takes_the_hubs_key_order(tmp_path: Path) -> None:
    """`overrides.claude.key_order.mcp` orders .mcp.json (a published one lists args first)."""
    root = tmp_path / "hub"
    shutil.copytree(HUBS["minimal"], root)
    data = yaml.safe_load((root / "hub.yaml").read_text())
    order = [{"mcpServers": [{"filesystem": ["args", "command"]}]}]
    data.setdefault("overrides", {})["claude"] = {"key_order": {"mcp": order}}
    (root / "hub.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (mcp,) = [a for a in build(load(root)).artifacts if a.path.endswith("/.mcp.json")]
    assert list(json.loads(mcp.content)["mcpServers"]["filesystem"]) == ["args", "command", "type"]
