"""The stdio front door: the handshake from the cache, the same answers the SDK gives, and a
cache that a stale entry, an odd file, a kill or a second server cannot break."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.server import doorcache, frontdoor

from tests.runtime.server import kit
from tests.runtime.server.gate import Gated
from tests.runtime.server.world import World, make_world

VERSION = "2025-06-18"  # what Codex 0.171 asks for
HELLO = {
    "protocolVersion": VERSION,
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


class Raw:
    """`memhub mcp serve` spoken to in JSON-RPC lines, every line it writes kept."""

    def __init__(self, folder: Path, *args: str, primer: bool = False) -> None:
        self.started = time.perf_counter()
        # a cold server starts a detached primer: only the test of the primer wants one
        env = kit.env() if primer else {**kit.env(), frontdoor.PRIMING: "1"}
        self.process = subprocess.Popen(
            [kit.MEMHUB, "mcp", "serve", *args],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.lines: list[dict[str, Any]] = []

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        for message in messages:
            self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, rid: Any) -> dict[str, Any]:
        """The reply to request `rid` (every line before it kept in `lines`)."""
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            assert line, f"the server closed its output before answering {rid!r}"
            self.lines.append(json.loads(line))
            if self.lines[-1].get("id") == rid:
                return self.lines[-1]

    def handshake(self) -> tuple[dict[str, Any], dict[str, Any], float]:
        """initialize, initialized, tools/list: both answers and the seconds to the list."""
        self.send({"id": 1, "method": "initialize", "params": HELLO})
        hello = self.answer(1)
        self.send({"method": "notifications/initialized"}, {"id": 2, "method": "tools/list"})
        listed = self.answer(2)
        return hello, listed, time.perf_counter() - self.started

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)


def cache_path(writable: bool = True) -> Path:
    return frontdoor.cache_file(kit.home(), writable)


def listed_in_cache(writable: bool = True) -> Any:
    """The legacy tool list the cache file holds."""
    return json.loads(cache_path(writable).read_text())["legacy"]["answers"]["tools/list"]


def served(world: World, *args: str) -> tuple[dict[str, Any], dict[str, Any], float]:
    server = Raw(world.app, *args)
    try:
        return server.handshake()
    finally:
        assert server.close() == 0


def test_a_warm_start_lists_the_tools_before_the_sdk_is_loaded(
    world: World, tmp_path: Path
) -> None:
    """A cold start fills the cache with the SDK's answers; a warm start gives the same
    answers, byte for byte in JSON, while the SDK's import is still held (gate.py)."""
    cold_hello, cold_list, _ = served(world, "--write")
    assert cache_path().is_file()
    server = Gated(world.app, tmp_path)
    try:
        server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO})
        server.wait(1)
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        server.send(initialized, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        got = server.wait(1, 2)
        assert server.held(1, 2) == [1, 2], "the SDK answered: the cache did not"
    finally:
        server.close()
    assert (got[1]["result"], got[2]["result"]) == (cold_hello["result"], cold_list["result"])


def test_the_sdk_still_answers_everything_after_a_cached_handshake(world: World) -> None:
    served(world, "--write")  # fills the cache
    server = Raw(world.app, "--write")
    try:
        _, listed, _ = server.handshake()
        server.send({"id": 3, "method": "tools/list"}, {"id": "s", "method": "ping"})
        again = server.answer(3)
        assert again["result"] == listed["result"]  # the SDK's own list: the same
        assert server.answer("s")["result"] == {}
        args = {"name": "search_memory", "arguments": {"query": "blue-green"}}
        found = server.answer(_call(server, 4, args))
        assert "r-a-fact" in json.dumps(found["result"]), found
    finally:
        assert server.close() == 0
    ids = [line.get("id") for line in server.lines]
    assert not any(str(rid).startswith("memhub-frontdoor") for rid in ids), ids
    assert ids == [1, 2, 3, "s", 4], "every request answered once, and nothing else"


def _call(server: Raw, rid: int, params: dict[str, Any]) -> int:
    server.send({"id": rid, "method": "tools/call", "params": params})
    return rid


def test_a_pipelined_session_gets_each_answer_once(world: World) -> None:
    """A host that sends the whole handshake and a call before reading anything."""
    served(world, "--write")
    server = Raw(world.app, "--write")
    try:
        server.send(
            {"id": 1, "method": "initialize", "params": HELLO},
            {"method": "notifications/initialized"},
            {"id": 2, "method": "tools/list"},
            {"id": 3, "method": "tools/call", "params": {"name": "list_orgs", "arguments": {}}},
        )
        assert "error" not in server.answer(3)
    finally:
        assert server.close() == 0
    assert sorted(line["id"] for line in server.lines) == [1, 2, 3]


def test_a_stale_cache_is_served_once_then_corrected(world: World) -> None:
    _, truth, _ = served(world, "--write")
    stale = json.loads(cache_path().read_text())
    gone = {"tools": [{"name": "gone_tool", "inputSchema": {"type": "object"}}]}
    stale["legacy"]["answers"]["tools/list"] = gone
    cache_path().write_text(json.dumps(stale))
    server = Raw(world.app, "--write")
    try:
        _, listed, _ = server.handshake()
        server.send({"id": 3, "method": "ping"})  # a host that stays: the SDK is up
        server.answer(3)
    finally:
        assert server.close() == 0
    assert [t["name"] for t in listed["result"]["tools"]] == ["gone_tool"]
    assert listed_in_cache() == truth["result"]
    assert served(world, "--write")[1]["result"] == truth["result"]


def test_another_protocol_version_is_left_to_the_sdk(world: World) -> None:
    served(world, "--write")
    server = Raw(world.app, "--write")
    try:
        odd = {**HELLO, "protocolVersion": "1999-01-01"}
        server.send({"id": 1, "method": "initialize", "params": odd})
        hello = server.answer(1)
    finally:
        server.close()
    assert hello["result"]["protocolVersion"] != "1999-01-01"  # the SDK's own choice


def test_read_and_write_servers_keep_their_own_lists(world: World) -> None:
    writes = {t["name"] for t in served(world, "--write")[1]["result"]["tools"]}
    reads = {t["name"] for t in served(world)[1]["result"]["tools"]}
    assert reads == kit.READ_TOOLS and writes == kit.READ_TOOLS | kit.WRITE_TOOLS
    assert {t["name"] for t in served(world)[1]["result"]["tools"]} == kit.READ_TOOLS
    assert {t["name"] for t in served(world, "--write")[1]["result"]["tools"]} == writes


@pytest.mark.parametrize("odd", ["garbage", "huge", "directory", "fifo", "symlink"])
def test_an_odd_cache_file_is_no_cache(world: World, tmp_path: Path, odd: str) -> None:
    path = cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    outside = tmp_path / "outside.json"
    outside.write_text("keep me")
    if odd == "garbage":
        path.write_bytes(b"\xff{not json")
    elif odd == "huge":
        path.write_text(json.dumps({"pad": "x" * (doorcache.MAX_CACHE_BYTES + 1)}))
    elif odd == "directory":
        path.mkdir()
    elif odd == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(outside)
    hello, listed, _ = served(world, "--write")
    assert hello["result"]["serverInfo"]["name"] == "memhub"
    assert {t["name"] for t in listed["result"]["tools"]} == kit.READ_TOOLS | kit.WRITE_TOOLS
    assert outside.read_text() == "keep me"  # a symlink is replaced, never written through
    if odd in ("garbage", "huge", "symlink"):
        assert listed_in_cache() == listed["result"]


def test_a_server_killed_after_the_handshake_has_saved_the_cache(world: World) -> None:
    """Hosts end their servers with a signal: the cache is written when it is learnt."""
    server = Raw(world.app, "--write")
    server.handshake()
    deadline = time.monotonic() + 10
    while not cache_path().is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=30)
    assert json.loads(cache_path().read_text())["key"] == frontdoor.cache_key(True)


def test_two_cold_servers_at_once_leave_one_good_cache(world: World) -> None:
    first, second = Raw(world.app, "--write"), Raw(world.app, "--write")
    try:
        a, b = first.handshake(), second.handshake()
    finally:
        assert first.close() == 0 and second.close() == 0
    assert a[1]["result"] == b[1]["result"]
    assert listed_in_cache() == a[1]["result"]
    assert not [p for p in cache_path().parent.iterdir() if p.name.startswith(".handshake-")]


def test_a_host_that_hangs_up_at_once_ends_the_server(world: World) -> None:
    served(world, "--write")
    for messages in ([], [{"id": 1, "method": "initialize", "params": HELLO}]):
        server = Raw(world.app, "--write")
        server.send(*messages)
        assert server.close() == 0


def test_a_cold_server_killed_at_once_still_leaves_a_cache(world: World) -> None:
    """Codex kills its servers (SIGKILL) when a short session ends, often before the SDK is
    loaded: the primer the cold server started fills the cache anyway."""
    server = Raw(world.app, "--write", primer=True)
    server.send({"id": 1, "method": "initialize", "params": HELLO})
    # Kill it as soon as its primer runs (the primer's lock file), as Codex kills a server
    # when a short session ends; a fixed sleep raced the front door on a busy machine.
    lock = cache_path().with_name(cache_path().name + ".lock")
    started = time.monotonic() + 60
    while not lock.exists() and time.monotonic() < started:
        time.sleep(0.01)
    assert lock.exists(), "the cold server started no primer"
    server.process.kill()
    server.process.wait(timeout=30)
    # The primer's own server saves the cache (one version) before the primer adds the SDK's
    # echoed versions in a second write: wait for the second, not the first.
    echoed = {"2025-06-18", "2025-11-25"}
    deadline = time.monotonic() + 60
    cache = frontdoor.Cache(cache_path(), frontdoor.cache_key(True))
    while not (cache.complete and echoed <= set(cache.eras["legacy"].versions)):
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
        cache = frontdoor.Cache(cache_path(), frontdoor.cache_key(True))
    assert cache.complete, "no primer filled the cache"
    assert echoed <= set(cache.eras["legacy"].versions), "the primer did not add the versions"
    hello, listed, _ = served(world, "--write")
    assert hello["result"] == cache.answer("legacy", "initialize", VERSION)
    assert listed["result"] == cache.answer("legacy", "tools/list", VERSION)


def test_apply_of_a_hub_with_memory_fills_the_cache(tmp_path: Path) -> None:
    """The first session after `memhub apply` is warm: apply primed the server's cache."""
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(
        "version: 1\nplugin: {name: primed, version: 0.1.0, description: Primed}\n"
        "marketplace: {name: primed-market, owner: {name: Probe}}\nmemory: {server: read}\n"
    )
    project = kit.repo(tmp_path / "project")
    argv = [kit.MEMHUB, "apply", str(hub), "--scope", "project", "--project", str(project)]
    proc = subprocess.run([*argv, "--hosts", "claude"], env=kit.env(), capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()
    cache = frontdoor.Cache(cache_path(writable=False), frontdoor.cache_key(False))
    assert cache.complete and VERSION in cache.eras["legacy"].versions
    tools = cache.answer("legacy", "tools/list", VERSION)
    assert tools is not None and {t["name"] for t in tools["tools"]} == kit.READ_TOOLS
    assert not cache_path(writable=True).exists()
