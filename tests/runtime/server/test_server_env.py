"""Every memhub variable the memory server reads is one an install forwards where a host
filters its servers' environment (Codex passes only the names an entry lists in `env_vars`):
hubspec.memory.SERVER_ENV. A read the list misses would make Codex's server use another
memory than the hooks and the CLI, silently.

The server runs as hosts run it (`memhub mcp serve --write`, every tool called once) with a
sitecustomize that notes each environment variable it looks up.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from memhub.hubspec.memory import SERVER_ENV
from memhub.runtime.server import frontdoor

from tests.runtime.server import kit
from tests.runtime.server.world import World, make_world

NOTE_ENV = "MEMHUB_TEST_ENV_NOTES"
SITECUSTOMIZE = f"""
import os
_getitem = os._Environ.__getitem__
def _noted(self, key):
    path = _getitem(self, {NOTE_ENV!r})
    with open(path, "a", encoding="utf-8") as notes:
        notes.write(str(key) + "\\n")
    return _getitem(self, key)
os._Environ.__getitem__ = _noted
"""
# Not settings of a person's: the mark the primer gives its own servers, and this test's.
INTERNAL = {frontdoor.PRIMING, NOTE_ENV}
HELLO = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
CALLS = {
    "search_memory": {"query": "blue-green deploys"},
    "get_memory": {"id": "r-a-fact"},
    "list_memory": {},
    "recall_directives": {"tool": "Bash", "args": {"command": "git push"}},
    "get_brain_overview": {},
    "list_agent_brains": {},
    "list_orgs": {},
    "import_conversation": {
        "messages": [{"role": "user", "content": "hello"}],
        "conversation_id": "c-1",
        "source_platform": "claude",
    },
    "save_memory": {"kind": "fact", "title": "Env", "content": "The env-heron was here."},
}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


def test_the_server_reads_no_memhub_variable_an_install_does_not_forward(
    world: World, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    notes = tmp_path / "notes"
    env = {**kit.env(), "PYTHONPATH": str(site), NOTE_ENV: str(notes), frontdoor.PRIMING: "1"}
    messages = [
        {"id": 0, "method": "initialize", "params": HELLO},
        {"method": "notifications/initialized"},
        *(
            {"id": n, "method": "tools/call", "params": {"name": name, "arguments": args}}
            for n, (name, args) in enumerate(CALLS.items(), 1)
        ),
    ]
    text = "".join(json.dumps({"jsonrpc": "2.0", **m}) + "\n" for m in messages)
    proc = subprocess.Popen(
        [kit.MEMHUB, "mcp", "serve", "--write"],
        cwd=world.app,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(text.encode())
    proc.stdin.flush()
    answered = set()
    for line in proc.stdout:  # every call answered, then the session ends
        answered.add(json.loads(line).get("id"))
        if answered >= set(range(len(CALLS) + 1)):
            break
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    read = {name for name in notes.read_text().split() if name.startswith("MEMHUB_")}
    assert "MEMHUB_HOME" in read, read
    assert read - INTERNAL <= set(SERVER_ENV), f"not forwarded: {read - INTERNAL - set(SERVER_ENV)}"
