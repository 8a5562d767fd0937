"""Issue 22, item 4: a captured session is filed under the project it was first captured in;
a later turn run from another project's checkout (the agent `cd`s there) does not move it,
so that project's search and prompt hook never see it."""

from __future__ import annotations

from pathlib import Path

from memhub.runtime.backends.local import LocalStore
from memhub.runtime.memory.service import MemoryService
from memhub.runtime.memory.sessions import store_path
from memhub.runtime.memory.workspace import open_workspace

from tests.runtime.server import kit
from tests.runtime.server.world import make_world


def _record(rid: str, text: str) -> dict[str, str]:
    return {"type": "record", "id": rid, "ts": "2026-03-01T10:00:00.000Z", "kind": "message",
            "role": "user", "text": text}  # fmt: skip


def _sessions(folder: Path) -> list[str]:
    workspace = open_workspace(kit.home(), project=folder, writable=False)
    with MemoryService(workspace) as service:
        hits = service.search("quokka", sources=("session",), limit=10)
        return [hit.id for hit in hits]


def test_a_session_that_cds_into_another_checkout_stays_in_its_own_project(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    header = {"conversation_id": "claude-s1", "session_id": "s1", "host": "claude"}
    with LocalStore(store_path(kit.home())) as store:
        store.import_conversation({**header, "cwd": str(world.app)}, [_record("a", "quokka")])
        # the turn hook after `cd ../zebra-other`: the host reports the new folder
        later = {**header, "cwd": str(world.other / "src")}
        store.import_conversation(later, [_record("b", "quokka again")])
    assert _sessions(world.app) == ["claude-s1"]
    assert _sessions(world.other) == []
