"""`memhub apply --scope user` read back and run by the real hosts (Claude Code, Codex, Gemini CLI).

The real `memhub apply tests/data/install --scope user --hosts codex,claude,gemini` runs as a
subprocess in an isolated temp HOME (CLAUDE_CONFIG_DIR, CODEX_HOME, MEMHUB_HOME under it).
Before it, the home already holds a person's own settings (a Gemini settings.json with
`selectedType: gemini-api-key`, a Codex config.toml with the fake model provider, a Claude
settings.json), so every test also shows that apply merges into them.

* `test_hosts_read_applied_servers_and_skill`: `codex mcp list --json`, `claude mcp get`,
  `gemini mcp list` show both MCP servers with the hub's fields; `codex debug prompt-input`
  lists the hub's skill.
* `test_claude_session_fires_user_hooks`, `test_codex_exec_fires_user_hooks`,
  `test_gemini_session_fires_user_hooks`: one headless session per host against its fake model,
  with one shell call; the hub's hooks append `start`, `shell`, `turn` to `$HOME/memhub-probe.log`.
* `test_undo_restores_every_host_file`: apply, use the hosts, `memhub undo`: every file under
  HOME is back byte for byte, except what the hosts themselves wrote in between (derived from
  snapshots, never a fixed list), which undo must leave as the hosts left it.
* `test_undo_refuses_after_hosts_rewrite_applied_files`: Claude Code rewrites `.claude.json` on
  every start and Codex writes hook trust into `config.toml`; undo then refuses and writes nothing.

Expected values come from the hub's own files, never from the compiler. Every host runs with
HTTP(S)_PROXY pointing at a loopback proxy that refuses everything, so nothing leaves the
machine: the hub's remote MCP server (mcp.example.com) and the hosts' own update, telemetry and
marketplace calls end there.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from .harness import REPO_ROOT, codex_trust_hooks, describe, run
from .refusing_proxy import RefusingProxy

pytestmark = pytest.mark.e2e

HUB = REPO_ROOT / "tests" / "data" / "install"
APPLY_HOSTS = "codex,claude,gemini"
PROMPT = "tidy up the install probe"
SHELL_COMMAND = "echo memhub-install-e2e"
SESSION_TIMEOUT_S = 150
PROBE_LOG = "memhub-probe.log"  # the hub's hooks append to $HOME/memhub-probe.log
MEMHUB_DIR = ".memhub"  # MEMHUB_HOME: memhub's own journal and state, not a host file

# What a person had before installing (written before apply, so apply must keep it).
GEMINI_SETTINGS = (
    "{\n"
    '  "security": {\n    "auth": {\n      "selectedType": "gemini-api-key"\n    }\n  },\n'
    '  "privacy": {\n    "usageStatisticsEnabled": false\n  }\n'
    "}\n"
)
CLAUDE_SETTINGS = '{\n  "cleanupPeriodDays": 30\n}\n'
CODEX_PROVIDER = "memhub-e2e-fake"
DEAD_BASE_URL = "http://127.0.0.1:9/v1"  # discard port: for runs that never call the model
# What Gemini CLI prints (and then ignores the entry) when settings.json breaks its schema.
GEMINI_REJECTS = "Invalid configuration in"


def codex_config(base_url: str) -> str:
    return (
        "# my own Codex settings\n"
        'model = "fake-model"\n'
        f'model_provider = "{CODEX_PROVIDER}"\n'
        "\n"
        f'[model_providers."{CODEX_PROVIDER}"]\n'
        'name = "memhub e2e fake"\n'
        f'base_url = "{base_url}"\n'
        'env_key = "MEMHUB_E2E_FAKE_KEY"\n'
        'wire_api = "responses"\n'
    )


# ------------------------------------------------------------------ the hub, read directly
@dataclass(frozen=True)
class InstallHub:
    servers: dict[str, dict[str, Any]]
    skills: dict[str, str]  # name -> description
    log_words: tuple[str, str, str]  # what the session_start, before_tool, turn_end hooks append
    instructions: str  # the hub's instruction text, which each host must put in its prompt


_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.S)
_LOG_HOOK = re.compile(r'^echo (\S+) >> "\$HOME/' + re.escape(PROBE_LOG) + '"$')


def read_install_hub() -> InstallHub:
    data = yaml.safe_load((HUB / "hub.yaml").read_text(encoding="utf-8"))
    skills: dict[str, str] = {}
    for skill_md in sorted((HUB / data.get("skills", "skills")).glob("*/SKILL.md")):
        meta = yaml.safe_load(_FRONT_MATTER.match(skill_md.read_text(encoding="utf-8")).group(1))
        skills[meta["name"]] = meta["description"]
    words: dict[str, str] = {}
    for hook in data["hooks"]:
        match = _LOG_HOOK.match(hook["command"])
        assert match, f"the install hub's hooks must append one word to $HOME/{PROBE_LOG}: {hook}"
        words[hook["event"]] = match.group(1)
    return InstallHub(
        servers=data["mcp"]["servers"],
        skills=skills,
        log_words=(words["session_start"], words["before_tool"], words["turn_end"]),
        instructions=(HUB / data["instructions"]).read_text(encoding="utf-8"),
    )


def probe_line(hub: InstallHub) -> str:
    """The instruction line carrying the probe word (the host may re-wrap the rest)."""
    return next(line for line in hub.instructions.splitlines() if "memhub-probe" in line)


def split_env(env: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """A hub server env: literal values, and the names forwarded as `${env:NAME}`."""
    literal = {k: v for k, v in env.items() if not v.startswith("${env:")}
    forwarded = [k for k, v in env.items() if v == "${env:" + k + "}"]
    return literal, forwarded


# ------------------------------------------------------------------ the home
@dataclass
class Home:
    root: Path
    home: Path
    env: dict[str, str]
    claude_dir: Path
    codex_home: Path
    proxy: RefusingProxy

    @property
    def gemini_dir(self) -> Path:
        return self.home / ".gemini"

    @property
    def probe_log(self) -> Path:
        return self.home / PROBE_LOG

    def log_lines(self) -> list[str]:
        return self.probe_log.read_text().split() if self.probe_log.exists() else []

    def with_env(self, **extra: str) -> dict[str, str]:
        return {**self.env, **extra}


@pytest.fixture
def home(isolated_home, refusing_proxy) -> Home:
    """The isolated home with a person's own host settings in it, and the refusing proxy set."""
    env = dict(isolated_home.env)  # already routes every outbound request to the proxy
    h = Home(
        isolated_home.root, isolated_home.home, env, isolated_home.claude_dir,
        isolated_home.codex_home, refusing_proxy,
    )  # fmt: skip
    h.gemini_dir.mkdir(parents=True, exist_ok=True)
    (h.gemini_dir / "settings.json").write_text(GEMINI_SETTINGS)
    (h.claude_dir / "settings.json").write_text(CLAUDE_SETTINGS)
    (h.codex_home / "config.toml").write_text(codex_config(DEAD_BASE_URL))
    return h


def memhub(args: list[str], h: Home) -> Any:
    """The real memhub CLI as a subprocess, with the isolated HOME and MEMHUB_HOME."""
    return run([sys.executable, "-m", "memhub.compiler.cli.main", *args], env=h.env, cwd=h.root)


_TARGET_LINE = re.compile(r"^\s*(create|update|unchanged|delete)\s+(/.+)$")


def apply_hub(h: Home) -> dict[str, str]:
    """`memhub apply HUB --scope user --hosts codex,claude,gemini`; returns {target: kind}."""
    proc = memhub(["apply", str(HUB), "--scope", "user", "--hosts", APPLY_HOSTS], h)
    assert proc.returncode == 0, describe(proc)
    targets = {}
    for line in proc.stdout.splitlines():
        if m := _TARGET_LINE.match(line):
            targets[m.group(2)] = m.group(1)
    assert targets, describe(proc)
    return targets


def expected_targets(h: Home, skills: dict[str, str]) -> dict[str, str]:
    """The user-scope files of each host (hosts' documented locations, not the compiler's)."""
    out = {
        str(h.claude_dir / ".claude.json"): "create",
        str(h.claude_dir / "settings.json"): "update",
        str(h.codex_home / "config.toml"): "update",
        str(h.codex_home / "hooks.json"): "create",
        str(h.gemini_dir / "settings.json"): "update",
        # instructions: each host's global instruction file
        str(h.claude_dir / "CLAUDE.md"): "create",
        str(h.codex_home / "AGENTS.md"): "create",
        str(h.gemini_dir / "GEMINI.md"): "create",
    }
    # Codex and Gemini both read ~/.agents/skills (Gemini ahead of ~/.gemini/skills): one copy.
    for name in skills:
        for folder in (h.claude_dir / "skills", h.home / ".agents" / "skills"):
            out[str(folder / name)] = "create"
    return out


# ------------------------------------------------------------------ host output parsers
def parse_claude_mcp_get(text: str) -> dict[str, Any]:
    """`claude mcp get NAME` -> {"Type": ..., "Command": ..., "Environment": {K: V}, ...}."""
    fields: dict[str, Any] = {}
    env: dict[str, str] | None = None
    for line in text.splitlines():
        if env is not None and line.startswith("    ") and "=" in line:
            key, _, value = line.strip().partition("=")
            env[key] = value
            continue
        env = None
        m = re.match(r"^  ([A-Za-z ]+):\s*(.*)$", line)
        if m:
            if m.group(1) == "Environment":
                env = fields["Environment"] = {}
            else:
                fields[m.group(1)] = m.group(2).strip()
    return fields


_GEMINI_MCP_LINE = re.compile(r"^\S+\s+(\S+): (.*) \((stdio|http|sse)\)(?: - (.*))?$")


def parse_gemini_mcp_list(text: str) -> dict[str, tuple[str, str]]:
    """`gemini mcp list` -> {name: (command line or url, transport)}."""
    out = {}
    for line in text.splitlines():
        if m := _GEMINI_MCP_LINE.match(line.strip()):
            out[m.group(1)] = (m.group(2), m.group(3))
    return out


_SKILL_ROOT = re.compile(r"^- `(r\d+)` = `(.+)`$", re.M)
_SKILL_ENTRY = re.compile(r"^- ([^:\s]+): (.*) \(file: (r\d+)/(.+)\)$", re.M)


def codex_prompt_skills(prompt_input: str) -> dict[str, tuple[str, Path]]:
    """`codex debug prompt-input` -> {skill: (description, SKILL.md path)}."""
    items = json.loads(prompt_input)
    texts = [c.get("text") or "" for m in items for c in m.get("content") or []]
    block = next((t for t in texts if "<skills_instructions>" in t), "")
    roots = dict(_SKILL_ROOT.findall(block))
    return {
        name: (desc, Path(roots.get(root, root)) / rel)
        for name, desc, root, rel in _SKILL_ENTRY.findall(block)
    }


# ------------------------------------------------------------------ host runs
def gemini_env(h: Home, fake_gemini) -> dict[str, str]:
    return h.with_env(GEMINI_API_KEY="memhub-e2e-fake", GOOGLE_GEMINI_BASE_URL=fake_gemini.base_url)


def run_gemini_session(gemini: Path, h: Home, repo: Path, fake_gemini) -> dict[str, Any]:
    fake_gemini.shell_commands = [SHELL_COMMAND]
    argv = [gemini, "-m", "fake-model", "-p", PROMPT, "--yolo", "--skip-trust", "-o", "json"]
    proc = run(argv, env=gemini_env(h, fake_gemini), cwd=repo, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    assert GEMINI_REJECTS not in proc.stderr, describe(proc)
    try:
        result = json.loads(proc.stdout)
    except ValueError as exc:
        raise AssertionError(f"gemini -p -o json printed no JSON\n{describe(proc)}") from exc
    assert result.get("response") == fake_gemini.final_text, describe(proc)
    assert fake_gemini.function_call_count() == 1, fake_gemini.answers()
    result["_stderr"] = proc.stderr
    return result


def trust_user_hooks(codex: Path, h: Home, cwd: Path) -> list[dict[str, Any]]:
    """Trust the hooks of $CODEX_HOME/hooks.json the supported way (app-server `hooks/list`,
    then `config/batchWrite` of each `trusted_hash`, as a person does in /hooks). Returns them
    as listed afterwards; fails on any load warning or error."""
    source = str(h.codex_home / "hooks.json")

    def ours(listed: dict[str, Any]) -> list[dict[str, Any]]:
        problems = [p for e in listed["data"] for p in (e.get("warnings") or []) +
                    (e.get("errors") or [])]  # fmt: skip
        assert not problems, f"Codex reported problems loading hooks: {problems}"
        return [h for e in listed["data"] for h in e["hooks"] if h.get("sourcePath") == source]

    return codex_trust_hooks(codex, h.env, cwd, ours)


# ------------------------------------------------------------------ snapshots
def snapshot(root: Path) -> dict[str, str]:
    """Every file, link and folder under `root` -> a digest of its content and mode."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            st = path.lstat()
            mode = oct(stat.S_IMODE(st.st_mode))
            if stat.S_ISLNK(st.st_mode):
                out[rel] = f"link -> {os.readlink(path)}"
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = f"dir {mode}"
            elif stat.S_ISREG(st.st_mode):
                out[rel] = f"file {mode} sha256:{hashlib.sha256(path.read_bytes()).hexdigest()}"
            else:
                out[rel] = f"special {stat.S_IFMT(st.st_mode)}"
    return out


def changed(a: dict[str, str], b: dict[str, str]) -> set[str]:
    return {p for p in a.keys() | b.keys() if a.get(p) != b.get(p)}


def outermost(paths: set[str]) -> list[str]:
    """The paths not below another one of them (a readable summary of a snapshot diff)."""
    return sorted(p for p in paths if not any(p.startswith(q + "/") for q in paths))


def is_memhub_own(rel: str) -> bool:
    return rel == MEMHUB_DIR or rel.startswith(MEMHUB_DIR + "/")


# ================================================================== 1. hosts read the install
def test_hosts_read_applied_servers_and_skill(
    codex_cli: Path, claude_cli: Path, gemini_cli: Path, home: Home, git_repo: Path
) -> None:
    hub = read_install_hub()
    assert set(hub.servers) == {"probe-stdio", "probe-remote"}, "the install hub changed"
    stdio, remote = hub.servers["probe-stdio"], hub.servers["probe-remote"]
    literal_env, forwarded_env = split_env(stdio["env"])

    targets = apply_hub(home)
    assert targets == expected_targets(home, hub.skills), targets

    # apply kept what the person had in each file.
    gemini_settings = json.loads((home.gemini_dir / "settings.json").read_text())
    assert gemini_settings["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert gemini_settings["privacy"] == {"usageStatisticsEnabled": False}
    assert json.loads((home.claude_dir / "settings.json").read_text())["cleanupPeriodDays"] == 30
    codex_toml = tomllib.loads((home.codex_home / "config.toml").read_text())
    assert codex_toml["model_provider"] == CODEX_PROVIDER
    assert codex_toml["model_providers"][CODEX_PROVIDER]["base_url"] == DEAD_BASE_URL

    # Codex: both servers with the hub's fields.
    proc = run([codex_cli, "mcp", "list", "--json"], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    listed = {s["name"]: s for s in json.loads(proc.stdout)}
    assert set(listed) == set(hub.servers), listed
    assert all(s["enabled"] for s in listed.values()), listed
    got = listed["probe-stdio"]["transport"]
    assert got["type"] == "stdio", got
    assert (got["command"], got["args"]) == (stdio["command"], stdio["args"]), got
    assert got["env"] == literal_env, got
    assert sorted(got["env_vars"]) == sorted(forwarded_env), got
    got = listed["probe-remote"]["transport"]
    assert (got["type"], got["url"]) == ("streamable_http", remote["url"]), got

    # Claude Code: `mcp get` shows each server from the user config.
    proc = run([claude_cli, "mcp", "get", "probe-stdio"], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    got = parse_claude_mcp_get(proc.stdout)
    assert got.get("Scope", "").startswith("User config"), proc.stdout
    assert got.get("Type") == "stdio", proc.stdout
    assert got.get("Command") == stdio["command"], proc.stdout
    assert got.get("Args") == " ".join(stdio["args"]), proc.stdout
    # Claude's env syntax is ${NAME}; it expands it when it starts the server.
    want_env = {**literal_env, **{k: "${" + k + "}" for k in forwarded_env}}
    assert got.get("Environment") == want_env, proc.stdout
    proc = run([claude_cli, "mcp", "get", "probe-remote"], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    got = parse_claude_mcp_get(proc.stdout)
    assert got.get("Scope", "").startswith("User config"), proc.stdout
    assert (got.get("Type"), got.get("URL")) == ("http", remote["url"]), proc.stdout
    assert got.get("OAuth") == "client_id configured", proc.stdout
    # `mcp get` probes the server: it went to the URL, through the refusing proxy.
    host = remote["url"].split("/")[2]
    assert f"CONNECT {host}:443 HTTP/1.1" in home.proxy.seen, home.proxy.seen

    # Gemini CLI: both servers listed. Run outside any trusted folder, so it lists them without
    # starting them ("Disabled ... because this folder is untrusted").
    proc = run([gemini_cli, "mcp", "list"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    assert GEMINI_REJECTS not in proc.stderr, describe(proc)
    got = parse_gemini_mcp_list(proc.stdout + "\n" + proc.stderr)
    assert got == {
        "probe-stdio": (" ".join([stdio["command"], *stdio["args"]]), "stdio"),
        "probe-remote": (remote["url"], "http"),
    }, describe(proc)

    # Codex: the hub's skill is in the prompt, from ~/.agents/skills.
    proc = run([codex_cli, "debug", "prompt-input", "hello"], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    skills = codex_prompt_skills(proc.stdout)
    for name, description in hub.skills.items():
        assert name in skills, f"{name} not in the prompt's skills: {sorted(skills)}"
        assert skills[name] == (description, home.home / ".agents/skills" / name / "SKILL.md")
    # Codex: the hub's instructions are in the prompt, from $CODEX_HOME/AGENTS.md.
    assert probe_line(hub) in proc.stdout, proc.stdout[-3000:]


# ================================================================== 2. sessions fire the hooks
def test_claude_session_fires_user_hooks(
    claude_cli: Path, home: Home, git_repo: Path, fake_anthropic
) -> None:
    hub = read_install_hub()
    apply_hub(home)
    fake_anthropic.bash_commands = [SHELL_COMMAND]
    env = home.with_env(
        ANTHROPIC_BASE_URL=fake_anthropic.base_url,
        ANTHROPIC_API_KEY="sk-memhub-e2e-fake",
        IS_SANDBOX="1",  # runs as root here; --dangerously-skip-permissions is refused as root
    )
    argv = [claude_cli, "-p", PROMPT, "--output-format", "json", "--allowedTools", "Bash"]
    proc = run(argv, env=env, cwd=git_repo, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    result = json.loads(proc.stdout)
    assert result.get("is_error") is False and result.get("result") == fake_anthropic.final_text
    assert fake_anthropic.tool_use_count() == 1, fake_anthropic.answers()
    # SessionStart, PreToolUse (Bash), Stop from $CLAUDE_CONFIG_DIR/settings.json, in order.
    assert home.log_lines() == list(hub.log_words), home.log_lines()
    # The hub's skill is offered to the model (the Skill tool's list).
    first = json.dumps(fake_anthropic.requests[0].body)
    for name, description in hub.skills.items():
        assert json.dumps(f"- {name}: {description}")[1:-1] in first, name
    # ... and so are the hub's instructions, from $CLAUDE_CONFIG_DIR/CLAUDE.md.
    assert json.dumps(probe_line(hub))[1:-1] in first, "CLAUDE.md block not in the prompt"


def test_codex_exec_fires_user_hooks(
    codex_cli: Path, home: Home, git_repo: Path, fake_responses
) -> None:
    hub = read_install_hub()
    (home.codex_home / "config.toml").write_text(codex_config(fake_responses.base_url))
    apply_hub(home)
    hooks = trust_user_hooks(codex_cli, home, git_repo)
    assert sorted(h["eventName"] for h in hooks) == ["preToolUse", "sessionStart", "stop"], hooks
    assert all(h["trustStatus"] == "trusted" for h in hooks), json.dumps(hooks, indent=1)

    fake_responses.shell_commands = [SHELL_COMMAND]
    argv = [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", PROMPT]
    env = home.with_env(MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake")
    proc = run(argv, env=env, cwd=git_repo, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert any(e.get("type") == "turn.completed" for e in events), describe(proc)
    assert fake_responses.issued == 1, fake_responses.answers()
    # SessionStart, PreToolUse (Bash), Stop from $CODEX_HOME/hooks.json, in order.
    assert home.log_lines() == list(hub.log_words), (home.log_lines(), describe(proc))


def test_gemini_session_fires_user_hooks(
    gemini_cli: Path, home: Home, git_repo: Path, fake_gemini
) -> None:
    hub = read_install_hub()
    targets = apply_hub(home)
    assert targets[str(home.gemini_dir / "settings.json")] == "update"
    # selectedType was written before apply; without it headless Gemini exits 41.
    settings = json.loads((home.gemini_dir / "settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key", settings

    result = run_gemini_session(gemini_cli, home, git_repo, fake_gemini)
    assert result["stats"]["tools"]["byName"]["run_shell_command"]["success"] == 1, result
    # SessionStart, BeforeTool (run_shell_command), AfterAgent from ~/.gemini/settings.json.
    assert home.log_lines() == list(hub.log_words), (home.log_lines(), result["_stderr"])
    # The hub's skill is offered to the model (activate_skill lists the available skills).
    first = json.dumps(fake_gemini.requests[0].body)
    for name, description in hub.skills.items():
        assert f"<name>{name}</name>" in first, name
        assert json.dumps(description)[1:-1] in first, description
    # ... and so are the hub's instructions, from ~/.gemini/GEMINI.md.
    assert json.dumps(probe_line(hub))[1:-1] in first, "GEMINI.md block not in the prompt"


# ================================================================== 3. undo
def test_undo_restores_every_host_file(
    codex_cli: Path, claude_cli: Path, gemini_cli: Path, home: Home, git_repo: Path, fake_gemini
) -> None:
    """apply, use the hosts (a Gemini session whose hooks fire, Codex reading its config and
    skills), undo: every file under HOME is as before apply, byte for byte and mode for mode.

    Excluded from the comparison: MEMHUB_HOME (memhub's own journal, which records the undo)
    and exactly the paths the hosts created or changed between apply and undo (snapshot diff,
    no fixed list: Gemini's chats, history and projects.json, Codex's system skills, locks and
    ids, the hooks' log; tests/e2e/README.md lists them). Undo must leave those as the hosts
    left them, and none may be a file memhub wrote (undo would refuse, see the next test).
    """
    hub = read_install_hub()
    before = snapshot(home.home)
    apply_hub(home)
    applied = snapshot(home.home)
    memhub_wrote = {p for p in changed(before, applied) if not is_memhub_own(p)}
    assert memhub_wrote, "apply changed nothing"

    run_gemini_session(gemini_cli, home, git_repo, fake_gemini)
    assert home.log_lines() == list(hub.log_words)
    for argv in (["mcp", "list", "--json"], ["debug", "prompt-input", "hello"]):
        proc = run([codex_cli, *argv], env=home.env, cwd=git_repo)
        assert proc.returncode == 0, describe(proc)
    used = snapshot(home.home)
    hosts_wrote = {p for p in changed(applied, used) if not is_memhub_own(p)}
    overlap = sorted(
        p for p in hosts_wrote if any(p == m or p.startswith(m + "/") for m in memhub_wrote)
    )
    assert not overlap, f"the hosts rewrote files memhub wrote: {overlap}"

    proc = memhub(["undo"], home)
    assert proc.returncode == 0, describe(proc)
    after = snapshot(home.home)

    wrong = []
    for path in sorted(before.keys() | after.keys() | used.keys()):
        if is_memhub_own(path):
            continue
        want = used.get(path) if path in hosts_wrote else before.get(path)
        if after.get(path) != want:
            wrong.append(f"{path}: want {want}, found {after.get(path)}")
    assert not wrong, "undo did not restore the home:\n  " + "\n  ".join(wrong)
    print("excluded (written by the hosts between apply and undo):", outermost(hosts_wrote))

    # The hosts no longer see the hub.
    proc = run([codex_cli, "mcp", "list", "--json"], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    assert not {s["name"] for s in json.loads(proc.stdout)} & set(hub.servers), proc.stdout
    proc = run([gemini_cli, "mcp", "list"], env=home.env, cwd=home.root)
    assert proc.returncode == 0, describe(proc)
    assert not parse_gemini_mcp_list(proc.stdout + proc.stderr), describe(proc)
    proc = run([claude_cli, "mcp", "get", "probe-stdio"], env=home.env, cwd=git_repo)
    assert proc.returncode != 0, describe(proc)


def test_undo_after_hosts_rewrite_applied_files_reverts_only_memhub_entries(
    codex_cli: Path, claude_cli: Path, home: Home, git_repo: Path
) -> None:
    """Claude Code rewrites $CLAUDE_CONFIG_DIR/.claude.json (memhub's MCP target) on every start,
    and trusting Codex hooks writes `hooks.state` into $CODEX_HOME/config.toml. `memhub undo`
    then reverts memhub's own entries only: the hosts' additions stay, the servers go."""
    apply_hub(home)
    proc = run([claude_cli, "mcp", "get", "probe-stdio"], env=home.env, cwd=git_repo)
    assert proc.returncode == 0, describe(proc)
    hooks = trust_user_hooks(codex_cli, home, git_repo)
    assert hooks and all(h["trustStatus"] == "trusted" for h in hooks), hooks
    claude_json = home.claude_dir / ".claude.json"
    host_keys = set(json.loads(claude_json.read_text())) - {"mcpServers"}

    proc = memhub(["undo"], home)
    assert proc.returncode == 0, describe(proc)
    after = json.loads(claude_json.read_text())
    assert "probe-stdio" not in after.get("mcpServers", {}), after
    assert host_keys <= set(after), "keys Claude Code wrote itself must survive the undo"
    config = (home.codex_home / "config.toml").read_text()
    assert "[mcp_servers.probe-stdio]" not in config and "hooks.state" in config, config
    proc = run([claude_cli, "mcp", "get", "probe-stdio"], env=home.env, cwd=git_repo)
    assert proc.returncode != 0, describe(proc)
