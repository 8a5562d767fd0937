"""Every reader, and the flush, against hostile bytes: hypothesis-made JSON lines shaped
like each host's (its own keys and type names), holding lone surrogates, bytes that are not
UTF-8, NULs, long strings and deep nesting.

Properties: every complete line yields a record (its bad code points replaced by U+FFFD and
the record marked `repaired`), no record holds text a UTF-8 store refuses, the flush never
raises, and its cursor never moves past a record the backend has not stored (DESIGN's
capture invariant), so a failing backend loses nothing and a re-send duplicates nothing.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.runtime.backends.base import BackendError
from memhub.runtime.backends.local import LocalStore
from memhub.runtime.capture import core as capture
from memhub.runtime.transcripts import claude, codex, copilot, cursor, gemini
from memhub.runtime.transcripts.clean import depth
from memhub.runtime.transcripts.lines import MAX_DEPTH, UNREADABLE, complete_lines

from tests.runtime.test_readers import build_store

READERS: dict[str, ModuleType] = {
    "claude": claude,
    "codex": codex,
    "copilot": copilot,
    "cursor": cursor,
    "gemini": gemini,
}


def words_of(module: ModuleType) -> list[str]:
    """The short string literals of a reader's source: the keys and type names it looks for,
    so generated lines take the reader's own paths instead of failing its first check."""
    found = re.findall(r'"([A-Za-z_$][\w.$-]{0,30})"', inspect.getsource(module))
    return sorted(set(found))


WORDS = {host: words_of(module) for host, module in READERS.items()}
ODD = ["\x00", "\ud83c", "\udf89", "\U0001f389", "\u2028", "\ufeff", "\ufffd"]
TEXT = st.text(
    st.characters(codec=None) | st.characters(categories=["Cs"]) | st.sampled_from(ODD),
    max_size=30,
) | st.sampled_from(["<ide_selection>x</ide_selection>", "", " "])


def values(host: str) -> st.SearchStrategy[Any]:
    words = st.sampled_from(WORDS[host])
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-(2**70), 2**70)
        | st.floats(allow_nan=False, allow_infinity=False)
        | words
        | TEXT
        | st.sampled_from(["2026-01-02T03:04:05Z", "1767225600000", "user", "assistant"])
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(words | TEXT, inner, max_size=5)
        ),
        max_leaves=20,
    )


@st.composite
def lines(draw: st.DrawFn, host: str) -> bytes:
    """One line of bytes (no newline): JSON shaped like the host's, maybe damaged."""
    choice = draw(st.integers(0, 9))
    if choice == 0:  # not JSON at all
        return draw(st.binary(max_size=40)).replace(b"\n", b" ")
    if choice == 1:  # nested past what the readers keep as JSON
        depth = draw(st.integers(380, 1100))
        return b'{"type":"user","message":' + b"[" * depth + b"]" * depth + b"}"
    obj = draw(st.dictionaries(st.sampled_from(WORDS[host]), values(host), max_size=8))
    if draw(st.booleans()):
        obj["type"] = draw(st.sampled_from(WORDS[host]))
    if choice == 2:  # a long string
        obj["text"] = obj["content"] = "x\ud83c" * draw(st.sampled_from([10, 30_000]))
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()))
    data = text.encode("utf-8", "surrogatepass")  # a raw surrogate: bytes that are not UTF-8
    for _ in range(draw(st.integers(0, 3)) if choice == 3 else 0):
        at = draw(st.integers(0, len(data)))
        junk = draw(st.binary(min_size=1, max_size=4)).replace(b"\n", b"\xff")
        data = data[:at] + junk + data[at:]
    return data


def is_storable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def utf8_clean(line: bytes) -> bool:
    """Whether the line is UTF-8 and its JSON (if any) holds no lone surrogate."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return True
    return depth(value) > MAX_DEPTH or is_storable(value)  # too deep: kept as its text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_line_yields_a_storable_record_for_every_reader(data: st.DataObject) -> None:
    host = data.draw(st.sampled_from(sorted(READERS)), label="host")
    body = data.draw(st.lists(lines(host), min_size=1, max_size=6), label="lines")
    blob = b"\n".join(body) + b"\n"
    start = data.draw(st.integers(0, 10**6), label="start")
    context = dict(READERS[host].initial_context(Path("/nonexistent/x.jsonl")))
    records = READERS[host].parse_lines("s1", blob, start, context)
    expected = list(complete_lines(blob, start))
    assert [r.end for r in records] == [end for _, end, _ in expected]
    for record, (_, _, line) in zip(records, expected, strict=True):
        assert is_storable(record.to_json()), record
        assert record.id and record.kind
        assert record.subtype != UNREADABLE, f"{host} cannot read {record.raw!r}"
        if utf8_clean(line):
            assert not record.repaired and "repaired" not in record.to_json()
        else:
            assert record.repaired and record.to_json()["repaired"] is True
    assert is_storable(context)


def test_each_reader_marks_the_line_it_repaired_and_reads_on() -> None:
    for host, module in READERS.items():
        words = WORDS[host]
        good = json.dumps({"type": words[0], "text": "fine"}).encode()
        cut = json.dumps({"type": words[0], "text": "cut \ud83c", "content": "\udf89"}).encode()
        bad = good.replace(b"fine", b"\xc3\x28\xa0")
        records = module.parse_lines("s1", b"\n".join([good, cut, bad, good]) + b"\n", 0, {})
        assert [r.repaired for r in records] == [False, True, True, False], host
        assert all(is_storable(r.to_json()) for r in records), host
        assert records[1].raw["text"] == "cut \ufffd" and records[1].raw["content"] == "\ufffd"
        assert records[2].raw["text"] == "\ufffd(\ufffd", host


def test_a_gemini_recording_and_a_cursor_store_with_bad_bytes_read_whole(
    tmp_path: Path,
) -> None:
    recording = tmp_path / "session-1.json"
    recording.write_bytes(
        b'{"sessionId": "g1", "summary": "sum \\ud800", "messages": ['
        b'{"id": "m1", "type": "user", "content": "ok"},'
        b'{"id": "m2", "type": "user", "content": "bad \xff byte"},'
        b'{"id": "m3", "type": "gemini", "content": "cut \\ud83c"}]}'
    )
    session, records = gemini.read_session(recording)
    assert session.id == "g1" and session.title == "sum \ufffd"
    assert [(r.id, r.repaired) for r in records] == [("m1", False), ("m2", True), ("m3", True)]
    assert records[1].text == "bad \ufffd byte" and is_storable([r.to_json() for r in records])
    messages = [
        {"role": "user", "content": "why \ud83c"},
        {"role": "assistant", "content": [{"type": "text", "text": "fine"}]},
    ]
    chat = tmp_path / ".cursor" / "chats" / "abc" / "5f0c1e2d-0000-4000-8000-000000000002"
    path, _ = build_store(chat, messages, name="name \udc80")
    session, records = cursor.read_session(path)
    assert session.title == "name \ufffd"
    assert [r.repaired for r in records] == [True, False]
    assert records[0].text == "why \ufffd" and is_storable([r.to_json() for r in records])


# --- the flush ----------------------------------------------------------------------------


def transcript_path(host: str, session: str) -> Path:
    """Where `host` keeps a transcript of `session` (capture reads nothing elsewhere)."""
    home = Path(os.environ["HOME"])
    place = {
        "claude": Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "p" / f"{session}.jsonl",
        "codex": Path(os.environ["CODEX_HOME"]) / "sessions" / "2026" / "01" / "02"
        / f"rollout-2026-01-02T03-04-05-{session}.jsonl",
        "copilot": home / ".copilot" / "session-state" / session / "events.jsonl",
        "cursor": home / ".cursor" / "projects" / "p" / "agent-transcripts" / f"{session}.jsonl",
        "gemini": home / ".gemini" / "tmp" / "h" / "chats" / f"session-{session}.jsonl",
    }[host]  # fmt: skip
    place.parent.mkdir(parents=True, exist_ok=True)
    return place


class Flaky(LocalStore):
    """A local store that fails as a network does: before storing, or after storing
    without an answer (the ack is lost), as the test's plan says."""

    def __init__(self, path: Path, plan: list[int]) -> None:
        super().__init__(path)
        self.plan = plan

    def import_conversation(self, header, records):
        step = self.plan.pop(0) if self.plan else 0
        if step == 1:
            raise BackendError("injected: refused before storing")
        ack = super().import_conversation(header, records)
        if step == 2:
            raise BackendError("injected: stored, ack lost")
        return ack


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_flush_never_raises_and_its_cursor_never_passes_what_is_unstored(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    host = data.draw(st.sampled_from(sorted(READERS)), label="host")
    session = str(uuid.uuid4())
    path = transcript_path(host, session)
    store_file = tmp_path_factory.mktemp("store") / "store.sqlite"
    plan = data.draw(st.lists(st.sampled_from([0, 0, 1, 2]), max_size=6), label="faults")
    batches = data.draw(st.lists(st.lists(lines(host), max_size=4), min_size=1, max_size=3))
    store = Flaky(store_file, plan)
    sid = session
    try:
        for batch in batches:
            with open(path, "ab") as handle:
                handle.write(b"".join(line + b"\n" for line in batch))
            for mode in ("turn", "commit"):
                result = capture.flush(host, sid, path, mode, backend=store)
                if result.status == "skipped":  # a Codex thread of Codex's own
                    assert store.records(capture.conversation_id(host, sid)) == []
                    return
                assert result.status in ("ok", "nothing", "failed"), result
                if result.status == "failed":
                    assert "injected" in str(result.error), result.error
                check_cursor(host, sid, path, store)
        store.plan = []
        result = capture.flush(host, sid, path, "session_end", backend=store)
        assert result.status in ("ok", "nothing") and result.error is None, result
        conversation = capture.conversation_id(host, sid)
        stored = [record["id"] for record in store.records(conversation)]
        assert len(stored) == len(set(stored))  # a re-send never duplicates a record
        assert set(stored) == {r.id for r in whole(host, sid, path)}
        assert all(is_storable(r) for r in store.records(conversation))
    finally:
        store.close()


def whole(host: str, sid: str, path: Path) -> list[Any]:
    module = READERS[host]
    return module.parse_lines(sid, path.read_bytes(), 0, dict(module.initial_context(path)))


def check_cursor(host: str, sid: str, path: Path, store: LocalStore) -> None:
    """Every record of a line before the cursor is in the store."""
    state = capture.load_state(host, sid)
    offset = int(state.get("offset") or 0) if state else 0
    stored = {record["id"] for record in store.records(capture.conversation_id(host, sid))}
    before = {r.id for r in whole(host, sid, path) if r.end is not None and r.end <= offset}
    assert before <= stored, f"cursor {offset} passed unstored records {before - stored}"


# --- real transcripts, damaged -------------------------------------------------------------

_TEXT_START = re.compile(rb'"(?:text|content)": ?"(?=[A-Za-z])')


def _damaged(data: bytes, insert: bytes, line_no: int) -> tuple[bytes, int] | None:
    """`data` with `insert` put at the start of a text string of its `line_no`th line (or a
    later one); the index of the line damaged, None when no line has such a string."""
    lines = data.split(b"\n")
    for index in range(line_no, len(lines)):
        found = _TEXT_START.search(lines[index])
        if found:
            at = found.end()
            lines[index] = lines[index][:at] + insert + lines[index][at:]
            return b"\n".join(lines), index
    return None


@pytest.mark.parametrize("host", ["claude", "codex", "cursor"])
def test_real_transcripts_with_a_cut_emoji_and_a_bad_byte_read_the_same_otherwise(
    material: Path, tmp_path: Path, host: str
) -> None:
    from tests.runtime.test_readers import JSONL

    sources = [material / rel for h, rel in JSONL if h == host][:3]
    assert sources, f"no {host} transcript in the material"
    damaged = 0
    for source in sources:
        original = source.read_bytes()
        clean_records = READERS[host].read_session(source)[1]
        middle = original.count(b"\n") // 2
        first = _damaged(original, b"\\ud83c", middle)
        if first is None:
            continue
        data, cut_line = first
        second = _damaged(data, b"\xff\xfe", cut_line + 1)
        data = second[0] if second is not None else data
        copy = tmp_path / source.name
        copy.write_bytes(data)
        records = READERS[host].read_session(copy)[1]
        assert [(r.kind, r.role) for r in records] == [(r.kind, r.role) for r in clean_records]
        host_ids = [r.id for r in records if r.id_source == "host"]
        assert host_ids == [r.id for r in clean_records if r.id_source == "host"]
        repaired = [r for r in records if r.repaired]
        assert 1 <= len(repaired) <= 2, source
        assert all(is_storable(r.to_json()) for r in records)
        assert "\ufffd" in json.dumps(repaired[0].raw, ensure_ascii=False)
        damaged += 1
    assert damaged, f"no {host} transcript had a text string to damage"
