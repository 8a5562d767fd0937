"""`memhub build` and `memhub import` write through safewrite's primitives: a folder staged
beside its place, made durable with one sync, then put in place whole."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.build import build
from memhub.compiler.importing import writer
from memhub.compiler.output import write_build
from memhub.compiler.safewrite import durable
from memhub.hubspec import load

from tests.hubs import REPO

HUB = REPO / "tests" / "data" / "install"


def leftovers(folder: Path) -> list[str]:
    """memhub's staging, set-aside and temp names (`.NAME.memhub-TOKEN.TAG`) under `folder`."""
    return sorted(p.name for p in folder.rglob("*") if re.search(r"\.memhub-[0-9a-f]{8}\.", p.name))


def count_flushes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = durable.SyncSet.flush

    def flush(self: durable.SyncSet) -> None:
        calls.append(len(self.files))
        real(self)

    monkeypatch.setattr(durable.SyncSet, "flush", flush)
    return calls


def test_a_build_is_synced_once_and_swapped_in_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = build(load(HUB))
    out = tmp_path / "dist"
    flushes = count_flushes(monkeypatch)
    assert write_build(result, out)
    assert flushes == [len(result.artifacts) + 1]  # every artifact and the marker, one sync
    first = {p.relative_to(out) for p in out.rglob("*")}
    assert write_build(result, out)  # again over an existing folder: swapped, not merged
    assert {p.relative_to(out) for p in out.rglob("*")} == first
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o755 for p in out.rglob("*") if p.is_dir())
    assert leftovers(tmp_path) == []


def test_a_build_whose_sync_fails_leaves_the_old_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = build(load(HUB))
    out = tmp_path / "dist"
    write_build(result, out)
    (out / "extra-from-before").write_bytes(b"x")  # marks the old folder

    def fails(self: durable.SyncSet) -> None:
        raise OSError(5, "injected")

    monkeypatch.setattr(durable.SyncSet, "flush", fails)
    with pytest.raises(OSError):
        write_build(result, out)
    assert (out / "extra-from-before").is_file()
    assert leftovers(tmp_path) == []


class Plan:
    """The two things write_hub reads from an ImportPlan."""

    def __init__(self, files: list[tuple[str, bytes, int]], env_text: str | None) -> None:
        self._files = files
        self.env_text = env_text

    def files(self) -> list[tuple[str, bytes, int]]:
        return self._files


def test_an_imported_hub_is_staged_synced_once_and_checked_before_it_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files: list[tuple[str, bytes, int]] = []
    for path in sorted(HUB.rglob("*")):
        if path.is_file():
            mode = 0o755 if path.stat().st_mode & 0o100 else 0o644
            files.append((path.relative_to(HUB).as_posix(), path.read_bytes(), mode))
    into = tmp_path / "hub"
    flushes = count_flushes(monkeypatch)
    writer.write_hub(Plan(files, "TOKEN=x\n"), into)  # type: ignore[arg-type]
    assert flushes[0] == len(files)  # the staged hub: one sync
    assert {p.relative_to(into).as_posix() for p in into.rglob("*") if p.is_file()} == {
        rel for rel, _, _ in files
    } | {".env"}
    assert stat.S_IMODE((into / ".env").stat().st_mode) == 0o600
    assert load(into).plugin.name == load(HUB).plugin.name
    assert leftovers(into) == [] and not any(".memhub-import" in p.name for p in into.iterdir())


def test_an_imported_hub_that_does_not_load_writes_nothing(tmp_path: Path) -> None:
    into = tmp_path / "hub"
    plan: Any = Plan([("hub.yaml", b"version: 1\nplugin: [not, a, mapping]\n", 0o644)], None)
    with pytest.raises(Exception, match="would not load"):
        writer.write_hub(plan, into)
    assert os.listdir(into) == []
