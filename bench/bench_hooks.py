"""Time the generated hook processes on their no-op paths against `python3 -S -c pass`.

Goals: the `before_tool` and `turn_end` hooks a bundle runs, each on its no-op path (a
read-only shell command; a transcript with nothing new to send), cost at most 1.5 times a
bare interpreter start (issue 4); `session_start` (`capture.health` with capture healthy) at
most 1.3 times (issue 9). Medians over interleaved rounds in one run.

The hooks are the real generated commands: `examples/memhub` (plus one `before_tool` hook,
below) is built into a temporary bundle, and each command is read from the built
`hooks/claude-hooks.json` and run as its argv with the plugin root filled in. Every row runs
with the same interpreter, the same stdin payload size class and stdout to /dev/null; the
rows take turns inside each round (rotated order), so load from elsewhere falls on all
alike. A report, not a test: exit 0 unless --check is given and a goal fails.

    python bench/bench_hooks.py [--runs 41] [--json] [--check] [--bytecode cache|inherit]

`examples/memhub` binds no handler to `before_tool` yet (recall handlers will); the bench hub
adds `capture.commit` there on shell tools, which runs the same dispatcher path such a
handler's prefilter takes: normalise the payload, match the tool class, reject a read-only
command without parsing it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOAL_RATIO = 1.5
# row label prefix -> the most its median may cost, in bare interpreter starts
GOALS = {"before_tool": GOAL_RATIO, "turn_end": GOAL_RATIO, "session_start": 1.3}
SESSION = "0b3a4c1e-5d2f-4e8a-9c7b-6a1d2e3f4a5b"
BEFORE_HOOK = (
    "  - id: bench-before-shell\n"
    "    event: before_tool\n"
    "    tools: [shell]\n"
    "    handler: capture.commit\n"
)


def p90(samples: list[float]) -> float:
    if len(samples) < 2:
        return samples[0]
    return statistics.quantiles(samples, n=10, method="inclusive")[-1]


def build_bundle(root: Path) -> Path:
    """examples/memhub + the before_tool hook, built into `root/bundle`; the plugin folder."""
    from memhub.compiler.build import build
    from memhub.hubspec import load

    hub_dir = root / "hub"
    shutil.copytree(REPO / "examples" / "memhub", hub_dir)
    text = (hub_dir / "hub.yaml").read_text(encoding="utf-8")
    marker = "\nruntime:\n"
    assert marker in text, "examples/memhub/hub.yaml has no runtime: section to insert before"
    text = text.replace(marker, "\n" + BEFORE_HOOK + "runtime:\n", 1)
    (hub_dir / "hub.yaml").write_text(text, encoding="utf-8")
    result = build(load(hub_dir), ["claude"])
    out = root / "bundle"
    for artifact in result.artifacts:
        target = out / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
        os.chmod(target, artifact.mode)
    return out / "plugins" / "memhub"


def hook_argv(plugin: Path, event: str, python: str) -> list[str]:
    document = json.loads((plugin / "hooks" / "claude-hooks.json").read_text(encoding="utf-8"))
    commands = [
        handler["command"]
        for group in document["hooks"].get(event, [])
        for handler in group["hooks"]
        if "memhub_runtime/hook.py" in handler["command"]
    ]
    if len(commands) != 1:
        raise SystemExit(f"expected one runtime entry for {event}, found {len(commands)}")
    argv = shlex.split(commands[0].replace("${CLAUDE_PLUGIN_ROOT}", str(plugin)))
    if argv[0] != "python3":
        raise SystemExit(f"unexpected interpreter in {commands[0]!r}")
    return [python, *argv[1:]]


def installed_entry() -> list[str] | None:
    """The first words of the hook command `memhub apply` writes (Scope.hook_entry)."""
    from memhub.compiler.install.scope import installation_hook

    found = installation_hook()
    return None if found is None else [found[0], "-S", found[1]]


def payloads(root: Path, home: Path) -> dict[str, bytes]:
    """Claude Code payloads (the shapes the real CLI sends) for the no-op paths."""
    transcript = root / "transcript.jsonl"
    lines = [
        {"type": "user", "uuid": f"u{i}", "message": {"role": "user", "content": "hi"}}
        for i in range(200)
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    # the state after a flush: the transcript had this size when the last one started
    marker = home / "hooks" / "turn" / f"claude-{SESSION}"
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(str(transcript.stat().st_size), encoding="ascii")
    common = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(root),
        "permission_mode": "default",
    }
    tool = {
        "tool_name": "Bash",
        "tool_input": {"command": "git status --short && ls -la", "description": "look"},
        "tool_use_id": "toolu_bench",
    }
    return {
        "SessionStart": json.dumps(
            {**common, "hook_event_name": "SessionStart", "source": "startup"}
        ).encode(),
        "PreToolUse": json.dumps({**common, "hook_event_name": "PreToolUse", **tool}).encode(),
        "PostToolUse": json.dumps(
            {
                **common,
                "hook_event_name": "PostToolUse",
                **tool,
                "tool_response": {"stdout": " M README.md\n" * 20, "stderr": ""},
            }
        ).encode(),
        "Stop": json.dumps(
            {
                **common,
                "hook_event_name": "Stop",
                "stop_hook_active": False,
                "last_assistant_message": "Done.",
            }
        ).encode(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41, help="timed rounds (default 41)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed rounds first")
    parser.add_argument("--json", action="store_true", dest="as_json")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal fails")
    parser.add_argument(
        "--bytecode",
        choices=("cache", "inherit"),
        default="cache",
        help="cache: a private bytecode cache, filled by the warm-up (as a plugin folder "
        "the host can write to has); inherit: this environment as it is",
    )
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter for every row (default: this one)"
    )
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory(prefix="memhub-bench-hooks-") as tmp:
        root = Path(tmp)
        plugin = build_bundle(root)
        home = root / "memhub-home"
        data = payloads(root, home)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(root),
            "MEMHUB_HOME": str(home),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
        }
        if args.bytecode == "cache":
            env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        elif "PYTHONDONTWRITEBYTECODE" in os.environ:
            env["PYTHONDONTWRITEBYTECODE"] = os.environ["PYTHONDONTWRITEBYTECODE"]
        rows = {
            "python3 -S -c pass": ([args.python, "-S", "-c", "pass"], data["Stop"]),
            "before_tool (PreToolUse, read-only shell)": (
                hook_argv(plugin, "PreToolUse", args.python),
                data["PreToolUse"],
            ),
            "after_tool (PostToolUse, read-only shell)": (
                hook_argv(plugin, "PostToolUse", args.python),
                data["PostToolUse"],
            ),
            "turn_end (Stop, nothing new to send)": (
                hook_argv(plugin, "Stop", args.python),
                data["Stop"],
            ),
            "session_start (SessionStart, capture healthy)": (
                hook_argv(plugin, "SessionStart", args.python),
                data["SessionStart"],
            ),
        }
        # an install (`memhub apply`) has no plugin folder: what its hooks run, and the
        # console script they ran before issue 9, on the same before_tool payload
        installed = installed_entry()
        bindings = hook_argv(plugin, "PreToolUse", args.python)[3:]
        if installed is not None:
            rows["install: before_tool, python -S hook.py"] = (
                [*installed, *bindings],
                data["PreToolUse"],
            )
        console = Path(sysconfig.get_path("scripts")) / "memhub-hook"
        if console.is_file():
            rows["install: before_tool, memhub-hook script"] = (
                [str(console), *bindings],
                data["PreToolUse"],
            )
        names = list(rows)
        samples: dict[str, list[float]] = {name: [] for name in names}
        outputs: dict[str, bytes] = {}
        for round_no in range(args.warmup + args.runs):
            order = names[round_no % len(names) :] + names[: round_no % len(names)]
            for name in order:
                command, stdin = rows[name]
                started = time.perf_counter()
                done = subprocess.run(
                    command, input=stdin, stdout=subprocess.PIPE, env=env, check=False
                )
                elapsed = time.perf_counter() - started
                if done.returncode != 0:
                    raise SystemExit(f"{name}: exit {done.returncode}")
                outputs[name] = done.stdout
                if round_no >= args.warmup:
                    samples[name].append(elapsed * 1000)
        # the no-op paths must have stayed no-ops: no flush ran, nothing was logged
        started_work = (home / "capture").exists() or (home / "logs").exists()
        if started_work:
            raise SystemExit("a hook did real work; the no-op paths were not measured")
        if not (home / "hooks" / "health").is_file():
            raise SystemExit("session_start left no health memo: its fast path was not measured")
        for name in names[1:]:
            if outputs[name].strip() != b"{}":
                raise SystemExit(f"{name}: unexpected answer {outputs[name]!r}")
    base = samples[names[0]]
    base_median = statistics.median(base)
    results = []
    for name in names:
        series = samples[name]
        paired = [s / b for s, b in zip(series, base, strict=True)]
        results.append(
            {
                "label": name,
                "runs": len(series),
                "median_ms": round(statistics.median(series), 2),
                "p90_ms": round(p90(series), 2),
                "min_ms": round(min(series), 2),
                "max_ms": round(max(series), 2),
                "ratio": round(statistics.median(series) / base_median, 3),
                "paired_ratio": round(statistics.median(paired), 3),
            }
        )
    goals = [
        {
            "label": row["label"],
            "metric": "median hook / median python3 -S -c pass",
            "ratio": row["ratio"],
            "limit": limit,
            "pass": row["ratio"] <= limit,
        }
        for row in results[1:]
        for prefix, limit in GOALS.items()
        if row["label"].startswith(prefix)
    ]
    report = {
        "environment": {
            "python": platform.python_version(),
            "interpreter": "the running one" if args.python == sys.executable else "--python",
            "platform": platform.platform(terse=True),
            "cpus": os.cpu_count(),
            "runs": args.runs,
            "warmup": args.warmup,
            "bytecode": args.bytecode,
            "loadavg_before": load_before,
            "loadavg_after": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        },
        "measurements": results,
        "goals": goals,
        "all_goals_pass": all(goal["pass"] for goal in goals),
    }
    if args.as_json:
        print(json.dumps(report, indent=2))
    else:
        env_line = report["environment"]
        print(
            f"python {env_line['python']}, {env_line['cpus']} cpus, {args.runs} rounds, "
            f"bytecode {args.bytecode}, load {load_before} -> {env_line['loadavg_after']}"
        )
        header = f"{'process':48} {'median ms':>9} {'p90 ms':>7} {'min ms':>7} {'ratio':>6} {'paired':>6}"
        print(header)
        for row in results:
            print(
                f"{row['label']:48} {row['median_ms']:9.2f} {row['p90_ms']:7.2f} "
                f"{row['min_ms']:7.2f} {row['ratio']:6.2f} {row['paired_ratio']:6.2f}"
            )
        for goal in goals:
            verdict = "PASS" if goal["pass"] else "FAIL"
            print(f"{verdict} {goal['label']}: {goal['ratio']:.2f} <= {goal['limit']}")
    return 1 if args.check and not report["all_goals_pass"] else 0


if __name__ == "__main__":
    sys.exit(main())
