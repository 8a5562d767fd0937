"""Time jsondump.dumps against json.dumps with and without indent, side by side.

Goal: on a 200-server MCP config and on a State-like dict, jsondump.dumps(indent=2) is at
least 2.5x faster than json.dumps(indent=2) and at most 1.5x slower than
json.dumps(indent=None). Interleaved rounds, medians of CPU time. A report, not a test:
exit 0 unless --check is given and a goal fails.

    python bench/bench_jsondump.py [--rounds 15] [--json] [--check]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from memhub.compiler.formats.jsondump import dumps

MIN_SPEEDUP = 2.5  # over json.dumps(indent=2)
MAX_SLOWDOWN = 1.5  # against json.dumps(indent=None)
SEPARATORS = (",", ": ")


def mcp_config(servers: int) -> dict[str, Any]:
    """A host's MCP document: stdio servers with command, args and env (as bench_anchors)."""
    return {
        "mcpServers": {
            f"s{i:04d}": {
                "command": "npx",
                "args": ["-y", f"@bench/mcp-{i}"],
                "env": {"LEVEL": str(i)},
            }
            for i in range(servers)
        }
    }


def state_like(targets: int, entries: int) -> dict[str, Any]:
    """The shape State.to_bytes writes: targets -> entry key -> owner record, bases, made."""
    root = "/home/someone/project"

    def owned(t: int, e: int) -> dict[str, Any]:
        digest = f"sha256:{(t * 7919 + e) * 0x9E3779B97F4A7C15 % (1 << 256):064x}"
        return {"hub": "bench", "host": f"host{t}", "digest": digest, "scope": f"project:{root}"}

    return {
        "version": 2,
        "targets": {
            f"{root}/.host{t}/mcp.json": {
                f"json-member:mcpServers/s{e:04d}": owned(t, e) for e in range(entries)
            }
            for t in range(targets)
        },
        "bases": {f"{root}/.host{t}/mcp.json": {"absent": True} for t in range(targets)},
        "made": {f"{root}/.host{t}/mcp.json": [["mcpServers"]] for t in range(targets)},
    }


CASES: dict[str, tuple[Any, int]] = {
    "mcp-200": (mcp_config(200), 20),
    "state-4x200": (state_like(4, 200), 10),
    "one-server": (mcp_config(1)["mcpServers"]["s0000"], 5000),
}

Encoder = Callable[[Any], str]
ENCODERS: dict[str, Encoder] = {
    "json indent=2": lambda v: json.dumps(v, indent=2, separators=SEPARATORS, ensure_ascii=False),
    "json indent=None": lambda v: json.dumps(v, separators=SEPARATORS, ensure_ascii=False),
    "jsondump indent=2": lambda v: dumps(v, indent=2, separators=SEPARATORS, ensure_ascii=False),
}


def cpu(encode: Encoder, value: Any, reps: int) -> float:
    """CPU seconds per call over reps calls."""
    start = time.process_time()
    for _ in range(reps):
        encode(value)
    return (time.process_time() - start) / reps


def run(rounds: int) -> dict[str, dict[str, float]]:
    """case -> encoder -> median seconds per call, encoders interleaved in every round."""
    for value, _ in CASES.values():
        assert dumps(value, indent=2, ensure_ascii=False) == json.dumps(
            value, indent=2, ensure_ascii=False
        )
    samples: dict[str, dict[str, list[float]]] = {
        case: {name: [] for name in ENCODERS} for case in CASES
    }
    for _ in range(rounds):
        for case, (value, reps) in CASES.items():
            for name, encode in ENCODERS.items():
                samples[case][name].append(cpu(encode, value, reps))
    return {
        case: {name: statistics.median(times) for name, times in by.items()}
        for case, by in samples.items()
    }


def goals(medians: dict[str, dict[str, float]]) -> dict[str, tuple[float, float, bool]]:
    """case -> (speedup over indent=2, ratio to indent=None, both goals met)."""
    out = {}
    for case, by in medians.items():
        mine = by["jsondump indent=2"]
        speedup = by["json indent=2"] / mine
        slowdown = mine / by["json indent=None"]
        out[case] = (speedup, slowdown, speedup >= MIN_SPEEDUP and slowdown <= MAX_SLOWDOWN)
    return out


def report(medians: dict[str, dict[str, float]]) -> str:
    lines = [f"{'case':<14}" + "".join(f"{name:>20}" for name in ENCODERS) + "   speedup  vs C"]
    checked = goals(medians)
    for case, by in medians.items():
        speedup, slowdown, ok = checked[case]
        cells = "".join(f"{by[name] * 1e6:>17.1f} us" for name in ENCODERS)
        verdict = "  (goal missed)" if case in ("mcp-200", "state-4x200") and not ok else ""
        lines.append(f"{case:<14}{cells}   {speedup:5.2f}x {slowdown:5.2f}x{verdict}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", action="store_true", dest="as_json")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    medians = run(args.rounds)
    print(json.dumps(medians, indent=2) if args.as_json else report(medians))
    failed = [case for case in ("mcp-200", "state-4x200") if not goals(medians)[case][2]]
    if failed:
        print(f"goal missed: {', '.join(failed)}", file=sys.stderr)
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
