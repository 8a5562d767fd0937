"""How large `$MEMHUB_HOME/recovery` grows over many applies to a large `~/.claude.json`.

In a temporary HOME holding a `--mb` MB `.claude.json` (default 16; Claude Code keeps
per-project history there), the real `memhub apply --scope user --hosts claude` CLI runs
`--applies` times (default 50), each a real change: the hub alternates between two
versions of one MCP server, and with `--host-rewrites` the file is also rewritten between
applies the way Claude Code does on every start (one counter changes), so no two
pre-images are alike. The report is the size of recovery/ (MB) after the runs, with the
number of runs `memhub undo` can still step back through. A report, not a test.

    python bench/bench_recovery.py [--mb 16] [--applies 50] [--host-rewrites] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HUB = """version: 1
plugin:
  name: recovery-bench
  version: 1.0.0
  description: One MCP server, alternated to make every apply a change.
  author: {{name: bench}}
marketplace:
  name: recovery-bench-market
  owner: {{name: bench}}
mcp:
  servers:
    bench:
      command: python3
      args: ["-m", "bench_server", "--round", "{round}"]
"""


def big_claude_json(megabytes: float) -> dict[str, Any]:
    """A `.claude.json` of about `megabytes` MB: many projects with long prompt history."""
    entry = {"display": "x" * 200, "pastedContents": {}}
    per_project = 200
    size_of_project = per_project * 277  # bytes per project once indented
    count = max(1, int(megabytes * 1_000_000 / size_of_project))
    return {
        "numStartups": 1,
        "projects": {
            f"/home/user/project-{n:05d}": {"history": [entry] * per_project, "allowedTools": []}
            for n in range(count)
        },
    }


def folder_mb(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 1e6


def run(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    home = root / "home"
    home.mkdir()
    claude_json = home / ".claude.json"
    data = big_claude_json(args.mb)
    claude_json.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    hub = root / "hub"
    hub.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX", "MEMHUB"))}
    env.update(HOME=str(home), MEMHUB_HOME=str(home / ".memhub"))
    command = [sys.executable, "-m", "memhub.compiler.cli.main", "apply", str(hub)]
    command += ["--scope", "user", "--hosts", "claude"]
    for round_no in range(args.applies):
        (hub / "hub.yaml").write_text(HUB.format(round=round_no % 2), "utf-8")
        if args.host_rewrites and round_no:
            text = claude_json.read_text("utf-8")
            claude_json.write_text(
                text.replace(f'"numStartups": {round_no}', f'"numStartups": {round_no + 1}', 1),
                "utf-8",
            )
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"apply {round_no} failed (exit {done.returncode}): {done.stderr}")
        print(f"apply {round_no + 1}/{args.applies}", file=sys.stderr, flush=True)
    recovery = home / ".memhub" / "recovery"
    journals = list((home / ".memhub" / "journal").glob("*.jsonl"))
    return {
        "claude_json_mb": round(claude_json.stat().st_size / 1e6, 1),
        "applies": args.applies,
        "host_rewrites": args.host_rewrites,
        "recovery_mb": round(folder_mb(recovery), 1),
        "journals_kept": len(journals),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=16.0)
    parser.add_argument("--applies", type=int, default=50)
    parser.add_argument("--host-rewrites", action="store_true")
    parser.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memhub-bench-recovery-") as tmp:
        report = run(args, Path(tmp))
    if args.as_json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f".claude.json {report['claude_json_mb']} MB, {report['applies']} applies"
            f"{' (host rewrites between)' if report['host_rewrites'] else ''}: "
            f"recovery/ {report['recovery_mb']} MB, {report['journals_kept']} runs undoable"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
