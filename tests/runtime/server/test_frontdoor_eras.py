"""The front door answers what real clients send before the MCP SDK has loaded, every answer
in the one protocol era the SDK will serve the session in, and the session works once the SDK
is there.

The SDK decides a connection's era from its first request: a request carrying the 2026-07-28
`_meta` envelope (Claude Code 2.1's `server/discover` probe) opens a modern connection,
anything else (`initialize`) a legacy one. The probe sequences below are the real clients',
captured from `memhub mcp serve` started by claude 2.1.332, codex 0.171.0 and gemini 0.61.0.
The SDK's import is held by a gate (a meta-path finder in a sitecustomize on PYTHONPATH that
waits for a file), so "before the SDK is ready" is a fact of the test, not a matter of timing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.server import frontdoor

from tests.runtime.server import gate, kit
from tests.runtime.server.gate import Gated
from tests.runtime.server.world import World, make_world

PV = "io.modelcontextprotocol/protocolVersion"
CLAUDE_INFO = {
    "name": "claude-code",
    "title": "Claude Code",
    "version": "2.1.332",
    "description": "Anthropic's agentic coding tool",
    "websiteUrl": "https://claude.com/claude-code",
}
CLAUDE_CAPS = {"roots": {"listChanged": True}, "elicitation": {"form": {}, "url": {}}}
ENVELOPE = {
    PV: "2026-07-28",
    "io.modelcontextprotocol/clientInfo": CLAUDE_INFO,
    "io.modelcontextprotocol/clientCapabilities": CLAUDE_CAPS,
}
PROBE = "server-discover-probe-1"


def modern(rid: Any, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"_meta": ENVELOPE, **params}}


def legacy(rid: Any, method: str, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    return {**message, "params": params} if params else message


def initialize(rid: Any, version: str, client: dict[str, Any]) -> dict[str, Any]:
    hello = {"protocolVersion": version, "capabilities": {}, "clientInfo": client}
    return legacy(rid, "initialize", **hello)


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


@pytest.fixture
def primed() -> None:
    gate.prime(True)


@pytest.fixture
def gated(world: World, tmp_path: Path) -> Iterator[Gated]:
    server = Gated(world.app, tmp_path)
    try:
        yield server
    finally:
        server.close()


def era(answer: dict[str, Any]) -> str:
    """The protocol era an answer belongs to: a modern result carries `resultType`, a legacy
    one never; a refusal of the other era's request says which era the server serves."""
    if "result" in answer:
        return "modern" if "resultType" in answer["result"] else "legacy"
    error = answer.get("error", {})
    if error.get("code") == -32022 or "envelope" in error.get("message", ""):
        return "modern"  # a modern connection refusing a handshake-era request
    return "legacy"


def call(rid: Any, session_era: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return (
        modern(rid, "tools/call", **params)
        if session_era == "modern"
        else (legacy(rid, "tools/call", **params))
    )


def works(server: Gated, session_era: str) -> None:
    """After the SDK is released: a save and a search in the session's era both succeed."""
    server.release()
    fact = {"kind": "fact", "title": "Gate", "content": "The door held the amber-heron."}
    server.send(call("save", session_era, "save_memory", fact))
    # the save's answer first: reads and writes run on their own threads, so a search sent
    # before a save is answered need not see it (as for any two calls in flight at once)
    saved = server.wait("save")
    server.send(call("find", session_era, "search_memory", {"query": "amber-heron"}))
    got = {**saved, **server.wait("find")}
    assert set(got) == {"save", "find"}, got
    for rid, answer in got.items():
        assert "result" in answer and not answer["result"].get("isError"), (rid, answer)
    assert "amber-heron" in json.dumps(got["find"]["result"])


LISTENED = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
LISTEN = modern("listen:0", "subscriptions/listen", notifications=LISTENED)
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
CLAUDE_MODERN = [
    modern(PROBE, "server/discover"),
    modern(0, "server/discover"),
    modern(1, "prompts/list"),
    modern(2, "resources/list"),
    modern(3, "tools/list"),
]


def test_claude_code_probe_is_answered_in_the_modern_era_before_the_sdk(
    primed: None, gated: Gated
) -> None:
    """Claude Code 2.1.332 opens with `server/discover` (the envelope), opens its
    notification stream (`subscriptions/listen`) and waits for its acknowledgement, then
    discovers again and lists prompts, resources and tools: every answer comes while the SDK
    is held, each a modern one (the era the SDK will serve), the stream is acknowledged once,
    and the session then saves and finds."""
    rids = [m["id"] for m in CLAUDE_MODERN]
    gated.send(CLAUDE_MODERN[0])
    first = gated.wait(PROBE)
    gated.send(LISTEN)
    ((ack, held),) = gated.notified(ACKNOWLEDGED)
    assert held and ack["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": "listen:0"}
    assert ack["params"]["notifications"] == LISTENED, ack
    gated.send(*CLAUDE_MODERN[1:])
    got = {**first, **gated.wait(*rids[1:])}
    assert gated.held(*rids) == rids, f"answered while the SDK was held: {gated.held(*rids)}"
    assert {rid: era(a) for rid, a in got.items()} == dict.fromkeys(rids, "modern"), got
    assert got[PROBE]["result"]["supportedVersions"] == ["2026-07-28"]
    assert [t["name"] for t in got[3]["result"]["tools"]], got[3]
    works(gated, "modern")
    assert len(gated.notified(ACKNOWLEDGED)) == 1, "the SDK's own acknowledgement went out too"


def test_claude_code_fallback_initialize_gets_the_era_of_its_probe(
    primed: None, world: World, tmp_path: Path
) -> None:
    """With no modern answers cached, the probe waits for the SDK, and Claude Code sends
    `initialize` after 3 s: that session is already a modern one (its first request was the
    probe), so the cached legacy handshake must not answer it; the SDK's own refusal does,
    and Claude Code goes on in the modern era."""
    path = frontdoor.cache_file(kit.home(), True)
    stored = json.loads(path.read_text())
    stored.pop("modern", None)  # what a cache filled by legacy clients alone holds
    if "eras" in stored:
        stored["eras"].pop("modern", None)
    path.write_text(json.dumps(stored))
    server = Gated(world.app, tmp_path)
    try:
        server.send(CLAUDE_MODERN[0])
        server.send(initialize(0, "2025-11-25", CLAUDE_INFO))
        server.release()
        got = server.wait(PROBE, 0)
        assert era(got[PROBE]) == "modern" and era(got[0]) == "modern", got
        server.send(*CLAUDE_MODERN[2:])
        listed = server.wait(1, 2, 3)
        assert {rid: era(a) for rid, a in listed.items()} == dict.fromkeys((1, 2, 3), "modern")
        works(server, "modern")
    finally:
        server.close()


def test_codex_handshake_is_answered_in_the_legacy_era_before_the_sdk(
    primed: None, gated: Gated
) -> None:
    """Codex 0.171: initialize (2025-06-18), initialized, tools/list with a progress token."""
    codex = {"name": "codex-mcp-client", "title": "Codex", "version": "0.171.0"}
    gated.send(initialize(0, "2025-06-18", codex))
    gated.wait(0)
    gated.send(INITIALIZED, legacy(1, "tools/list", _meta={"progressToken": 0}))
    got = gated.wait(0, 1)
    assert gated.held(0, 1) == [0, 1], gated.held(0, 1)
    assert {rid: era(a) for rid, a in got.items()} == {0: "legacy", 1: "legacy"}, got
    assert got[0]["result"]["protocolVersion"] == "2025-06-18"
    works(gated, "legacy")


def test_gemini_handshake_is_answered_in_the_legacy_era_before_the_sdk(
    primed: None, gated: Gated
) -> None:
    """Gemini CLI 0.61: initialize, initialized, then prompts/list, tools/list and
    resources/list, each sent only once the one before it is answered."""
    gemini = {"name": "gemini-cli-mcp-client", "version": "0.61.0"}
    gated.send(initialize(0, "2025-06-18", gemini))
    gated.wait(0)
    gated.send(INITIALIZED)
    for rid, method in enumerate(("prompts/list", "tools/list", "resources/list"), 1):
        gated.send(legacy(rid, method))
        gated.wait(rid)
    got = gated.wait(0, 1, 2, 3)
    assert gated.held(0, 1, 2, 3) == [0, 1, 2, 3], gated.held(0, 1, 2, 3)
    assert {rid: era(a) for rid, a in got.items()} == dict.fromkeys((0, 1, 2, 3), "legacy")
    assert got[1]["result"] == {"prompts": []} and got[3]["result"] == {"resources": []}
    works(gated, "legacy")


def test_a_request_of_the_other_era_is_left_to_the_sdk(primed: None, gated: Gated) -> None:
    """A legacy session (opened by initialize) is never answered a modern result, even for a
    request carrying the envelope: the SDK refuses it, and the front door agrees."""
    gated.send(initialize(0, "2025-06-18", {"name": "t", "version": "1"}), INITIALIZED)
    gated.send(modern(1, "tools/list"))
    gated.release()
    got = gated.wait(0, 1)
    assert era(got[0]) == "legacy" and "error" in got[1], got


def test_the_primer_fills_both_eras(primed: None) -> None:
    """`memhub apply` primes the answers of both eras, so neither kind of client waits."""
    cache = frontdoor.Cache(frontdoor.cache_file(kit.home(), True), frontdoor.cache_key(True))
    assert cache.complete
    assert cache.answer("modern", "server/discover", "2026-07-28") is not None
    assert cache.answer("legacy", "initialize", "2025-06-18") is not None
    for method in ("tools/list", "prompts/list", "resources/list"):
        assert "resultType" in cache.answer("modern", method, "2026-07-28"), method
        assert "resultType" not in cache.answer("legacy", method, "2025-06-18"), method


def test_the_cache_key_covers_every_server_module(tmp_path: Path) -> None:
    """A tool added in a new module of runtime/server changes the key: no stale list."""
    sources = frontdoor.key_sources()
    here = Path(frontdoor.__file__).parent
    assert set(sources) == {p.name for p in here.glob("*.py")}
    assert os.path.basename(frontdoor.__file__) in sources


def test_the_door_opens_before_the_cli_is_parsed(
    primed: None, world: World, tmp_path: Path
) -> None:
    """Importing the CLI (click) is most of a server's time to its first answer, and Codex
    offers only the servers that answer within about a second: `memhub mcp serve` answers
    the handshake while click's import is still held, then serves as ever."""
    server = Gated(world.app, tmp_path, "--write", gated="click")
    try:
        server.send(initialize(0, "2025-06-18", {"name": "codex-mcp-client", "version": "0.171.0"}))
        server.send(INITIALIZED, legacy(1, "tools/list"))
        got = server.wait(0, 1)
        assert server.held(0, 1) == [0, 1], "the door waited for the CLI"
        assert era(got[0]) == "legacy" and got[1]["result"]["tools"], got
        works(server, "legacy")
    finally:
        server.close()


def test_a_primed_cache_is_complete_for_its_key_alone(tmp_path: Path) -> None:
    """What the primer asked and the SDK did not answer (an SDK without the modern era, say)
    is left to the SDK: the cache is not primed again at every start, until the key changes."""
    path = tmp_path / "cache.json"
    cache = frontdoor.Cache(path, "key-1")
    legacy = {"capabilities": {}, "serverInfo": {"name": "memhub", "version": ""}}
    cache.learn("legacy", "initialize", "2025-06-18", {"protocolVersion": "2025-06-18", **legacy})
    assert not frontdoor.Cache(path, "key-1").complete
    cache.mark_primed()
    again = frontdoor.Cache(path, "key-1")
    assert again.complete and again.answer("modern", "server/discover", "2026-07-28") is None
    assert again.answer("legacy", "initialize", "2025-06-18") == {
        "protocolVersion": "2025-06-18",
        **legacy,
    }
    assert not frontdoor.Cache(path, "key-2").complete
