"""How `memhub validate` scales with the number of MCP servers (issue 8, §5).

For each size (default 20,000, 40,000 and 400,000 servers, one skill, one hook) the hub is
generated with gen_hub.py, then timed two ways: `load` in this process (parse, schema,
model) and the real `memhub validate` CLI as a subprocess (load + build). The report gives
wall seconds, CPU seconds (user + system, steadier on a shared machine) and CPU ms per 1,000
servers; linear scaling keeps the ms/1k columns flat. The
subprocess gets `--timeout` seconds (default 120) and is reported as "timeout" past it.
A report, not a test: exit 0 unless --check is given and the per-server time of the largest
size is more than 1.5x that of the smallest.

    python bench/bench_validate.py [--sizes 20000,40000,400000] [--json] [--check]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_hub  # noqa: E402

LINEAR_SLACK = 1.5


def time_load(hub: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one in-process load."""
    from memhub.hubspec import load

    start, cpu = time.perf_counter(), time.process_time()
    load(hub)
    return time.perf_counter() - start, time.process_time() - cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_cli(hub: Path, timeout: float) -> tuple[float, float] | None:
    """(wall, CPU) seconds of `memhub validate` as a subprocess; None past the timeout."""
    start, cpu = time.perf_counter(), _children_cpu()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memhub.compiler.cli.main", "validate", str(hub)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise SystemExit(
            f"validate failed on {hub} (exit {done.returncode}): {done.stderr[-2000:]}"
        )
    return time.perf_counter() - start, _children_cpu() - cpu


def measure(size: int, root: Path, timeout: float) -> dict[str, Any]:
    hub = gen_hub.generate(root / f"hub-{size}", skills=1, servers=size, hooks=1)
    megabytes = (hub / "hub.yaml").stat().st_size / 1e6
    print(f"{size} servers ({megabytes:.1f} MB): timing ...", file=sys.stderr, flush=True)
    load_s, load_cpu = time_load(hub)
    cli = time_cli(hub, timeout)
    return {
        "servers": size,
        "hub_mb": round(megabytes, 1),
        "load_s": load_s,
        "load_cpu_s": load_cpu,
        "validate_s": None if cli is None else cli[0],
        "validate_cpu_s": None if cli is None else cli[1],
    }


def per_thousand(seconds: float | None, size: int) -> str:
    """CPU milliseconds per 1,000 servers."""
    return "-" if seconds is None else f"{seconds / size * 1e6:.1f}"


def seconds(value: float | None) -> str:
    return "timeout" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,40000,400000")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--json", action="store_true", dest="as_json")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="memhub-bench-validate-") as tmp:
        rows = [measure(size, Path(tmp), args.timeout) for size in sizes]
    if args.as_json:
        print(json.dumps(rows, indent=2))
    else:
        print(
            f"{'servers':>8} {'MB':>6} | {'load s':>7} {'cpu s':>7} {'ms/1k':>6} | "
            f"{'validate s':>10} {'cpu s':>7} {'ms/1k':>6}"
        )
        for row in rows:
            n = row["servers"]
            print(
                f"{n:>8} {row['hub_mb']:>6} | {row['load_s']:>7.2f} {row['load_cpu_s']:>7.2f} "
                f"{per_thousand(row['load_cpu_s'], n):>6} | {seconds(row['validate_s']):>10} "
                f"{seconds(row['validate_cpu_s']):>7} {per_thousand(row['validate_cpu_s'], n):>6}"
            )
    first, last = rows[0], rows[-1]
    per_server = [row["load_cpu_s"] / row["servers"] for row in (first, last)]
    linear = per_server[1] <= LINEAR_SLACK * per_server[0]
    return 1 if args.check and not linear else 0


if __name__ == "__main__":
    sys.exit(main())
