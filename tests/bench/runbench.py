"""Run a script of bench/ as a user would, for the tests that keep the benchmarks working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_bench(script: str, *args: str, timeout: float = 600) -> str:
    """The standard output of `bench/<script> args` run from the repository; a failed run
    fails the test with the end of its standard error."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout
