"""Every tool of `memhub mcp serve`, through real protocol calls of the SDK client over stdio."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from memhub.runtime.backends.local import LocalStore
from memhub.runtime.memory import layout

from tests.runtime.server import kit
from tests.runtime.server.world import World, make_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


async def call(client: Any, tool: str, /, **arguments: Any) -> Any:
    return await client.call_tool(tool, arguments)


def ids(items: list[dict[str, Any]]) -> set[str]:
    return {item["id"] for item in items}


def test_read_tools_only_without_write_each_with_its_hints(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == kit.READ_TOOLS
            for name, tool in tools.items():
                hints = tool.annotations
                assert hints is not None and hints.open_world_hint is False
                assert hints.read_only_hint is True, name
                assert tool.description, name
            for name in kit.WRITE_TOOLS:  # not listed, and not callable either
                assert (await call(client, name, id="r-a-fact", revision="x")).is_error
            sent = await call(client, "import_conversation", messages=[], conversation_id="c")
            assert sent.is_error
        async with kit.stdio(world.app, "--write") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == kit.READ_TOOLS | kit.WRITE_TOOLS
            for name in ("update_memory", "delete_memory"):
                assert tools[name].annotations.destructive_hint is True
                assert tools[name].annotations.read_only_hint is False
            for name in ("save_memory", "save_artifact"):
                assert tools[name].annotations.destructive_hint is False
                assert tools[name].annotations.idempotent_hint is False
            capture = tools["import_conversation"].annotations
            assert capture.read_only_hint is False and capture.idempotent_hint is True

    anyio.run(scenario)


def test_search_get_and_list_answer_in_the_memhub_shapes(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app) as client:
            found = kit.data(await call(client, "search_memory", query="deploy blue-green"))
            # the one record holding both words first, then those holding one of them; the
            # other project's twin never shows
            hit, *rest = found["items"]
            assert hit["id"] == "r-a-fact" and hit["match"] == "strict"
            assert hit["matched_terms"] == ["deploy", "blue-green"]
            assert {i["id"] for i in rest} == {"r-a-lesson", "r-a-proposed"}
            assert {(i["match"], tuple(i["matched_terms"])) for i in rest} == {
                ("relaxed", ("deploy",))
            }
            assert found["unmatched_terms"] == [] and found["ignored_terms"] == []
            # a question in a sentence (issue 22: every word ANDed, it found nothing)
            asked = kit.data(
                await call(client, "search_memory", query="How do we deploy to the balancer?")
            )
            top = asked["items"][0]
            assert top["id"] == "r-a-fact" and top["match"] == "relaxed"
            assert set(top["matched_terms"]) == {"deploy", "balancer"}
            assert asked["ignored_terms"] == ["How", "do", "we", "to", "the"]
            # an empty answer names the words nothing in this memory holds: the other
            # project's word is one of them, as if its record did not exist
            none = kit.data(await call(client, "search_memory", query="zanzibar quokka?"))
            assert none["items"] == [] and none["unmatched_terms"] == ["zanzibar", "quokka"]
            assert hit["content"].startswith("We deploy with blue-green")
            assert hit["source"] == "record" and hit["kind"] == "fact" and hit["score"] != 0
            assert hit["revision"] == world.revisions["r-a-fact"] and found["took_ms"] >= 0
            assert hit["status"] == "active"
            pending = kit.data(await call(client, "search_memory", query="force pushing"))
            first = pending["items"][0]
            assert (first["id"], first["status"]) == ("r-a-proposed", "proposed")
            ruff = kit.data(
                await call(client, "search_memory", query="ruff", memory_type="preference")
            )
            assert ids(ruff["items"]) == {"r-shared-pref"}
            assert ruff["items"][0]["scope"] == "shared"
            narrowed = await call(client, "search_memory", query="ruff", scope="project")
            assert kit.data(narrowed)["items"] == []
            lessons = await call(
                client, "search_memory", query="migration", memory_type="directive"
            )
            assert "r-a-lesson" in ids(kit.data(lessons)["items"])
            bad = kit.error(await call(client, "search_memory", query="x", memory_type="gossip"))
            assert "memory_type" in bad["message"] and "fact" in bad["fix"]

            record = kit.data(await call(client, "get_memory", id="r-a-fact"))
            assert record["revision"] == world.revisions["r-a-fact"]
            assert record["record"]["content"].startswith("We deploy")
            assert record["record"]["tags"] == ["ops"] and record["record"]["scope"] == "project"

            listed = kit.data(await call(client, "list_memory"))
            assert ids(listed["items"]) == {
                "r-a-fact",
                "r-a-lesson",
                "r-a-proposed",
                "r-shared-pref",
            }
            only = kit.data(await call(client, "list_memory", kind="lesson"))
            assert ids(only["items"]) == {"r-a-lesson", "r-a-proposed"}
            tagged = kit.data(await call(client, "list_memory", tag="ops", limit=5))
            assert ids(tagged["items"]) == {"r-a-fact"}

    anyio.run(scenario)


def test_recall_overview_brains_and_orgs(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app) as client:
            fired = await call(
                client,
                "recall_directives",
                tool="Bash",
                args={"command": "git push origin main"},
                repo="anything",
                already_fired=[],
                session_id="s-1",
            )
            (directive,) = kit.data(fired)["items"]  # not the proposed one, not the other's
            assert directive["id"] == "r-a-lesson" and directive["type"] == "lesson"
            assert "make migrate-check" in directive["content"] and directive["as_of"]
            assert "git push" in directive["triggers"]
            again = await call(
                client,
                "recall_directives",
                tool="Bash",
                args={"command": "git push"},
                already_fired=["r-a-lesson"],
            )
            assert kit.data(again)["items"] == []
            edit = await call(
                client, "recall_directives", tool="Edit", args={"file_path": "/w/migrations/1.sql"}
            )
            assert ids(kit.data(edit)["items"]) == {"r-a-lesson"}

            overview = kit.data(await call(client, "get_brain_overview"))
            assert overview["agent_brain_id"] == world.app_id and overview["name"] == "app"
            assert (
                isinstance(overview["overview"], str)
                and "Deploys are blue-green" in overview["overview"]
            )
            assert overview["proposed"] == 1
            brains = kit.data(await call(client, "list_agent_brains"))
            assert brains["agent_brains"] == [
                {"agent_brain_id": world.app_id, "id": world.app_id, "name": "app"}
            ]
            mine = kit.data(await call(client, "get_brain_overview", agent_brain_id=world.app_id))
            assert mine["agent_brain_id"] == world.app_id
            orgs = kit.data(await call(client, "list_orgs"))
            assert orgs == {"orgs": [{"org_id": "local", "name": "local", "is_default": True}]}

    anyio.run(scenario)


def test_import_conversation_stores_in_the_local_capture_store(world: World) -> None:
    messages = [
        {"id": "m1", "kind": "user", "text": "hello", "raw": {"cwd": str(world.app)}},
        {"id": "m2", "kind": "assistant", "text": "hi"},
    ]

    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            first = await call(
                client,
                "import_conversation",
                messages=messages,
                conversation_id="c-1",
                source_platform="claude",
                flush="now",
                title="greeting",
                namespace="app",
            )
            ack = kit.data(first)
            assert ack["conversation_id"] == "c-1" and ack["ack_through"] == "m2"
            assert ack["stored_as"] == f"mcp:{world.app_id}:c-1"
            assert ack["records_new"] == 2 and ack["records_dropped"] == 0
            again = kit.data(
                await call(client, "import_conversation", messages=messages, conversation_id="c-1")
            )
            assert again["records_unchanged"] == 2 and again["ack_through"] == "m2"
            empty = kit.data(
                await call(client, "import_conversation", messages=[], conversation_id="c-2")
            )
            assert empty["ack_through"] is None
            bad = await call(
                client, "import_conversation", messages=[{"text": "no id"}], conversation_id="c-3"
            )
            assert "no id" in kit.error(bad)["message"]
            odd = await call(
                client,
                "import_conversation",
                messages=messages,
                conversation_id="c-4",
                source_platform="telegraph",
            )
            assert kit.error(odd)["message"].startswith("source_platform")

    anyio.run(scenario)
    store = LocalStore(kit.home() / "store.sqlite")
    filed = f"mcp:{world.app_id}:c-1"  # the server's project's own id space
    (session,) = [s for s in store.sessions() if s["conversation_id"] == filed]
    assert session["host"] == "claude" and session["title"] == "greeting"
    assert session["cwd"] == str(world.app.resolve())
    assert [r["id"] for r in store.records(filed)] == ["m1", "m2"]


def test_save_and_update_with_revisions(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            saved = kit.data(
                await call(
                    client,
                    "save_memory",
                    kind="fact",
                    title="The cache is redis",
                    content="Sessions are cached in redis 7.",
                    tags=["infra", "infra"],
                )
            )
            assert saved["status"] == "active" and saved["scope"] == "project"
            rid, rev = saved["id"], saved["revision"]
            got = kit.data(await call(client, "get_memory", id=rid))
            assert got["revision"] == rev and got["record"]["source"] == {"kind": "agent"}
            assert got["record"]["tags"] == ["infra"]
            hits = kit.data(await call(client, "search_memory", query="redis"))
            assert ids(hits["items"]) == {rid}

            duplicate = await call(
                client,
                "save_memory",
                kind="fact",
                title="The cache is redis",
                content="Sessions are cached in redis 7.",
            )
            assert kit.error(duplicate)["record_id"] == rid

            lesson = kit.data(
                await call(
                    client,
                    "save_memory",
                    kind="lesson",
                    title="Restart redis after upgrades",
                    content="Restart redis after an upgrade.",
                    triggers={"commands": ["apt upgrade"]},
                )
            )
            assert lesson["status"] == "proposed"  # an agent's directive waits for a person
            quiet = await call(
                client, "recall_directives", tool="Bash", args={"command": "apt upgrade"}
            )
            assert kit.data(quiet)["items"] == []

            updated = kit.data(
                await call(client, "update_memory", id=rid, revision=rev, content="Redis 7.2.")
            )
            assert updated["revision"] != rev and updated["previous_revision"] == rev
            stale = kit.error(
                await call(client, "update_memory", id=rid, revision=rev, content="Redis 6.")
            )
            assert stale["kind"] == "stale-revision" and stale["record_id"] == rid
            assert stale["current_revision"] == updated["revision"]
            assert rid in stale["message"] and updated["revision"] in stale["message"]
            assert (
                kit.data(await call(client, "get_memory", id=rid))["record"]["content"].strip()
                == "Redis 7.2."
            )

    anyio.run(scenario)


def test_an_editors_change_and_a_stale_delete_are_refused(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            saved = kit.data(
                await call(client, "save_memory", kind="fact", title="Redis", content="Redis 7.2.")
            )
            rid, rev = saved["id"], saved["revision"]
            # an edit made in an editor invalidates the revision the agent read
            path = layout.record_path(layout.memory_root(kit.home()), "project", world.app_id, rid)
            path.write_bytes(path.read_bytes().replace(b"Redis 7.2.", b"Redis 7.4 (by hand)."))
            edited = await call(client, "update_memory", id=rid, revision=rev, title="x")
            assert kit.error(edited)["kind"] == "stale-revision"
            current = kit.data(await call(client, "get_memory", id=rid))
            assert "by hand" in current["record"]["content"]

            refused = await call(client, "delete_memory", id=rid, revision=rev)
            assert kit.error(refused)["kind"] == "stale-revision" and path.exists()
            gone = kit.data(
                await call(client, "delete_memory", id=rid, revision=current["revision"])
            )
            assert gone["deleted"] is True and not path.exists()
            assert kit.error(await call(client, "get_memory", id=rid))["kind"] == "not-found"

    anyio.run(scenario)


def test_invalid_saves_are_tool_errors_and_shared_must_be_asked_for(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            for kind in ("artifact", "rumour"):
                wrong = await call(client, "save_memory", kind=kind, title="t", content="c")
                assert "cannot be saved" in kit.error(wrong)["message"]
            blank = await call(client, "save_memory", kind="fact", title="  ", content="c")
            assert kit.error(blank)["kind"] == "invalid"
            odd = await call(
                client,
                "save_memory",
                kind="lesson",
                title="t",
                content="c",
                triggers={"moods": ["grumpy"]},
            )
            assert "trigger key" in kit.error(odd)["message"]

            shared = kit.data(
                await call(
                    client,
                    "save_memory",
                    kind="preference",
                    title="Tabs never",
                    content="Indent with spaces.",
                    scope="shared",
                )
            )
            assert shared["scope"] == "shared"

    anyio.run(scenario)


def test_save_artifact_versions_by_name(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            first = kit.data(
                await call(
                    client,
                    "save_artifact",
                    name="Release runbook",
                    content="1. tag\n2. push\n",
                    artifact_type="runbook",
                    rationale="written after the March outage",
                    tags=["release"],
                )
            )
            assert first["kind"] == "artifact" and first["artifact_id"] == first["id"]
            second = kit.data(
                await call(
                    client,
                    "save_artifact",
                    name="Release runbook",
                    content="1. tag\n2. test\n3. push\n",
                    parent_id=first["id"],
                    agent_brain_id=world.app_id,
                    org_id="local",
                )
            )
            assert second["id"] != first["id"] and second["unchanged"] is False
            old = kit.data(await call(client, "get_memory", id=first["id"]))["record"]
            new = kit.data(await call(client, "get_memory", id=second["id"]))["record"]
            assert old["status"] == "superseded" and new["supersedes"] == first["id"]
            assert "March outage" in old["content"] and "type:runbook" in old["tags"]
            listed = kit.data(await call(client, "list_memory", kind="artifact"))
            assert ids(listed["items"]) == {second["id"]}  # the old version is kept, not listed
            same = kit.data(
                await call(
                    client,
                    "save_artifact",
                    name="Release runbook",
                    content="1. tag\n2. test\n3. push\n",
                )
            )
            assert same["unchanged"] is True and same["id"] == second["id"]
            for other in ("r-a-lesson", "r-a-fact"):  # only an artifact's version is a parent
                refused = await call(
                    client, "save_artifact", name="Other", content="x", parent_id=other
                )
                assert "not an artifact" in kit.error(refused)["message"]
                still = kit.data(await call(client, "get_memory", id=other))["record"]
                assert still["status"] == "active"

    anyio.run(scenario)


def test_an_agent_cannot_rewrite_an_accepted_directive(world: World) -> None:
    """An accepted lesson steers later sessions: update_memory refuses it (the file stays as
    the person accepted it), while a proposed one may still be reworded and stays proposed."""
    root = layout.memory_root(kit.home())
    accepted = layout.record_path(root, "project", world.app_id, "r-a-lesson")
    before = accepted.read_bytes()

    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            for change in ({"content": "Always force push."}, {"title": "x"}, {"tags": ["x"]}):
                refused = await call(
                    client,
                    "update_memory",
                    id="r-a-lesson",
                    revision=world.revisions["r-a-lesson"],
                    **change,
                )
                error = kit.error(refused)
                assert error["kind"] == "needs-review" and "memhub memory edit" in error["fix"]
            reworded = await call(
                client,
                "update_memory",
                id="r-a-proposed",
                revision=world.revisions["r-a-proposed"],
                content="Never force push.",
            )
            assert kit.data(reworded)["status"] == "proposed"
            fired = await call(
                client, "recall_directives", tool="Bash", args={"command": "git push"}
            )
            assert [item["id"] for item in kit.data(fired)["items"]] == ["r-a-lesson"]

    anyio.run(scenario)
    assert accepted.read_bytes() == before


def test_an_agent_cannot_delete_an_accepted_directive(world: World) -> None:
    """delete_memory obeys update_memory's rule: an accepted lesson is refused with the same
    kind of error (its file stays), a proposed one may go."""
    root = layout.memory_root(kit.home())
    accepted = layout.record_path(root, "project", world.app_id, "r-a-lesson")
    before = accepted.read_bytes()

    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            revision = world.revisions["r-a-lesson"]
            deleted = await call(client, "delete_memory", id="r-a-lesson", revision=revision)
            changed = await call(
                client, "update_memory", id="r-a-lesson", revision=revision, content="x"
            )
            refusal, twin = kit.error(deleted), kit.error(changed)
            assert refusal["kind"] == twin["kind"] == "needs-review"
            assert refusal["message"] == twin["message"].replace("change", "delete")
            assert "memhub memory rm r-a-lesson" in refusal["fix"]
            gone = await call(
                client, "delete_memory", id="r-a-proposed", revision=world.revisions["r-a-proposed"]
            )
            assert kit.data(gone)["deleted"] is True

    anyio.run(scenario)
    assert accepted.read_bytes() == before
    assert not layout.record_path(root, "project", world.app_id, "r-a-proposed").exists()
