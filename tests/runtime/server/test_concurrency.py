"""Mixed concurrent writers on one record: two MCP servers (two clients each) and four
processes calling the memory service directly, all read-modify-write with revisions. Every
write lands exactly once: a stale revision is refused and retried, never overwritten."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import anyio

from tests.runtime.server import kit

ROUNDS = 5
SERVICE_WRITERS = 4
CLIENTS_PER_SERVER = 2

SERVICE_WRITER = """
import random, sys, time
from pathlib import Path
from memhub.runtime.memory.errors import StaleRevision
from memhub.runtime.memory.plans import Draft
from memhub.runtime.memory.service import MemoryService
from memhub.runtime.memory.workspace import open_workspace

home, folder, name, rounds = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
service = MemoryService(open_workspace(home, project=folder))
service.apply(service.plan_add(Draft(kind="fact", title=f"writer {name} was here", body=name)))
retries = 0
for n in range(rounds):
    while True:
        entry = service.get("r-counter")
        body = entry.record.body.rstrip("\\n") + f"\\n{name}-{n}"
        try:
            service.apply(service.plan_edit("r-counter", revision=entry.revision, body=body))
            break
        except StaleRevision:
            retries += 1
            time.sleep(random.uniform(0, 0.02))
print(retries)
"""


async def mcp_writer(url: str, key: str, name: str) -> int:
    """ROUNDS appends through update_memory, retrying each stale revision; the retries."""
    retries = 0
    async with kit.http_client(url, key) as client:
        saved = await client.call_tool(
            "save_memory", {"kind": "fact", "title": f"writer {name} was here", "content": name}
        )
        kit.data(saved)
        for n in range(ROUNDS):
            while True:
                got = kit.data(await client.call_tool("get_memory", {"id": "r-counter"}))
                body = got["record"]["content"].rstrip("\n") + f"\n{name}-{n}"
                result = await client.call_tool(
                    "update_memory",
                    {"id": "r-counter", "revision": got["revision"], "content": body},
                )
                if not result.is_error:
                    break
                assert kit.error(result)["kind"] == "stale-revision", result
                retries += 1
                await anyio.sleep(random.uniform(0, 0.02))
    return retries


def test_mixed_concurrent_writers_lose_no_update(tmp_path: Path) -> None:
    app = kit.repo(tmp_path / "app")
    kit.seed("r-counter", "Who wrote, in order", "start", project=kit.connect(app, "app"))
    with kit.http_server(app, "--write") as one, kit.http_server(app, "--write") as two:
        assert one.key == two.key and one.url != two.url  # one key per memhub home
        writers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    SERVICE_WRITER,
                    str(kit.home()),
                    str(app),
                    f"s{n}",
                    str(ROUNDS),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=kit.env(),
            )
            for n in range(SERVICE_WRITERS)
        ]
        retries: list[int] = []

        async def clients() -> None:
            async def run(url: str, key: str, name: str) -> None:
                retries.append(await mcp_writer(url, key, name))

            async with anyio.create_task_group() as group:
                for server, label in ((one, "a"), (two, "b")):
                    for n in range(CLIENTS_PER_SERVER):
                        group.start_soon(run, server.url, server.key, f"m{label}{n}")

        anyio.run(clients)
        for writer in writers:
            out, err = writer.communicate(timeout=300)
            assert writer.returncode == 0, err
            retries.append(int(out.strip()))

        async def final() -> tuple[str, set[str]]:
            async with kit.http_client(one.url, one.key) as client:
                got = kit.data(await client.call_tool("get_memory", {"id": "r-counter"}))
                listed = kit.data(await client.call_tool("list_memory", {"limit": 100}))
                return got["record"]["content"], {item["title"] for item in listed["items"]}

        body, titles = anyio.run(final)
    names = [f"s{n}" for n in range(SERVICE_WRITERS)]
    names += [f"m{label}{n}" for label in "ab" for n in range(CLIENTS_PER_SERVER)]
    lines = body.split()
    assert lines[0] == "start"
    assert sorted(lines[1:]) == sorted(f"{name}-{n}" for name in names for n in range(ROUNDS))
    for name in names:  # each writer's own appends stay in its order
        assert [x for x in lines if x.startswith(name + "-")] == [
            f"{name}-{n}" for n in range(ROUNDS)
        ]
    assert {f"writer {name} was here" for name in names} <= titles
    assert sum(retries) > 0  # they really did collide, and the stale ones were refused
    print(f"{len(names)} writers, {len(lines) - 1} appends, {sum(retries)} stale retries")
