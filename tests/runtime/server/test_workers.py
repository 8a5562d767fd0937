"""Tool calls do not queue behind one another's I/O: with one call blocked inside the service,
other tools answer through the real server (SDK client, in process) while it still waits;
released, it answers too. Writes still run one at a time."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from memhub.runtime.memory.workspace import open_workspace
from memhub.runtime.server import app
from memhub.runtime.server.workers import Lane

from tests.runtime.server import kit

GUARD_S = 30  # only a hang guard: the calls below answer at once or never


@pytest.fixture
def served(tmp_path: Path) -> Any:
    folder = kit.repo(tmp_path / "app")
    kit.connect(folder, "app")
    kit.seed("r-a-fact", "A fact", "Something true.", project=None)
    made = app.build(open_workspace(kit.home(), project=folder, writable=True), folder=folder)
    yield made
    made.close()


def blocked(served: Any, method: str) -> tuple[threading.Event, threading.Event]:
    """Make the service's `method` wait for a release: (entered, release)."""
    service = served.reads.service
    real = getattr(service, method)
    entered, release = threading.Event(), threading.Event()

    def slow(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        assert release.wait(GUARD_S), "never released"
        return real(*args, **kwargs)

    setattr(service, method, slow)
    return entered, release


def test_a_blocked_search_does_not_hold_up_other_tools(served: Any) -> None:
    entered, release = blocked(served, "search")
    answered_while_blocked: list[str] = []

    async def scenario() -> None:
        async with Client(served.server) as client:
            results: dict[str, Any] = {}

            async def slow() -> None:
                results["search"] = await client.call_tool("search_memory", {"query": "true"})

            async with anyio.create_task_group() as group:
                group.start_soon(slow)
                with anyio.fail_after(GUARD_S):
                    while not entered.is_set():
                        await anyio.sleep(0.005)
                    for tool, args in (("list_orgs", {}), ("get_memory", {"id": "r-a-fact"})):
                        kit.data(await client.call_tool(tool, args))
                        if not release.is_set():
                            answered_while_blocked.append(tool)
                release.set()
            found = kit.data(results["search"])
            assert [item["id"] for item in found["items"]] == ["r-a-fact"]

    try:
        anyio.run(scenario)
    finally:
        release.set()
    assert answered_while_blocked == ["list_orgs", "get_memory"]


def test_a_blocked_write_holds_up_writes_only(served: Any) -> None:
    entered, release = blocked(served, "apply")
    order: list[str] = []

    async def scenario() -> None:
        async with Client(served.server) as client:

            async def save(title: str) -> None:
                result = await client.call_tool(
                    "save_memory", {"kind": "fact", "title": title, "content": title}
                )
                order.append(kit.data(result)["title"])

            async with anyio.create_task_group() as group:
                group.start_soon(save, "first")
                with anyio.fail_after(GUARD_S):
                    while not entered.is_set():
                        await anyio.sleep(0.005)
                    group.start_soon(save, "second")
                    listed = kit.data(await client.call_tool("list_memory", {}))
                    assert [item["title"] for item in listed["items"]] == ["A fact"]
                    assert order == []  # both writes wait: the first one is still blocked
                release.set()

    try:
        anyio.run(scenario)
    finally:
        release.set()
    assert order == ["first", "second"]


def test_a_lane_starts_a_thread_only_when_none_is_free() -> None:
    released: list[str] = []
    lane = Lane("t", 3, lambda: released.append(threading.current_thread().name))
    assert lane.submit(lambda: 1).result() == 1
    assert lane.submit(lambda: 2).result() == 2  # the first thread, free again
    gate = threading.Event()
    slow = lane.submit(lambda: gate.wait(GUARD_S))
    deadline = time.monotonic() + GUARD_S
    while not slow.running() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert lane.submit(lambda: threading.current_thread().name).result() == "t-1"
    gate.set()
    assert slow.result() is True
    lane.close()
    assert sorted(released) == ["t-0", "t-1"]  # each thread released its own, once
