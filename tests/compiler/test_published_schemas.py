"""Every generated JSON file validates against the host's published schema, where one exists.

Where reference/hosts.md records that a published schema is wrong (it lags the host), the
test says so and strips or relaxes exactly that part; the real host CLIs (tests/e2e) are
the authority there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.hubs import HUBS, built

FORMATS = jsonschema.FormatChecker()


def _schema(material: Path, rel: str) -> dict[str, Any]:
    return json.loads((material / rel).read_text("utf-8"))


def _validate(document: Any, schema: dict[str, Any]) -> list[str]:
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=FORMATS)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(document)
    ]


def _documents(hub: str, suffix: str) -> list[tuple[str, Any]]:
    return [
        (a.path, json.loads(a.content)) for a in built(hub).artifacts if a.path.endswith(suffix)
    ]


def _one(hub: str, suffix: str) -> Any:
    docs = _documents(hub, suffix)
    assert len(docs) == 1, f"{hub}: expected one {suffix}, got {[p for p, _ in docs]}"
    return docs[0][1]


@pytest.fixture(params=list(HUBS))
def hub(request: pytest.FixtureRequest) -> str:
    return request.param


def test_claude_plugin_manifest(hub: str, material: Path) -> None:
    schema = _schema(material, "claude-code/schemastore/claude-code-plugin-manifest.json")
    assert _validate(_one(hub, ".claude-plugin/plugin.json"), schema) == []


def test_claude_marketplace(hub: str, material: Path) -> None:
    schema = _schema(material, "claude-code/schemastore/claude-code-marketplace.json")
    assert _validate(_one(hub, ".claude-plugin/marketplace.json"), schema) == []


def test_claude_hooks_file_is_valid_settings_hooks(material: Path) -> None:
    # No published schema for hooks.json (hosts.md 1.7); the settings schema's `hooks` key
    # describes the same shape, so the hooks file must validate as a settings document.
    schema = _schema(material, "claude-code/schemastore/claude-code-settings.json")
    hooks = _one("full", "hooks/claude-hooks.json")
    assert set(hooks) == {"hooks"}
    assert _validate(hooks, schema) == []


def test_codex_plugin_manifest(hub: str, material: Path) -> None:
    schema = _schema(material, "codex/schemastore/codex-plugin-manifest.json")
    manifest = dict(_one(hub, ".codex-plugin/plugin.json"))
    # hosts.md 2.6 / 8.4: the SchemaStore manifest schema has no `hooks` key although the
    # runtime (manifest.rs) reads it; validate the rest and let the real codex judge hooks.
    manifest.pop("hooks", None)
    assert _validate(manifest, schema) == []


def test_codex_hooks_file(material: Path) -> None:
    schema = _schema(material, "codex/schemastore/codex-hooks.json")
    assert _validate(_one("full", "hooks/codex-hooks.json"), schema) == []


def test_codex_hooks_use_only_events_the_config_schema_knows(material: Path) -> None:
    config = _schema(material, "codex/openai-codex/config.schema.json")
    known = set(config["definitions"]["HooksToml"]["properties"]) | {"SessionEnd"}
    # SessionEnd: newer than this config schema (hosts.md 8.1), accepted by codex 0.171.
    events = set(_one("full", "hooks/codex-hooks.json")["hooks"])
    assert events <= known, events - known


def test_cursor_plugin_manifest(hub: str, material: Path) -> None:
    schema = _schema(material, "cursor/cursor-plugins-official/schemas/plugin.schema.json")
    assert _validate(_one(hub, ".cursor-plugin/plugin.json"), schema) == []


def test_cursor_marketplace(hub: str, material: Path) -> None:
    schema = _schema(material, "cursor/cursor-plugins-official/schemas/marketplace.schema.json")
    assert _validate(_one(hub, ".cursor-plugin/marketplace.json"), schema) == []


def test_cursor_hooks_file(material: Path) -> None:
    # The only published Cursor hooks schema (npm cursor-hooks) predates per-handler
    # `matcher` and `timeout` (hosts.md 3.2, 8.5); check everything else against it.
    schema = _schema(material, "cursor/cursor-hooks-npm/hooks.schema.json")
    hooks = _one("full", "hooks/cursor-hooks.json")
    reduced = {
        "version": hooks["version"],
        "hooks": {e: [{"command": h["command"]} for h in hs] for e, hs in hooks["hooks"].items()},
    }
    assert _validate(reduced, schema) == []
    allowed = {"command", "matcher", "timeout", "type", "failClosed", "loop_limit"}
    assert all(set(h) <= allowed for hs in hooks["hooks"].values() for h in hs)


# the hubs whose `hosts:` include Agent Plugins (team-memory's leave it out)
AGENT_PLUGIN_HUBS = [name for name in HUBS if "agent-plugins" in built(name).hosts]


def test_the_agent_plugins_checks_cover_hubs() -> None:
    assert {"memhub", "full"} <= set(AGENT_PLUGIN_HUBS)


@pytest.mark.parametrize("hub", AGENT_PLUGIN_HUBS)
def test_agent_plugins_manifest(hub: str, material: Path) -> None:
    schema = _schema(material, "agent-plugins/agent-plugins-spec-1.0.0/plugin.schema.json")
    root_manifest = f"agent-plugins/{built(hub).hub.plugin.name}/plugin.json"
    assert _validate(_one(hub, root_manifest), schema) == []


def test_agent_plugins_mcp(hub: str, material: Path) -> None:
    schema = _schema(material, "agent-plugins/agent-plugins-spec-1.0.0/mcp.schema.json")
    for path, document in _documents(hub, "/mcp.json"):
        if path.endswith(".mcp.json"):
            continue
        assert _validate(document, schema) == [], path


def test_gemini_extension_servers_and_hooks_validate_as_settings(hub: str, material: Path) -> None:
    # No published schema for gemini-extension.json (hosts.md 4.6). Its `mcpServers` and the
    # extension's hooks/hooks.json take the settings.json shapes, so both must validate there.
    schema = _schema(material, "gemini/gemini-cli/settings.schema.json")
    manifest = _one(hub, "/gemini-extension.json")
    assert _validate({"mcpServers": manifest.get("mcpServers", {})}, schema) == []
    for path, hooks in _documents(hub, "/hooks/hooks.json"):
        assert set(hooks) == {"hooks"}, path
        assert _validate(hooks, schema) == [], path
