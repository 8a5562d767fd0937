"""Capture loses nothing to bad bytes: a lone surrogate, bytes that are not UTF-8, a NUL,
a line nested as deep as the JSON decoder goes. Each is stored (U+FFFD in place of what no
store takes, the record marked `repaired`) and never stops the lines after it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.backends.local import LocalStore
from memhub.runtime.capture import core as capture

from tests.runtime.test_capture import Recording, append, claude_line, claude_project, codex_day

CUT_EMOJI = "cut \ud83c here"  # what Node writes when it cuts a string inside an emoji
BAD_BYTES = b"\xff\xfe \xed\xa0\xbc"  # not UTF-8, and a surrogate encoded as raw bytes


def bad_line(uid: str) -> bytes:
    """A Claude line whose text holds bytes that are not UTF-8."""
    return claude_line(uid, "user", "before XX after").encode().replace(b"XX", BAD_BYTES)


@pytest.fixture
def transcript() -> Path:
    return claude_project() / "sess.jsonl"


def stored(store: LocalStore, session: str = "sess") -> dict[str, dict[str, Any]]:
    return {record["id"]: record for record in store.records(session)}


@pytest.mark.parametrize("mode", ["turn", "commit", "session_end"])
def test_a_lone_surrogate_is_stored_replaced_and_the_lines_after_it_too(
    transcript: Path, mode: str
) -> None:
    append(transcript, claude_line("u1") + claude_line("u2", text=CUT_EMOJI) + claude_line("u3"))
    with LocalStore() as store:
        result = capture.flush("claude", "sess", transcript, mode, backend=store)
        assert (result.status, result.sent, result.error) == ("ok", 3, None)
        assert result.cursor == transcript.stat().st_size
        records = stored(store)
    assert list(records) == ["u1", "u2", "u3"]
    assert records["u2"]["text"] == "cut \ufffd here" and records["u2"]["repaired"] is True
    assert records["u2"]["raw"]["message"]["content"] == "cut \ufffd here"
    assert "repaired" not in records["u1"] and "repaired" not in records["u3"]


def test_bytes_that_are_not_utf8_are_stored_replaced_not_as_an_invalid_line(
    transcript: Path,
) -> None:
    with open(transcript, "wb") as handle:
        handle.write(bad_line("u1") + b"\x00\xff not json at all\n")
    append(transcript, claude_line("u2", text="nul \x00 inside"))
    with LocalStore() as store:
        result = capture.flush("claude", "sess", transcript, "turn", backend=store)
        assert (result.status, result.sent) == ("ok", 3)
        records = list(store.records("sess"))
    first, junk, last = records
    assert first["id"] == "u1" and first["kind"] == "message" and first["repaired"] is True
    assert first["text"] == "before \ufffd\ufffd \ufffd\ufffd\ufffd after"
    assert junk["kind"] == "invalid" and junk["repaired"] is True
    assert junk["raw"] == "\x00\ufffd not json at all"
    assert last["text"] == "nul \x00 inside" and "repaired" not in last


def test_every_flush_after_a_bad_line_goes_on_and_resends_nothing(transcript: Path) -> None:
    """Turn after turn, then the backstop: each record stored once, the cursor at the end."""
    with LocalStore() as store:
        for turn in range(4):
            append(transcript, claude_line(f"u{turn}", text=f"turn {turn} {CUT_EMOJI}"))
            result = capture.flush("claude", "sess", transcript, "turn", backend=store)
            assert (result.status, result.sent) == ("ok", 1)
        assert capture.flush("claude", "sess", transcript, "session_end", backend=store).sent == 0
        assert store.received("sess") == {f"u{turn}": 1 for turn in range(4)}
    state = capture.load_state("claude", "sess")
    assert state is not None and state["offset"] == transcript.stat().st_size
    assert state["last_error"] is None


def test_a_title_and_a_folder_from_the_hook_payload_may_hold_surrogates(
    transcript: Path,
) -> None:
    append(transcript, claude_line("u1"))
    with LocalStore() as store:
        result = capture.flush(
            "claude", "sess", transcript, "turn", backend=store, title="t\udc80", cwd="/s\udcff"
        )
        assert result.status == "ok"
        [session] = store.sessions()
    assert (session["title"], session["cwd"]) == ("t\ufffd", "/s\ufffd")


def test_a_record_handed_to_the_store_with_surrogates_is_stored_repaired() -> None:
    """The local store itself (the MCP import tool's backend too) takes any record."""
    header = {"conversation_id": "c\ud800", "host": "claude", "title": "\udfff"}
    with LocalStore() as store:
        ack = store.import_conversation(header, [{"id": "r\ud83c", "text": {"\udc00": "x"}}])
        assert ack["ack_through"] == "r\ud83c"  # the id as it was sent
        [record] = store.records("c\ufffd")
    assert record == {"id": "r\ufffd", "text": {"\ufffd": "x"}, "repaired": True}


def test_the_remote_payload_is_utf8_whatever_the_transcript_holds(transcript: Path) -> None:
    """What leaves the machine is valid UTF-8 JSON (a server would refuse the bytes that
    `surrogatepass` made of a lone surrogate)."""
    bodies: list[bytes] = []

    class Wire(Recording):
        def import_conversation(self, header, records):
            from memhub.runtime.backends import remote

            client = remote.RemoteBackend.__new__(remote.RemoteBackend)
            real = remote.RemoteBackend.call_tool

            def post(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
                client._ready = True
                client._request = lambda body, _id: (
                    bodies.append(body)
                    or {  # type: ignore[method-assign]
                        "structuredContent": {
                            "conversation_id": header["conversation_id"],
                            "ack_through": records[-1]["id"],
                        }
                    }
                )
                client._next_id, client.attempts, client.deadline = 0, 1, 1.0
                return real(client, name, arguments)

            client.call_tool = post  # type: ignore[method-assign]
            return remote.RemoteBackend.import_conversation(client, header, records)

    append(transcript, claude_line("u1", text=CUT_EMOJI))
    with open(transcript, "ab") as handle:
        handle.write(bad_line("u2"))
    result = capture.flush("claude", "sess", transcript, "turn", backend=Wire(), title="\udc80")
    assert (result.status, result.sent) == ("ok", 2)
    [body] = bodies
    sent = json.loads(body.decode("utf-8"))  # strict: valid UTF-8
    messages = sent["params"]["arguments"]["messages"]
    assert [m["repaired"] for m in messages] == [True, True]
    assert "\ufffd" in messages[0]["text"] and sent["params"]["arguments"]["title"] == "\ufffd"


def test_a_line_nested_as_deep_as_the_decoder_goes_does_not_stop_the_session(
    transcript: Path,
) -> None:
    """The decoder takes about 990 levels; a value it took was encoded again deeper in the
    flush, raised RecursionError, and every flush of the session failed on it. Past 400
    levels a line is now kept as its text (kind "invalid"), and the lines after it go on."""
    with open(transcript, "w", encoding="utf-8") as handle:
        for depth in range(940, 1000):  # whichever depth the stack leaves room for
            nested = "[" * depth + "]" * depth
            handle.write(f'{{"type": "user", "uuid": "d{depth}", "message": {nested}}}\n')
    append(transcript, claude_line("last"))
    with LocalStore() as store:
        for mode in ("turn", "session_end"):
            result = capture.flush("claude", "sess", transcript, mode, backend=store)
            assert result.status in ("ok", "nothing") and result.error is None, result.error
        records = store.records("sess")
    assert len(records) == 61 and records[-1]["id"] == "last"
    assert {r["kind"] for r in records[:-1]} == {"invalid"}
    assert records[0]["raw"].endswith("]]}")


def test_a_codex_first_line_nested_too_deep_does_not_stop_the_session() -> None:
    """Capture reads a Codex rollout's first line for its thread source: a line nested
    past the decoder's limit raised RecursionError there on every flush."""
    sid = "019a0000-0000-7000-8000-000000000009"
    path = codex_day() / f"rollout-2026-01-02T03-04-05-{sid}.jsonl"
    nested = "[" * 1100 + "]" * 1100
    path.write_text(f'{{"type": "session_meta", "payload": {nested}}}\n', encoding="utf-8")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"type": "response_item", "payload": {"type": "message"}}) + "\n")
    with LocalStore() as store:
        result = capture.flush("codex", sid, path, "turn", backend=store)
        assert (result.status, result.sent) == ("ok", 2), result.error
        kinds = [r["kind"] for r in store.records(f"codex-{sid}")]
    assert kinds[0] == "invalid" and len(kinds) == 2


def test_the_session_index_takes_a_damaged_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store row whose text is not UTF-8, or holds an escaped lone surrogate, is indexed
    with U+FFFD (before: every session search failed on it, exit 70)."""
    from tests.compiler.cli.memkit import Memhub, connected, home

    mh = Memhub(capsys, monkeypatch, tmp_path)
    top, _ = connected(mh, tmp_path / "app")
    with LocalStore(home() / "store.sqlite") as store:
        store.import_conversation(
            {"conversation_id": "c1", "host": "claude", "cwd": str(top), "title": "ok"},
            [{"id": "r1", "kind": "message", "role": "user", "text": "zebra one"}],
        )
    db = sqlite3.connect(home() / "store.sqlite")
    db.execute("UPDATE sessions SET title = CAST(X'7469746cff65' AS TEXT)")
    db.execute(
        "INSERT INTO records (conversation_id, record_id, seq, body, digest)"
        """ VALUES ('c1', 'r2', 2, '{"kind":"message","role":"user","text":"zebra \\ud83c"}', '')"""
    )
    db.commit()
    db.close()
    ran = mh("memory", "search", "--kind", "session", "zebra", "--json", cwd=top)
    assert ran.code == 0, ran.err
    [hit] = ran.data["hits"]
    assert hit["title"] == "titl\ufffde"
    body = " ".join(r["text"] for r in LocalStore(home() / "store.sqlite").records("c1"))
    assert body == "zebra one zebra \ufffd"


def test_fifos_among_captures_own_files_never_hang_a_flush_or_session_start(
    transcript: Path,
) -> None:
    """A FIFO where a session's state, another state, capture.json or the credential file
    should be: a flush, the session_start health check and `capture status` go on (before:
    each blocked forever reading it). Run in a child: a hang fails, it never stalls pytest."""
    home = Path(os.environ["MEMHUB_HOME"])
    (home / "capture").mkdir(parents=True)
    for name in ("capture/claude-sess.json", "capture/other.json", "capture.json"):
        os.mkfifo(home / name)
    os.mkfifo(home / "credentials.json")
    append(transcript, claude_line("u1"))
    code = (
        "from memhub.runtime.capture import core as c\n"
        f"r = c.flush('claude', 'sess', {str(transcript)!r}, 'turn')\n"
        "print(r.status, r.sent, c.health(), len(c.status()['sessions']))\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ), capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert child.returncode == 0, child.stderr
    assert child.stdout.split() == ["ok", "1", "None", "1"]
    cli = subprocess.run(
        [sys.executable, "-m", "memhub.compiler.cli.main", "capture", "status", "--json"],
        env=dict(os.environ), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr


def test_a_damaged_capture_store_leaves_session_search_answering(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """store.sqlite overwritten with garbage: a session search answers from what the index
    holds (before: exit 70, and the error blamed nothing by name)."""
    from tests.compiler.cli.memkit import Memhub, connected, home

    mh = Memhub(capsys, monkeypatch, tmp_path)
    top, _ = connected(mh, tmp_path / "app")
    with LocalStore(home() / "store.sqlite") as store:
        store.import_conversation(
            {"conversation_id": "c1", "host": "claude", "cwd": str(top), "title": "zebra"},
            [{"id": "r1", "kind": "message", "role": "user", "text": "zebra one"}],
        )
    assert mh("memory", "search", "--kind", "session", "zebra", "--json", cwd=top).code == 0
    (home() / "store.sqlite").write_bytes(b"garbage " * 4096)
    ran = mh("memory", "search", "--kind", "session", "zebra", "--json", cwd=top)
    assert ran.code == 0, ran.err
    assert [hit["title"] for hit in ran.data["hits"]] == ["zebra"]
