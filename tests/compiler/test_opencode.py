"""The OpenCode adapter: its bundle (a config folder), install, import and doctor.

Expected shapes are written here from OpenCode's config schema (its `mcp` entries: `type:
local` with `command` as one list and `environment`, `type: remote` with `url`, `headers`,
`oauth`; `{env:NAME}` references), never computed by the code under test. The real
opencode binary checks the same files in tests/e2e/test_opencode_host.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.hosts import opencode
from memhub.compiler.hosts.opencode_servers import hub_spec, server_spec
from memhub.compiler.install.scope import Scope
from memhub.hubspec import load
from memhub.hubspec.model import Hub

from tests.compiler.installkit import run

HUB_YAML = """\
version: 1
plugin: {name: oc-probe, version: 0.1.0, description: OpenCode probe}
marketplace: {name: m, owner: {name: o}}
hosts: [opencode]
mcp:
  servers:
    local:
      command: run
      args: ["--token", "${env:RUN_TOKEN}", "--project", "${project_dir}"]
      env: {LEVEL: debug, KEY: "${env:RUN_KEY}"}
    moved: {command: run, cwd: ./sub}
    in-plugin: {command: "${plugin_root}/bin/server"}
    remote:
      url: https://mcp.example.com/mcp
      headers: {Authorization: "Bearer ${env:REMOTE_TOKEN}"}
      oauth: {client_id: public-client, scopes: [read, write], callback_port: 19999}
instructions: INSTRUCTIONS.md
hooks:
  - {id: on-turn, event: turn_end, command: echo turn}
"""

LOCAL = {
    "type": "local",
    "command": ["run", "--token", "{env:RUN_TOKEN}", "--project", "."],
    "environment": {"LEVEL": "debug", "KEY": "{env:RUN_KEY}"},
}
REMOTE = {
    "type": "remote",
    "url": "https://mcp.example.com/mcp",
    "headers": {"Authorization": "Bearer {env:REMOTE_TOKEN}"},
    "oauth": {
        "clientId": "public-client",
        "scope": "read write",
        "redirectUri": "http://127.0.0.1:19999/mcp/oauth/callback",
    },
}


def make_hub(tmp_path: Path, text: str = HUB_YAML) -> Hub:
    root = tmp_path / "hub"
    root.mkdir()
    (root / "hub.yaml").write_text(text)
    (root / "INSTRUCTIONS.md").write_text("# Probe\n\nSay oc-probe-7d2e.\n")
    return load(root)


# --- bundle -----------------------------------------------------------------------------


def test_bundle_is_a_config_folder_with_opencode_json_and_agents_md(tmp_path: Path) -> None:
    result = build(make_hub(tmp_path))
    config = result.artifact("opencode/oc-probe/opencode.json")
    assert config is not None
    assert json.loads(config.content) == {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {"local": LOCAL, "moved": {"type": "local", "command": ["run"]}, "remote": REMOTE},
    }
    agents = result.artifact("opencode/oc-probe/AGENTS.md")
    assert agents is not None and agents.content == b"# Probe\n\nSay oc-probe-7d2e.\n"
    assert result.artifact("opencode/oc-probe/README.md") is not None


def test_bundle_coverage_names_what_opencode_cannot_carry(tmp_path: Path) -> None:
    rows = {(r.component, r.id): r for r in build(make_hub(tmp_path)).coverage}
    assert rows["mcp", "local"].status == "mapped"
    assert rows["mcp", "local"].target == "opencode.json mcp.local"
    assert rows["mcp", "moved"].status == "caveat"
    assert "no cwd" in rows["mcp", "moved"].reason
    assert rows["mcp", "in-plugin"].status == "unsupported"
    assert "${plugin_root}" in rows["mcp", "in-plugin"].reason
    assert rows["mcp", "remote"].status == "mapped"
    assert rows["hook", "on-turn"].status == "caveat"
    assert rows["hook", "on-turn"].target == "session.idle"
    assert rows["instructions", "INSTRUCTIONS.md"].status == "caveat"


def test_overrides_merge_into_the_config_and_each_server(tmp_path: Path) -> None:
    text = HUB_YAML + (
        "overrides:\n  opencode:\n"
        "    manifest: {autoupdate: false}\n"
        "    mcp_servers: {local: {enabled: false, timeout: 9000}}\n"
    )
    config = build(make_hub(tmp_path, text)).artifact("opencode/oc-probe/opencode.json")
    assert config is not None
    data = json.loads(config.content)
    assert data["autoupdate"] is False
    assert data["mcp"]["local"] == {**LOCAL, "enabled": False, "timeout": 9000}


def test_a_hub_without_servers_or_instructions_still_names_the_schema(tmp_path: Path) -> None:
    text = "version: 1\nplugin: {name: bare, version: 0.1.0, description: b}\n"
    text += "marketplace: {name: m, owner: {name: o}}\nhosts: [opencode]\n"
    result = build(make_hub(tmp_path, text))
    owned = [a.path for a in result.artifacts if "opencode" in a.owners]
    assert owned == ["opencode/bare/opencode.json"]


# --- install ----------------------------------------------------------------------------


def test_locations_per_scope(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    user = opencode.locations(Scope("user", home))
    assert user.mcp_file == home / ".config/opencode/opencode.json"
    assert (user.mcp_kind, user.mcp_key) == ("json-key", "mcp")
    assert user.skills == home / ".config/opencode/skills"
    assert user.instructions == home / ".config/opencode/AGENTS.md"
    moved = opencode.locations(Scope("user", home, env={"XDG_CONFIG_HOME": str(tmp_path / "x")}))
    assert moved.mcp_file == tmp_path / "x/opencode/opencode.json"
    project = opencode.locations(Scope("project", home, work))
    assert project.mcp_file == work / "opencode.json"
    assert project.skills == work / ".opencode/skills"
    assert project.instructions == work / "AGENTS.md"
    assert user.hooks_file == home / ".config/opencode/memhub-hooks"
    assert project.hooks_file == work / ".opencode/memhub-hooks"
    (work / "opencode.jsonc").parent.mkdir(parents=True)
    (work / "opencode.jsonc").write_text("{}")
    assert opencode.locations(Scope("project", home, work)).mcp_file == work / "opencode.jsonc"
    (work / "opencode.json").write_text("{}")
    assert opencode.locations(Scope("project", home, work)).mcp_file == work / "opencode.json"


def test_install_entries_and_coverage(tmp_path: Path) -> None:
    hub = make_hub(tmp_path)
    entries, rows = opencode.install_entries(hub, Scope("user", tmp_path / "home"))
    target = str(tmp_path / "home/.config/opencode/opencode.json")
    specs = {e.path[1]: e.value for e in entries if e.path[:1] == ("mcp",)}
    assert specs == {
        "local": LOCAL,
        "moved": {"type": "local", "command": ["run"]},
        "remote": REMOTE,
    }
    assert all(e.target == target for e in entries if e.path[:1] == ("mcp",))
    schema = [e for e in entries if e.kind == "json-default"]
    assert [(e.path, e.value) for e in schema] == [(("$schema",), opencode.SCHEMA_URL)]
    blocks = [e for e in entries if e.kind == "text-block"]
    assert [b.target for b in blocks] == [str(tmp_path / "home/.config/opencode/AGENTS.md")]
    by_id = {(r.component, r.id): r.status for r in rows}
    assert by_id["mcp", "in-plugin"] == "unsupported"
    assert by_id["hook", "on-turn"] == "caveat", "the install's plugin module carries it"
    assert by_id["instructions", "INSTRUCTIONS.md"] == "mapped"
    folder = tmp_path / "home/.config/opencode/memhub-hooks/oc-probe"
    (tree,) = [e for e in entries if e.kind == "tree" and e.target == str(folder)]
    assert [(rel, mode) for rel, _, mode in tree.files] == [("memhub-hooks.js", 0o644)]
    module = tree.files[0][1].decode()
    assert '"command": "echo turn"' in module and '"on": "session.idle"' in module
    items = [(e.target, e.path, e.value) for e in entries if e.kind == "json-item"]
    assert items == [(target, ("plugin",), "./memhub-hooks/oc-probe/memhub-hooks.js")]
    project, _ = opencode.install_entries(hub, Scope("project", tmp_path / "home", tmp_path / "w"))
    items = [(e.target, e.value) for e in project if e.kind == "json-item"]
    module_path = "./.opencode/memhub-hooks/oc-probe/memhub-hooks.js"
    assert items == [(str(tmp_path / "w/opencode.json"), module_path)]


def test_install_hooks_leave_out_plugin_root_and_handlers(tmp_path: Path) -> None:
    """An install has no plugin folder: a hook naming ${plugin_root} is not carried, and a
    runtime handler never is; with no hook left there is no module and no `plugin` item."""
    text = HUB_YAML[: HUB_YAML.index("hooks:")] + (
        "hooks:\n"
        "  - {id: in-root, event: turn_end, command: 'sh \"${plugin_root}/x.sh\"'}\n"
        "  - {id: runtime, event: turn_end, handler: capture.turn_end}\n"
    )
    entries, rows = opencode.install_entries(make_hub(tmp_path, text), Scope("user", tmp_path))
    by_id = {r.id: r for r in rows if r.component == "hook"}
    assert by_id["in-root"].status == "unsupported" and by_id["runtime"].status == "unsupported"
    assert not [e for e in entries if e.kind in ("tree", "json-item")]


def test_install_hooks_plugin_is_owned_and_removed_with_the_persons_plugins_kept(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = make_hub(tmp_path)
    folder = home / ".config/opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.json").write_text('{\n  "plugin": ["their-plugin"], // theirs\n}\n')
    code, _, err = run(capsys, "apply", str(hub.root), "--hosts", "opencode")
    assert code == 0, err
    module = folder / "memhub-hooks/oc-probe/memhub-hooks.js"
    assert module.is_file()
    data = opencode_data((folder / "opencode.json").read_text())
    assert data["plugin"] == ["their-plugin", "./memhub-hooks/oc-probe/memhub-hooks.js"]
    module.write_text("// changed by hand\n")
    code, out, _ = run(capsys, "doctor", str(hub.root), "--hosts", "opencode")
    assert code == 1 and "memhub-hooks" in out, out
    code, _, err = run(capsys, "apply", str(hub.root), "--hosts", "opencode", "--force")
    assert code == 0, err
    assert "echo turn" in module.read_text()
    code, _, err = run(capsys, "uninstall", str(hub.root), "--hosts", "opencode")
    assert code == 0, err
    assert not (folder / "memhub-hooks").exists()
    assert (
        folder / "opencode.json"
    ).read_text() == '{\n  "plugin": ["their-plugin"], // theirs\n}\n'


def test_launched_servers_take_their_cwd_as_a_launcher_argument(tmp_path: Path) -> None:
    text = HUB_YAML.replace(
        "hosts: [opencode]\n", "hosts: [opencode]\nruntime: {secrets: launcher}\n"
    )
    hub = make_hub(tmp_path, text)
    moved = next(s for s in hub.mcp_servers if s.name == "moved")
    spec, reason = server_spec(hub, moved, opencode.install_launcher(hub, "/bin/memhub-launch"))
    assert spec is not None and reason.startswith("started through memhub's launcher")
    assert spec["command"][0] == "/bin/memhub-launch"
    assert spec["command"][-4:] == ["--cwd", "./sub", "--", "run"]


def test_a_bundle_cannot_name_the_launcher_and_says_so(tmp_path: Path) -> None:
    text = HUB_YAML.replace(
        "hosts: [opencode]\n", "hosts: [opencode]\nruntime: {secrets: launcher}\n"
    )
    result = build(make_hub(tmp_path, text))
    rows = {r.id: r for r in result.coverage if r.component == "mcp"}
    assert rows["local"].status == "caveat" and "launcher" in rows["local"].reason
    config = result.artifact("opencode/oc-probe/opencode.json")
    assert config is not None and json.loads(config.content)["mcp"]["local"] == LOCAL


def test_apply_keeps_the_persons_config_and_uninstall_restores_it(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = make_hub(tmp_path)
    config = home / ".config/opencode/opencode.json"
    config.parent.mkdir(parents=True)
    original = '{\n    "theme": "tokyonight",\n    "mcp": {\n        "mine": {"type": "local", "command": ["x"]}\n    }\n}\n'
    config.write_text(original)
    code, _, err = run(capsys, "apply", str(hub.root), "--hosts", "opencode")
    assert code == 0, err
    data = json.loads(config.read_text())
    assert data["theme"] == "tokyonight" and data["mcp"]["mine"] == {
        "type": "local",
        "command": ["x"],
    }
    assert data["mcp"]["local"] == LOCAL and data["mcp"]["remote"] == REMOTE
    assert '\n    "mcp": {\n        "mine"' in config.read_text(), "the file's own indent is kept"
    agents = (home / ".config/opencode/AGENTS.md").read_text()
    assert "Say oc-probe-7d2e." in agents
    code, out, _ = run(capsys, "plan", str(hub.root), "--hosts", "opencode", "--json")
    assert code == 0
    assert {t["kind"] for t in json.loads(out)["data"]["targets"]} == {"unchanged"}
    code, _, err = run(capsys, "uninstall", str(hub.root), "--hosts", "opencode")
    assert code == 0, err
    assert (
        config.read_text().replace('    "$schema": "https://opencode.ai/config.json",\n', "")
        == original
    )


# --- import -----------------------------------------------------------------------------


def test_hub_spec_reads_back_what_server_spec_writes(tmp_path: Path) -> None:
    hub = make_hub(tmp_path)
    local = next(s for s in hub.mcp_servers if s.name == "local")
    spec, _ = server_spec(hub, local, None)
    assert spec is not None
    back, extras, _ = hub_spec("local", spec)
    assert back == {
        "command": "run",
        "args": ["--token", "${env:RUN_TOKEN}", "--project", "."],
        "env": {"LEVEL": "debug", "KEY": "${env:RUN_KEY}"},
    }
    assert extras == {}
    back, extras, _ = hub_spec("remote", {**REMOTE, "enabled": False})
    assert back == {
        "url": "https://mcp.example.com/mcp",
        "headers": {"Authorization": "Bearer ${env:REMOTE_TOKEN}"},
        "oauth": {
            "client_id": "public-client",
            "callback_port": 19999,
            "scopes": ["read", "write"],
        },
    }
    assert extras == {"enabled": False}


def test_import_reads_the_persons_servers_skills_and_agents_md(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = home / ".config/opencode"
    (folder / "skills/lint").mkdir(parents=True)
    (folder / "skills/lint/SKILL.md").write_text(
        "---\nname: lint\ndescription: Lints.\n---\nLint.\n"
    )
    (folder / "AGENTS.md").write_text("# Mine\n\nBe brief.\n")
    (folder / "opencode.json").write_text(
        json.dumps(
            {
                "theme": "x",
                "mcp": {
                    "files": {
                        "type": "local",
                        "command": ["npx", "-y", "fs", "."],
                        "enabled": True,
                    },
                    "api": {
                        "type": "remote",
                        "url": "https://api.example.com/mcp",
                        "headers": {"X-Key": "{env:API_KEY}"},
                    },
                },
            }
        )
    )
    (folder / "opencode.jsonc").write_text(
        '{ // mine\n  "mcp": {\n    /* docs */ "docs": {"type": "remote", "url": '
        '"https://docs.example/mcp",},\n  },\n}\n'
    )
    into = tmp_path / "mine"
    code, _, err = run(capsys, "import", "--hosts", "opencode", "--into", str(into), "--yes")
    assert code == 0, err
    data = yaml.safe_load((into / "hub.yaml").read_text())
    assert data["mcp"]["servers"]["docs"] == {"url": "https://docs.example/mcp"}, "JSONC read"
    assert data["mcp"]["servers"]["files"] == {"command": "npx", "args": ["-y", "fs", "."]}
    assert data["mcp"]["servers"]["api"] == {
        "url": "https://api.example.com/mcp",
        "headers": {"X-Key": "${env:API_KEY}"},
    }
    assert data["overrides"]["opencode"]["mcp_servers"]["files"] == {"enabled": True}
    assert (into / "skills/lint/SKILL.md").is_file()
    assert load(into).instructions is not None


def test_import_skips_what_memhub_installed(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = make_hub(tmp_path)
    assert run(capsys, "apply", str(hub.root), "--hosts", "opencode")[0] == 0
    code, out, err = run(
        capsys, "import", "--hosts", "opencode", "--into", str(tmp_path / "i"), "--dry-run"
    )
    assert code == 0, err
    assert "memhub installed it" in out + err


# --- doctor -----------------------------------------------------------------------------


def test_loader_refusal_is_opencodes_own_words() -> None:
    stderr = (
        "\x1b[91m\x1b[1mError: \x1b[0mConfiguration is invalid at /p/opencode.json\n"
        '↳ Expected array, got "notalist" mcp.x.command\n'
    )
    words = opencode.loader_refusal(1, "", stderr)
    assert words == (
        'Error: Configuration is invalid at /p/opencode.json ↳ Expected array, got "notalist" '
        "mcp.x.command"
    )
    assert opencode.loader_refusal(0, "{}", "") is None
    assert opencode.loader_refusal(2, "", "") == "opencode debug config exited 2"


def test_doctor_after_an_apply_has_no_failure(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = make_hub(tmp_path)
    assert run(capsys, "apply", str(hub.root), "--hosts", "opencode")[0] == 0
    code, out, _ = run(capsys, "doctor", "--hosts", "opencode", "--json")
    report = json.loads(out)["data"]
    assert code == 0, report
    assert report["summary"]["fail"] == 0
    drift = {Path(c["target"]).name for c in report["checks"] if c["name"] == "drift"}
    assert drift == {"opencode.json", "AGENTS.md", "oc-probe"}, "oc-probe: the hooks plugin"
    config = home / ".config/opencode/opencode.json"
    config.write_text(config.read_text().replace('"run"', '"ran"', 1))
    code, out, _ = run(capsys, "doctor", "--hosts", "opencode", "--json")
    assert code == 1
    failed = [c for c in json.loads(out)["data"]["checks"] if c["status"] == "fail"]
    assert [c["name"] for c in failed] == ["drift"]


# --- the bundle's hooks plugin ----------------------------------------------------------

HOOKS_YAML = """\
hooks:
  - {id: start, event: session_start, command: 'sh "${plugin_root}/bin/start.sh"', timeout: 5}
  - {id: guard, event: before_tool, tools: [shell, edit], command: guard}
  - {id: mcp-only, event: before_tool, tools: [mcp], command: x}
  - {id: ended, event: session_end, command: x}
  - {id: failed, event: after_tool_failure, command: x}
  - {id: runtime, event: turn_end, handler: capture.turn_end}
"""


def hooks_hub(tmp_path: Path) -> Hub:
    text = HUB_YAML[: HUB_YAML.index("hooks:")] + HOOKS_YAML
    return make_hub(tmp_path, text)


def test_command_hooks_become_one_generated_plugin(tmp_path: Path) -> None:
    result = build(hooks_hub(tmp_path))
    plugin = result.artifact("opencode/oc-probe/plugins/memhub-hooks.js")
    assert plugin is not None and plugin.mode == 0o644 and plugin.owners == ("opencode",)
    text = plugin.content.decode()
    table = json.loads(text[text.index("const HOOKS = ") + 14 : text.index("\nconst FOLDER")])
    assert table == [
        {
            "id": "start",
            "on": "session.created",
            "tools": None,
            "command": 'sh "${OPENCODE_CONFIG_FOLDER}/bin/start.sh"',
            "timeout": 5,
        },
        {
            "id": "guard",
            "on": "tool.execute.before",
            "tools": "^(?:bash|edit|write|patch|multiedit)$",
            "command": "guard",
            "timeout": None,
        },
    ]
    assert "export const MemhubHooks = async" in text


def test_hooks_opencode_cannot_carry_are_rows(tmp_path: Path) -> None:
    rows = {r.id: r for r in build(hooks_hub(tmp_path)).coverage if r.component == "hook"}
    assert list(rows) == ["start", "guard", "mcp-only", "ended", "failed", "runtime"]
    assert rows["start"].status == "caveat" and rows["start"].target == "session.created"
    assert rows["guard"].target == "tool.execute.before [^(?:bash|edit|write|patch|multiedit)$]"
    assert "exit code 2 blocks" in rows["guard"].reason
    assert rows["mcp-only"].status == "unsupported"
    assert rows["ended"].status == "unsupported" and "session-end" in rows["ended"].reason
    assert rows["failed"].status == "unsupported"
    assert rows["runtime"].status == "unsupported" and "handler" in rows["runtime"].reason


def test_a_hub_without_command_hooks_has_no_plugin(tmp_path: Path) -> None:
    text = (
        HUB_YAML[: HUB_YAML.index("hooks:")]
        + "hooks:\n  - {id: r, event: turn_end, handler: capture.turn_end}\n"
    )
    result = build(make_hub(tmp_path, text))
    assert result.artifact("opencode/oc-probe/plugins/memhub-hooks.js") is None


COMMENTED = """\
{
  // the person's own theme
  "theme": "x", /* inline */
  "mcp": {
    // their server, kept as it is
    "theirs": {"type": "remote", "url": "https://theirs.example/mcp",},
  },
}
"""


@pytest.mark.parametrize("file_name", ["opencode.json", "opencode.jsonc"])
def test_apply_into_a_commented_config_keeps_every_comment(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str], file_name: str
) -> None:
    """OpenCode reads opencode.json and opencode.jsonc as JSONC: memhub edits either one
    (the .jsonc when it is the person's only one) and keeps every comment; undo restores it."""
    hub = make_hub(tmp_path)
    config = home / ".config/opencode" / file_name
    config.parent.mkdir(parents=True)
    config.write_text(COMMENTED)
    code, _, err = run(capsys, "apply", str(hub.root), "--hosts", "opencode")
    assert code == 0, err
    text = config.read_text()
    for comment in ("// the person's own theme", "/* inline */", "// their server, kept"):
        assert comment in text
    assert '"theirs": {"type": "remote", "url": "https://theirs.example/mcp",},' in text
    assert not (config.parent / "opencode.json").exists() or file_name == "opencode.json"
    data = opencode_data(text)
    assert set(data["mcp"]) == {"theirs", "local", "remote", "moved"}
    code, out, err = run(capsys, "doctor", str(hub.root), "--hosts", "opencode")
    assert code == 0 and "drift 6" in out and " 0 warn, 0 fail" in out, out + err
    code, _, err = run(capsys, "uninstall", str(hub.root), "--hosts", "opencode")
    assert code == 0, err
    assert config.read_text() == COMMENTED


def test_a_broken_jsonc_config_is_refused_naming_its_line(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Comments are fine; a comment never closed is not: nothing is written."""
    hub = make_hub(tmp_path)
    config = home / ".config/opencode/opencode.json"
    config.parent.mkdir(parents=True)
    original = '{\n  // mine\n  "theme": "x" /* never closed\n}\n'
    config.write_text(original)
    code, _, err = run(capsys, "apply", str(hub.root), "--hosts", "opencode")
    assert code == 2
    assert f"{config}: line 3 col 16" in err
    assert config.read_text() == original
    assert not (home / ".config/opencode/AGENTS.md").exists(), "nothing written"


def opencode_data(text: str) -> dict[str, object]:
    from memhub.compiler.formats.jsonedit import parse

    data = parse(text)
    assert isinstance(data, dict)
    return data


def test_hook_commands_stay_data_in_the_generated_module(tmp_path: Path) -> None:
    """A command holding quotes, backticks, `${`, `*/` and a line break cannot become code."""
    command = 'echo "a\\" `b` ${HOME} */ </x>\nrm -rf /nope'
    text = HUB_YAML[: HUB_YAML.index("hooks:")] + "hooks:\n"
    text += f"  - id: odd\n    event: turn_end\n    command: {json.dumps(command)}\n"
    result = build(make_hub(tmp_path, text))
    plugin = result.artifact("opencode/oc-probe/plugins/memhub-hooks.js")
    assert plugin is not None
    module = plugin.content.decode()
    start = module.index("const HOOKS = ") + len("const HOOKS = ")
    table = json.loads(module[start : module.index("\nconst FOLDER")])
    assert [h["command"] for h in table] == [command]
    assert module.count("\nconst HOOKS = ") == 1 and "rm -rf /nope\n" not in module


def test_a_plugin_key_that_is_not_a_list_is_refused_naming_its_line(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OpenCode's `plugin` is a list; a person's string there is theirs to fix: nothing written."""
    hub = make_hub(tmp_path)
    config = home / ".config/opencode/opencode.json"
    config.parent.mkdir(parents=True)
    original = '{\n  // mine\n  "plugin": "one-plugin",\n}\n'
    config.write_text(original)
    code, _, err = run(capsys, "apply", str(hub.root), "--hosts", "opencode")
    assert code == 2, err
    assert f"{config}: line 3 col 13: plugin is not an array" in err
    assert config.read_text() == original
    assert not (home / ".config/opencode/memhub-hooks").exists(), "nothing written"


def test_a_hooks_folder_memhub_does_not_own_is_not_overwritten(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = make_hub(tmp_path)
    theirs = home / ".config/opencode/memhub-hooks/oc-probe"
    theirs.mkdir(parents=True)
    (theirs / "memhub-hooks.js").write_text("// theirs\n")
    code, _, err = run(capsys, "apply", str(hub.root), "--hosts", "opencode")
    assert code != 0 and "memhub does not own it" in err, err
    assert (theirs / "memhub-hooks.js").read_text() == "// theirs\n"
