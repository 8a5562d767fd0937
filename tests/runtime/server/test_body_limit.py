"""Every write tool that takes a body refuses one over the record body limit as a tool error
naming the size, the limit and what to do, and writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from memhub.runtime.memory.records import MAX_BODY_BYTES
from memhub.runtime.memory.workspace import open_workspace
from memhub.runtime.server import app

from tests.runtime.server import kit

BIG = "word " * (MAX_BODY_BYTES // 5 + 1)  # just over the limit


def test_write_tools_refuse_a_body_over_the_limit(tmp_path: Path) -> None:
    folder = kit.repo(tmp_path / "app")
    kit.connect(folder, "app")
    served = app.build(open_workspace(kit.home(), project=folder, writable=True), folder=folder)

    def refused(result: Any) -> None:
        error = kit.error(result)
        assert error["kind"] == "body-too-large", error
        assert f"{len(BIG):,} bytes" in error["message"] and "262,144-byte" in error["message"]
        assert "split it into several records" in error["fix"]

    async def scenario() -> None:
        async with Client(served.server) as client:
            saved = kit.data(
                await client.call_tool(
                    "save_memory", {"kind": "fact", "title": "Small", "content": "fits"}
                )
            )
            refused(
                await client.call_tool(
                    "save_memory", {"kind": "fact", "title": "Huge", "content": BIG}
                )
            )
            refused(
                await client.call_tool(
                    "update_memory",
                    {"id": saved["id"], "revision": saved["revision"], "content": BIG},
                )
            )
            refused(await client.call_tool("save_artifact", {"name": "Spec", "content": BIG}))
            listed = kit.data(await client.call_tool("list_memory", {}))
            assert [item["title"] for item in listed["items"]] == ["Small"]
            got = kit.data(await client.call_tool("get_memory", {"id": saved["id"]}))
            assert got["revision"] == saved["revision"]

    try:
        anyio.run(scenario)
    finally:
        served.close()
