"""Time `memhub diff --scope user` and a no-op `memhub apply` on an applied 1,000-skill hub.

Goal (issue 3): for a hub of 1,000 skills across four hosts, already applied, each
command's median wall time is at most 500 ms on this machine. Both run as real CLI
subprocesses against a temporary HOME; `python -c pass` runs in the same rounds for
reference. A report, not a test: exit 0 unless --check is given and a goal fails.

    python bench/bench_install.py [--runs 11] [--json] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_hub  # noqa: E402
from bench_build import p90, time_rounds  # noqa: E402

GOAL_MS = 500.0
HOSTS = "claude,codex,cursor,gemini"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--json", action="store_true", dest="as_json")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memhub-bench-install-") as tmp:
        root = Path(tmp)
        hub = gen_hub.generate(root / "hub", skills=1000, servers=20, hooks=10)
        home = root / "home"
        home.mkdir()
        env = {
            **os.environ,
            "HOME": str(home),
            "MEMHUB_HOME": str(home / ".memhub"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CODEX_HOME": str(home / ".codex"),
        }
        cli = [sys.executable, "-m", "memhub.compiler.cli.main"]
        first = subprocess.run(
            [*cli, "apply", str(hub), "--hosts", HOSTS],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if first.returncode != 0:
            print(first.stdout[-2000:], first.stderr[-2000:], file=sys.stderr)
            return 2

        def call(*extra: str) -> None:
            done = subprocess.run([*cli, *extra], env=env, capture_output=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{extra[0]} failed: {done.stderr.decode()[-2000:]}")

        rounds = time_rounds(
            {
                "python -c pass": lambda: subprocess.run(
                    [sys.executable, "-c", "pass"], check=True
                ),
                "memhub diff --scope user (applied)": lambda: call(
                    "diff", str(hub), "--scope", "user", "--hosts", HOSTS, "--exit-code"
                ),
                "memhub apply (no-op)": lambda: call("apply", str(hub), "--hosts", HOSTS),
            },
            runs=args.runs,
            warmup=args.warmup,
        )
    results = {
        name: {"median_ms": statistics.median(timed), "p90_ms": p90(timed), "runs": len(timed)}
        for name, (_, timed, _) in rounds.items()
    }
    goals = {
        name: results[name]["median_ms"] <= GOAL_MS
        for name in ("memhub diff --scope user (applied)", "memhub apply (no-op)")
    }
    if args.as_json:
        print(json.dumps({"goal_ms": GOAL_MS, "results": results, "pass": goals}, indent=2))
    else:
        print("1,000 skills, 20 MCP servers, 10 hooks; 4 hosts; already applied")
        for name, item in results.items():
            verdict = "" if name not in goals else ("  PASS" if goals[name] else "  FAIL")
            print(
                f"{name:<40} median {item['median_ms']:8.1f} ms   p90 {item['p90_ms']:8.1f} ms"
                f"{verdict}"
            )
        print(f"goal: each memhub command <= {GOAL_MS:.0f} ms median")
    return 1 if args.check and not all(goals.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
