"""`memhub memory search` and `list` start light: no PyYAML when the index is current, no write
path, no hub loader; only what the CLI already pays for plus the stdlib service."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compiler.cli.memkit import Memhub, add, connected

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


def modules_of(*args: str, cwd: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(done.stdout.rsplit("\n@@", 1)[1])
    assert report["code"] == 0, done.stderr
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
