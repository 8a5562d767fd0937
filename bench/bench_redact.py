"""Redaction throughput on real transcripts: `redact()` over every record of the shared material.

Capture redacts each record before it leaves the machine, so the redactor's cost is paid on
the hook path. This times `memhub.runtime.capture.redact.redact` over every JSON line of the
transcripts in the shared material ($MEMHUB_SHARED_MATERIAL, else ../shared/material beside
the checkout), and with `--against FILE` times another redact.py (an older copy, saved
before a change) on the same records, side by side.

    .venv/bin/python bench/bench_redact.py
    .venv/bin/python bench/bench_redact.py --against /tmp/redact_before.py --runs 7
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def material() -> Path:
    found = os.environ.get("MEMHUB_SHARED_MATERIAL")
    return Path(found) if found else REPO.parent / "shared" / "material"


def records(root: Path) -> list[Any]:
    out = []
    for path in sorted(root.rglob("*.jsonl")) + sorted(root.rglob("*.json")):
        text = path.read_text("utf-8", "replace")
        lines = text.splitlines() if path.suffix == ".jsonl" else [text]
        for line in lines:
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def load_redact(path: Path) -> Callable[[Any], Any]:
    """`redact` from a standalone copy of redact.py (the package's, or `--against`)."""
    if path == REPO / "runtime" / "redact.py":
        from memhub.runtime.capture.redact import redact

        return redact
    spec = importlib.util.spec_from_file_location("redact_against", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.redact


def once(redact: Callable[[Any], Any], data: list[Any]) -> float:
    start = time.perf_counter()
    for item in data:
        redact(item)
    return time.perf_counter() - start


def timed(rows: list[Callable[[Any], Any]], data: list[Any], runs: int) -> list[float]:
    """Median seconds per row; the rows take turns inside each round (rotated order), so
    load from elsewhere on the machine falls on all of them alike."""
    samples: list[list[float]] = [[] for _ in rows]
    for round_ in range(runs):
        order = list(range(len(rows)))
        order = order[round_ % len(rows) :] + order[: round_ % len(rows)]
        for index in order:
            samples[index].append(once(rows[index], data))
    return [statistics.median(s) for s in samples]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--against", type=Path, help="another redact.py to time beside it")
    args = parser.parse_args(argv)
    data = records(material())
    if not data:
        print(f"no transcripts under {material()}", file=sys.stderr)
        return 1
    size = sum(len(json.dumps(item)) for item in data) / 1e6
    rows = [load_redact(REPO / "runtime" / "redact.py")]
    if args.against:
        rows.append(load_redact(args.against))
    medians = timed(rows, data, args.runs)
    print(f"{len(data)} records, {size:.1f} MB of JSON, median of {args.runs} rounds")
    print(f"this checkout: {medians[0] * 1000:8.1f} ms  ({size / medians[0]:6.1f} MB/s)")
    if args.against:
        print(f"--against:     {medians[1] * 1000:8.1f} ms  ({size / medians[1]:6.1f} MB/s)")
        print(f"ratio (this / against): {medians[0] / medians[1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
