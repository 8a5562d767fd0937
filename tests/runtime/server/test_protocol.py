"""What real hosts send: the handshake-era protocol versions over stdio, as raw JSON-RPC lines,
and every tool once over HTTP with the SDK client."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.runtime.server import kit
from tests.runtime.server.world import World, make_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


class Lines:
    """A server process spoken to in newline-delimited JSON-RPC, as hosts do."""

    def __init__(self, folder: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [kit.MEMHUB, "mcp", "serve", *args],
            cwd=folder,  # hosts start the server in the project: the default project
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=kit.env(),
        )
        self.next_id = 0

    def send(self, method: str, params: dict[str, Any] | None = None, *, note: bool = False) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not note:
            self.next_id += 1
            message["id"] = self.next_id
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        if note:
            return None
        while True:
            line = self.process.stdout.readline()
            assert line, "the server closed its output"
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                return reply

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
def test_a_host_speaking_an_older_protocol_gets_every_answer(world: World, version: str) -> None:
    server = Lines(world.app, "--write")
    try:
        hello = server.send(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "host", "version": "1"},
            },
        )
        assert hello["result"]["protocolVersion"] == version
        assert hello["result"]["serverInfo"]["name"] == "memhub"
        assert "search_memory" in hello["result"]["instructions"]
        server.send("notifications/initialized", note=True)
        listed = server.send("tools/list", {})["result"]["tools"]
        assert {tool["name"] for tool in listed} == kit.READ_TOOLS | kit.WRITE_TOOLS
        search = next(tool for tool in listed if tool["name"] == "search_memory")
        assert search["inputSchema"]["required"] == ["query"]
        assert search["annotations"]["readOnlyHint"] is True
        reply = server.send(
            "tools/call", {"name": "search_memory", "arguments": {"query": "blue-green"}}
        )
        result = reply["result"]
        assert result["isError"] is False
        items = json.loads(result["content"][0]["text"])["items"]  # the text block alone suffices
        assert [item["id"] for item in items] == ["r-a-fact"]
        if version >= "2025-06-18":
            assert result["structuredContent"]["items"] == items
        failed = server.send("tools/call", {"name": "get_memory", "arguments": {"id": "r-b-fact"}})
        assert (
            failed["result"]["isError"] is True
            and "no record" in failed["result"]["content"][0]["text"]
        )
        wrong = server.send("tools/call", {"name": "search_memory", "arguments": {"top_k": "many"}})
        assert wrong["result"]["isError"] is True  # a malformed call is a tool error, not a crash
        unknown = server.send("tools/call", {"name": "drop_everything", "arguments": {}})
        assert "error" in unknown or unknown["result"]["isError"] is True
        again = server.send("tools/call", {"name": "list_orgs", "arguments": {}})
        assert again["result"]["isError"] is False  # and the server is still there
    finally:
        server.close()


def test_every_tool_over_http(world: World) -> None:
    async def scenario(url: str, key: str) -> None:
        async with kit.http_client(url, key) as client:

            async def ok(name: str, /, **arguments: Any) -> dict[str, Any]:
                return kit.data(await client.call_tool(name, arguments))

            assert [i["id"] for i in (await ok("search_memory", query="blue-green"))["items"]] == [
                "r-a-fact"
            ]
            got = await ok("get_memory", id="r-a-fact")
            assert {i["id"] for i in (await ok("list_memory"))["items"]} >= {"r-a-fact"}
            fired = await ok("recall_directives", tool="Bash", args={"command": "git push"})
            assert [i["id"] for i in fired["items"]] == ["r-a-lesson"]
            assert (await ok("get_brain_overview"))["agent_brain_id"] == world.app_id
            assert (await ok("list_agent_brains"))["agent_brains"][0]["name"] == "app"
            assert (await ok("list_orgs"))["orgs"][0]["org_id"] == "local"
            ack = await ok("import_conversation", messages=[{"id": "x1"}], conversation_id="h-1")
            assert ack["ack_through"] == "x1"
            saved = await ok("save_memory", kind="decision", title="Use HTTP", content="Because.")
            art = await ok("save_artifact", name="Spec", content="# Spec\n")
            assert art["kind"] == "artifact"
            updated = await ok(
                "update_memory", id=saved["id"], revision=saved["revision"], title="Use HTTP 1.1"
            )
            await ok("delete_memory", id=saved["id"], revision=updated["revision"])
            stale = await client.call_tool(
                "update_memory", {"id": "r-a-fact", "revision": "0" * 64, "title": "x"}
            )
            assert kit.error(stale)["current_revision"] == got["revision"]

    with kit.http_server(world.app, "--write") as server:
        anyio.run(scenario, server.url, server.key)
