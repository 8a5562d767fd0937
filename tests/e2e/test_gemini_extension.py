"""A hub built by the real `memhub build --host gemini`, installed in the real Gemini CLI as an
extension (`gemini extensions install <bundle>/gemini/<plugin> --consent`, answering its
folder-trust question with "y" on stdin), in an isolated HOME.

* `test_extension_installs_with_its_servers_and_skills`: the probe hub. `gemini extensions
  list` shows the extension, enabled, with the hub's version, MCP servers and skills;
  `gemini mcp list` shows each server "(from <plugin>)" with the hub's command line.
* `test_headless_session_fires_the_extension_hooks`: `gemini -p` against `fake_gemini.py`
  with one shell call. Each probe hook appends its stdin payload to
  `$MEMHUB_E2E_OUT/<logical event>.jsonl`; every hook fires with Gemini's event name
  (SessionStart, BeforeAgent, BeforeTool on run_shell_command, AfterTool, AfterAgent,
  SessionEnd), in that order. PreCompress fires too, with trigger "auto", although nothing is
  compacted: Gemini runs it before every model request once the chat has history.
* `test_extension_servers_get_the_hub_references`: a hub written here, with `${env:NAME}` in
  a stdio server's args and env and in a remote server's header, and `${plugin_root}` in the
  env (the installed extension folder, ~/.gemini/extensions/<plugin>). In a trusted folder
  `gemini mcp list` starts the servers: the stdio server gets the values from Gemini's own
  environment (no `settings` entry needed), the loopback HTTP server gets the header, and a
  secret-looking variable the hub does not name does not reach the server.

Expected values are read from the hubs' own files, never from the compiler.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from .harness import CLI_TIMEOUT_S, HUBS_DIR, REPO_ROOT, describe, read_hub, read_jsonl, run

pytestmark = pytest.mark.e2e

PROBE_HUB = HUBS_DIR / "probe"
PROMPT = "tidy up with the extension probe"
SHELL_COMMAND = "echo memhub-gemini-extension-e2e"
SESSION_TIMEOUT_S = 150

# Logical hook event -> Gemini CLI hook event (reference/hosts.md, sections 0.2 and 4.2).
GEMINI_EVENTS: dict[str, str] = {
    "session_start": "SessionStart",
    "session_end": "SessionEnd",
    "prompt_submit": "BeforeAgent",
    "before_tool": "BeforeTool",
    "after_tool": "AfterTool",
    "after_tool_failure": "AfterTool",  # Gemini has no failure event
    "turn_end": "AfterAgent",
    "pre_compact": "PreCompress",
}
SHELL_TOOL = "run_shell_command"

# What a person has before installing: API-key auth (headless Gemini exits 41 without it)
# and no usage statistics (they would go to the refusing proxy).
GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
}
# What Gemini CLI prints (and then ignores the file) when a settings file breaks its schema.
GEMINI_REJECTS = "Invalid configuration in"


# ------------------------------------------------------------------ helpers
def build_extension(hub: Path, out: Path) -> Path:
    """The real `memhub build HUB --out OUT --host gemini`; returns the extension folder."""
    proc = run(
        [
            sys.executable,
            "-m",
            "memhub.compiler.cli.main",
            "build",
            hub,
            "--out",
            out,
            "--host",
            "gemini",
        ],
        env=dict(os.environ),
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, describe(proc)
    name = yaml.safe_load((hub / "hub.yaml").read_text(encoding="utf-8"))["plugin"]["name"]
    folder = out / "gemini" / name
    assert (folder / "gemini-extension.json").is_file(), describe(proc)
    return folder


def gemini_home(home: Path) -> Path:
    folder = home / ".gemini"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(GEMINI_SETTINGS, indent=2) + "\n")
    return folder


def install_extension(gemini: Path, folder: Path, env: dict[str, str], cwd: Path) -> None:
    """`gemini extensions install FOLDER --consent`. A local source that is not a trusted
    folder makes Gemini ask "Do you want to trust this folder...? [y/N]" on stdin even with
    --consent (which only skips the extension's own consent prompt): answer "y"."""
    argv = [str(gemini), "extensions", "install", str(folder), "--consent"]
    try:
        proc = subprocess.run(
            argv, env=env, cwd=cwd, input="y\n", capture_output=True, text=True,
            timeout=CLI_TIMEOUT_S,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"timed out after {CLI_TIMEOUT_S}s: {argv}") from exc
    assert proc.returncode == 0, describe(proc)
    assert "installed successfully and enabled" in proc.stdout + proc.stderr, describe(proc)


_EXTENSION = re.compile(r"^([\u2713\u2717]) (\S+) \((.+)\)$")
_FIELD = re.compile(r"^ (\S[^:]*):\s*(.*)$")


def parse_extensions_list(text: str) -> dict[str, dict[str, Any]]:
    """`gemini extensions list` -> {name: {"enabled", "version", "Path", ..., "MCP servers":
    [...], "Agent skills": [...]}} (a field without a value opens a list of indented items)."""
    out: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    items: list[str] | None = None
    for line in text.splitlines():
        if m := _EXTENSION.match(line):
            current = out[m.group(2)] = {"enabled": m.group(1) == "\u2713", "version": m.group(3)}
            items = None
        elif current is None:
            continue
        elif m := _FIELD.match(line):
            key, value = m.groups()
            if value:
                current[key], items = value, None
            else:
                items = current[key] = []
        elif line.startswith("  ") and items is not None:
            items.append(line.strip())
    return out


_MCP_LINE = re.compile(r"^\S+\s+(\S+) \(from (\S+)\): (.*) \((stdio|http|sse)\)(?: - (.*))?$")


def parse_mcp_list(text: str) -> dict[str, tuple[str, str, str]]:
    """`gemini mcp list` -> {server: (extension, command line or url, transport)} for servers
    that come from an extension."""
    return {
        m.group(1): (m.group(2), m.group(3), m.group(4))
        for line in text.splitlines()
        if (m := _MCP_LINE.match(line.strip()))
    }


def skill_descriptions(hub: Path) -> dict[str, str]:
    found = {}
    for skill_md in sorted((hub / "skills").glob("*/SKILL.md")):
        text = skill_md.read_text(encoding="utf-8")
        meta = yaml.safe_load(re.match(r"\A---\s*\n(.*?)\n---", text, re.S).group(1))  # type: ignore[union-attr]
        found[meta["name"]] = meta["description"]
    return found


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def probe_extension(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_extension(PROBE_HUB, tmp_path_factory.mktemp("gemini-ext") / "bundle")


@pytest.fixture
def installed_probe(gemini_cli: Path, isolated_home, probe_extension: Path) -> Path:
    """The probe extension installed into the isolated HOME; returns ~/.gemini."""
    folder = gemini_home(isolated_home.home)
    install_extension(gemini_cli, probe_extension, isolated_home.env, isolated_home.root)
    return folder


# ================================================================== 1. install and list
def test_extension_installs_with_its_servers_and_skills(
    gemini_cli: Path, isolated_home, installed_probe: Path, probe_extension: Path
) -> None:
    hub = read_hub(PROBE_HUB)
    data = yaml.safe_load((PROBE_HUB / "hub.yaml").read_text(encoding="utf-8"))
    skills = skill_descriptions(PROBE_HUB)
    assert hub.skills and hub.mcp_servers, "the probe hub changed"

    installed = installed_probe / "extensions" / hub.plugin
    assert (installed / "gemini-extension.json").is_file()

    proc = run([gemini_cli, "extensions", "list"], env=isolated_home.env, cwd=isolated_home.root)
    assert proc.returncode == 0, describe(proc)
    assert GEMINI_REJECTS not in proc.stderr, describe(proc)
    listed = parse_extensions_list(proc.stdout + "\n" + proc.stderr)
    assert set(listed) == {hub.plugin}, describe(proc)
    ext = listed[hub.plugin]
    assert ext["enabled"] and ext["version"] == str(data["plugin"]["version"]), ext
    assert ext["Path"] == str(installed), ext
    assert ext["Source"] == f"{probe_extension} (Type: local)", ext
    assert sorted(ext["MCP servers"]) == sorted(hub.mcp_servers), ext
    assert sorted(ext["Agent skills"]) == sorted(f"{n}: {d}" for n, d in skills.items()), ext

    # Outside a trusted folder Gemini lists the servers without starting them.
    proc = run([gemini_cli, "mcp", "list"], env=isolated_home.env, cwd=isolated_home.root)
    assert proc.returncode == 0, describe(proc)
    servers = data["mcp"]["servers"]
    assert parse_mcp_list(proc.stdout + "\n" + proc.stderr) == {
        name: (hub.plugin, " ".join([spec["command"], *spec.get("args", [])]), "stdio")
        for name, spec in servers.items()
    }, describe(proc)


# ================================================================== 2. a session fires the hooks
def test_headless_session_fires_the_extension_hooks(
    gemini_cli: Path, isolated_home, installed_probe: Path, git_repo: Path, fake_gemini
) -> None:
    hub = read_hub(PROBE_HUB)
    skills = skill_descriptions(PROBE_HUB)
    assert set(hub.hook_events) == set(GEMINI_EVENTS), "one probe hook per logical event"
    out = isolated_home.root / "hook-out"
    out.mkdir()

    fake_gemini.shell_commands = [SHELL_COMMAND]
    env = isolated_home.with_env(
        GEMINI_API_KEY="memhub-e2e-fake",
        GOOGLE_GEMINI_BASE_URL=fake_gemini.base_url,
        MEMHUB_E2E_OUT=str(out),
    )
    argv = [gemini_cli, "-m", "fake-model", "-p", PROMPT, "--yolo", "--skip-trust", "-o", "json"]
    proc = run(argv, env=env, cwd=git_repo, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    assert GEMINI_REJECTS not in proc.stderr, describe(proc)
    result = json.loads(proc.stdout)
    assert result.get("response") == fake_gemini.final_text, describe(proc)
    assert fake_gemini.function_call_count() == 1, fake_gemini.answers()
    assert result["stats"]["tools"]["byName"][SHELL_TOOL]["success"] == 1, result

    fired = {
        e: read_jsonl(out / f"{e}.jsonl") for e in hub.hook_events if (out / f"{e}.jsonl").exists()
    }
    assert set(fired) == set(hub.hook_events), (sorted(fired), describe(proc))
    for event, payloads in fired.items():
        names = {p["hook_event_name"] for p in payloads}
        assert names == {GEMINI_EVENTS[event]}, (event, names)
        assert {p["session_id"] for p in payloads} == {result["session_id"]}, event
    # One shell call: exactly one payload for every hook but PreCompress.
    once = [e for e in hub.hook_events if e != "pre_compact"]
    assert {e: len(fired[e]) for e in once} == dict.fromkeys(once, 1), fired
    for event in ("before_tool", "after_tool", "after_tool_failure"):
        (payload,) = fired[event]
        assert payload["tool_name"] == SHELL_TOOL, payload
        assert payload["tool_input"]["command"] == SHELL_COMMAND, payload
    (prompt,) = fired["prompt_submit"]
    assert prompt["prompt"] == PROMPT, prompt
    (turn,) = fired["turn_end"]
    assert turn["prompt_response"] == fake_gemini.final_text, turn
    # PreCompress runs before each model request once the chat has history (2 requests here),
    # though the history is far below the compression threshold.
    assert fired["pre_compact"] and {p["trigger"] for p in fired["pre_compact"]} == {"auto"}
    order = [
        "session_start",
        "prompt_submit",
        "before_tool",
        "after_tool",
        "turn_end",
        "session_end",
    ]
    stamps = [fired[e][0]["timestamp"] for e in order]
    assert stamps == sorted(stamps), dict(zip(order, stamps, strict=True))

    # The extension's skills are offered to the model (activate_skill lists them).
    first = json.dumps(fake_gemini.requests[0].body)
    for name, description in skills.items():
        assert f"<name>{name}</name>" in first, name
        assert json.dumps(description)[1:-1] in first, description


# ================================================================== 3. references reach servers
# A stdio "server" that records what it was started with, then exits (Gemini then reports it
# disconnected, which `mcp list` does not mind).
DUMP_SCRIPT = (
    "import json, os, sys; "
    "open(os.path.join(os.environ['PROBE_OUT'], 'server.json'), 'w').write(json.dumps("
    "{'args': sys.argv[1:], 'env': {k: v for k, v in os.environ.items() if k.startswith('PROBE_')}}))"
)
REFERENCE = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}")


class _HeaderRecorder(BaseHTTPRequestHandler):
    seen: list[str | None]

    def _record(self) -> None:
        self.seen.append(self.headers.get("Authorization"))
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_DELETE = _record

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def header_recorder() -> Iterator[tuple[str, list[str | None]]]:
    """A loopback HTTP server that records the Authorization header of every request."""
    seen: list[str | None] = []
    handler = type("Recorder", (_HeaderRecorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", seen
    finally:
        server.shutdown()
        server.server_close()


def test_extension_servers_get_the_hub_references(
    gemini_cli: Path, isolated_home, tmp_path: Path, header_recorder
) -> None:
    url, seen = header_recorder
    hub_dir = tmp_path / "env-hub"
    hub_dir.mkdir()
    hub_text = yaml.safe_dump(
        {
            "version": 1,
            "plugin": {"name": "env-probe", "version": "0.2.0", "description": "Env probe"},
            "marketplace": {"name": "e2e-market", "owner": {"name": "memhub e2e"}},
            "hosts": ["gemini"],
            "mcp": {
                "servers": {
                    "dump": {
                        "command": "python3",
                        "args": ["-c", DUMP_SCRIPT, "--flag=${env:PROBE_ARG}"],
                        "env": {
                            "PROBE_TOKEN": "${env:PROBE_TOKEN}",
                            "PROBE_OUT": "${env:PROBE_OUT}",
                            "PROBE_LEVEL": "debug",
                            "PROBE_ROOT": "${plugin_root}",
                        },
                    },
                    "remote": {
                        "url": url,
                        "headers": {"Authorization": "Bearer ${env:PROBE_TOKEN}"},
                    },
                }
            },
        },
        sort_keys=False,
    )
    (hub_dir / "hub.yaml").write_text(hub_text)
    folder = build_extension(hub_dir, tmp_path / "bundle")
    gemini_home(isolated_home.home)
    install_extension(gemini_cli, folder, isolated_home.env, isolated_home.root)

    # Gemini starts stdio servers only in a trusted folder; trust one the way Gemini does.
    work = isolated_home.root / "work"
    work.mkdir()
    trusted = isolated_home.home / ".gemini" / "trustedFolders.json"
    folders = json.loads(trusted.read_text()) if trusted.exists() else {}
    trusted.write_text(json.dumps({**folders, str(work): "TRUST_FOLDER"}, indent=2))

    values = {
        "PROBE_ARG": "arg-from-env",
        "PROBE_TOKEN": "token-from-env",
        "PROBE_OUT": str(tmp_path),
        "PROBE_OTHER_TOKEN": "not-named-by-the-hub",
    }
    proc = run([gemini_cli, "mcp", "list"], env=isolated_home.with_env(**values), cwd=work)
    assert proc.returncode == 0, describe(proc)

    # ${plugin_root}: where Gemini installs an extension (hosts.md 4.1).
    root = isolated_home.home / ".gemini" / "extensions" / "env-probe"

    def resolved(text: str) -> str:
        return REFERENCE.sub(lambda m: values[m.group(1)], text).replace(
            "${plugin_root}", str(root)
        )

    servers = yaml.safe_load(hub_text)["mcp"]["servers"]
    dumped = json.loads((tmp_path / "server.json").read_text())
    assert dumped["args"] == [resolved(a) for a in servers["dump"]["args"][2:]], dumped  # -c SCRIPT
    env = servers["dump"]["env"]
    assert {k: dumped["env"].get(k) for k in env} == {k: resolved(v) for k, v in env.items()}
    assert "PROBE_OTHER_TOKEN" not in dumped["env"], "Gemini keeps secret-looking names away"
    want = resolved(servers["remote"]["headers"]["Authorization"])
    assert seen and set(seen) == {want}, seen
