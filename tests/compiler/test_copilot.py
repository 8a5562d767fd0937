"""The GitHub Copilot CLI adapter: bundle, install entries, import and doctor (compiler/hosts/
copilot.py). The real CLI proves the formats in tests/e2e/test_copilot_host.py."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from memhub.compiler.build import build
from memhub.compiler.hosts import ADAPTERS, INSTALLERS, OPT_IN_HOSTS, copilot
from memhub.compiler.install.scope import Scope
from memhub.hubspec import load

from tests.hubs import HUBS, REPO

FULL = REPO / "tests" / "data" / "full"


def _files(hub_dir: Path = FULL) -> dict[str, bytes]:
    result = build(load(hub_dir), hosts=("copilot",))
    return {a.path: a.content for a in result.artifacts}


def _rows(hub_dir: Path = FULL) -> dict[tuple[str, str], tuple[str, str]]:
    result = build(load(hub_dir), hosts=("copilot",))
    return {(r.component, r.id): (r.status, r.reason) for r in result.coverage}


def test_copilot_is_an_install_host_a_hub_names_to_get() -> None:
    assert INSTALLERS["copilot"] is copilot and "copilot" in ADAPTERS
    assert "copilot" in OPT_IN_HOSTS
    for name in HUBS:
        assert "copilot" not in load(HUBS[name]).hosts  # examples build as they did


def test_bundle_has_its_own_folder_and_marketplace() -> None:
    files = _files()
    hub = load(FULL)
    base = f"copilot/{hub.plugin.name}"
    market = json.loads(files[".github/plugin/marketplace.json"])
    assert market["name"] == hub.marketplace.name
    assert market["plugins"][0]["source"] == f"./{base}"
    manifest = json.loads(files[f"{base}/.github/plugin/plugin.json"])
    assert manifest["name"] == hub.plugin.name and manifest["version"] == hub.plugin.version
    assert manifest["skills"] == "./skills/" and manifest["hooks"] == "./hooks/hooks.json"
    # nothing Copilot would read before its manifest's paths (Claude's .mcp.json, hooks.json)
    assert f"{base}/.mcp.json" not in files
    assert not any(p.startswith("plugins/") for p in files if ".github" in p)
    for skill in hub.skills:
        assert f"{base}/skills/{skill.name}/SKILL.md" in files


def test_hooks_file_is_version_1_with_bash_and_timeout_sec() -> None:
    files = _files()
    hooks = json.loads(files[f"copilot/{load(FULL).plugin.name}/hooks/hooks.json"])
    assert hooks["version"] == 1
    start = hooks["hooks"]["sessionStart"][0]
    assert start == {
        "type": "command",
        "bash": 'echo start >> "${COPILOT_PLUGIN_DATA}/log"',
        "timeoutSec": 5,
    }
    assert hooks["hooks"]["agentStop"][0]["timeoutSec"] == 30


def test_tool_hooks_take_a_matcher_and_dropped_options_are_caveats() -> None:
    files = _files()
    hooks = json.loads(files[f"copilot/{load(FULL).plugin.name}/hooks/hooks.json"])["hooks"]
    guard = hooks["preToolUse"][0]
    assert guard["matcher"] == "^(?:bash)$" and guard["timeoutSec"] == 8
    assert guard["bash"].startswith('"${PLUGIN_ROOT}/bin/guard" --token "${GUARD_TOKEN}"')
    assert hooks["postToolUse"][0]["matcher"] == "^(?:create|edit|view)$"
    rows = _rows()
    status, reason = rows[("hook", "shell-guard")]
    assert status == "caveat" and "statusMessage" in reason
    status, reason = rows[("hook", "edits")]
    assert status == "caveat" and "async" in reason
    status, reason = rows[("hook", "mcp-fail")]  # no MCP tool name pattern: web only
    assert status == "caveat" and "no hookable tool for mcp" in reason
    assert hooks["postToolUseFailure"][0]["matcher"] == "^(?:web_fetch)$"
    assert rows[("instructions", "instructions/AGENTS.md")][0] == "unsupported"


def test_handler_hooks_run_the_runtime_on_copilot() -> None:
    """Runtime handlers become dispatcher entries of `hook.py copilot <event>` in the bundle,
    with the runtime beside them, capture's among them (runtime/transcripts/copilot.py reads
    its session file); mapped or caveat rows, the caveats naming what Copilot has not."""
    hub = load(REPO / "examples" / "memhub")
    result = build(replace(hub, hosts=("copilot",)))
    rows = {r.id: r for r in result.coverage if r.component == "hook"}
    handlers = {h.id for h in hub.hooks if h.handler and h.hosts in (None, ("copilot",))}
    assert handlers
    for hook_id in handlers:
        assert rows[hook_id].status in ("mapped", "caveat"), rows[hook_id]
    files = {a.path: a.content for a in result.artifacts}
    base = f"copilot/{hub.plugin.name}"
    hooks = json.loads(files[f"{base}/hooks/hooks.json"])["hooks"]
    before = [h["bash"] for h in hooks["preToolUse"]]
    assert any('memhub_runtime/hook.py" copilot preToolUse recall.directives=' in b for b in before)
    assert any(
        'hook.py" copilot agentStop capture.turn_end' in h["bash"] for h in hooks["agentStop"]
    )
    assert f"{base}/memhub_runtime/hook.py" in files
    assert f"{base}/memhub_runtime/transcripts/copilot.py" in files
    mixed = replace(load(FULL), hooks=(*hub.hooks[:1], *load(FULL).hooks))
    ids = [
        r.id for r in build(replace(mixed, hosts=("copilot",))).coverage if r.component == "hook"
    ]
    assert ids == [h.id for h in mixed.hooks]  # rows in hub order, handlers among the rest


def test_a_context_handler_on_an_event_copilot_shows_nobody_is_unsupported() -> None:
    """rules.advise acts only through what the model reads: Copilot's agentStop output never
    reaches it (the runtime's CONTEXT_EVENTS), so the hook is an unsupported row."""
    hub = load(REPO / "examples" / "memhub")
    advise = replace(
        hub.hooks[0],
        id="advise-at-stop",
        event="turn_end",
        tools=(),
        handler="rules.advise",
        hosts=None,
    )
    result = build(replace(hub, hosts=("copilot",), hooks=(advise,)))
    (row,) = [r for r in result.coverage if r.component == "hook"]
    assert row.status == "unsupported" and "copilot's agentStop" in row.reason, row


def test_servers_take_copilot_references_and_say_what_is_dropped() -> None:
    files = _files()
    hub = load(FULL)
    manifest = json.loads(files[f"copilot/{hub.plugin.name}/.github/plugin/plugin.json"])
    rows = _rows()
    for server in hub.mcp_servers:
        status, reason = rows[("mcp", server.name)]
        if "${plugin_data}" in json.dumps([getattr(server, "args", [])]):
            assert status == "unsupported" and server.name not in manifest["mcpServers"]
        oauth = getattr(server, "oauth", None)
        if oauth:  # Copilot's own keys; no per-server scopes
            spec = manifest["mcpServers"][server.name]
            assert spec["oauthClientId"] == oauth.client_id
            assert spec["auth"] == {"redirectPort": oauth.callback_port}
            assert status == "caveat" and "scopes" in reason
    text = json.dumps(manifest["mcpServers"])
    assert "${env:" not in text  # Copilot expands ${NAME} itself


def _scope(kind: str, home: Path, project: Path | None = None, **env: str) -> Scope:
    return Scope(kind, home, project, env)  # type: ignore[arg-type]


def test_locations_user_project_and_copilot_home(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "repo"
    user = copilot.locations(_scope("user", home))
    assert user.mcp_file == home / ".copilot" / "mcp-config.json"
    assert user.hooks_file == home / ".copilot" / "hooks" / "memhub.json"
    assert user.skills == home / ".copilot" / "skills"
    assert user.instructions == home / ".copilot" / "copilot-instructions.md"
    moved = copilot.locations(_scope("user", home, COPILOT_HOME=str(tmp_path / "elsewhere")))
    assert moved.mcp_file == tmp_path / "elsewhere" / "mcp-config.json"
    here = copilot.locations(_scope("project", home, project))
    assert here.mcp_file == project / ".github" / "mcp.json"  # not Claude's .mcp.json
    assert here.hooks_file == project / ".github" / "hooks" / "memhub.json"
    assert here.skills == project / ".github" / "skills"
    assert here.instructions == project / "AGENTS.md"


def test_install_entries_write_a_version_1_hooks_file(tmp_path: Path) -> None:
    hub = load(REPO / "tests" / "data" / "install")
    entries, rows = copilot.install_entries(hub, _scope("user", tmp_path))
    hooks = [e for e in entries if e.target.endswith("memhub.json")]
    assert hooks[0].kind == "json-default" and hooks[0].value == 1
    for entry in hooks[1:]:
        assert entry.kind == "json-item" and entry.path[0] == "hooks"
        assert set(entry.value) <= {"type", "bash", "timeoutSec", "matcher"}
    servers = [e for e in entries if e.target.endswith("mcp-config.json")]
    assert {e.path[1] for e in servers} == {s.name for s in hub.mcp_servers}
    assert all(r.host == "copilot" for r in rows)


def test_read_installed_reads_copilots_own_entries(tmp_path: Path) -> None:
    folder = tmp_path / ".copilot"
    folder.mkdir()
    written_by_copilot = {  # what `copilot mcp add` writes
        "mcpServers": {
            "own": {
                "tools": ["*"],
                "type": "local",
                "command": "own-mcp",
                "args": ["--flag"],
                "env": {"TOKEN": "${OWN_TOKEN}"},
            },
            "web": {"tools": ["*"], "type": "http", "url": "https://example.com/mcp"},
        }
    }
    (folder / "mcp-config.json").write_text(json.dumps(written_by_copilot))
    installed = copilot.read_installed(_scope("user", tmp_path))
    names = {s.name for s in installed.servers}
    assert names == {"own", "web"}
    own = next(s for s in installed.servers if s.name == "own")
    assert own.spec["command"] == "own-mcp" and own.spec["env"] == {"TOKEN": "${env:OWN_TOKEN}"}


def test_project_import_reads_the_file_copilot_reads(tmp_path: Path) -> None:
    """.github/mcp.json, unless a .mcp.json is there: Copilot then reads that alone."""
    project = tmp_path / "repo"
    (project / ".github").mkdir(parents=True)
    server = {"mcpServers": {"gh": {"command": "gh-mcp"}}}
    (project / ".github" / "mcp.json").write_text(json.dumps(server))
    scope = _scope("project", tmp_path, project)
    assert [s.name for s in copilot.read_installed(scope).servers] == ["gh"]
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"root": {"command": "r"}}}))
    assert [s.name for s in copilot.read_installed(scope).servers] == ["root"]


def test_project_servers_say_a_mcp_json_shadows_them(tmp_path: Path) -> None:
    hub = load(REPO / "tests" / "data" / "install")
    _, rows = copilot.install_entries(hub, _scope("project", tmp_path, tmp_path / "repo"))
    servers = [r for r in rows if r.component == "mcp"]
    assert servers and all(copilot.SHADOWED in r.reason for r in servers)


def test_copilot_oauth_keys_read_back(tmp_path: Path) -> None:
    folder = tmp_path / ".copilot"
    folder.mkdir()
    remote = {"type": "http", "url": "https://x.example/mcp", "oauthClientId": "cid"}
    remote["auth"] = {"redirectPort": 8765}
    (folder / "mcp-config.json").write_text(json.dumps({"mcpServers": {"r": remote}}))
    (server,) = copilot.read_installed(_scope("user", tmp_path)).servers
    assert server.spec["oauth"]["client_id"] == "cid"
    assert server.spec["oauth"]["callback_port"] == 8765


def test_doctor_reads_hooks_files_and_loader_refusals() -> None:
    assert copilot.hooks_file_problems({"version": 1, "hooks": {}}) == []
    assert copilot.hooks_file_problems({"hooks": {}})
    assert copilot.loader_refusal(0, "{}", "") is None
    assert copilot.loader_refusal(1, "", "Error: mcpServers: Required\n") == (
        "Error: mcpServers: Required"
    )
    assert copilot.loader is not None and copilot.loader.env["COPILOT_OFFLINE"] == "true"


def test_a_hub_names_copilot_in_hosts(tmp_path: Path) -> None:
    """`hosts: [copilot]` loads (the loader and the JSON Schema both know the name) and
    builds only Copilot's files."""
    import shutil

    from memhub.hubspec.schema_check import hub_schema

    root = tmp_path / "hub"
    shutil.copytree(REPO / "tests" / "data" / "install", root)
    text = (root / "hub.yaml").read_text(encoding="utf-8")
    (root / "hub.yaml").write_text(text + "hosts: [copilot]\n", encoding="utf-8")
    hub = load(root)
    assert hub.hosts == ("copilot",)
    assert "copilot" in hub_schema()["$defs"]["host"]["enum"]
    owners = {owner for a in build(hub).artifacts for owner in a.owners}
    assert owners == {"copilot", "shared"}


def test_overrides_reach_copilots_files(tmp_path: Path) -> None:
    """`overrides.copilot.*`: Copilot-only keys (a server's `tools` filter, a manifest
    `tags`, a marketplace entry `strict`) are merged into its files last."""
    import shutil

    root = tmp_path / "hub"
    shutil.copytree(REPO / "tests" / "data" / "install", root)
    server = load(root).mcp_servers[0].name
    extra = (
        "hosts: [copilot]\n"
        "overrides:\n"
        "  copilot:\n"
        "    manifest: {tags: [memory]}\n"
        "    marketplace_entry: {strict: false}\n"
        f"    mcp_servers: {{{server}: {{tools: [search]}}}}\n"
    )
    text = (root / "hub.yaml").read_text(encoding="utf-8")
    (root / "hub.yaml").write_text(text + extra, encoding="utf-8")
    hub = load(root)
    files = {a.path: a.content for a in build(hub).artifacts}
    manifest = json.loads(files[f"copilot/{hub.plugin.name}/.github/plugin/plugin.json"])
    assert manifest["tags"] == ["memory"]
    assert manifest["mcpServers"][server]["tools"] == ["search"]
    entry = json.loads(files[".github/plugin/marketplace.json"])["plugins"][0]
    assert entry["strict"] is False
    entries, _ = copilot.install_entries(hub, _scope("user", tmp_path / "home"))
    spec = next(e.value for e in entries if e.path == ("mcpServers", server))
    assert spec["tools"] == ["search"]


def test_claude_and_copilot_share_no_entry_they_disagree_on(tmp_path: Path) -> None:
    """Both hosts in one project (and one home): every file key both write holds one value
    (a clash is an apply error). AGENTS.md's block is the one Codex and Cursor write too."""
    hub = load(REPO / "tests" / "data" / "install")
    for scope in (_scope("project", tmp_path, tmp_path / "repo"), _scope("user", tmp_path)):
        seen: dict[tuple[str, tuple[str, ...]], object] = {}
        for host in ("claude", "codex", "cursor", "copilot"):
            for entry in INSTALLERS[host].install_entries(hub, scope)[0]:
                if entry.kind == "json-item":
                    continue  # array items: many per key, each its own
                key = (entry.target, entry.path)
                assert seen.setdefault(key, entry.value) == entry.value, (host, key)


def test_shipped_files_agents_and_commands_go_into_copilots_folder() -> None:
    """A plugin's shipped files (those limited to other hosts left out), agents and
    commands, byte for byte, named in the manifest."""
    hub = load(REPO / "tests" / "data" / "shipped")
    result = build(replace(hub, hosts=("copilot",)))
    base = f"copilot/{hub.plugin.name}"
    files = {a.path: a for a in result.artifacts}
    for item in hub.files:
        wanted = item.hosts is None or "copilot" in item.hosts
        assert (f"{base}/{item.path}" in files) == wanted, item.path
    for prompt in (*hub.agents, *hub.commands):
        folder = "agents" if prompt in hub.agents else "commands"
        assert files[f"{base}/{folder}/{prompt.name}.md"].content == prompt.content
    manifest = json.loads(files[f"{base}/.github/plugin/plugin.json"].content)
    assert (manifest["agents"], manifest["commands"]) == ("./agents/", "./commands/")
    rows = [r for r in result.coverage if r.component != "hook"]
    statuses = {(r.component, r.status) for r in rows if "(hosts:)" not in r.reason}
    assert statuses == {("agent", "mapped"), ("command", "mapped")}
    # the file limited to claude is said to be kept away (the per-host view's row)
    assert {(r.component, r.id) for r in rows if "(hosts:)" in r.reason} == {
        ("file", "claude-notes.md")
    }


def test_a_marketplace_of_copilot_plugins_builds(tmp_path: Path) -> None:
    """Plugin hubs naming copilot in one marketplace hub: each gets its copilot/<name>
    folder, and one Copilot marketplace file lists them there (not at plugins/<name>, where
    the other hosts' copies lie), with the plugins published elsewhere in Claude's shapes."""
    import shutil

    from memhub.compiler.marketplace import build_marketplace
    from memhub.hubspec.marketplace_loader import load_any

    root = tmp_path / "market"
    shutil.copytree(REPO / "tests" / "fixtures" / "marketplace", root)
    for hub_file in (root / "alpha" / "hub.yaml", root / "beta" / "hub.yaml", root / "hub.yaml"):
        text = hub_file.read_text(encoding="utf-8")
        hub_file.write_text(text.replace("cursor", "cursor, copilot", 1), encoding="utf-8")
    market = load_any(root)
    result = build_marketplace(market)  # type: ignore[arg-type]
    paths = {a.path for a in result.artifacts}
    assert {
        "copilot/alpha/.github/plugin/plugin.json",
        "copilot/beta/.github/plugin/plugin.json",
    } <= paths
    document = json.loads(result.artifact(copilot.MARKETPLACE).content)  # type: ignore[union-attr]
    assert document["name"] == "acme-tools"
    assert document["metadata"] == {"description": "Acme's coding-agent plugins."}
    sources = {p["name"]: p["source"] for p in document["plugins"]}
    # gamma builds no Copilot copy (its hub does not name copilot): it is not listed
    assert sources == {
        "alpha": "./copilot/alpha",
        "beta": "./copilot/beta",  # its plugin.path moves only the plugins/ copy
        "delta": {"source": "github", "repo": "acme/delta", "ref": "v2"},
    }
    # epsilon's scp-style git address is no URL to Copilot (its marketplace add refuses it)
    (row,) = [r for r in result.coverage if r.host == "copilot" and r.id == "epsilon"]
    assert (row.status, row.component) == ("unsupported", "marketplace")
    assert "ssh://" in row.reason
    # the internal marketplace is Claude Code's only
    assert "internal/.github/plugin/marketplace.json" not in paths
