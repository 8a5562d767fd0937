"""Time `memhub mcp serve` from its start to its answer to `tools/list`, as a host sees it.

Codex (0.171) offers the model only the MCP servers that have listed their tools about a
second after a session starts. Three rows, in interleaved rounds, medians: `python3 -S -c
pass` (the floor), a cold server (no handshake cache: the MCP SDK imports before it can
answer) and a warm one (the handshake from the cache, runtime/server/frontdoor.py). The
ratio warm/cold is the figure; both are also shown as multiples of the floor. A report,
not a test.

    python bench/bench_mcp_start.py [--rounds 15] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEMHUB = str(Path(sys.executable).parent / "memhub")
HELLO = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "b", "version": "1"},
}


def _line(message: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


def listed_after(env: dict[str, str], cwd: Path) -> float:
    """Seconds from the server's start to its tools/list answer."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [MEMHUB, "mcp", "serve", "--write"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_line({"id": 1, "method": "initialize", "params": HELLO}))
    proc.stdin.write(_line({"method": "notifications/initialized"}))
    proc.stdin.write(_line({"id": 2, "method": "tools/list"}))
    proc.stdin.flush()
    while json.loads(proc.stdout.readline()).get("id") != 2:
        pass
    seconds = time.perf_counter() - started
    proc.stdin.close()
    proc.wait(timeout=60)
    return seconds


def floor() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        # the primer's mark: a cold start here starts no primer beside the next measurement
        env = {**os.environ, "HOME": str(home), "MEMHUB_HOME": str(home / ".memhub"),
               "MEMHUB_MCP_PRIMING": "1"}  # fmt: skip
        cache = home / ".memhub" / "cache" / "mcp-handshake-write.json"
        listed_after(env, home)  # the first start also creates the memory folders
        times: dict[str, list[float]] = {"python3 -S": [], "cold": [], "warm": []}
        for _ in range(args.rounds):
            times["python3 -S"].append(floor())
            cache.unlink(missing_ok=True)
            times["cold"].append(listed_after(env, home))
            times["warm"].append(listed_after(env, home))
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["python3 -S"]
    report = {
        "rounds": args.rounds,
        "median_s": medians,
        "x_floor": {name: value / base for name, value in medians.items()},
        "warm_over_cold": medians["warm"] / medians["cold"],
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for name, value in medians.items():
        print(f"{name:>12}: {value * 1000:7.1f} ms  {value / base:5.1f}x the floor")
    print(f"warm/cold: {report['warm_over_cold']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
