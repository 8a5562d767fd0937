"""directives_state: once per session, handles answered once, atomic and bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
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


def test_entries_are_appended_and_replaced_bounded_at_twice_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(S, "MAX_ENTRIES", 4)
    state = tmp_path / S.STATE_FILE
    for i in range(8):
        S.remember(tmp_path, f"k{i}")
    inode = state.stat().st_ino
    assert state.read_text().splitlines() == [f"handle k{i}" for i in range(8)]  # appended
    assert not S.seen(tmp_path, "k3") and S.seen(tmp_path, "k4")  # a reader keeps the last 4
    S.remember(tmp_path, "k3")  # dropped already: answered anew
    assert state.read_text().splitlines() == ["handle k5", "handle k6", "handle k7", "handle k3"]
    assert state.stat().st_ino != inode  # replaced whole, bounded
    S.mark_fired(tmp_path, ["r-a"])
    assert state.read_text().splitlines()[-1] == "fired r-a"
    assert S.already_fired(tmp_path) == ["r-a"] and S.seen(tmp_path, "k3")


def test_an_unfinished_last_line_is_replaced_not_appended_to(tmp_path: Path) -> None:
    (tmp_path / S.STATE_FILE).write_text("fired r-a\nhandle k-cut-sho")
    S.remember(tmp_path, "k2")
    assert (tmp_path / S.STATE_FILE).read_text().splitlines() == [
        "fired r-a", "handle k-cut-sho", "handle k2",
    ]  # fmt: skip


def test_a_file_changed_by_another_writer_is_read_again(tmp_path: Path) -> None:
    S.remember(tmp_path, "k1")
    assert S.seen(tmp_path, "k1")  # parsed once, then kept while the file is unchanged
    (tmp_path / "new").write_text("handle k2\n")
    (tmp_path / "new").replace(tmp_path / S.STATE_FILE)  # another process's rewrite
    assert S.seen(tmp_path, "k2") and not S.seen(tmp_path, "k1")
    other = tmp_path / "other"
    S.mark_fired(other, ["r-a"])
    with (other / S.STATE_FILE).open("a") as f:
        f.write("fired r-b\n")  # another process's append
    assert S.already_fired(other) == ["r-a", "r-b"]
    (other / S.STATE_FILE).unlink()
    assert S.already_fired(other) == []
