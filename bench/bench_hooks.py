"""Time the generated hook processes on their no-op paths against `python3 -S -c pass`.

Goals: the `before_tool` and `turn_end` hooks a bundle runs, each on its no-op path (a
read-only shell command; a transcript with nothing new to send), cost at most 1.5 times a
bare interpreter start (issue 4); `session_start` (`capture.health` with capture healthy) at
most 1.3 times (issue 9), measured on capture.health alone since examples/memhub binds
recall.brief in the same entry; that whole entry, with no memory, has the brief's goal (2.0).
Medians over interleaved rounds in one run.

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

The `recall:` rows are issue 11's: `examples/team-memory`'s real commands, built the same way,
over a memory of 10,000 directives (`bench_recall.memory`: a connected checkout, half of them
project, half shared, the trigger cache and its filter built in process first). Goals: a
read-only `before_tool` (`git status`) at most 1.3, a mutating one with a new handle each
round (`rm -rf build/<new> && make`: looked up, nothing fires) at most 2.0, `session_start`
(the brief, a new session each round) at most 2.0 and `prompt_submit` naming no identifier
at most 1.3. `--no-recall` leaves them out. The same read-only `before_tool` runs through
the hook the hub's Copilot CLI bundle has (`copilot preToolUse`, Copilot's payload), beside
Claude's, under the same goal.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# a row: its argv, its stdin (or the stdin of round N), its environment
Row = tuple[list[str], bytes | Callable[[int], bytes], dict[str, str]]

REPO = Path(__file__).resolve().parent.parent
GOAL_RATIO = 1.5
# row label prefix -> the most its median may cost, in bare interpreter starts
GOALS = {"before_tool": GOAL_RATIO, "turn_end": GOAL_RATIO, "session_start": 1.3}
RECALL_READ_ONLY = "recall: before_tool, read-only git status"
RECALL_MUTATING = "recall: before_tool, mutating, new handle"
RECALL_BRIEF = "recall: session_start, the brief"
RECALL_PROMPT = "recall: prompt_submit, no identifier"
RECALL_COPILOT = f"{RECALL_READ_ONLY} (copilot)"  # the prefix gives it the same goal
# examples/memhub's own SessionStart entry (capture.health and recall.brief in one process),
# with no memory: under the brief's goal
EXAMPLE_START = "example: session_start, capture.health + recall.brief, no memory"
GOALS[EXAMPLE_START] = 2.0
GOALS |= {RECALL_READ_ONLY: 1.3, RECALL_MUTATING: 2.0, RECALL_BRIEF: 2.0, RECALL_PROMPT: 1.3}
PLAIN_PROMPT = "please tidy up the wording of the introduction and make it a little friendlier"
SESSION = "0b3a4c1e-5d2f-4e8a-9c7b-6a1d2e3f4a5b"
# the entry whose no-op path a row measures, where a bundle has more than one for the event
CAPTURE = {"PreToolUse": "capture.commit=shell", "PostToolUse": "capture.commit=shell",
           "Stop": "capture.turn_end"}  # fmt: skip
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
    hub_dir = root / "hub"
    shutil.copytree(REPO / "examples" / "memhub", hub_dir)
    text = (hub_dir / "hub.yaml").read_text(encoding="utf-8")
    marker = "\nruntime:\n"
    assert marker in text, "examples/memhub/hub.yaml has no runtime: section to insert before"
    text = text.replace(marker, "\n" + BEFORE_HOOK + "runtime:\n", 1)
    (hub_dir / "hub.yaml").write_text(text, encoding="utf-8")
    return build_plugin(hub_dir, root / "bundle", "memhub")


def build_plugin(hub_dir: Path, out: Path, name: str) -> Path:
    """The hub built for Claude Code into `out`; its plugin folder."""
    from memhub.compiler.build import build
    from memhub.hubspec import load

    for artifact in build(load(hub_dir), ["claude"]).artifacts:
        target = out / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
        os.chmod(target, artifact.mode)
    return out / "plugins" / name


def copilot_argv(hub_dir: Path, out: Path, python: str) -> list[str]:
    """The runtime's preToolUse command of the hub's Copilot CLI bundle, built into `out`."""
    from dataclasses import replace

    from memhub.compiler.build import build
    from memhub.hubspec import load

    hub = load(hub_dir)
    for artifact in build(replace(hub, hosts=("copilot",)), ["copilot"]).artifacts:
        target = out / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
    plugin = out / "copilot" / hub.plugin.name
    document = json.loads((plugin / "hooks" / "hooks.json").read_text(encoding="utf-8"))
    (command,) = [
        h["bash"] for h in document["hooks"]["preToolUse"] if "memhub_runtime/hook.py" in h["bash"]
    ]
    argv = shlex.split(command.replace("${PLUGIN_ROOT}", str(plugin)))
    return [python, *argv[1:]]


def hook_argv(plugin: Path, event: str, python: str) -> list[str]:
    document = json.loads((plugin / "hooks" / "claude-hooks.json").read_text(encoding="utf-8"))
    commands = [
        handler["command"]
        for group in document["hooks"].get(event, [])
        for handler in group["hooks"]
        if "memhub_runtime/hook.py" in handler["command"]
    ]
    if len(commands) > 1:  # examples/memhub splits an event by settings: capture's entry
        commands = [c for c in commands if CAPTURE.get(event, "-") in c.split()] or commands
    if len(commands) != 1:
        raise SystemExit(f"expected one runtime entry for {event}, found {len(commands)}")
    argv = shlex.split(commands[0].replace("${CLAUDE_PLUGIN_ROOT}", str(plugin)))
    if argv[0] != "python3":
        raise SystemExit(f"unexpected interpreter in {commands[0]!r}")
    return [python, *argv[1:]]


def only(argv: list[str], binding: str) -> list[str]:
    """A dispatcher argv (`python -S hook.py <host> <Event> <bindings...>`) with one binding."""
    if binding not in argv[5:]:
        raise SystemExit(f"{binding} is not bound in {argv}")
    return [*argv[:5], binding]


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


def recall_rows(root: Path, python: str, env: dict[str, str]) -> tuple[dict[str, Row], Path]:
    """Issue 11's rows: examples/team-memory's commands over 10,000 directives; and the
    memhub home they use."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_recall  # the memory and payloads of directive recall's own bench

    place = root / "recall"
    place.mkdir()
    home, app = bench_recall.memory(place)
    bench_recall.in_process(home, app, 1)  # the trigger cache, its filter, the project memo
    plugin = build_plugin(REPO / "examples" / "team-memory", root / "team-bundle", "team-memory")
    env = {**env, "HOME": str(place), "MEMHUB_HOME": str(home)}

    def tool(kind: str) -> Callable[[int], bytes]:
        # a new handle each round (offset past the in-process warm-up's)
        return lambda r: json.dumps(bench_recall.payload(app, kind, r + 1000)).encode()

    def start(r: int) -> bytes:  # a new session each round: the brief is not a repeat
        event = {"session_id": f"bench-start-{r}", "cwd": str(app), "source": "startup"}
        return json.dumps({**event, "hook_event_name": "SessionStart"}).encode()

    def prompt(r: int) -> bytes:
        event = {"session_id": bench_recall.SESSION, "cwd": str(app), "prompt": PLAIN_PROMPT}
        return json.dumps({**event, "hook_event_name": "UserPromptSubmit"}).encode()

    def copilot(r: int) -> bytes:  # the same call in Copilot CLI's payload
        claude = bench_recall.payload(app, "read-only shell", r + 1000)
        event = {"sessionId": claude["session_id"], "timestamp": 1796581265875}
        tool = {"toolName": "bash", "toolArgs": claude["tool_input"]}
        return json.dumps({**event, "cwd": claude["cwd"], **tool}).encode()

    before = hook_argv(plugin, "PreToolUse", python)
    copilot_before = copilot_argv(REPO / "examples" / "team-memory", root / "copilot", python)
    rows: dict[str, Row] = {
        RECALL_READ_ONLY: (before, tool("read-only shell"), env),
        RECALL_COPILOT: (copilot_before, copilot, env),
        RECALL_MUTATING: (before, tool("mutating shell"), env),
        RECALL_BRIEF: (hook_argv(plugin, "SessionStart", python), start, env),
        RECALL_PROMPT: (hook_argv(plugin, "UserPromptSubmit", python), prompt, env),
    }
    return rows, home


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


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
    parser.add_argument(
        "--no-recall", action="store_false", dest="recall", help="leave out the recall: rows"
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
        rows: dict[str, Row] = {
            "python3 -S -c pass": ([args.python, "-S", "-c", "pass"], data["Stop"], env),
            "before_tool (PreToolUse, read-only shell)": (
                hook_argv(plugin, "PreToolUse", args.python),
                data["PreToolUse"],
                env,
            ),
            "after_tool (PostToolUse, read-only shell)": (
                hook_argv(plugin, "PostToolUse", args.python),
                data["PostToolUse"],
                env,
            ),
            "turn_end (Stop, nothing new to send)": (
                hook_argv(plugin, "Stop", args.python),
                data["Stop"],
                env,
            ),
            # issue 9's goal is for capture.health alone; examples/memhub now binds
            # recall.brief in the same entry, which has the brief's own goal (below)
            "session_start (SessionStart, capture healthy)": (
                only(hook_argv(plugin, "SessionStart", args.python), "capture.health"),
                data["SessionStart"],
                env,
            ),
            EXAMPLE_START: (
                hook_argv(plugin, "SessionStart", args.python),
                data["SessionStart"],
                env,
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
                env,
            )
        console = Path(sysconfig.get_path("scripts")) / "memhub-hook"
        if console.is_file():
            rows["install: before_tool, memhub-hook script"] = (
                [str(console), *bindings],
                data["PreToolUse"],
                env,
            )
        recall_home = None
        if args.recall:
            recall, recall_home = recall_rows(root, args.python, env)
            rows |= recall
        names = list(rows)
        samples: dict[str, list[float]] = {name: [] for name in names}
        cpu: dict[str, list[float]] = {name: [] for name in names}
        outputs: dict[str, bytes] = {}
        for round_no in range(args.warmup + args.runs):
            order = names[round_no % len(names) :] + names[: round_no % len(names)]
            for name in order:
                command, stdin, row_env = rows[name]
                payload = stdin(round_no) if callable(stdin) else stdin
                used, started = _children_cpu(), time.perf_counter()
                done = subprocess.run(
                    command, input=payload, stdout=subprocess.PIPE, env=row_env, check=False
                )
                elapsed = time.perf_counter() - started
                if done.returncode != 0:
                    raise SystemExit(f"{name}: exit {done.returncode}")
                outputs[name] = done.stdout
                if round_no >= args.warmup:
                    samples[name].append(elapsed * 1000)
                    cpu[name].append((_children_cpu() - used) * 1000)
        # the no-op paths must have stayed no-ops: no flush ran, nothing was logged
        started_work = (home / "capture").exists() or (home / "logs").exists()
        if started_work:
            raise SystemExit("a hook did real work; the no-op paths were not measured")
        if not (home / "hooks" / "health").is_file():
            raise SystemExit("session_start left no health memo: its fast path was not measured")
        if recall_home is not None and (recall_home / "logs").exists():
            logged = (recall_home / "logs" / "hook.log").read_text(encoding="utf-8")
            raise SystemExit(f"a recall hook failed or ran late:\n{logged}")
        for name in names[1:]:
            if name == EXAMPLE_START:
                continue  # a brief of an empty memory may say so: its answer is not `{}`
            if name == RECALL_BRIEF:
                if b'"additionalContext"' not in outputs[name]:
                    raise SystemExit(f"{name}: no brief in {outputs[name]!r}")
            elif outputs[name].strip() != b"{}":
                raise SystemExit(f"{name}: unexpected answer {outputs[name]!r}")
    base = samples[names[0]]
    base_median, base_cpu = statistics.median(base), statistics.median(cpu[names[0]])
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
                "cpu_ms": round(statistics.median(cpu[name]), 2),
                "cpu_ratio": round(statistics.median(cpu[name]) / base_cpu, 3),
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
        header = (
            f"{'process':54} {'median ms':>9} {'p90 ms':>7} {'min ms':>7} {'ratio':>6} "
            f"{'paired':>6} {'cpu ms':>7} {'cpu':>5}"
        )
        print(header)
        for row in results:
            print(
                f"{row['label']:54} {row['median_ms']:9.2f} {row['p90_ms']:7.2f} "
                f"{row['min_ms']:7.2f} {row['ratio']:6.2f} {row['paired_ratio']:6.2f} "
                f"{row['cpu_ms']:7.2f} {row['cpu_ratio']:5.2f}"
            )
        for goal in goals:
            verdict = "PASS" if goal["pass"] else "FAIL"
            print(f"{verdict} {goal['label']}: {goal['ratio']:.2f} <= {goal['limit']}")
    return 1 if args.check and not report["all_goals_pass"] else 0


if __name__ == "__main__":
    sys.exit(main())
