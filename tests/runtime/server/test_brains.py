"""search_brains, refresh_brain_overview, create_agent_brain, share_agent_brain and
list_teammates, in-process over the SDK client."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from memhub.runtime.memory import layout, projects

from tests import gitrepos
from tests.runtime.server import kit
from tests.runtime.server.test_artifacts import call, served
from tests.runtime.server.world import OTHER_NAME, OTHER_WORD, World, make_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


def registry() -> projects.Registry:
    return projects.load_registry(layout.projects_file(layout.memory_root(kit.home())))


def test_create_agent_brain_twice_resolves_the_same_project(tmp_path: Path) -> None:
    """A checkout no project holds: the first call registers it, every later one (another
    session, another worktree, another name) resolves the same project."""
    repo = gitrepos.repo(tmp_path / "svc", commit=True)
    tree = gitrepos.worktree(repo, tmp_path / "svc-tree")

    async def scenario() -> list[dict[str, object]]:
        answers = []
        async with served(repo) as client:
            for name in ("Repo: acme/svc", "another name"):
                answers.append(kit.data(await call(client, "create_agent_brain", name=name)))
        async with served(tree) as client:  # a new session, in a worktree
            answers.append(kit.data(await call(client, "create_agent_brain")))
            answers.append(kit.data(await call(client, "get_brain_overview")))
        return answers

    first, second, third, overview = anyio.run(scenario)
    (project,) = registry().projects.values()
    assert first["agent_brain_id"] == second["agent_brain_id"] == third["id"] == project.id
    assert (first["created"], second["created"], third["created"]) == (True, False, False)
    assert project.name == "Repo: acme/svc" and second["name"] == "Repo: acme/svc"
    assert not first["serving"] and "next session" in first["note"]  # started before it
    assert third["serving"] and third["action"] == projects.WORKTREE
    assert len(project.bindings) == 2 and overview["agent_brain_id"] == project.id


def test_create_agent_brain_in_a_served_project_answers_it(world: World) -> None:
    before = registry()

    async def scenario() -> dict[str, object]:
        async with served(world.app) as client:
            return kit.data(await call(client, "create_agent_brain", name="Handoff: x"))

    answer = anyio.run(scenario)
    assert answer["agent_brain_id"] == world.app_id and answer["name"] == "app"
    assert answer["serving"] and not answer["created"] and "'app'" in str(answer["note"])
    assert registry() == before  # nothing renamed, nothing added


def test_create_agent_brain_refuses_outside_a_checkout_and_for_a_disconnected_one(
    tmp_path: Path, world: World
) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    path = layout.projects_file(layout.memory_root(kit.home()))
    projects.save_registry(path, projects.disconnect(registry(), world.other_id))
    before = registry()

    async def scenario() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        async with served(loose) as client:
            outside = kit.error(await call(client, "create_agent_brain"))
        async with served(world.other) as client:  # its project is disconnected
            disconnected = kit.error(await call(client, "create_agent_brain"))
        async with served(world.app) as client:
            odd = kit.error(await call(client, "create_agent_brain", workspace_id="w-9"))
        return outside, disconnected, odd

    outside, disconnected, odd = anyio.run(scenario)
    assert outside["kind"] == "no-checkout" and "git init" in outside["fix"]
    assert disconnected["kind"] == "disconnected"
    assert "memhub project connect" in disconnected["fix"]
    assert odd["kind"] == "not-found"
    assert registry() == before


def test_refresh_brain_overview_rewrites_memory_md_from_the_files(world: World) -> None:
    """A record a person wrote by hand while the server ran: the refresh puts it in the
    overview and in MEMORY.md; a second refresh writes nothing."""
    md = layout.memory_index_md(layout.memory_root(kit.home()), "project", world.app_id)

    async def scenario() -> tuple[dict[str, object], dict[str, object], str]:
        async with served(world.app) as client:
            kit.data(await call(client, "get_brain_overview"))
            kit.seed("r-a-hand", "Hand-written rollback note", "Roll back with the script.",
                     project=world.app_id)  # fmt: skip
            first = kit.data(await call(client, "refresh_brain_overview"))
            second = kit.data(
                await call(client, "refresh_brain_overview", agent_brain_id=world.app_id)
            )
            foreign = await call(client, "refresh_brain_overview", agent_brain_id=world.other_id)
            return first, second, kit.wire(foreign)

    first, second, foreign = anyio.run(scenario)
    assert "Hand-written rollback note" in str(first["overview"]) and first["refreshed"]
    assert f"projects/{world.app_id}/MEMORY.md" in first["changed"]
    assert "- fact: Hand-written rollback note (r-a-hand)" in md.read_text()
    assert OTHER_WORD not in md.read_text()
    assert second["changed"] == [] and second["overview"] == first["overview"]
    assert "agent brain not found" in foreign and world.other_id not in foreign.replace(
        f'\\"{world.other_id}\\"', ""
    )


def test_sharing_and_teammates_say_a_team_server_is_needed(world: World) -> None:
    async def scenario() -> tuple[object, object, object, object]:
        async with served(world.app, write=False) as client:
            teammates = await call(client, "list_teammates")
            share = await call(client, "share_agent_brain", agent_brain_id=world.app_id,
                               user_id="u-alice")  # fmt: skip
            other = await call(client, "share_agent_brain", agent_brain_id=world.other_id)
            org = await call(client, "list_teammates", org_id="acme")
            return teammates, share, other, org

    teammates, share, other, org = anyio.run(scenario)
    listed = kit.data(teammates)
    assert listed["teammates"] == [] and listed["count"] == 0
    assert listed["team_server"]["configured"] is False
    assert "team server" in listed["team_server"]["message"]
    refused = kit.error(share)  # nothing was shared: an error, so no one reports it done
    assert refused["kind"] == "needs-team-server" and "nothing was shared" in refused["message"]
    assert "MEMHUB_REMOTE_URL" in refused["fix"] and "will not help" in refused["fix"]
    assert kit.error(other)["kind"] == "not-found" and kit.error(org)["kind"] == "not-found"


def test_search_brains_finds_this_brain_by_its_memory_or_name(world: World) -> None:
    async def scenario() -> list[dict[str, object]]:
        async with served(world.app, write=False) as client:
            return [
                kit.data(await call(client, "search_brains", query=query))
                for query in ("blue-green", "app", OTHER_WORD, OTHER_NAME, "")
            ]

    by_memory, by_name, theirs, their_name, empty = anyio.run(scenario)
    (brain,) = by_memory["agent_brains"]
    assert brain["agent_brain_id"] == world.app_id and brain["matches"] == 1
    top = {"id": "r-a-fact", "title": "Deploys are blue-green", "kind": "fact"}
    assert brain["top"] == [{**top, "written_by": "user", "reviewed": True}]
    assert by_name["agent_brains"][0]["matched_name"] is True
    for answer in (theirs, their_name, empty):
        assert answer["agent_brains"] == [] and answer["count"] == 0
