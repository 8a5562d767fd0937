"""What writing many skill folders in one run costs: queued (one sync) vs one at a time.

One Transaction writes `--folders` skill folders (SKILL.md and scripts/run.sh each, the
shape `apply` writes per skill and host). "queued" is how Transaction works: consecutive
folder writes are journaled together, synced once (syncfs), then swapped in. "one at a
time" carries out each folder before queuing the next and syncs with per-file fsyncs (the
fallback where syncfs is missing), which is what every folder cost before queuing. Both run
in the same rounds, interleaved; the report is median wall time, the fsync/syncfs counts of
one run, and the ratio. A report, not a test.

    python bench/bench_trees.py [--folders 5000] [--runs 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_build import time_rounds  # noqa: E402
from memhub.compiler.safewrite import durable  # noqa: E402
from memhub.compiler.safewrite.lock import operation_lock  # noqa: E402
from memhub.compiler.safewrite.transaction import Transaction  # noqa: E402

SKILL = {
    "SKILL.md": (b"---\nname: bench\ndescription: a benchmark skill\n---\n" + b"x" * 2000, 0o644),
    "scripts/run.sh": (b"#!/bin/sh\necho run\n", 0o755),
}


class Counter:
    """Counts os.fsync and syncfs calls while installed."""

    def __init__(self) -> None:
        self.fsync = 0
        self.syncfs = 0
        self._fsync, self._syncfs = os.fsync, durable._syncfs

    def __enter__(self) -> Counter:
        def fsync(fd: int) -> None:
            self.fsync += 1
            self._fsync(fd)

        def syncfs(fd: int) -> None:
            self.syncfs += 1
            self._syncfs(fd)

        os.fsync, durable._syncfs = fsync, syncfs  # type: ignore[assignment]
        return self

    def __exit__(self, *_: object) -> None:
        os.fsync, durable._syncfs = self._fsync, self._syncfs  # type: ignore[assignment]


def job(base: Path, folders: int, *, queued: bool) -> Callable[[], None]:
    """One run writing `folders` new skill folders into a fresh folder under `base`."""
    home = base / "home"
    rounds = [0]

    def run() -> None:
        rounds[0] += 1
        into = base / f"run-{rounds[0]}"
        syncfs = durable._SYNCFS
        if not queued:
            durable._SYNCFS = None
        try:
            with operation_lock(home), Transaction(home) as tx:
                for n in range(folders):
                    tx.write_tree(into / f"skill-{n}", SKILL)
                    if not queued:
                        tx._flush()
        finally:
            durable._SYNCFS = syncfs
        shutil.rmtree(into)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memhub-bench-trees-") as tmp:
        base = Path(tmp)
        jobs = {
            "queued": job(base / "q", args.folders, queued=True),
            "one at a time": job(base / "o", args.folders, queued=False),
        }
        counts = {}
        for name, fn in jobs.items():
            with Counter() as counter:
                fn()
            counts[name] = {"fsync": counter.fsync, "syncfs": counter.syncfs}
        rounds = time_rounds(jobs, runs=args.runs, warmup=0)
    medians = {name: statistics.median(timed) for name, (_, timed, _) in rounds.items()}
    report = {
        "folders": args.folders,
        "syncfs_available": durable._SYNCFS is not None,
        "median_ms": {k: round(v, 1) for k, v in medians.items()},
        "syncs": counts,
        "ratio": round(medians["queued"] / medians["one at a time"], 3),
    }
    if args.as_json:
        print(json.dumps(report, indent=2))
        return 0
    for name in jobs:
        c = counts[name]
        print(f"{name:>14}: {medians[name]:9.1f} ms  {c['fsync']:6d} fsync  {c['syncfs']} syncfs")
    print(f"queued / one at a time: {report['ratio']:.3f} ({args.folders} folders)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
