"""The local store: records keyed by id, idempotent, safe under many writing processes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.runtime.backends.base import BackendError
from memhub.runtime.backends.local import LocalStore

HEADER = {"conversation_id": "c1", "session_id": "c1", "host": "claude", "title": "First"}


def rec(rid: str, text: str = "t") -> dict:
    return {
        "type": "record",
        "id": rid,
        "ts": "2026-01-01T00:00:00.000Z",
        "kind": "message",
        "text": text,
    }


def test_import_acks_through_the_last_record() -> None:
    store = LocalStore()
    ack = store.import_conversation(HEADER, [rec("a"), rec("b")])
    assert ack == {
        "conversation_id": "c1",
        "ack_through": "b",
        "records_dropped": 0,
        "records_new": 2,
        "records_updated": 0,
        "records_unchanged": 0,
    }
    assert store.import_conversation(HEADER, [])["ack_through"] is None


def test_resending_is_idempotent_and_the_last_version_wins() -> None:
    store = LocalStore()
    store.import_conversation(HEADER, [rec("a", "one"), rec("b")])
    ack = store.import_conversation(HEADER, [rec("a", "one"), rec("a", "two"), rec("c")])
    assert (ack["records_new"], ack["records_updated"], ack["records_unchanged"]) == (1, 1, 1)
    records = store.records("c1")
    assert [r["id"] for r in records] == ["a", "b", "c"]  # a rewritten record keeps its place
    assert records[0]["text"] == "two"
    assert store.received("c1") == {"a": 3, "b": 1, "c": 1}


def test_sessions_list_and_lookup() -> None:
    store = LocalStore()
    store.import_conversation(HEADER, [rec("a")])
    store.import_conversation(
        {"conversation_id": "codex-x1", "session_id": "x1", "host": "codex"}, [rec("b"), rec("c")]
    )
    store.import_conversation({**HEADER, "title": "Renamed"}, [])
    rows = {row["conversation_id"]: row for row in store.sessions()}
    assert rows["c1"]["title"] == "Renamed" and rows["c1"]["records"] == 1
    assert rows["codex-x1"]["records"] == 2 and rows["codex-x1"]["host"] == "codex"
    assert store.session("x1")["conversation_id"] == "codex-x1"
    assert store.session("codex-x")["conversation_id"] == "codex-x1"  # a unique prefix
    assert store.session("nope") is None


def test_a_session_stays_filed_under_the_folder_it_was_first_captured_from() -> None:
    """A session that cds into another project's checkout is not moved there (issue 22,
    item 4): the first folder captured stays; a header naming none leaves it be."""
    store = LocalStore()
    store.import_conversation({**HEADER, "cwd": None}, [rec("a")])
    store.import_conversation({**HEADER, "cwd": "/src/app"}, [rec("b")])
    store.import_conversation({**HEADER, "cwd": "/src/other-project"}, [rec("c")])
    store.import_conversation({**HEADER, "cwd": None}, [rec("d")])
    session = store.session("c1")
    assert session is not None and session["cwd"] == "/src/app"


def test_bad_input_is_refused() -> None:
    store = LocalStore()
    with pytest.raises(BackendError):
        store.import_conversation({}, [rec("a")])
    with pytest.raises(BackendError):
        store.import_conversation(HEADER, [{"text": "no id"}])


def test_database_is_private_and_in_wal_mode() -> None:
    store = LocalStore()
    store.import_conversation(HEADER, [rec("a")])
    assert store.path == Path(os.environ["MEMHUB_HOME"]) / "store.sqlite"
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    (mode,) = store._connect().execute("PRAGMA journal_mode").fetchone()
    assert mode == "wal"


def test_many_processes_write_one_conversation() -> None:
    """Twelve processes send overlapping batches at once: every id stored once, none lost."""
    code = (
        "import sys\n"
        "from memhub.runtime.backends.local import LocalStore\n"
        "n = int(sys.argv[1])\n"
        "store = LocalStore()\n"
        "for batch in range(20):\n"
        "    ids = [f'r{(n * 7 + batch * 3 + k) % 150}' for k in range(10)]\n"
        "    records = [{'id': i, 'kind': 'message', 'text': i} for i in ids]\n"
        "    ack = store.import_conversation({'conversation_id': 'shared', 'host': 'claude'}, records)\n"
        "    assert ack['ack_through'] == ids[-1]\n"
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", code, str(n)], env=os.environ.copy())
        for n in range(12)
    ]
    assert all(worker.wait(timeout=120) == 0 for worker in workers)
    store = LocalStore()
    ids = [r["id"] for r in store.records("shared")]
    assert len(ids) == len(set(ids))
    expected = {
        f"r{(n * 7 + b * 3 + k) % 150}" for n in range(12) for b in range(20) for k in range(10)
    }
    assert set(ids) == expected
    assert sum(store.received("shared").values()) == 12 * 20 * 10


def _gemini_chat() -> bytes:
    import json

    lines = [
        {"sessionId": "g1", "projectHash": "p", "startTime": "2026-01-01T00:00:00.000Z"},
        {"id": "m1", "timestamp": "2026-01-01T00:00:01.000Z", "type": "user", "content": "one"},
        {"id": "m2", "timestamp": "2026-01-01T00:00:02.000Z", "type": "gemini", "content": "a"},
        {"id": "m3", "timestamp": "2026-01-01T00:00:03.000Z", "type": "user", "content": "two"},
        {"id": "m4", "timestamp": "2026-01-01T00:00:04.000Z", "type": "gemini", "content": "b"},
        {"$rewindTo": "m3"},
        {"id": "m5", "timestamp": "2026-01-01T00:00:05.000Z", "type": "user", "content": "2'"},
        {"$set": {"summary": "A chat"}},
        {"id": "m2", "timestamp": "2026-01-01T00:00:06.000Z", "type": "gemini", "content": "a+"},
    ]
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


@pytest.mark.parametrize("cut", [1, 3, 5, 6, 8])
def test_a_gemini_rewind_takes_back_what_the_readers_fold_takes_back(cut: int) -> None:
    """The store applies $rewindTo as the Gemini reader's fold does, whatever the payloads."""
    from memhub.runtime.transcripts import gemini as read_gemini

    data = _gemini_chat()
    records = read_gemini.parse_lines("g1", data, 0, {})
    wanted = [r.id for r in read_gemini.fold(list(records))]
    header = {**HEADER, "conversation_id": "gemini-g1", "host": "gemini"}
    store = LocalStore()
    bodies = [r.to_json() for r in records]
    store.import_conversation(header, bodies[:cut])
    store.import_conversation(header, bodies[cut:])
    store.import_conversation(header, bodies)  # a re-send (session_end) changes nothing
    messages = [
        r["id"]
        for r in store.records("gemini-g1", rewound=False)
        if r["kind"] not in ("rewind", "set", "meta")
    ]
    assert messages == wanted == ["m1", "m2", "m5"]
    # nothing captured is lost: the rewound messages are kept, only marked
    assert {"m3", "m4"} <= {r["id"] for r in store.records("gemini-g1")}
