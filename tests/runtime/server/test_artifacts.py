"""get_artifact, get_artifact_lineage, diff_artifact_versions and list_tags, in-process over
the SDK client: three versions saved through save_artifact, read back from any of them, diffed
across a version, and nothing of another project reachable by its ids or its tags."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from memhub.runtime.memory import layout
from memhub.runtime.memory.records import Record, Source, render_record
from memhub.runtime.memory.workspace import open_workspace
from memhub.runtime.server import app

from tests.runtime.server import kit
from tests.runtime.server.world import OTHER_WORD, World, make_world

V1 = "# Deploys\n\nDeploy from the blue runner.\nRoll back with the script.\n"
V2 = "# Deploys\n\nDeploy from the green runner.\nRoll back with the script.\n"
V3 = "# Deploys\n\nDeploy from the green runner.\nRoll back by redeploying.\nPage on-call.\n"
NEVER = "r-20260101000000-0badc0de"  # a record id nobody made


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


@asynccontextmanager
async def served(folder: Path, *, write: bool = True) -> AsyncIterator[Client]:
    """An SDK client of the server of `folder` (project scope and shared), in-process."""
    workspace = open_workspace(kit.home(), project=folder, writable=write)
    built = app.build(workspace, folder=folder)
    try:
        async with Client(built.server) as client:
            yield client
    finally:
        built.close()


async def call(client: Client, tool: str, /, **arguments: Any) -> Any:
    return await client.call_tool(tool, arguments)


async def three_versions(client: Client) -> list[str]:
    """The ids of three versions of the artifact 'Deploy runbook', oldest first."""
    made = []
    for body, extra in (
        (V1, {"tags": ["ops"], "artifact_type": "runbook"}),
        (V2, {"tags": ["ops"], "artifact_type": "runbook"}),
        (V3, {"tags": ["ops", "oncall"], "artifact_type": "runbook", "rationale": "paging"}),
    ):
        saved = kit.data(await call(client, "save_artifact", name="Deploy runbook",
                                    content=body, **extra))  # fmt: skip
        made.append(saved["artifact_id"])
    return made


def foreign_artifact(world: World) -> str:
    """An artifact of the other project, written as its editor would; its id."""
    record = Record(
        id="r-b-artifact", title=f"{OTHER_WORD} runbook", kind="artifact", scope="project",
        project=world.other_id, created=kit.STAMP, updated=kit.STAMP, tags=("ops", OTHER_WORD),
        source=Source(kind="user"), name="Deploy runbook", body=f"The {OTHER_WORD} way.\n",
    )  # fmt: skip
    path = layout.record_path(layout.memory_root(kit.home()), "project", world.other_id, record.id)
    path.write_bytes(render_record(record))
    return record.id


def test_a_lineage_of_three_versions_reads_the_same_from_each(world: World) -> None:
    async def scenario() -> None:
        async with served(world.app) as client:
            v1, v2, v3 = await three_versions(client)
            for start in (v1, v2, v3):
                lineage = kit.data(await call(client, "get_artifact_lineage", artifact_id=start))
                assert [v["id"] for v in lineage["versions"]] == [v1, v2, v3], start
                assert [v["version"] for v in lineage["versions"]] == [1, 2, 3]
                assert [v["parent_id"] for v in lineage["versions"]] == [None, v1, v2]
                assert (lineage["root_id"], lineage["latest_id"], lineage["count"]) == (v1, v3, 3)
                assert [v["status"] for v in lineage["versions"]] == [
                    "superseded", "superseded", "active"
                ]  # fmt: skip
                assert lineage["versions"][2]["rationale"] == "paging"
                assert lineage["versions"][0]["artifact_type"] == "runbook"
            middle = kit.data(await call(client, "get_artifact", artifact_id=v2))
            assert middle["content"] == V2 and middle["version"] == 2
            assert (middle["is_latest"], middle["latest_id"], middle["version_count"]) == (
                False, v3, 3
            )  # fmt: skip
            latest = kit.data(await call(client, "get_artifact", name="  Deploy   runbook "))
            assert latest["id"] == v3 and latest["is_latest"] and latest["parent_id"] == v2
            assert latest["content"].startswith(V3.rstrip()) and latest["rationale"] == "paging"

    anyio.run(scenario)


def test_a_diff_between_non_adjacent_versions(world: World) -> None:
    async def scenario() -> None:
        async with served(world.app) as client:
            v1, v2, v3 = await three_versions(client)
            by_number = kit.data(
                await call(client, "diff_artifact_versions", artifact_id=v2, from_version=1,
                           to_version=3)
            )  # fmt: skip
            by_id = kit.data(
                await call(client, "diff_artifact_versions", artifact_id=v3, from_version=v1,
                           to_version=v3)
            )  # fmt: skip
            assert by_number == by_id
            diff = by_number["diff"]
            assert f"Deploy runbook v1 ({v1})" in diff and f"Deploy runbook v3 ({v3})" in diff
            assert "-Deploy from the blue runner.\n" in diff
            assert "+Deploy from the green runner.\n" in diff  # v2's line, new since v1
            assert "-Roll back with the script.\n" in diff and "+Page on-call.\n" in diff
            assert (by_number["from"]["version"], by_number["to"]["version"]) == (1, 3)
            changed = by_number["changed_fields"]
            assert changed["tags"] == {"from": ["ops", "type:runbook"],
                                       "to": ["ops", "oncall", "type:runbook"]}  # fmt: skip
            assert changed["rationale"] == {"from": None, "to": "paging"}
            assert changed["status"] == {"from": "superseded", "to": "active"}
            assert "title" not in changed and not by_number["identical"]
            # the body as stored: v3 carries its rationale section (4 lines) after 3 new ones
            assert by_number["added_lines"] == 7 and by_number["removed_lines"] == 2
            default = kit.data(await call(client, "diff_artifact_versions", artifact_id=v1))
            assert (default["from"]["id"], default["to"]["id"]) == (v2, v3)  # the last step
            first = kit.data(
                await call(client, "diff_artifact_versions", artifact_id=v1, to_version=1)
            )
            assert first["from"] is None and "+Deploy from the blue runner.\n" in first["diff"]
            same = kit.data(
                await call(client, "diff_artifact_versions", artifact_id=v1, from_version=2,
                           to_version=v2)
            )  # fmt: skip
            assert same["identical"] and same["diff"] == "" and same["changed_fields"] == {}
            beyond = kit.error(
                await call(client, "diff_artifact_versions", artifact_id=v1, to_version=4)
            )
            assert "version 4 does not exist" in beyond["message"] and "3 versions" in beyond["fix"]

    anyio.run(scenario)


def test_unknown_and_foreign_ids_read_like_ids_nobody_made(world: World) -> None:
    """Another project's artifact (by id, by name, as a version), `../x`, a path: each answer
    is the one for an id nobody made, with the id swapped; nothing of it shows."""
    theirs = foreign_artifact(world)
    their_file = layout.record_path(
        layout.memory_root(kit.home()), "project", world.other_id, theirs
    )
    odd = [
        theirs,
        f"../{world.other_id}/records/{theirs}",
        "../x",
        str(their_file),
        "..",
        "x" * 300,
    ]

    async def scenario() -> None:
        async with served(world.app) as client:
            (v1, _, _) = await three_versions(client)
            for tool, args in (
                ("get_artifact", {}),
                ("get_artifact_lineage", {}),
                ("diff_artifact_versions", {}),
            ):
                never = await call(client, tool, artifact_id=NEVER, **args)
                assert kit.error(never)["kind"] == "not-found", (tool, never)
                for rid in odd:
                    result = await call(client, tool, artifact_id=rid, **args)
                    assert kit.error(result)["kind"] == "not-found", (tool, rid)
                    wire = kit.wire(result)
                    echoed = wire.replace(rid, "").replace(rid[:60], "")  # the caller's own
                    assert OTHER_WORD not in wire and world.other_id not in echoed
                    if len(rid) <= 80:  # a longer one is shown cut short
                        swapped = wire.replace(json.dumps(rid)[1:-1], NEVER)
                        assert swapped == kit.wire(never), (tool, rid)
            as_version = await call(
                client, "diff_artifact_versions", artifact_id=v1, from_version=theirs
            )
            as_never = await call(client, "diff_artifact_versions", artifact_id=v1,
                                  from_version=NEVER)  # fmt: skip
            assert kit.wire(as_version).replace(theirs, NEVER) == kit.wire(as_never)
            by_name = kit.data(await call(client, "get_artifact", name="Deploy runbook"))
            assert OTHER_WORD not in kit.wire(await call(client, "get_artifact",
                                                         name="Deploy runbook"))  # fmt: skip
            assert by_name["content"].startswith(V3.rstrip())  # this project's, never theirs
            fact = kit.error(await call(client, "get_artifact", artifact_id="r-a-fact"))
            assert fact["kind"] == "not-an-artifact" and "get_memory" in fact["fix"]
            nothing = kit.error(await call(client, "get_artifact"))
            assert "artifact_id nor name" in nothing["message"]
            other_brain = await call(
                client, "get_artifact", artifact_id=v1, agent_brain_id=world.other_id
            )
            assert kit.error(other_brain)["kind"] == "not-found"
            assert world.other_id not in kit.error(other_brain)["message"]

    anyio.run(scenario)


def test_list_tags_counts_only_the_callers_scopes(world: World) -> None:
    """The other project's tags (and its records' share of a common tag) are not counted;
    superseded versions are not either; `scope` narrows to one of the server's scopes."""
    foreign_artifact(world)  # tags ops and zanzibar in the other project
    kit.seed("r-shared-ops", "Shared ops note", "Runbooks live in the wiki.", project=None,
             tags=("ops", "wiki"))  # fmt: skip

    async def scenario() -> None:
        async with served(world.app) as client:
            await three_versions(client)  # ops x3 (one active), oncall, type:runbook
            tags = kit.data(await call(client, "list_tags"))
            assert tags["tags"] == [
                {"tag": "ops", "count": 3},  # r-a-fact, the active version, r-shared-ops
                {"tag": "oncall", "count": 1},
                {"tag": "type:runbook", "count": 1},
                {"tag": "wiki", "count": 1},
            ]
            assert OTHER_WORD not in kit.wire(await call(client, "list_tags"))
            project = kit.data(await call(client, "list_tags", scope="project"))
            assert {t["tag"]: t["count"] for t in project["tags"]}["ops"] == 2
            wider = kit.error(await call(client, "list_tags", scope=world.other_id))
            assert "not served" in wider["message"]

    anyio.run(scenario)


def test_the_read_server_lists_the_artifact_tools_and_not_the_brain_writes(
    world: World,
) -> None:
    async def scenario() -> None:
        async with served(world.app, write=False) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == kit.READ_TOOLS
            for name in app.ARTIFACT_TOOLS | app.BRAIN_TOOLS:
                assert tools[name].annotations.read_only_hint is True, name
                assert tools[name].description, name
            refused = await call(client, "create_agent_brain", name="x")
            assert refused.is_error  # not served at all without --write
        async with served(world.app) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == kit.READ_TOOLS | kit.WRITE_TOOLS
            for name in ("create_agent_brain", "refresh_brain_overview"):
                hints = tools[name].annotations
                assert hints.read_only_hint is False and hints.destructive_hint is False
                assert hints.idempotent_hint is True and hints.open_world_hint is False

    anyio.run(scenario)
