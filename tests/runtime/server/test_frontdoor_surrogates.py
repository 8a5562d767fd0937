"""A request whose JSON holds a lone surrogate escape (`"\\ud83c"`, what Node writes when it
cuts a string inside an emoji) is answered through the real `memhub mcp serve`: the call runs
with U+FFFD in its place, as capture stores such text, instead of the SDK dropping the line
unanswered and the client waiting out its timeout."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.server import frontdoor

from tests.runtime.server import kit
from tests.runtime.server.world import World, make_world

HELLO = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
PATIENCE_S = 120.0  # generous: a bound on a hang, not a timing claim


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


class Lines:
    """`memhub mcp serve --write` spoken to in JSON-RPC lines, its answers read by a thread
    so a request it never answers fails the test instead of hanging it."""

    def __init__(self, folder: Path) -> None:
        self.process = subprocess.Popen(
            [kit.MEMHUB, "mcp", "serve", "--write"],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**kit.env(), frontdoor.PRIMING: "1"},
        )
        self.out: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.out.put(json.loads(line))

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        # ensure_ascii: a lone surrogate goes out as its `\\udxxx` escape, as Node writes it
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, rid: Any) -> dict[str, Any]:
        while True:
            try:
                got = self.out.get(timeout=PATIENCE_S)
            except queue.Empty:
                raise AssertionError(f"request {rid!r} was never answered") from None
            if got.get("id") == rid:
                return got

    def call(self, rid: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments}
        self.send({"id": rid, "method": "tools/call", "params": params})
        return self.answer(rid)

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=60)


def test_a_lone_surrogate_in_a_tool_argument_is_answered_with_u_fffd(world: World) -> None:
    server = Lines(world.app)
    try:
        server.send({"id": 1, "method": "initialize", "params": HELLO})
        server.answer(1)
        server.send({"method": "notifications/initialized"})
        saved = server.call(
            2,
            "save_memory",
            {
                "kind": "fact",
                "title": "Kiwi cut \ud83c mid-emoji",
                "content": "the body, cut \udf4e too",
            },
        )
        assert not saved["result"].get("isError"), saved
        rid = saved["result"]["structuredContent"]["id"]
        got = server.call(3, "get_memory", {"id": rid})["result"]["structuredContent"]
        found = server.call(4, "search_memory", {"query": "kiwi \ud83c"})
        assert not found["result"].get("isError"), found
    finally:
        assert server.close() == 0
    record = got["record"]
    assert "\ufffd" in record["title"] and "\ufffd" in record["content"], record
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in json.dumps(record, ensure_ascii=False))
    assert rid in [item["id"] for item in found["result"]["structuredContent"]["items"]]


@pytest.mark.parametrize(
    ("sent", "passed"),
    [
        ({"a": "x\ud83c y"}, {"a": "x\ufffd y"}),
        ({"\udc00": ["\udfff", 1]}, {"\ufffd": ["\ufffd", 1]}),
        ({"a": "🍎"}, None),  # a pair is the character it encodes: the line is left alone
        ({"a": "\\ud83c"}, None),  # an escaped backslash before `u` is no escape
    ],
)
def test_only_lone_surrogates_are_mended(sent: dict[str, Any], passed: Any) -> None:
    line = json.dumps(sent).encode() + b"\n"
    out = frontdoor.mended(line)
    assert out == line if passed is None else json.loads(out) == passed
    assert out.endswith(b"\n") and out.count(b"\n") == 1
