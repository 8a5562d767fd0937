"""Transcript reader throughput in MB/s on the shared material, per host.

For each host, every transcript of that host in the material is read, over and over until
at least --min-mb megabytes went through (the non-Claude material is small: repeating it
keeps each timing well above the clock's resolution), once per run, --runs runs after a
warm-up. Two paths:

  read_session   the whole-file reader (`memhub sessions`, the session_end backstop)
  parse_lines    the line-level API capture uses, fed in 64 KiB windows cut at the last
                 newline with a JSON round-trip of the context between calls
                 (JSONL transcripts only)

Reported: MB/s from the median run (and from the slowest run of the fastest 90%), bytes
per pass, records per pass. A report, not a test: exit 0 whatever the figures. Stdlib and
memhub only.

    python bench/bench_readers.py                # table
    python bench/bench_readers.py --json         # one JSON document
    python bench/bench_readers.py --runs 15 --material PATH
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

from memhub.runtime.transcripts import claude as read_claude  # noqa: E402
from memhub.runtime.transcripts import codex as read_codex  # noqa: E402
from memhub.runtime.transcripts import cursor as read_cursor  # noqa: E402
from memhub.runtime.transcripts import gemini as read_gemini  # noqa: E402

READERS = {"claude": read_claude, "codex": read_codex, "cursor": read_cursor, "gemini": read_gemini}
FOLDERS = {"claude": "claude-code", "codex": "codex", "cursor": "cursor", "gemini": "gemini"}
WINDOW = 64 * 1024


def material_root(given: str | None) -> Path:
    configured = given or os.environ.get("MEMHUB_SHARED_MATERIAL")
    root = Path(configured) if configured else REPO.parent / "shared" / "material"
    if not root.is_dir():
        sys.exit(f"bench_readers: no material at {root} (set MEMHUB_SHARED_MATERIAL or --material)")
    return root


def transcripts(root: Path, host: str) -> list[Path]:
    found = []
    for path in sorted((root / FOLDERS[host]).rglob("*")):
        if not path.is_file():
            continue
        store = host == "cursor" and path.suffix == ".db"
        legacy = host == "gemini" and path.suffix == ".json" and "gemini-cli" not in path.parts
        if path.suffix == ".jsonl" or store or legacy:
            found.append(path)
    return found


def whole(host: str, paths: list[Path]) -> int:
    count = 0
    for path in paths:
        _, records = READERS[host].read_session(path)
        count += len(records)
    return count


def streamed(host: str, paths: list[Path]) -> int:
    module = READERS[host]
    count = 0
    for path in paths:
        if path.suffix != ".jsonl":
            continue
        session_id = module.session_id_for(path)
        context: dict[str, Any] = module.initial_context(path)
        with open(path, "rb") as handle:
            offset, pending = 0, b""
            while block := handle.read(WINDOW):
                data = pending + block
                cut = data.rfind(b"\n") + 1
                if cut:
                    count += len(module.parse_lines(session_id, data[:cut], offset, context))
                    context = json.loads(json.dumps(context))
                    offset += cut
                pending = data[cut:]
    return count


def measure(host: str, paths: list[Path], mode: str, runs: int, min_mb: float) -> dict[str, Any]:
    if mode == "parse_lines":
        paths = [p for p in paths if p.suffix == ".jsonl"]
    size = sum(p.stat().st_size for p in paths)
    if not paths or not size:
        return {"host": host, "mode": mode, "files": 0}
    passes = max(1, math.ceil(min_mb * 1e6 / size))
    work = whole if mode == "read_session" else streamed
    records = work(host, paths)  # warm-up (and the record count)
    seconds = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        for _ in range(passes):
            work(host, paths)
        seconds.append(time.perf_counter() - start)
    seconds.sort()
    median = statistics.median(seconds)
    p90 = seconds[min(len(seconds) - 1, math.ceil(0.9 * len(seconds)) - 1)]
    megabytes = size * passes / 1e6
    return {
        "host": host,
        "mode": mode,
        "files": len(paths),
        "bytes": size,
        "records": records,
        "passes": passes,
        "runs": runs,
        "median_s": median,
        "mb_per_s_median": megabytes / median,
        "mb_per_s_p90": megabytes / p90,
        "records_per_s_median": records * passes / median,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--min-mb", type=float, default=4.0, help="bytes read per run (MB)")
    parser.add_argument("--material", help="the shared material folder")
    parser.add_argument("--host", action="append", choices=list(READERS))
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    root = material_root(args.material)
    results = []
    for host in args.host or list(READERS):
        paths = transcripts(root, host)
        for mode in ("read_session", "parse_lines"):
            results.append(measure(host, paths, mode, args.runs, args.min_mb))
    if args.json:
        document = {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "results": results,
        }
        print(json.dumps(document, indent=2))
        return 0
    print(f"reader throughput (python {platform.python_version()}, {args.runs} runs)")
    print(
        f"{'host':<7} {'path':<13} {'files':>5} {'bytes':>10} {'records':>7}"
        f" {'MB/s median':>11} {'MB/s p90':>9} {'records/s':>10}"
    )
    for row in results:
        if not row.get("files"):
            print(f"{row['host']:<7} {row['mode']:<13} {0:>5}  (no transcripts)")
            continue
        print(
            f"{row['host']:<7} {row['mode']:<13} {row['files']:>5} {row['bytes']:>10,}"
            f" {row['records']:>7} {row['mb_per_s_median']:>11.1f} {row['mb_per_s_p90']:>9.1f}"
            f" {row['records_per_s_median']:>10,.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
