"""The memory service on a disk that refuses writes: every caller (the CLI, the MCP server)
gets one error naming the path and the fix, never an OSError; reads still answer."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from memhub.compiler.safewrite import lock
from memhub.runtime.memory.errors import Unwritable
from memhub.runtime.memory.plans import Draft
from memhub.runtime.server import shapes

from .svchelp import Memory, make_memory


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    return make_memory(tmp_path)


@pytest.mark.parametrize(
    ("code", "fix"),
    [(errno.EACCES, "make it writable"), (errno.EROFS, "remount"), (errno.ENOSPC, "free space")],
)
def test_a_refused_write_is_one_clear_error_and_the_tool_error_says_it(
    mem: Memory, monkeypatch: pytest.MonkeyPatch, code: int, fix: str
) -> None:
    svc = mem.service()
    svc.apply(svc.plan_add(Draft(kind="fact", title="zebra first", body="b")))
    where = mem.home / "lock"

    def refused(*_: object, **__: object) -> None:
        raise OSError(code, "refused by the disk", str(where))

    monkeypatch.setattr(lock, "operation_lock", refused)
    with pytest.raises(Unwritable) as caught:
        svc.apply(svc.plan_add(Draft(kind="fact", title="zebra second", body="b")))
    error = caught.value
    assert error.exit_code == 2 and error.path == str(where) and fix in error.fix
    detail = shapes.error_json(error)["error"]
    assert detail["kind"] == "unwritable" and str(where) in detail["message"]
    assert [hit.title for hit in svc.search("zebra")] == ["zebra first"]
