"""Time flushing a 2 KB turn at the end of a 1 MB and of a 500 MB Claude Code transcript.

Goal (issue 4): the per-turn flush costs what the turn costs, not what the session costs:
median(flush at the end of the large transcript) / median(flush at the end of the small
one) <= 1.2. Both sessions are first captured whole into the real local store (the large
one takes a minute or two), then rounds alternate: append one 2 KB turn (a user prompt and
an assistant answer, Claude's JSONL) to each transcript and time `capture.flush(...,
mode="turn")` on it, in-process, against the same local store. A report, not a test.

    python bench/bench_capture.py [--big-mb 500] [--runs 15] [--json] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

GOAL_RATIO = 1.2
TURN_BYTES = 2048


def turn_lines(session: str, index: int) -> bytes:
    """One user prompt and one assistant answer, about TURN_BYTES together."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    text = f"turn {index}: " + "lorem ipsum dolor sit amet " * 36
    lines = []
    for role in ("user", "assistant"):
        message = {"role": role, "content": text[: TURN_BYTES // 2 - 300]}
        if role == "assistant":
            message["content"] = [{"type": "text", "text": message["content"]}]
        lines.append(
            {
                "type": role,
                "uuid": str(uuid.uuid4()),
                "sessionId": session,
                "timestamp": stamp,
                "cwd": "/srv/project",
                "message": message,
            }
        )
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def write_transcript(path: Path, session: str, size: int) -> None:
    with open(path, "wb") as handle:
        index = 0
        while handle.tell() < size:
            handle.write(turn_lines(session, index))
            index += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big-mb", type=int, default=500)
    parser.add_argument("--small-mb", type=int, default=1)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true", dest="as_json")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memhub-bench-capture-") as tmp:
        root = Path(tmp)
        os.environ["MEMHUB_HOME"] = str(root / "memhub")
        os.environ.pop("MEMHUB_BACKEND", None)
        # capture reads only transcripts under the host's own roots: Claude's projects folder
        os.environ["CLAUDE_CONFIG_DIR"] = str(root / "claude")
        project = root / "claude" / "projects" / "bench"
        project.mkdir(parents=True)
        from memhub.runtime.capture import core as capture

        sessions = {}
        for label, megabytes in (("small", args.small_mb), ("large", args.big_mb)):
            session = str(uuid.uuid4())
            path = project / f"{session}.jsonl"
            print(f"writing the {megabytes} MB transcript", file=sys.stderr)
            write_transcript(path, session, megabytes * 1_000_000)
            started = time.perf_counter()
            result = capture.flush("claude", session, path, mode="session_end")
            while result.status == "ok" and capture.pending("claude", session, path):
                result = capture.flush("claude", session, path, mode="session_end")
            print(
                f"captured {label} whole in {time.perf_counter() - started:.1f} s "
                f"({result.status})",
                file=sys.stderr,
            )
            sessions[label] = (session, path)
        timed: dict[str, list[float]] = {label: [] for label in sessions}
        for index in range(args.runs):
            for label, (session, path) in sessions.items():
                with open(path, "ab") as handle:
                    handle.write(turn_lines(session, 10_000_000 + index))
                started = time.perf_counter()
                result = capture.flush("claude", session, path, mode="turn")
                timed[label].append((time.perf_counter() - started) * 1000)
                if result.status != "ok" or result.sent != 2:
                    raise SystemExit(f"{label}: flush {result.status}, sent {result.sent}")
    medians = {label: statistics.median(values) for label, values in timed.items()}
    ratio = medians["large"] / medians["small"]
    passed = ratio <= GOAL_RATIO
    if args.as_json:
        report = {
            "goal_ratio": GOAL_RATIO,
            "median_ms": medians,
            "ratio": ratio,
            "runs": args.runs,
            "sizes_mb": {"small": args.small_mb, "large": args.big_mb},
            "pass": passed,
        }
        print(json.dumps(report, indent=2))
    else:
        print(f"flush of a 2 KB turn, local store, {args.runs} rounds")
        print(f"  end of a {args.small_mb} MB transcript   median {medians['small']:7.2f} ms")
        print(f"  end of a {args.big_mb} MB transcript   median {medians['large']:7.2f} ms")
        verdict = "PASS" if passed else "FAIL"
        print(f"  ratio {ratio:.2f} (goal <= {GOAL_RATIO})  {verdict}")
    return 1 if args.check and not passed else 0


if __name__ == "__main__":
    sys.exit(main())
