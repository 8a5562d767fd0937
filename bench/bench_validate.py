"""How `memhub validate` scales with the number of MCP servers (issue 8, §5).

For each size (default 20,000, 40,000 and 400,000 servers, one skill, one hook) the hub is
generated with gen_hub.py, then timed two ways: `load` in this process (parse, schema,
model) and the real `memhub validate` CLI as a subprocess (load + build). The report gives
seconds and seconds per 1,000 servers; linear scaling keeps the last column flat. The
subprocess gets `--timeout` seconds (default 120) and is reported as "timeout" past it.
A report, not a test: exit 0 unless --check is given and the per-server time of the largest
size is more than 1.5x that of the smallest.

    python bench/bench_validate.py [--sizes 20000,40000,400000] [--json] [--check]
"""

from __future__ import annotations

import argparse
import json
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


def time_load(hub: Path) -> float:
    from memhub.hubspec import load

    start = time.perf_counter()
    load(hub)
    return time.perf_counter() - start


def time_cli(hub: Path, timeout: float) -> float | None:
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memhub.compiler.cli", "validate", str(hub)],
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
    return time.perf_counter() - start


def measure(size: int, root: Path, timeout: float) -> dict[str, Any]:
    hub = gen_hub.generate(root / f"hub-{size}", skills=1, servers=size, hooks=1)
    megabytes = (hub / "hub.yaml").stat().st_size / 1e6
    print(f"{size} servers ({megabytes:.1f} MB): timing ...", file=sys.stderr, flush=True)
    load_s = time_load(hub)
    cli_s = time_cli(hub, timeout)
    return {"servers": size, "hub_mb": round(megabytes, 1), "load_s": load_s, "validate_s": cli_s}


def per_thousand(seconds: float | None, size: int) -> str:
    return "-" if seconds is None else f"{seconds / size * 1000:.3f}"


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
            f"{'servers':>8} {'MB':>6} {'load s':>8} {'ms/1k':>7} {'validate s':>11} {'ms/1k':>7}"
        )
        for row in rows:
            cli = row["validate_s"]
            print(
                f"{row['servers']:>8} {row['hub_mb']:>6} {row['load_s']:>8.2f} "
                f"{per_thousand(row['load_s'], row['servers']):>7} "
                f"{'timeout' if cli is None else f'{cli:.2f}':>11} "
                f"{per_thousand(cli, row['servers']):>7}"
            )
    first, last = rows[0], rows[-1]
    linear = last["load_s"] / last["servers"] <= LINEAR_SLACK * first["load_s"] / first["servers"]
    return 1 if args.check and not linear else 0


if __name__ == "__main__":
    sys.exit(main())
