"""memhub's memory server used by the real hosts, each against a scripted model calling its tools.

`memhub apply` of tests/e2e/hubs/memory (`memory: {server: write}`: stdio `memhub mcp serve
--write` started in the host's working folder) installs the server and its
guidance into Claude Code, Codex and Gemini CLI at user scope. Every session runs in a real
git checkout connected with `memhub project connect`. The fake model (fake_tools.py) calls
the tools by the name each host gives them (Claude Code first loads the deferred tool through
ToolSearch, as a model does), and the test reads what the host sent back as each tool's
result: that is what the model sees.

* Claude Code saves a fact: the record file lands in the project's memory (kind, title, body,
  project, source agent, active); the guidance is in its prompt.
* Codex, in the same project, finds it with `search_memory`; an `update_memory` with the
  current revision goes through, one with the old revision is refused naming the record and
  both revisions, and the file keeps the first update.
* A fact saved in an unrelated project (another repository with the same folder name, saved
  from a subfolder) never reaches Codex: no search finds it, and reading, updating or
  deleting it by id answers exactly as for an id nobody made; its file is untouched.
* A checkout nobody connected: the save is refused naming `memhub project connect`, and
  nothing lands.
* `memory: {server: read}`: each host offers the read tools, none of the write tools.
* A lesson Claude Code saves lands proposed: Codex's `recall_directives` for a matching
  command returns it only after `memhub memory accept`.
* Gemini CLI saves and finds a fact the same way.
* `memhub doctor`: a memory server the host cannot start (the bare word `memhub` an older
  memhub installed, with no memhub on the host's PATH) fails naming the host's own words.

Every test runs while each core is kept busy (`cpu_load`), in folders the hosts have never
seen, with nothing on PATH but the system's: the hosts start the memory server by the
absolute path the install gave it. MEMHUB_HOME is not the default `~/.memhub`, so a server
that did not get it (Codex passes only the variables an entry names) would use a memory
the tests never read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.memory import layout, records

from .fake_tools import Call, Result, ToolsAnthropic, ToolsGemini, ToolsResponses
from .harness import HUBS_DIR, describe, run
from .test_install_hosts import DEAD_BASE_URL, GEMINI_SETTINGS, codex_config

pytestmark = [pytest.mark.e2e, pytest.mark.memory_e2e, pytest.mark.usefixtures("cpu_load")]

SESSION_TIMEOUT_S = 150
HUB = HUBS_DIR / "memory"
READ_HUB = HUBS_DIR / "memory-read"  # the same server without its write tools
SERVER = "memhub-memory"  # the server `memory:` installs: Claude calls mcp__memhub-memory__<tool>
GUIDANCE = "Propose saving (`save_memory`)"  # a line of the guidance `memory:` delivers
WRITE_TOOLS = ("save_memory", "update_memory", "delete_memory")
HOSTS = "claude,codex,gemini"

FACT = {
    "kind": "fact",
    "title": "Deploys",
    "content": "Deploys run from the blue-kiwi runner, never from laptops.",
}
UPDATED = "Deploys run from the blue-kiwi runner; the green-fig runner is the fallback."
STALE = "Deploys run from anywhere."
NEVER = "r-20260101000000-0badc0de"  # a record id nobody made
OTHER = {
    "kind": "fact",
    "title": "Deploys",
    "content": "Deploys of the other team go through the violet-otter.",
}


@dataclass
class Memory:
    """The isolated home with the memory hub applied, and where records land."""

    iso: Any
    root: Path  # $MEMHUB_HOME/memory, with MEMHUB_HOME not ~/.memhub

    @property
    def env(self) -> dict[str, str]:
        return self.iso.env

    def records(self, project_id: str) -> dict[str, bytes]:
        """The record files of a project: {record id: bytes}."""
        folder = layout.project_records(self.root, project_id)
        files = sorted(folder.glob("*.md")) if folder.is_dir() else []
        return {path.stem: path.read_bytes() for path in files}

    def record_file(self, project_id: str, record_id: str) -> Path:
        return layout.record_path(self.root, "project", project_id, record_id)

    def memhub(self, *args: str, cwd: Path | None = None) -> Any:
        """The real memhub CLI as a subprocess, in the isolated home."""
        argv = [sys.executable, "-m", "memhub.compiler.cli.main", *args]
        return run(argv, env=self.env, cwd=cwd or self.iso.root)


@pytest.fixture(scope="module")
def handshakes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The memory server's handshake caches (read and write servers), primed once for the
    module: `memhub apply` primes them in every fresh MEMHUB_HOME, two SDK imports each time,
    and the caches are the same in every home (their key is memhub's and the SDK's code)."""
    home = tmp_path_factory.mktemp("primed")
    for mode in ("write", "read"):
        argv = [sys.executable, "-m", "memhub.runtime.server.primer", str(home), mode]
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "MEMHUB_HOME": str(home)}
        proc = run(argv, env=env, cwd=home)
        assert proc.returncode == 0, describe(proc)
    return home / "cache"


def applied(iso: Any, hub: Path, primed: Path) -> Memory:
    """The isolated home with a person's host settings, and `hub` applied at user scope
    (memhub's state in a MEMHUB_HOME of its own, not ~/.memhub, its handshake caches as
    `memhub apply` leaves them, copied from `primed`)."""
    state = iso.root / "memhub-state"
    iso.env["MEMHUB_HOME"] = os.environ["MEMHUB_HOME"] = str(state)  # the fixture restores it
    (state / "cache").mkdir(parents=True)
    for cache in primed.glob("mcp-handshake-*.json"):
        shutil.copyfile(cache, state / "cache" / cache.name)
    gemini = iso.home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(GEMINI_SETTINGS)
    (iso.codex_home / "config.toml").write_text(codex_config(DEAD_BASE_URL))
    memory = Memory(iso, layout.memory_root(state))
    proc = memory.memhub("apply", str(hub), "--scope", "user", "--hosts", HOSTS)
    assert proc.returncode == 0, describe(proc)
    return memory


def nothing_in_the_default_home(memory: Memory) -> None:
    """No server wrote to ~/.memhub: each was given MEMHUB_HOME."""
    default = memory.iso.home / ".memhub"
    assert not default.exists(), sorted(str(p) for p in default.rglob("*"))


@pytest.fixture
def memory(isolated_home: Any, handshakes: Path) -> Memory:
    return applied(isolated_home, HUB, handshakes)


def checkout(memory: Memory, where: str, *, connect: bool = True) -> tuple[Path, str | None]:
    """A git checkout with one commit at `where` (under the temp root), connected to a new
    project with `memhub project connect`; returns it and the project id."""
    repo = memory.iso.root / where
    repo.mkdir(parents=True)
    run(["git", "init", "-q", repo], env=memory.env, check=True, timeout=30)
    argv = ["git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "init"]
    run(argv, env=memory.env, check=True, timeout=30)
    if not connect:
        return repo, None
    proc = memory.memhub("project", "connect", str(repo), "--json")
    assert proc.returncode == 0, describe(proc)
    return repo, json.loads(proc.stdout)["data"]["project"]["id"]


# ------------------------------------------------------------------ host sessions
@dataclass(frozen=True)
class Session:
    """What one host session showed the model: the tool results, the tools offered, and
    every request the host sent (JSON text), where its instructions are."""

    results: list[Result]
    offered: frozenset[str]
    sent: str


def claude(cli: Path, memory: Memory, cwd: Path, calls: list[Call]) -> Session:
    """One `claude -p` session in `cwd`, the model making `calls`; its MCP log (Claude
    Code's debug file) is shown when a call goes unanswered."""
    log = memory.iso.root / f"claude-debug-{len(list(memory.iso.root.glob('claude-debug-*')))}"
    with ToolsAnthropic(calls) as fake:
        env = {**memory.env, "ANTHROPIC_BASE_URL": fake.base_url,
               "ANTHROPIC_API_KEY": "sk-memhub-e2e-fake", "IS_SANDBOX": "1"}  # fmt: skip
        argv = [cli, "-p", "remember the deploy rule", "--output-format", "json"]
        proc = run([*argv, "--allowedTools", f"mcp__{SERVER}", "--debug-file", log],
                   env=env, cwd=cwd, timeout=SESSION_TIMEOUT_S)  # fmt: skip
        assert proc.returncode == 0, describe(proc)
        assert json.loads(proc.stdout).get("is_error") is False, describe(proc)
        return _session(fake, fake.results(), calls, proc, log)


def codex(cli: Path, memory: Memory, cwd: Path, calls: list[Call]) -> Session:
    """One `codex exec` session in `cwd`, the model making `calls`.

    Codex (0.171) offers the model the MCP servers that have listed their tools about a
    second after the session starts: memhub's server answers the handshake from the cache
    `memhub apply` filled, before the MCP SDK has loaded, busy machine or not."""
    with ToolsResponses(calls) as fake:
        config = memory.iso.codex_home / "config.toml"
        written = config.read_text()
        assert written.startswith(codex_config(DEAD_BASE_URL)[:40]), written  # the
        # person's own provider (apply kept it, first), pointed at this session's fake
        url = f'base_url = "{fake.base_url}"'
        config.write_text(re.sub(r'^base_url = ".*"$', url, written, count=1, flags=re.M))
        argv = [cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "find"]
        env = {**memory.env, "MEMHUB_E2E_FAKE_KEY": "sk-memhub-e2e-fake"}
        proc = run(argv, env=env, cwd=cwd, timeout=SESSION_TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        return _session(fake, fake.results(), calls, proc)


def gemini(cli: Path, memory: Memory, cwd: Path, calls: list[Call]) -> Session:
    """One `gemini -p` session in `cwd` (made a trusted folder: Gemini starts stdio servers
    only there), the model making `calls`."""
    trusted = memory.iso.home / ".gemini" / "trustedFolders.json"
    folders = json.loads(trusted.read_text()) if trusted.exists() else {}
    trusted.write_text(json.dumps({**folders, str(cwd): "TRUST_FOLDER"}, indent=2))
    with ToolsGemini(calls) as fake:
        env = {**memory.env, "GEMINI_API_KEY": "memhub-e2e-fake",
               "GOOGLE_GEMINI_BASE_URL": fake.base_url}  # fmt: skip
        argv = [cli, "-m", "fake-model", "-p", "remember", "--yolo", "--skip-trust", "-o", "json"]
        proc = run(argv, env=env, cwd=cwd, timeout=SESSION_TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        return _session(fake, fake.results(), calls, proc)


def _session(
    fake: Any, results: list[Result], calls: list[Call], proc: Any, log: Path | None = None
) -> Session:
    """The session, once every scripted call got a result (else say what was offered, and
    what the host's log says of MCP)."""
    mcp = [line for line in _lines(log) if "MCP" in line or SERVER in line]
    assert len(results) == len(calls), (
        f"{len(results)} of {len(calls)} tool calls answered; offered: {sorted(fake.offered)}"
        f"\n{describe(proc)}\nthe host's MCP log:\n" + "\n".join(mcp[-60:])
    )
    sent = "\n".join(json.dumps(r.body) for r in fake.requests)
    return Session(results, frozenset(fake.offered), sent)


def _lines(log: Path | None) -> list[str]:
    if log is None or not log.is_file():
        return []
    return log.read_text(encoding="utf-8", errors="replace").splitlines()


def saved_record(memory: Memory, project_id: str) -> records.Record:
    """The one record file of the project, parsed."""
    files = memory.records(project_id)
    assert len(files) == 1, sorted(files)
    ((name, data),) = files.items()
    return records.parse_record(data, name)


def _output(text: str) -> str:
    """A tool result without the host's timing line (Codex: `Wall time: ...`, `Output:`)."""
    return text.split("Output:\n", 1)[-1]


def offers(session: Session, tool: str) -> bool:
    """Whether the host offered MCP tool `tool` of memhub's server to the model."""
    return any(name.endswith(tool) and SERVER in name for name in session.offered) or (
        # Codex groups a server's tools in a namespace: bare names
        tool in session.offered
    )


# ------------------------------------------------------------------ tests
def test_claude_saves_codex_finds_and_a_stale_update_fails(
    claude_cli: Path, codex_cli: Path, memory: Memory
) -> None:
    repo, pid = checkout(memory, "app")
    assert pid is not None
    session = claude(claude_cli, memory, repo, [Call("save_memory", FACT)])
    (saved,) = session.results
    assert not saved.is_error, saved
    assert json.dumps(GUIDANCE)[1:-1] in session.sent, "the memory guidance is not in the prompt"
    record = saved_record(memory, pid)
    assert (record.title, record.body.strip()) == (FACT["title"], FACT["content"]), record
    assert (record.kind, record.scope, record.project) == ("fact", "project", pid), record
    assert record.source.kind == "agent" and record.status == "active", record
    assert record.id in saved.text, saved  # the model is told which record it made
    path = memory.record_file(pid, record.id)
    first = records.revision(path.read_bytes())

    calls = [
        Call("search_memory", {"query": "blue-kiwi"}),
        Call("update_memory", {"id": record.id, "revision": first, "content": UPDATED}),
        Call("update_memory", {"id": record.id, "revision": first, "content": STALE}),
    ]
    session = codex(codex_cli, memory, repo, calls)
    found, updated, stale = session.results
    assert json.dumps(GUIDANCE)[1:-1] in session.sent, "the memory guidance is not in the prompt"
    assert record.id in found.text and "blue-kiwi" in found.text, found
    assert not found.is_error and not updated.is_error, (found, updated)
    after = path.read_bytes()
    assert records.parse_record(after, str(path)).body.strip() == UPDATED
    # The stale write: an error naming the record, and the file keeps the first update.
    assert record.id in stale.text and first in stale.text, stale
    assert records.revision(after) in stale.text, stale  # and the revision it has now
    assert "error" in stale.text.lower() or stale.is_error, stale
    assert STALE not in after.decode()
    assert memory.records(pid) == {record.id: after}
    nothing_in_the_default_home(memory)


def test_unrelated_project_fact_never_appears(
    claude_cli: Path, codex_cli: Path, memory: Memory
) -> None:
    """Project B's fact (saved by Claude Code in a subfolder of B's checkout, which has the
    same folder name as A's) is out of reach of Codex in A: searches for its words, its id
    or everything; reading, updating or deleting it by id."""
    repo, pid = checkout(memory, "team-a/app")
    other_repo, other = checkout(memory, "team-b/app")
    assert pid is not None and other is not None and other != pid
    deep = other_repo / "src" / "deep"
    deep.mkdir(parents=True)
    claude(claude_cli, memory, repo, [Call("save_memory", FACT)])
    (saved,) = claude(claude_cli, memory, deep, [Call("save_memory", OTHER)]).results
    mine, theirs = saved_record(memory, pid), saved_record(memory, other)
    assert theirs.id in saved.text, saved
    their_file = memory.record_file(other, theirs.id)
    their_bytes = their_file.read_bytes()
    their_revision = records.revision(their_bytes)

    queries = ["violet-otter", "deploys", "Deploys of the other team", theirs.id, "*"]
    calls = [Call("search_memory", {"query": q}) for q in queries]
    by_id = [
        ("get_memory", {}),
        ("update_memory", {"revision": their_revision, "content": STALE}),
        ("delete_memory", {"revision": their_revision}),
    ]
    for tool, args in by_id:  # B's id, then an id nobody ever used: the same answer
        calls += [Call(tool, {"id": theirs.id, **args}), Call(tool, {"id": NEVER, **args})]
    results = codex(codex_cli, memory, repo, calls).results
    assert mine.id in results[1].text, results[1]  # the common word finds this project's fact
    for call, result in zip(calls, results, strict=True):
        for leak in ("violet-otter", "other team", "team-b", other, their_revision):
            assert leak not in result.text, (call, leak, result)
    for theirs_result, never_result in zip(results[5::2], results[6::2], strict=True):
        assert "error" in never_result.text.lower(), never_result
        assert _output(theirs_result.text).replace(theirs.id, NEVER) == _output(never_result.text)
    assert their_file.read_bytes() == their_bytes


def test_session_outside_a_project_saves_nothing(claude_cli: Path, memory: Memory) -> None:
    """A checkout nobody connected: the server starts with the shared memory only, and a
    save (project scope, the default) is refused naming `memhub project connect`; nothing
    lands anywhere."""
    repo, _ = checkout(memory, "loose", connect=False)
    (refused,) = claude(claude_cli, memory, repo, [Call("save_memory", FACT)]).results
    assert refused.is_error and "memhub project connect" in refused.text, refused
    written = [p for p in memory.root.rglob("*.md") if p.parent.name == "records"]
    assert written == [], written


def test_read_only_server_offers_no_write_tools(
    claude_cli: Path, codex_cli: Path, gemini_cli: Path, isolated_home: Any, handshakes: Path
) -> None:
    """`memory: {server: read}`: each host offers the read tools and none of the write ones
    (Claude Code names its deferred tools in the system prompt; the search loads one)."""
    memory = applied(isolated_home, READ_HUB, handshakes)
    repo, _ = checkout(memory, "app")
    search = [Call("search_memory", {"query": "deploys"})]
    hosts = {"claude": claude, "codex": codex, "gemini": gemini}
    clis = {"claude": claude_cli, "codex": codex_cli, "gemini": gemini_cli}
    for host, session_of in hosts.items():
        session = session_of(clis[host], memory, repo, search)
        assert not session.results[0].is_error and "items" in session.results[0].text, session
        named = session.offered | set(re.findall(r"mcp__[\w-]+__\w+", session.sent))
        seen = Session(session.results, frozenset(named), session.sent)
        assert offers(seen, "get_memory") and offers(seen, "list_memory"), (host, named)
        assert not any(offers(seen, tool) for tool in WRITE_TOOLS), (host, named)


def test_gemini_saves_and_finds(gemini_cli: Path, memory: Memory) -> None:
    repo, pid = checkout(memory, "app")
    assert pid is not None
    calls = [Call("save_memory", FACT), Call("search_memory", {"query": "blue-kiwi"})]
    session = gemini(gemini_cli, memory, repo, calls)
    saved, found = session.results
    assert not saved.is_error and not found.is_error, (saved, found)
    assert json.dumps(GUIDANCE)[1:-1] in session.sent, "the memory guidance is not in the prompt"
    record = saved_record(memory, pid)
    assert (record.title, record.body.strip()) == (FACT["title"], FACT["content"]), record
    assert record.source.kind == "agent" and record.project == pid, record
    assert record.id in found.text and "blue-kiwi" in found.text, found
    nothing_in_the_default_home(memory)


LESSON = {
    "kind": "lesson",
    "title": "Deploys need the staging lock",
    "content": "Take the staging lock before make deploy: two deploys at once corrupt the cache.",
    "triggers": {"commands": ["make deploy"]},
}


def test_agent_lesson_fires_only_after_a_person_accepts_it(
    claude_cli: Path, codex_cli: Path, memory: Memory
) -> None:
    """A lesson Claude Code saves lands proposed; Codex's recall_directives for a matching
    command returns nothing until `memhub memory accept` makes it active, then returns it."""
    repo, pid = checkout(memory, "app")
    assert pid is not None
    (saved,) = claude(claude_cli, memory, repo, [Call("save_memory", LESSON)]).results
    assert not saved.is_error, saved
    lesson = saved_record(memory, pid)
    assert (lesson.kind, lesson.status, lesson.source.kind) == ("lesson", "proposed", "agent")
    assert lesson.triggers.commands == ("make deploy",), lesson.triggers
    recall = Call("recall_directives", {"tool": "Bash", "args": {"command": "make deploy prod"}})

    (before,) = codex(codex_cli, memory, repo, [recall]).results
    assert lesson.id not in before.text and "items" in before.text, before
    proc = memory.memhub("memory", "accept", lesson.id, "--yes", cwd=repo)
    assert proc.returncode == 0, describe(proc)
    assert saved_record(memory, pid).status == "active"
    (after,) = codex(codex_cli, memory, repo, [recall]).results
    assert lesson.id in after.text and "staging lock" in after.text, after


def test_doctor_fails_naming_the_hosts_words_when_the_server_cannot_start(
    claude_cli: Path, codex_cli: Path, gemini_cli: Path, memory: Memory
) -> None:
    """The memory server as an older memhub installed it, the bare word `memhub`, with no
    memhub on the host's PATH (the Quickstart's venv): Claude Code and Codex cannot start it,
    and doctor fails with their own words; Gemini's entry (by path) starts."""
    claude_json = memory.iso.claude_dir / ".claude.json"
    data = json.loads(claude_json.read_text())
    data["mcpServers"][SERVER]["command"] = "memhub"
    claude_json.write_text(json.dumps(data, indent=2))
    config = memory.iso.codex_home / "config.toml"
    table = re.escape(f"[mcp_servers.{SERVER}]")
    text = re.sub(rf'({table}\n(?:.*\n)*?command = )".*"', r'\1"memhub"', config.read_text())
    config.write_text(text)
    clis = [str(cli.parent) for cli in (claude_cli, codex_cli, gemini_cli)]
    env = {**memory.env, "PATH": os.pathsep.join([*dict.fromkeys(clis), memory.env["PATH"]])}
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "doctor", "--hosts", HOSTS]
    proc = run([*argv, "--json"], env=env, cwd=memory.iso.root)
    assert proc.returncode == 1, describe(proc)
    checks = json.loads(proc.stdout)["data"]["checks"]
    starts = {c["host"]: c for c in checks if c["name"] == "server-start"}
    assert sorted(starts) == ["claude", "codex", "gemini"], checks
    assert starts["claude"]["status"] == "fail", starts
    assert 'ENOENT: Executable not found in $PATH: "memhub"' in starts["claude"]["detail"]
    assert starts["codex"]["status"] == "fail", starts
    assert "No such file or directory" in starts["codex"]["detail"], starts
    assert starts["gemini"]["status"] == "ok", starts
    assert "memhub apply" in starts["claude"]["fix"]
