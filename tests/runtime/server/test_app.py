"""The SDK wiring in-process: results and errors as MCP shapes, a bug that keeps the server up,
and read tool calls running on the reader threads (test_workers.py: that none waits for
another)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from memhub.runtime.memory.errors import StaleRevision
from memhub.runtime.memory.workspace import open_workspace
from memhub.runtime.server import app, workers
from memhub.runtime.server.shapes import ToolFailure

from tests.runtime.server import kit


def test_a_result_is_structured_content_and_the_same_json_as_text() -> None:
    result = app.result_of(lambda **_: {"items": [{"id": "r-1", "content": "é"}]}, {})
    assert not result.is_error
    assert result.structured_content == {"items": [{"id": "r-1", "content": "é"}]}
    assert result.content[0].text == '{"items":[{"id":"r-1","content":"é"}]}'


@pytest.mark.parametrize(
    ("raised", "kind", "text"),
    [
        (ToolFailure("scope 'x' is not served here", "use project"), "invalid", "not served"),
        (StaleRevision("r-1", "a" * 64, "b" * 64), "stale-revision", "b" * 64),
        (ValueError("record id '../x' is not a valid name"), "invalid", "not a valid name"),
    ],
)
def test_expected_failures_are_tool_errors_that_say_what_and_how(
    raised: Exception, kind: str, text: str
) -> None:
    def tool(**_: Any) -> dict[str, Any]:
        raise raised

    result = app.result_of(tool, {})
    assert result.is_error and result.structured_content["error"]["kind"] == kind
    assert text in result.content[0].text


def test_a_bug_is_an_internal_tool_error_that_leaks_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def search_memory(**_: Any) -> dict[str, Any]:
        raise RuntimeError("/home/someone/.memhub/memory/projects/p-secret/records/x.md")

    result = app.result_of(search_memory, {})
    assert result.is_error
    assert result.content[0].text == "internal error (RuntimeError) in search_memory: see the log"
    assert "p-secret" not in kit.wire(result)
    assert "p-secret" in capsys.readouterr().err  # the traceback goes to the server's log


def test_read_calls_run_on_the_reader_threads(tmp_path: Path) -> None:
    folder = kit.repo(tmp_path / "app")
    kit.connect(folder, "app")
    kit.seed("r-a-fact", "A fact", "Something true.", project=None)
    served = app.build(open_workspace(kit.home(), project=folder, writable=False), folder=folder)
    threads: set[str] = set()
    service = served.reads.service
    original = service.get

    def spy(record_id: str) -> Any:
        threads.add(threading.current_thread().name)
        return original(record_id)

    service.get = spy  # type: ignore[method-assign]

    async def scenario() -> None:
        async with Client(served.server) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == kit.READ_TOOLS  # read-only: no write tool is even registered
            async with anyio.create_task_group() as group:
                for _ in range(20):
                    group.start_soon(client.call_tool, "get_memory", {"id": "r-a-fact"})
            found = await client.call_tool("search_memory", {"query": "true"})
            assert [item["id"] for item in kit.data(found)["items"]] == ["r-a-fact"]

    try:
        anyio.run(scenario)
    finally:
        served.close()
    assert threads and all(name.startswith("memhub-mcp-read-") for name in threads)
    assert len(threads) <= workers.READERS  # 21 calls, 20 of them at once
