"""Shared helpers for the real-host e2e tests: running CLIs, building bundles, reading hubs.

Expected values (skill names, MCP server names, hook events) are read straight from the hub
sources, never from the compiler, so a compiler bug cannot make its own test pass.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = REPO_ROOT / "examples"
HUBS_DIR = Path(__file__).resolve().parent / "hubs"

# Hosts a hub without `hosts:` is built for (hub.schema.json: "Default: every bundle host").
BUNDLE_HOSTS: tuple[str, ...] = ("claude", "codex", "cursor", "gemini", "agent-plugins")

CLI_TIMEOUT_S = 120
BUILD_TIMEOUT_S = 120

# Logical hook event -> Claude Code hook event (shared/reference/hosts.md, section 0.2).
CLAUDE_EVENTS: dict[str, str] = {
    "session_start": "SessionStart",
    "session_end": "SessionEnd",
    "prompt_submit": "UserPromptSubmit",
    "before_tool": "PreToolUse",
    "after_tool": "PostToolUse",
    "after_tool_failure": "PostToolUseFailure",
    "turn_end": "Stop",
    "pre_compact": "PreCompact",
}
# Claude Code ends a subagent's turn with SubagentStop: runtime handler hooks on turn_end are
# bound there too (command hooks are not: their scripts expect Stop's payload).
CLAUDE_HANDLER_ALSO: dict[str, str] = {"turn_end": "SubagentStop"}

# Logical hook event -> Codex hook event. Codex has no failure event; its PostToolUse also
# runs after a failed Bash call (hosts.md 0.2), so after_tool_failure lands there.
CODEX_EVENTS: dict[str, str] = {
    "session_start": "SessionStart",
    "session_end": "SessionEnd",
    "prompt_submit": "UserPromptSubmit",
    "before_tool": "PreToolUse",
    "after_tool": "PostToolUse",
    "after_tool_failure": "PostToolUse",
    "turn_end": "Stop",
    "pre_compact": "PreCompact",
}


# ------------------------------------------------------------------ processes
def run(
    argv: list[str | os.PathLike[str]],
    *,
    env: dict[str, str],
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = CLI_TIMEOUT_S,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run a command with a hard timeout and closed stdin; a timeout is a test failure."""
    argv = [str(a) for a in argv]
    try:
        proc = subprocess.run(
            argv,
            env=env,
            cwd=cwd,
            timeout=timeout,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(
            f"timed out after {timeout}s: {argv}\nstdout:\n{_text(exc.stdout)}\nstderr:\n{_text(exc.stderr)}"
        ) from exc
    if check and proc.returncode != 0:
        raise AssertionError(describe(proc))
    return proc


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


def describe(proc: subprocess.CompletedProcess[str]) -> str:
    return (
        f"command: {proc.args}\nexit code: {proc.returncode}\n"
        f"stdout:\n{proc.stdout[-6000:]}\nstderr:\n{proc.stderr[-6000:]}"
    )


# ------------------------------------------------------------------ hubs
@dataclass(frozen=True)
class HubInfo:
    """What a hub declares, read from its source files (independent of the compiler)."""

    root: Path
    plugin: str
    marketplace: str
    hosts: tuple[str, ...]
    skills: frozenset[str]
    mcp_servers: frozenset[str]
    hook_events: tuple[str, ...]  # logical events, in hub order
    handler_events: tuple[str, ...] = ()  # logical events of the runtime `handler:` hooks
    codex_events: tuple[str, ...] = ()  # hook_events of the hooks `hosts:` lets reach Codex
    codex_handler_events: tuple[str, ...] = ()  # and of its `handler:` hooks

    @property
    def claude_hook_events(self) -> frozenset[str]:
        events = {CLAUDE_EVENTS[e] for e in self.hook_events if e in CLAUDE_EVENTS}
        events |= {CLAUDE_HANDLER_ALSO[e] for e in self.handler_events if e in CLAUDE_HANDLER_ALSO}
        return frozenset(events)

    @property
    def codex_hook_events(self) -> frozenset[str]:
        return frozenset(CODEX_EVENTS[e] for e in self.codex_events if e in CODEX_EVENTS)


_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.S)


def skill_name(skill_dir: Path) -> str | None:
    skill_md = skill_dir / "SKILL.md"
    if not skill_md.is_file():
        return None
    match = _FRONT_MATTER.match(skill_md.read_text(encoding="utf-8"))
    meta = yaml.safe_load(match.group(1)) if match else None
    if isinstance(meta, dict) and meta.get("name"):
        return str(meta["name"])
    return skill_dir.name


def read_hub(root: Path) -> HubInfo:
    data = yaml.safe_load((root / "hub.yaml").read_text(encoding="utf-8"))
    skills_rel = data.get("skills", "skills")
    skills_dir = root / skills_rel
    skills: set[str] = set()
    if skills_dir.is_dir():
        for entry in sorted(skills_dir.iterdir()):
            if entry.is_dir() and not entry.name.startswith("."):
                name = skill_name(entry)
                if name:
                    skills.add(name)
    servers = set(((data.get("mcp") or {}).get("servers") or {}).keys())
    memory = data.get("memory")
    if isinstance(memory, dict) and memory.get("server", "read") not in ("off", False):
        servers.add("memhub-memory")  # the server `memory:` installs (hubspec/memory.py)
    hooks = tuple(h["event"] for h in data.get("hooks") or [])
    handlers = tuple(h["event"] for h in data.get("hooks") or [] if h.get("handler"))
    to_codex = [h for h in data.get("hooks") or [] if "codex" in h.get("hosts", ["codex"])]
    return HubInfo(
        root=root,
        plugin=data["plugin"]["name"],
        marketplace=data["marketplace"]["name"],
        hosts=tuple(data.get("hosts") or BUNDLE_HOSTS),
        skills=frozenset(skills),
        mcp_servers=frozenset(servers),
        hook_events=hooks,
        handler_events=handlers,
        codex_events=tuple(h["event"] for h in to_codex),
        codex_handler_events=tuple(h["event"] for h in to_codex if h.get("handler")),
    )


def hub_params() -> list[Any]:
    """The probe hub plus every example hub, as pytest params (ids: probe, example-NAME)."""
    import pytest

    params: list[Any] = [pytest.param(HUBS_DIR / "probe", id="probe")]
    params += [pytest.param(p, id=f"example-{p.name}") for p in example_hubs()]
    return params


def example_hubs() -> list[Path]:
    """Every folder under examples/ that holds a hub.yaml (sorted)."""
    if not EXAMPLES_DIR.is_dir():
        return []
    return sorted(p.parent for p in EXAMPLES_DIR.glob("*/hub.yaml"))


# ------------------------------------------------------------------ building
def memhub_importable() -> bool:
    proc = subprocess.run(
        [sys.executable, "-c", "import memhub.compiler.cli.main"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return proc.returncode == 0


def build_bundle(hub: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """`memhub build HUB --out OUT` through the real CLI module; fails the test on error."""
    proc = run(
        [sys.executable, "-m", "memhub.compiler.cli.main", "build", hub, "--out", out],
        env=dict(os.environ),
        cwd=REPO_ROOT,
        timeout=BUILD_TIMEOUT_S,
    )
    if proc.returncode != 0:
        raise AssertionError(f"memhub build failed for {hub}\n{describe(proc)}")
    return proc


def plugin_dirs(bundle: Path) -> list[Path]:
    plugins = bundle / "plugins"
    return sorted(p for p in plugins.iterdir() if p.is_dir()) if plugins.is_dir() else []


# ------------------------------------------------------------------ claude output
def validation_problems(report: dict[str, Any]) -> list[str]:
    """Every error and warning in a `claude plugin validate --json` report, as text."""
    problems: list[str] = []

    def collect(where: str, part: dict[str, Any] | None) -> None:
        if not isinstance(part, dict):
            return
        for kind in ("errors", "warnings"):
            for item in part.get(kind) or []:
                if isinstance(item, dict):
                    text = f"{item.get('path') or ''}: {item.get('message')}"
                else:
                    text = str(item)
                problems.append(f"{where} {kind[:-1]}: {text}")

    collect(str((report.get("manifest") or {}).get("file", "manifest")), report.get("manifest"))
    for entry in report.get("contents") or []:
        if isinstance(entry, dict):
            collect(str(entry.get("file") or entry.get("path") or "content"), entry)
    return problems


_DETAILS_ROW = re.compile(r"^\s*(Skills|Agents|Hooks|MCP servers|LSP servers)\s*\((\d+)\)\s*(.*)$")


def parse_claude_details(text: str) -> dict[str, tuple[int, list[str]]]:
    """Parse the 'Component inventory' of `claude plugin details` into {section: (count, names)}."""
    out: dict[str, tuple[int, list[str]]] = {}
    for line in text.splitlines():
        m = _DETAILS_ROW.match(line)
        if not m:
            continue
        rest = re.sub(r"\s{2,}\(.*\)\s*$", "", m.group(3)).strip()
        names = [n.strip() for n in rest.split(",") if n.strip()] if rest else []
        out[m.group(1)] = (int(m.group(2)), names)
    return out


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a file of JSON values (one per line, or back to back); each must be an object."""
    text = path.read_text(encoding="utf-8")
    decoder = json.JSONDecoder()
    values: list[dict[str, Any]] = []
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return values
        value, i = decoder.raw_decode(text, i)
        assert isinstance(value, dict), f"{path}: hook payload is not an object: {value!r}"
        values.append(value)


# ------------------------------------------------------------------ codex app-server
class CodexAppServer:
    """Minimal JSON-RPC client for `codex app-server --listen stdio://` (bounded reads)."""

    def __init__(self, codex: Path, *, env: dict[str, str], cwd: Path, timeout: float = 60) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [str(codex), "app-server", "--listen", "stdio://"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=cwd,
        )
        self._next_id = 0

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **msg}) + "\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict[str, Any]) -> Any:
        import select
        import time

        self._next_id += 1
        rid = self._next_id
        self._send({"id": rid, "method": method, "params": params})
        assert self.proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        for _ in range(10_000):  # bounded: at most this many messages per call
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                break
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"codex app-server closed during {method}")
            msg = json.loads(line)
            if msg.get("id") == rid and ("result" in msg or "error" in msg):
                if "error" in msg:
                    raise AssertionError(f"codex app-server {method}: {msg['error']}")
                return msg["result"]
        raise AssertionError(f"codex app-server gave no answer to {method} in {self.timeout}s")

    def notify(self, method: str) -> None:
        self._send({"method": method})

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def __enter__(self) -> CodexAppServer:
        self.call("initialize", {"clientInfo": {"name": "memhub-e2e", "version": "0.0.1"}})
        self.notify("initialized")
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def codex_trust_hooks(
    codex: Path,
    env: dict[str, str],
    cwd: Path,
    ours: Callable[[dict[str, Any]], list[dict[str, Any]]],
) -> list[dict[str, Any]]:
    """Trust hooks as a person does in /hooks: app-server `hooks/list`, then
    `config/batchWrite` of each untrusted or modified hook's `trusted_hash`. `ours` picks the
    hooks meant from a `hooks/list` answer; returns them as listed after the write."""
    with CodexAppServer(codex, env=env, cwd=cwd) as server:
        hooks = ours(server.call("hooks/list", {"cwds": [str(cwd)]}))
        edits = [
            {
                "keyPath": f"hooks.state.{json.dumps(hook['key'])}",
                "mergeStrategy": "upsert",
                "value": {"trusted_hash": hook["currentHash"]},
            }
            for hook in hooks
            if hook["trustStatus"] in ("untrusted", "modified")
        ]
        if edits:
            server.call("config/batchWrite", {"edits": edits})
        return ours(server.call("hooks/list", {"cwds": [str(cwd)]}))


def codex_trust_plugin_hooks(
    codex: Path, *, env: dict[str, str], cwd: Path, plugin_id: str
) -> list[dict[str, Any]]:
    """Trust the plugin's hooks the supported way (`codex_trust_hooks`). Returns the plugin
    hooks as listed after the write (each must then be `trusted`)."""

    def ours(listed: dict[str, Any]) -> list[dict[str, Any]]:
        return [h for e in listed["data"] for h in e["hooks"] if h.get("pluginId") == plugin_id]

    return codex_trust_hooks(codex, env, cwd, ours)
