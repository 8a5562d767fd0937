"""`memhub memory search` and `list` start light: no PyYAML when the index is current, no write
path, no hub loader; only what the CLI already pays for plus the stdlib service."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.compiler.cli.memkit import Memhub, add, connected, home

PROBE = """
import json, sys
from memhub.compiler.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
print("\\n@@" + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""
HEAVY = (
    "yaml",
    "jinja2",
    "jsonschema",
    "memhub.hubspec.loader",
    "memhub.compiler.build",
    "memhub.compiler.install",
    "memhub.compiler.safewrite",
    "memhub.compiler.cli.memory_write",
    "memhub.compiler.cli.memory_move",
    "memhub.compiler.cli.memory_input",
    "mcp",
)


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


def probe(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[str, dict]:
    """What `memhub ARGS` printed, and its exit code and loaded modules, from a new process."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env=env if env is not None else dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out, report = done.stdout.rsplit("\n@@", 1)
    return out, {**json.loads(report), "stderr": done.stderr}


def modules_of(*args: str, cwd: Path) -> list[str]:
    _, report = probe(*args, cwd=cwd)
    assert report["code"] == 0, report["stderr"]
    return list(report["modules"])


@pytest.mark.parametrize(
    "args", [("memory", "search", "milk"), ("memory", "list"), ("memory", "list", "--json")]
)
def test_reads_load_no_heavy_module(mh: Memhub, tmp_path: Path, args: tuple[str, ...]) -> None:
    top, _ = connected(mh, tmp_path / "app")
    add(mh, top, "Remember the milk")
    modules_of("memory", "list", cwd=top)  # the first read after a write may refresh the index
    loaded = modules_of(*args, cwd=top)
    heavy = sorted(m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == []


LEAN_SEARCH_AVOIDS = (
    "click",
    "dataclasses",
    "subprocess",
    "tempfile",
    "memhub.runtime.memory.service",
    "memhub.runtime.memory.scan",
    "memhub.runtime.memory.records",
    "memhub.runtime.memory.sessions",
    "memhub.compiler.cli.replay",
)


def settled() -> None:
    """Date every record file and folder 10 s back, then check them all (`memory list`):
    the trust window then holds (nothing is racily close to the check) however fast the
    test ran."""
    past = time.time() - 10
    for path in (home() / "memory").rglob("*"):
        if "index.sqlite" not in path.name:
            os.utime(path, (past, past), follow_symlinks=False)


def searched(*args: str, cwd: Path, trust: str | None = None) -> tuple[dict, list[str]]:
    """The --json envelope and the modules of one `memhub memory search ARGS` process."""
    env = dict(os.environ)
    if trust is not None:
        env["MEMHUB_MEMORY_TRUST_SECONDS"] = trust
    out, report = probe("memory", "search", *args, "--json", cwd=cwd, env=env)
    return json.loads(out), report["modules"]


def test_a_search_in_the_trust_window_is_answered_from_the_index_alone(
    mh: Memhub, tmp_path: Path
) -> None:
    """Within the window a plain search never imports the service, click or dataclasses,
    and prints exactly what the service prints when it checks every file (window 0)."""
    top, _ = connected(mh, tmp_path / "app")
    for title in ("Remember the milk", "Milk goes in the fridge", "Bread is not milk"):
        add(mh, top, title)
    add(mh, top, "Shared milk rule", "", "--scope", "shared")
    settled()
    modules_of("memory", "list", cwd=top)  # a full check: the window starts
    lean, loaded = searched("milk", cwd=top)
    assert sorted(m for m in LEAN_SEARCH_AVOIDS if m in loaded) == []
    checked, loaded_checked = searched("milk", cwd=top, trust="0")
    assert "memhub.runtime.memory.service" in loaded_checked  # the other path really ran
    assert lean == checked and len(lean["data"]["hits"]) == 4
    narrowed, _ = searched("milk", "--scope", "shared", "--limit", "1", cwd=top)
    assert [h["title"] for h in narrowed["data"]["hits"]] == ["Shared milk rule"]


def test_an_edit_in_place_sends_the_search_to_the_service(mh: Memhub, tmp_path: Path) -> None:
    """A record rewritten in place (its folder's stat unchanged) is noticed by the search
    that would return it: the service re-checks and the new text is what prints."""
    top, _ = connected(mh, tmp_path / "app")
    add(mh, top, "Remember the milk")
    settled()
    modules_of("memory", "list", cwd=top)
    (path,) = (home() / "memory" / "projects").glob("*/records/*.md")
    with open(path, "r+b") as handle:  # in place: the folder's own stat does not change
        data = handle.read().replace(b"Remember the milk", b"Remember the oat milk")
        handle.seek(0)
        handle.write(data)
        handle.truncate()
    found, loaded = searched("milk", cwd=top)
    assert [h["title"] for h in found["data"]["hits"]] == ["Remember the oat milk"]
    assert "memhub.runtime.memory.service" in loaded
