"""directives_state: once per session, handles answered once, atomic and bounded."""

from __future__ import annotations

from pathlib import Path

from memhub.runtime.memory import directives_state as S


def test_a_fresh_session_has_fired_nothing_and_seen_nothing(tmp_path: Path) -> None:
    assert S.already_fired(tmp_path / "none") == []
    assert not S.seen(tmp_path / "none", "k")
    assert not (tmp_path / "none").exists()  # reading never creates anything


def test_fired_ids_and_handles_are_remembered_once(tmp_path: Path) -> None:
    S.mark_fired(tmp_path, ["r-a", "r-b"])
    S.mark_fired(tmp_path, ["r-b", "r-c"])
    assert S.already_fired(tmp_path) == ["r-a", "r-b", "r-c"]
    key = S.handle_key("/r", "Edit", "/r/a.py")
    assert not S.seen(tmp_path, key)
    S.remember(tmp_path, key)
    S.remember(tmp_path, key)
    assert S.seen(tmp_path, key)
    assert (tmp_path / S.STATE_FILE).read_text().splitlines() == [
        "fired r-a", "fired r-b", "fired r-c", f"handle {key}",
    ]  # fmt: skip


def test_handle_keys_normalize_whitespace_and_name_cwd_and_tool() -> None:
    a = S.handle_key("/r", "Bash", "git  push\n-f")
    assert a == S.handle_key("/r", "Bash", "git push -f")
    assert a != S.handle_key("/other", "Bash", "git push -f")
    assert a != S.handle_key("/r", "Shell", "git push -f")
    long = S.handle_key("/r", "Bash", "x" * 500)
    assert long != S.handle_key("/r", "Bash", "x" * 501)  # the digest covers the whole handle
    assert len(long) < 200


def test_state_is_bounded_oldest_dropped_first(tmp_path: Path) -> None:
    S.mark_fired(tmp_path, [f"r-{i}" for i in range(S.MAX_ENTRIES + 10)])
    fired = S.already_fired(tmp_path)
    assert len(fired) == S.MAX_ENTRIES and fired[0] == "r-10"


def test_writes_are_atomic_and_a_broken_file_is_an_empty_state(tmp_path: Path) -> None:
    S.mark_fired(tmp_path, ["r-a"])
    assert [p.name for p in tmp_path.iterdir()] == [S.STATE_FILE]  # no temporary left behind
    (tmp_path / S.STATE_FILE).write_bytes(b"\xff\xfe{not a state\nfired\nfired r-x\nseen k\n")
    assert S.already_fired(tmp_path) == ["r-x"] and not S.seen(tmp_path, "k")
    S.remember(tmp_path, "k")  # a broken file is rewritten clean, not appended to
    assert S.seen(tmp_path, "k")
    assert (tmp_path / S.STATE_FILE).read_text().splitlines() == ["fired r-x", "handle k"]


def test_a_line_break_in_a_folder_name_cannot_forge_an_entry(tmp_path: Path) -> None:
    key = S.handle_key("/r\nfired r-forged", "Bash", "ls")
    S.remember(tmp_path, key)
    assert S.seen(tmp_path, key) and S.already_fired(tmp_path) == []
