"""Adversarial clients: a server started for one project gives nothing outside its workspace,
whatever project ids, paths, scopes or record ids the client sends.

Every call's whole reply (content, structured content, errors) is searched for anything of
the other project: its id, name, folder, record ids and the word only its records hold.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from memhub.runtime.memory import layout

from tests.runtime.server import kit
from tests.runtime.server.world import OTHER_NAME, OTHER_WORD, World, make_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    return make_world(tmp_path)


Call = tuple[str, dict[str, Any]]


def attacks(w: World) -> list[Call]:
    """(tool, arguments) calls that try to reach the other project or widen the scopes."""
    return [*id_attacks(w), *brain_attacks(w), *scope_attacks(w), *argument_attacks(w)]


def id_attacks(w: World) -> list[Call]:
    """The other project's record ids, and paths to its files, as record ids."""
    b_file = layout.record_path(layout.memory_root(kit.home()), "project", w.other_id, "r-b-fact")
    b_rev = w.revisions["r-b-fact"]
    odd_ids = [
        *("r-b-fact", "r-b-lesson", f"../{w.other_id}/records/r-b-fact"),
        f"../../projects/{w.other_id}/records/r-b-fact.md",
        *(str(b_file), str(b_file.with_suffix("")), "/etc/passwd", "..", "r-b-fact\x00"),
        *("R-B-FACT", "r-b-fact.md", f"{w.other_id}:r-b-fact", "x" * 10_000),
    ]
    calls: list[Call] = []
    for rid in odd_ids:
        calls += [
            ("get_memory", {"id": rid}),
            ("update_memory", {"id": rid, "revision": b_rev, "content": "pwned"}),
            ("delete_memory", {"id": rid, "revision": b_rev}),
            ("save_artifact", {"name": "n", "content": "c", "parent_id": rid}),
        ]
    return calls


def brain_attacks(w: World) -> list[Call]:
    """Other brains and orgs, and searches for what only the other project holds."""
    calls: list[Call] = []
    for brain in (w.other_id, OTHER_NAME, "p-000000000000", "shared", "*", "", "../" + w.other_id):
        calls += [
            ("search_memory", {"query": "deploy", "agent_brain_id": brain}),
            ("get_brain_overview", {"agent_brain_id": brain}),
            ("save_artifact", {"name": "n", "content": "c", "agent_brain_id": brain}),
            (
                "import_conversation",
                {"messages": [], "conversation_id": "c", "agent_brain_id": brain},
            ),
        ]
    for org in ("other", w.other_id, "*"):
        calls += [
            ("list_agent_brains", {"org_id": org}),
            ("search_memory", {"query": "deploy", "org_id": org}),
        ]
    for query in (OTHER_WORD, "deploy", "r-b-fact", w.other_id, OTHER_NAME, "*", '"', "blue-green"):
        calls.append(("search_memory", {"query": query, "memory_type": "all", "top_k": 100}))
    return calls


def scope_attacks(w: World) -> list[Call]:
    """Scopes the server was not started with, and names that are no scope."""
    calls: list[Call] = []
    for scope in (
        "shared",
        "project",
        "other",
        w.other_id,
        "../projects",
        "projects/" + w.other_id,
    ):
        calls += [
            ("search_memory", {"query": "deploy", "scope": scope}),
            ("list_memory", {"scope": scope}),
            (
                "save_memory",
                {"kind": "fact", "title": "t " + scope, "content": "c", "scope": scope},
            ),
        ]
    return calls


def argument_attacks(w: World) -> list[Call]:
    """Project ids, paths and working directories as arguments no tool takes."""
    extras = {"project": w.other_id, "project_id": w.other_id, "path": str(w.other)}
    extras["cwd"] = str(w.other)
    other_push = {"command": "git push", "cwd": str(w.other)}
    return [
        ("list_memory", {"limit": 500, "include_superseded": True, **extras}),
        ("list_memory", {"kind": "../lesson"}),
        ("search_memory", {"query": "deploy", **extras}),
        ("save_memory", {"kind": "fact", "title": "extra args", "content": "c", **extras}),
        (
            "recall_directives",
            {"tool": "Bash", "args": {"command": "git push"}, "repo": OTHER_NAME},
        ),
        ("recall_directives", {"tool": "Bash", "args": other_push}),
        (
            "recall_directives",
            {"tool": "Edit", "args": {"file_path": str(w.other / "migrations/a.sql")}},
        ),
        ("get_brain_overview", {}),
        ("list_agent_brains", {}),
        ("list_orgs", {"org_id": w.other_id}),
    ]


def test_nothing_outside_the_workspace_reaches_an_adversarial_client(world: World) -> None:
    calls = attacks(world)
    b_file = layout.record_path(
        layout.memory_root(kit.home()), "project", world.other_id, "r-b-fact"
    )
    before = b_file.read_bytes()
    replies: list[tuple[str, dict[str, Any], str, bool]] = []

    async def scenario() -> None:
        async with kit.stdio(world.app, "--write", "--scope", "project") as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                replies.append((name, arguments, kit.wire(result), result.is_error))

    anyio.run(scenario)
    assert len(replies) == len(calls) >= 120
    for name, arguments, text, _ in replies:
        heard = without_echo(text, arguments)  # a client may get its own words back, no more
        for secret in world.secrets():
            assert secret not in heard, (name, arguments, secret, text[:400])
    assert b_file.read_bytes() == before  # nothing of the other project was changed
    other_records = layout.records_dir(layout.memory_root(kit.home()), "project", world.other_id)
    assert sorted(p.name for p in other_records.iterdir()) == ["r-b-fact.md", "r-b-lesson.md"]
    shared = layout.records_dir(layout.memory_root(kit.home()), "shared", None)
    assert [p.name for p in shared.iterdir()] == ["r-shared-pref.md"]  # not served: not written
    for name, arguments, _, failed in replies:
        if name in ("save_memory", "search_memory", "list_memory") and "scope" in arguments:
            # served with --scope project: every other scope is refused, never widened to
            assert failed is (arguments["scope"] != "project"), (name, arguments)
    print(f"adversarial calls: {len(replies)}, refused: {sum(r[3] for r in replies)}")


def without_echo(text: str, arguments: Any) -> str:
    """`text` without the strings of `arguments` (raw or JSON-escaped, whole or cut short)."""
    for value in sorted(strings(arguments), key=len, reverse=True):
        forms = {value, json.dumps(value)[1:-1], value[:60], json.dumps(value[:60])[1:-1]}
        for form in sorted(forms, key=len, reverse=True):  # whole before cut: never a tail left
            if len(form) >= 2:
                text = text.replace(form, "")
    return text


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def test_an_id_of_another_project_reads_exactly_like_an_absent_one(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            for tool, extra in (
                ("get_memory", {}),
                ("update_memory", {"revision": world.revisions["r-b-fact"], "title": "x"}),
                ("delete_memory", {"revision": world.revisions["r-b-fact"]}),
            ):
                theirs = await client.call_tool(tool, {"id": "r-b-fact", **extra})
                absent = await client.call_tool(tool, {"id": "r-zz-fact", **extra})
                assert theirs.is_error and absent.is_error
                assert kit.wire(theirs).replace("r-b-fact", "ID") == kit.wire(absent).replace(
                    "r-zz-fact", "ID"
                )
            theirs = await client.call_tool(
                "search_memory", {"query": "deploy", "agent_brain_id": world.other_id}
            )
            nobody = await client.call_tool(
                "search_memory", {"query": "deploy", "agent_brain_id": "p-000000000000"}
            )
            assert kit.error(theirs) == kit.error(nobody)
            assert kit.error(theirs)["message"] == "agent brain not found"  # MemHub's own text

    anyio.run(scenario)


def test_an_extra_project_argument_cannot_redirect_a_save(world: World) -> None:
    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            saved = await client.call_tool(
                "save_memory",
                {
                    "kind": "fact",
                    "title": "Filed where the server says",
                    "content": "c",
                    "project": world.other_id,
                    "scope": "project",
                },
            )
            record = kit.data(saved)
            got = kit.data(await client.call_tool("get_memory", {"id": record["id"]}))
            assert got["record"]["scope"] == "project"

    anyio.run(scenario)
    root = layout.memory_root(kit.home())
    mine = layout.records_dir(root, "project", world.app_id)
    assert any("Filed where the server says" in p.read_text() for p in mine.glob("*.md"))
    theirs = layout.records_dir(root, "project", world.other_id)
    assert sorted(p.name for p in theirs.iterdir()) == ["r-b-fact.md", "r-b-lesson.md"]


def test_a_conversation_is_filed_under_the_servers_project_whatever_its_records_say(
    world: World,
) -> None:
    """A conversation sent to the server is filed under the server's project: one whose
    records name the other project's checkout as their working folder is found from this
    project (it was sent here), and never from the other one."""

    def message(mid: str, text: str, cwd: Path) -> dict[str, Any]:
        return {
            "id": mid,
            "kind": "message",
            "role": "user",
            "text": text,
            "raw": {"cwd": str(cwd)},
        }

    async def scenario() -> None:
        async with kit.stdio(world.app, "--write") as client:
            for cid, folder, text in (
                ("c-app", world.app, "we tuned the quokka cache today"),
                ("c-other", world.other, "the quokka cache, said to be elsewhere"),
            ):
                sent = await client.call_tool(
                    "import_conversation",
                    {"messages": [message(cid + "-1", text, folder)], "conversation_id": cid},
                )
                assert kit.data(sent)["stored_as"] == f"mcp:{world.app_id}:{cid}"
            found = await client.call_tool(
                "search_memory", {"query": "quokka", "memory_type": "session"}
            )
            items = kit.data(found)["items"]
            assert [item["source"] for item in items] == ["session", "session"]
        async with kit.stdio(world.other) as theirs:
            nothing = await theirs.call_tool(
                "search_memory", {"query": "quokka", "memory_type": "all"}
            )
            assert kit.data(nothing)["items"] == []

    anyio.run(scenario)
