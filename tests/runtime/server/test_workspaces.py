"""The workspace a server is started with: no project, a project without shared memory, a
folder that is no project, the shared scope only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.runtime.server import kit
from tests.runtime.server.world import OTHER_WORD, World, make_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


async def call(client: Any, tool: str, /, **arguments: Any) -> Any:
    return await client.call_tool(tool, arguments)


def ids(items: list[dict[str, Any]]) -> set[str]:
    return {item["id"] for item in items}


def test_a_server_with_no_project_serves_the_shared_memory_only(
    world: World, tmp_path: Path
) -> None:
    outside = tmp_path / "loose"
    outside.mkdir()

    async def scenario() -> None:
        params = kit.StdioServerParameters(
            command=kit.MEMHUB, args=["mcp", "serve", "--write"], env=kit.env(), cwd=str(outside)
        )
        async with kit.Client(params, read_timeout_seconds=60) as client:
            listed = kit.data(await call(client, "list_memory"))
            assert ids(listed["items"]) == {"r-shared-pref"}
            brains = kit.data(await call(client, "list_agent_brains"))["agent_brains"]
            assert [b["agent_brain_id"] for b in brains] == ["shared"]
            refused = await call(client, "save_memory", kind="fact", title="t", content="c")
            assert kit.error(refused)["kind"] == "no-project"
            assert "memhub project connect" in kit.error(refused)["fix"]
            saved = await call(
                client, "save_memory", kind="fact", title="t", content="c", scope="shared"
            )
            assert kit.data(saved)["scope"] == "shared"

    anyio.run(scenario)


def test_a_project_that_disables_shared_memory_never_sees_it(tmp_path: Path) -> None:
    private = kit.repo(tmp_path / "private")
    pid = kit.connect(private, "private", shared=False)
    kit.seed("r-shared-pref", "Format Python with ruff", "ruff everywhere", project=None)
    kit.seed("r-private", "Private ruff note", "ruff but private", project=pid)

    async def scenario() -> None:
        async with kit.stdio(private) as client:
            hits = kit.data(await call(client, "search_memory", query="ruff"))
            assert ids(hits["items"]) == {"r-private"}
            assert (
                kit.error(await call(client, "get_memory", id="r-shared-pref"))["kind"]
                == "not-found"
            )
            asked = await call(client, "list_memory", scope="shared")
            assert "not served" in kit.error(asked)["message"]

    anyio.run(scenario)


def test_a_folder_named_that_is_no_project_serves_shared_memory_and_a_typo_fails(
    world: World, tmp_path: Path
) -> None:
    import subprocess

    missing = tmp_path / "no-such-folder"
    done = subprocess.run(
        [kit.MEMHUB, "mcp", "serve", "--project", str(missing)],
        capture_output=True,
        text=True,
        env=kit.env(),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2 and "no such folder" in done.stderr
    loose = tmp_path / "loose"
    loose.mkdir()
    errors = tmp_path / "stderr.log"

    async def scenario() -> None:
        with errors.open("w") as log:
            params = kit.StdioServerParameters(
                command=kit.MEMHUB, args=["mcp", "serve", "--project", str(loose)], env=kit.env()
            )
            transport = kit.stdio_client(params, errlog=log)
            async with kit.Client(transport, read_timeout_seconds=60) as client:
                listed = kit.data(await call(client, "list_memory"))
                assert ids(listed["items"]) == {"r-shared-pref"}

    anyio.run(scenario)
    said = errors.read_text()
    assert "not inside a git checkout" in said and "serving shared" in said
    assert OTHER_WORD not in said


def test_a_server_for_the_shared_scope_only_saves_there_when_asked(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app, "--write", "--scope", "shared") as client:
            listed = kit.data(await call(client, "list_memory"))
            assert ids(listed["items"]) == {"r-shared-pref"}
            refused = kit.error(
                await call(client, "save_memory", kind="fact", title="t", content="c")
            )
            assert refused["message"] == "this server serves the shared memory only"
            mine = await call(
                client, "save_memory", kind="fact", title="t", content="c", scope="project"
            )
            assert "not served" in kit.error(mine)["message"]
            saved = await call(
                client, "save_memory", kind="fact", title="t", content="c", scope="shared"
            )
            assert kit.data(saved)["scope"] == "shared"

    anyio.run(scenario)
