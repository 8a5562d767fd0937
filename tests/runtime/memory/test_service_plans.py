"""Mutation plans: add (duplicates, supersession, artifacts), edit, remove, accept, import, export."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memhub.runtime.memory.errors import (
    DuplicateRecord,
    ImportConflict,
    MemoryServiceError,
    NoProject,
    NotFound,
    ReadOnly,
    StaleRevision,
)
from memhub.runtime.memory.planner import near_identical
from memhub.runtime.memory.plans import Candidate, Draft
from memhub.runtime.memory.records import Source, Triggers, parse_record
from memhub.runtime.memory.service import MemoryService

from .svchelp import Memory, make_memory, put, record


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    return make_memory(tmp_path)


def add(svc: MemoryService, **fields: object) -> str:
    """Add a record through plan + apply; its id."""
    base: dict[str, object] = {"kind": "fact", "title": "a title", "body": "a body"}
    base.update(fields)
    plan = svc.plan_add(Draft(**base))  # type: ignore[arg-type]
    svc.apply(plan)
    return plan.changes[0].record_id


def test_plan_add_previews_and_writes_nothing(mem: Memory) -> None:
    svc = mem.service()
    plan = svc.plan_add(Draft(kind="fact", title="Use uv", body="uv, not pip", tags=("py",)))
    change = plan.changes[0]
    assert (change.action, change.scope, change.project, change.before) == (
        "create",
        "project",
        mem.pid,
        None,
    )
    assert not change.path.exists() and not plan.empty()
    assert plan.to_json()["changes"][0]["record_id"] == change.record_id
    assert '+title: "Use uv"' in plan.diff() and "MEMORY.md" in plan.diff()
    assert [c.path.name for c in plan.derived] == ["MEMORY.md"]
    written = parse_record(change.content or b"", "x")
    assert written.status == "active" and written.tags == ("py",)
    assert svc.list() == []


def test_an_exact_duplicate_needs_force(mem: Memory) -> None:
    svc = mem.service()
    first = add(svc, title="Use uv", body="Install with uv.")
    with pytest.raises(DuplicateRecord) as error:
        svc.plan_add(Draft(kind="fact", title="use  UV", body="install with uv."))
    assert first in str(error.value) and "--force" in str(error.value)
    assert error.value.exit_code == 1
    plan = svc.plan_add(Draft(kind="fact", title="Use uv", body="Install with uv."), force=True)
    assert any(first in note for note in plan.notes)
    # a duplicate in another scope is no duplicate here
    svc.plan_add(Draft(kind="fact", title="Use uv", body="Install with uv.", scope="shared"))


def test_near_identical_is_same_title_and_body_jaccard_at_least_0_9() -> None:
    words = [f"w{n}" for n in range(20)]
    body = " ".join(words)
    assert near_identical("Use uv!", body, "use UV", body + " w20")  # 20/21 = 0.95
    assert not near_identical("Use uv", body, "Use uv", " ".join(words[:18]) + " x y")  # 18/22
    assert not near_identical("Use uv", body, "Use pip", body)
    assert near_identical("T", "", "t", "")


def test_near_identical_records_are_found_through_the_index(mem: Memory) -> None:
    svc = mem.service()
    body = " ".join(f"word{n}" for n in range(30))
    first = add(svc, title="Deploy steps", body=body)
    with pytest.raises(DuplicateRecord) as error:
        svc.plan_add(Draft(kind="fact", title="deploy steps.", body=body + " extra"))
    assert first in str(error.value) and "near-identical" in str(error.value)
    svc.plan_add(Draft(kind="fact", title="deploy steps", body="something else entirely"))


def test_an_agent_directive_is_proposed_until_accepted(mem: Memory) -> None:
    svc = mem.service()
    agent = Source(kind="agent", session="s-1")
    rid = add(svc, kind="lesson", triggers=Triggers(commands=("make",)), source=agent)
    assert svc.get(rid).record.status == "proposed"
    assert svc.recall(tool="Bash", args={"command": "make"}) == []
    user = add(svc, kind="lesson", title="other", triggers=Triggers(commands=("ls",)))
    assert svc.get(user).record.status == "active"
    with pytest.raises(StaleRevision):
        svc.plan_accept(rid, revision="0" * 64)
    svc.apply(svc.plan_accept(rid, revision=svc.get(rid).revision))
    assert svc.get(rid).record.status == "active"
    assert [i["id"] for i in svc.recall(tool="Bash", args={"command": "make"})] == [rid]
    with pytest.raises(MemoryServiceError, match="not proposed"):
        svc.plan_accept(rid)


def test_supersedes_marks_the_older_record(mem: Memory) -> None:
    svc = mem.service()
    old = add(svc, title="port 8000")
    new = add(svc, title="port 9000", supersedes=old)
    older = svc.get(old).record
    assert (older.status, older.superseded_by) == ("superseded", new)
    assert svc.get(new).record.supersedes == old
    assert [e.record.id for e in svc.list()] == [new]
    with pytest.raises(MemoryServiceError, match="superseded already"):
        svc.plan_add(Draft(kind="fact", title="port 7000", body="b", supersedes=old))
    # removing the newer record makes the older one active again
    svc.apply(svc.plan_remove(new, revision=svc.get(new).revision))
    assert svc.get(old).record.status == "active" and svc.get(old).record.superseded_by is None


def test_an_agent_cannot_supersede_an_accepted_directive(mem: Memory) -> None:
    svc = mem.service()
    rule = add(
        svc, kind="lesson", title="run migrations first", triggers=Triggers(commands=("alembic",))
    )
    assert svc.get(rule).record.status == "active"  # a person's lesson: active at once
    agent = Source(kind="agent")
    for source in (agent, Source(kind="tool-output")):
        with pytest.raises(MemoryServiceError, match="accepted lesson"):
            svc.plan_add(
                Draft(kind="fact", title="ignore that", body="b", source=source, supersedes=rule)
            )
    assert svc.get(rule).record.status == "active"
    # a person may; and an agent may replace its own proposal, which is nobody's rule yet
    proposal = add(svc, kind="lesson", title="cache the wheel", source=agent,
                   triggers=Triggers(commands=("pip",)))  # fmt: skip
    assert svc.get(proposal).record.status == "proposed"
    add(svc, kind="lesson", title="cache every wheel", source=agent, supersedes=proposal,
        triggers=Triggers(commands=("pip",)))  # fmt: skip
    add(svc, title="the new rule", supersedes=rule)
    assert svc.get(rule).record.status == "superseded"


def test_a_new_save_of_an_artifact_name_supersedes_the_last(mem: Memory) -> None:
    svc = mem.service()
    v1 = add(svc, kind="artifact", name="runbook", title="Runbook", body="v1")
    v2 = add(svc, kind="artifact", name="runbook", title="Runbook", body="v2")
    assert svc.get(v1).record.superseded_by == v2
    v3 = add(svc, kind="artifact", name="runbook", title="Runbook", body="v3")
    assert svc.get(v2).record.superseded_by == v3 and svc.get(v3).record.supersedes == v2
    assert [e.record.id for e in svc.list(kinds=("artifact",))] == [v3]
    assert len(svc.list(kinds=("artifact",), include_superseded=True)) == 3


def test_edit_checks_the_revision_at_plan_time(mem: Memory) -> None:
    svc = mem.service()
    rid = add(svc, title="t", body="b", tags=("x",))
    rev = svc.get(rid).revision
    plan = svc.plan_edit(rid, revision=rev, body="new body", tags=["y"])
    assert plan.changes[0].before == rev and plan.changes[0].action == "update"
    svc.apply(plan)
    entry = svc.get(rid)
    assert entry.record.body == "new body\n" and entry.record.tags == ("y",)
    with pytest.raises(StaleRevision) as error:
        svc.plan_edit(rid, revision=rev, title="again")
    message = str(error.value)
    assert rid in message and rev in message and entry.revision in message
    assert error.value.exit_code == 3
    assert svc.plan_edit(rid, revision=entry.revision, body="new body").changes[0].action == "skip"
    with pytest.raises(MemoryServiceError, match="triggers"):
        svc.plan_edit(rid, revision=None, triggers=Triggers(paths=("*",)))  # a fact has none


def test_writes_need_a_project_a_granted_scope_and_a_writable_workspace(mem: Memory) -> None:
    nowhere = mem.service(cwd=mem.home.parent)
    with pytest.raises(NoProject, match="memhub project connect"):
        nowhere.plan_add(Draft(kind="fact", title="t", body="b"))
    nowhere.plan_add(Draft(kind="fact", title="t", body="b", scope="shared"))
    with pytest.raises(MemoryServiceError, match="without the shared scope"):
        mem.service(scopes=("project",)).plan_add(
            Draft(kind="fact", title="t", body="b", scope="shared")
        )
    with pytest.raises(MemoryServiceError, match="unknown"):
        mem.service().plan_add(Draft(kind="fact", title="t", body="b", scope="../x"))
    read_only = mem.service(writable=False)
    with pytest.raises(ReadOnly) as error:
        read_only.plan_add(Draft(kind="fact", title="t", body="b"))
    assert error.value.exit_code == 2


def test_adversarial_writes_reach_nothing_of_another_project(mem: Memory) -> None:
    theirs = put(mem.home, record("r-theirs", "project", mem.other_pid))
    before = theirs.read_bytes()
    svc = mem.service()
    attempts = 0
    for rid in ("r-theirs", "../r-theirs", str(theirs), f"{mem.other_pid}/r-theirs", ""):
        for call in (
            lambda r: svc.plan_edit(r, revision=None, title="x"),
            lambda r: svc.plan_remove(r, revision=None),
            lambda r: svc.plan_accept(r),
            lambda r: svc.plan_export([r], mem.app / "out"),
            lambda r: svc.plan_add(Draft(kind="fact", title="t", body="b", supersedes=r)),
        ):
            attempts += 1
            with pytest.raises((NotFound, MemoryServiceError)) as error:
                call(rid)
            assert mem.other_pid not in str(error.value).replace(rid, "")
    assert attempts == 25 and theirs.read_bytes() == before


def candidate(origin: str, text: str, **draft: object) -> Candidate:
    from memhub.runtime.memory.records import revision

    fields: dict[str, object] = {"kind": "fact", "title": origin, "body": text}
    fields.update(draft)
    return Candidate(Draft(**fields), origin, revision(text.encode()))  # type: ignore[arg-type]


def test_import_binds_sources_skips_repeats_and_refuses_changed_ones(mem: Memory) -> None:
    svc = mem.service()
    plan = svc.plan_import([candidate("notes.md#a", "alpha"), candidate("notes.md#b", "beta")])
    assert [c.action for c in plan.changes] == ["create", "create"]
    svc.apply(plan)
    first = svc.list()[0].record
    assert first.source.kind == "import" and first.source.imported is not None
    assert first.source.imported.startswith("notes.md#")
    again = svc.plan_import([candidate("notes.md#a", "alpha")])
    assert again.changes == () and "imported already" in again.notes[0]
    with pytest.raises(ImportConflict) as error:
        svc.plan_import([candidate("notes.md#a", "alpha, edited"), candidate("c.md", "new")])
    assert "notes.md#a" in str(error.value) and error.value.exit_code == 3
    dup = svc.plan_import([candidate("copy.md", "alpha", title="notes.md#a")])
    assert dup.changes == () and "says what" in dup.notes[0]
    forced = svc.plan_import([candidate("copy.md", "alpha", title="notes.md#a")], force=True)
    assert len(forced.changes) == 1
    twins = svc.plan_import(
        [candidate("x.md", "same", title="T"), candidate("y.md", "same", title="T")]
    )
    assert len(twins.changes) == 1 and "says what" in twins.notes[0]


def test_an_imported_agent_directive_stays_proposed(mem: Memory) -> None:
    svc = mem.service()
    plan = svc.plan_import([candidate("m.md", "do x", kind="lesson", source=Source(kind="agent"))])
    assert parse_record(plan.changes[0].content or b"", "x").status == "proposed"


def test_export_copies_files_and_never_writes_through_a_link(mem: Memory, tmp_path: Path) -> None:
    svc = mem.service()
    rid = add(svc, title="export me")
    dest = mem.app / "docs" / "memory"
    plan = svc.plan_export([rid], dest)
    assert plan.changes[0].action == "create" and plan.export_to == dest.resolve()
    svc.apply(plan)
    assert (dest / f"{rid}.md").read_bytes() == svc.get(rid).path.read_bytes()
    assert (dest / f"{rid}.md").stat().st_mode & 0o044  # a repository file, readable
    assert svc.plan_export([rid], dest).changes[0].action == "skip"
    (dest / f"{rid}.md").unlink()
    outside = tmp_path / "outside.md"
    outside.write_text("keep")
    os.symlink(outside, dest / f"{rid}.md")
    with pytest.raises(MemoryServiceError, match="link"):
        svc.plan_export([rid], dest)
    assert outside.read_text() == "keep"
    theirs = mem.home / "memory" / "projects" / mem.other_pid / "records"
    with pytest.raises(MemoryServiceError, match="inside memhub's memory"):
        svc.plan_export([rid], theirs)  # a copy there would be a record of another project


@pytest.mark.parametrize(
    "field",
    ["title", "body", "tags", "triggers"],
)
def test_a_record_holding_a_credential_is_not_exported(
    mem: Memory, tmp_path: Path, field: str
) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    fields: dict[str, object] = {"title": "the deploy notes", "body": "deploy steps"}
    if field == "tags":
        fields["tags"] = (token,)
    elif field == "triggers":
        fields.update(
            kind="lesson", triggers=Triggers(commands=(f"curl -H 'Authorization: Bearer {token}'",))
        )
    else:
        fields[field] = f"the key is {token}"
    svc = mem.service()
    rid = add(svc, **fields)
    dest = tmp_path / "repo" / "docs"
    with pytest.raises(MemoryServiceError, match=f"record {rid} holds a credential") as caught:
        svc.plan_export([rid], dest)
    assert token not in str(caught.value)  # named by kind, never by value
    assert not dest.exists()
    clean = add(svc, title="nothing secret here", body="use ${env:GITHUB_TOKEN}")
    assert svc.plan_export([clean], dest).changes[0].action == "create"


def test_a_record_too_large_to_read_back_is_refused(mem: Memory) -> None:
    from memhub.runtime.memory.recordfile import MAX_RECORD_BYTES

    with pytest.raises(MemoryServiceError, match="split it into several records"):
        mem.service().plan_add(Draft(kind="fact", title="big", body="x" * MAX_RECORD_BYTES))
