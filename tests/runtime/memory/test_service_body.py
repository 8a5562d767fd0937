"""A record body is at most records.MAX_BODY_BYTES of UTF-8: an add or an edit over it is
refused before anything is planned, naming its size, the limit and what to do instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.runtime.memory.errors import BodyTooLarge
from memhub.runtime.memory.plans import Draft
from memhub.runtime.memory.records import MAX_BODY_BYTES

from .svchelp import Memory, make_memory

LIMIT = MAX_BODY_BYTES


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    return make_memory(tmp_path)


def test_the_limit_is_256_kib_of_utf8() -> None:
    assert LIMIT == 262_144 and BodyTooLarge.exit_code == 2  # bad input, as the CLI exits


def test_a_body_at_the_limit_is_saved_one_byte_over_is_refused(mem: Memory) -> None:
    svc = mem.service()
    body = "a" * (LIMIT - 1) + "\n"
    plan = svc.plan_add(Draft(kind="artifact", title="Long spec", body=body, name="spec"))
    svc.apply(plan)
    with pytest.raises(BodyTooLarge) as refused:
        svc.plan_add(Draft(kind="fact", title="Too long", body="b" * (LIMIT + 1)))
    error = refused.value
    assert (error.size, error.limit) == (LIMIT + 1, LIMIT)
    assert "262,145 bytes" in error.message and "262,144-byte (256 KiB) limit" in error.message
    assert "split it into several records" in error.fix and "save its path" in error.fix


def test_the_size_is_counted_in_utf8_bytes_not_characters(mem: Memory) -> None:
    euros = "€" * (LIMIT // 3 + 1)  # 3 bytes each: fewer characters than the limit
    with pytest.raises(BodyTooLarge, match=f"{len(euros.encode()):,} bytes"):
        mem.service().plan_add(Draft(kind="fact", title="Prices", body=euros))


def test_an_edit_to_a_body_over_the_limit_is_refused_and_writes_nothing(mem: Memory) -> None:
    svc = mem.service()
    plan = svc.plan_add(Draft(kind="fact", title="Short", body="small"))
    svc.apply(plan)
    entry = svc.get(plan.changes[0].record_id)
    with pytest.raises(BodyTooLarge):
        svc.plan_edit(entry.record.id, revision=entry.revision, body="c" * (LIMIT + 1))
    assert svc.get(entry.record.id).revision == entry.revision
    retitled = svc.plan_edit(entry.record.id, revision=entry.revision, title="Still short")
    assert retitled.changes[0].action == "update"  # a title-only edit is no body write
