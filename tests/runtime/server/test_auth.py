"""The HTTP server's bearer key: made once, 0600, rotated, unsafe files refused."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from memhub.runtime.server import auth

from tests.runtime.server.kit import home


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_key_is_made_on_first_use_0600_and_then_kept() -> None:
    key = auth.load_or_create(home())
    path = auth.key_path(home())
    assert path == home() / "mcp" / "http.key"
    assert key.startswith("mhk_") and len(key) >= 40  # capture redacts the mhk_ prefix
    assert mode(path) == 0o600 and mode(path.parent) == 0o700
    assert auth.load_or_create(home()) == key
    assert path.read_text() == key + "\n"


def test_rotation_replaces_the_key_and_a_running_gate_follows_it() -> None:
    gate = auth.KeyFile(home())
    old = gate.current()
    assert old and gate.accepts(f"Bearer {old}")
    new = auth.rotate(home())
    assert new != old and mode(auth.key_path(home())) == 0o600
    assert gate.accepts(f"Bearer {new}") and gate.accepts(f"bearer {new}")
    assert not gate.accepts(f"Bearer {old}")


@pytest.mark.parametrize(
    "header", [None, "", "Bearer", "Bearer ", "Basic abc", "Bearer mhk_wrong", "Token KEY"]
)
def test_the_gate_accepts_only_the_key_as_a_bearer(header: str | None) -> None:
    gate = auth.KeyFile(home())
    key = gate.current()
    assert key is not None
    if header is not None:
        header = header.replace("KEY", key)
    assert not gate.accepts(header)


def test_a_key_others_can_read_is_refused_not_used() -> None:
    auth.load_or_create(home())
    path = auth.key_path(home())
    os.chmod(path, 0o644)
    with pytest.raises(auth.UnsafeKey, match="chmod 600"):
        auth.load_or_create(home())
    assert auth.rotate(home()) != ""  # rotating is the way out
    assert mode(path) == 0o600


def test_a_linked_key_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.key"
    target.write_text("mhk_" + "x" * 40 + "\n")
    os.chmod(target, 0o600)
    path = auth.key_path(home())
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    with pytest.raises(auth.UnsafeKey):
        auth.load_or_create(home())
    auth.rotate(home())  # replaces the link itself, never writes through it
    assert not path.is_symlink() and target.read_text() == "mhk_" + "x" * 40 + "\n"


def test_servers_starting_at_once_agree_on_one_key() -> None:
    keys: list[str] = []
    start = threading.Barrier(8)

    def make() -> None:
        start.wait()
        keys.append(auth.load_or_create(home()))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1 and len(keys) == 8
    assert [p.name for p in auth.key_path(home()).parent.iterdir()] == ["http.key"]
