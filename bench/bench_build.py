"""Time memhub's load and build, in-process and through the CLI, against stated goals.

Measurements (each: warm-up runs, then --runs timed runs; median and p90 in ms):

  large hub (bench/gen_hub.py: 1,000 skills, 200 MCP servers, 50 hooks, 4 hosts)
    load + build, in-process                    goal: median <= 2000 ms
    load alone, build alone (on one loaded hub)
  examples/memhub
    load + build, in-process
    python -c pass                               (interpreter start)
    python -c "import memhub.compiler.cli.main"       (interpreter start + imports)
    python -m memhub.compiler.cli.main build examples/memhub --out NEW
                                                 goal: CLI - interpreter start <= 300 ms,
                                                 as the median of per-round differences
    python -m memhub.compiler.cli.main build examples/memhub --out PREVIOUS
                                                 (rebuild over the previous build; report)
  The four subprocesses run once per round (order rotated each round), so each round
  gives a paired difference; the difference of medians is printed alongside.

It is a report, not a test: exit 0 whatever the figures, unless --check is given,
then exit 1 when a goal fails. Stdlib and memhub only.

    python bench/bench_build.py                  # table
    python bench/bench_build.py --json           # one JSON document
    python bench/bench_build.py --runs 30 --check
    python bench/bench_build.py --profile        # + cProfile of large load + build
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXAMPLE = REPO / "examples" / "memhub"
sys.path.insert(0, str(HERE))

try:
    import resource
except ImportError:  # not on Windows: no CPU time for subprocesses there
    resource = None  # type: ignore[assignment]

import gen_hub  # noqa: E402
from memhub.compiler.build import build  # noqa: E402
from memhub.hubspec import load  # noqa: E402

LARGE_GOAL_MS = 2000.0
CLI_GOAL_MS = 300.0
# Variables that would make the timed interpreters do extra work.
_NOISY_ENV = ("PYTHONPROFILEIMPORTTIME", "PYTHONTRACEMALLOC", "PYTHONDEVMODE", "PYTHONVERBOSE")


@dataclass
class Measurement:
    id: str
    label: str
    samples_ms: list[float]
    warmup_ms: list[float] = field(default_factory=list)
    note: str = ""
    cpu_ms: list[float] = field(default_factory=list)  # CPU time (user + sys) of each sample

    @property
    def cpu_median(self) -> float | None:
        return statistics.median(self.cpu_ms) if self.cpu_ms else None

    @property
    def median(self) -> float:
        return statistics.median(self.samples_ms)

    @property
    def p90(self) -> float:
        return p90(self.samples_ms)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "label": self.label,
            "runs": len(self.samples_ms),
            "median_ms": round(self.median, 3),
            "p90_ms": round(self.p90, 3),
            "min_ms": round(min(self.samples_ms), 3),
            "max_ms": round(max(self.samples_ms), 3),
            "warmup_ms": [round(x, 3) for x in self.warmup_ms],
            "samples_ms": [round(x, 3) for x in self.samples_ms],
            "cpu_median_ms": round(self.cpu_median, 3) if self.cpu_ms else None,
            "cpu_ms": [round(x, 3) for x in self.cpu_ms],
            "note": self.note,
        }


@dataclass
class Goal:
    id: str
    label: str
    metric: str
    value_ms: float
    limit_ms: float
    cpu_ms: float | None = None  # the same metric on CPU time, for reference

    @property
    def passed(self) -> bool:
        return self.value_ms <= self.limit_ms

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "label": self.label,
            "metric": self.metric,
            "value_ms": round(self.value_ms, 3),
            "limit_ms": self.limit_ms,
            "pass": self.passed,
            "cpu_ms": round(self.cpu_ms, 3) if self.cpu_ms is not None else None,
        }


def p90(samples: list[float]) -> float:
    """90th percentile, linear interpolation between closest ranks (inclusive method)."""
    if len(samples) < 2:
        return samples[0]
    return statistics.quantiles(samples, n=10, method="inclusive")[-1]


def _ms(start: int, end: int) -> float:
    return (end - start) / 1e6


def time_rounds(
    fns: dict[str, Callable[[], object]], *, runs: int, warmup: int
) -> dict[str, tuple[list[float], list[float], list[float]]]:
    """{name: (warm-up ms, timed ms, timed CPU ms)}: each round calls every fn once, in a
    rotated order, so load on the machine from elsewhere falls on all of them alike. A
    full garbage collection runs before each call, untimed."""
    names = list(fns)
    result: dict[str, tuple[list[float], list[float], list[float]]] = {
        n: ([], [], []) for n in names
    }
    for index in range(warmup + runs):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            gc.collect()
            cpu = time.process_time_ns()
            start = time.perf_counter_ns()
            fns[name]()
            end = time.perf_counter_ns()
            cpu_end = time.process_time_ns()
            if index < warmup:
                result[name][0].append(_ms(start, end))
            else:
                result[name][1].append(_ms(start, end))
                result[name][2].append(_ms(cpu, cpu_end))
    return result


def _children_cpu_ns() -> int:
    """CPU time (user + sys) of every waited-for child process so far."""
    if resource is None:
        return 0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return int((usage.ru_utime + usage.ru_stime) * 1e9)


def _log(quiet: bool, text: str) -> None:
    if not quiet:
        print(text, file=sys.stderr, flush=True)


def bench_large(
    hub_dir: Path, *, runs: int, warmup: int, quiet: bool
) -> tuple[list[Measurement], dict]:
    # The first call in this process pays one-time costs (JSON Schema validator,
    # template compilation); it is reported on its own, once.
    gc.collect()
    cpu = time.process_time_ns()
    start = time.perf_counter_ns()
    hub = load(hub_dir)
    build(hub)
    cold = Measurement(
        "large.first_load_build",
        "large: first load + build in a process",
        [_ms(start, time.perf_counter_ns())],
        note="one sample: includes one-time costs that later calls reuse",
        cpu_ms=[_ms(cpu, time.process_time_ns())],
    )
    _log(quiet, f"large hub: load + build, load, build: {warmup}+{runs} rounds ...")
    timed = time_rounds(
        {
            "both": lambda: build(load(hub_dir)),
            "load": lambda: load(hub_dir),
            "build": lambda: build(hub),
        },
        runs=runs,
        warmup=warmup,
    )
    both = Measurement(
        "large.load_build",
        "large: load + build (4 hosts)",
        timed["both"][1],
        timed["both"][0],
        cpu_ms=timed["both"][2],
    )
    load_only = Measurement(
        "large.load",
        "large: load alone",
        timed["load"][1],
        timed["load"][0],
        cpu_ms=timed["load"][2],
    )
    build_only = Measurement(
        "large.build",
        "large: build alone (one loaded hub)",
        timed["build"][1],
        timed["build"][0],
        cpu_ms=timed["build"][2],
    )
    result = build(hub)
    info = {
        "path": str(hub_dir),
        "skills": len(hub.skills),
        "skill_files": sum(len(s.files) for s in hub.skills),
        "mcp_servers": len(hub.mcp_servers),
        "hooks": len(hub.hooks),
        "hosts": list(result.hosts),
        "artifacts": len(result.artifacts),
        "artifact_bytes": sum(len(a.content) for a in result.artifacts),
        "warnings": len(result.warnings),
    }
    return [both, load_only, build_only, cold], info


def _child_env(bytecode: str, cache_dir: Path) -> dict[str, str]:
    """The timed interpreters' environment.

    `cache` (default): bytecode is cached in a private folder (PYTHONPYCACHEPREFIX), as
    for any installed package; PYTHONDONTWRITEBYTECODE is dropped so the priming run can
    fill it, and nothing is written into the checkout. `inherit`: this environment as is
    (with PYTHONDONTWRITEBYTECODE=1 and no __pycache__, every run compiles memhub anew).
    """
    env = {k: v for k, v in os.environ.items() if k not in _NOISY_ENV}
    if bytecode == "cache":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache_dir)
    return env


def bench_example(
    *, runs: int, warmup: int, quiet: bool, bytecode: str
) -> tuple[list[Measurement], dict]:
    _log(quiet, f"examples/memhub: in-process load + build: {warmup}+{runs} runs ...")
    warm, timed, cpu = time_rounds({"x": lambda: build(load(EXAMPLE))}, runs=runs, warmup=warmup)[
        "x"
    ]
    inproc = Measurement(
        "example.load_build", "example: load + build, in-process", timed, warm, cpu_ms=cpu
    )
    hub = load(EXAMPLE)
    result = build(hub)
    info = {
        "path": str(EXAMPLE),
        "skills": len(hub.skills),
        "mcp_servers": len(hub.mcp_servers),
        "hooks": len(hub.hooks),
        "hosts": list(result.hosts),
        "artifacts": len(result.artifacts),
    }

    py = sys.executable
    cli = [py, "-m", "memhub.compiler.cli.main", "build", str(EXAMPLE), "--out"]
    labels = {
        "interp": "python -c pass (interpreter start)",
        "import": 'python -c "import memhub.compiler.cli.main"',
        "cli_new": "python -m memhub.compiler.cli.main build --out NEW",
        "cli_replace": "python -m memhub.compiler.cli.main build --out PREVIOUS",
    }
    with tempfile.TemporaryDirectory(prefix="memhub-bench-") as tmp:
        previous = Path(tmp) / "out-previous"

        def command(key: str, round_index: int) -> list[str]:
            if key == "interp":
                return [py, "-c", "pass"]
            if key == "import":
                return [py, "-c", "import memhub.compiler.cli.main"]
            if key == "cli_new":
                return [*cli, str(Path(tmp) / f"out-{round_index}")]
            return [*cli, str(previous)]

        samples: dict[str, list[float]] = {k: [] for k in labels}
        warm: dict[str, list[float]] = {k: [] for k in labels}
        cpu: dict[str, list[float]] = {k: [] for k in labels}
        env = _child_env(bytecode, Path(tmp) / "pycache")
        info["bytecode"] = bytecode
        # Priming run, never timed: fills the bytecode cache and creates the PREVIOUS
        # build, so every timed cli_replace run replaces a build the same way.
        subprocess.run([*cli, str(previous)], cwd=tmp, env=env, capture_output=True, check=True)
        order = list(labels)
        _log(
            quiet,
            f"examples/memhub: subprocesses ({len(order)} per round) x{warmup}+{runs} rounds ...",
        )
        for round_index in range(warmup + runs):
            shift = round_index % len(order)
            for key in order[shift:] + order[:shift]:
                argv = command(key, round_index)
                gc.collect()
                cpu_start = _children_cpu_ns()
                start = time.perf_counter_ns()
                done = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, check=False)
                end = time.perf_counter_ns()
                cpu_end = _children_cpu_ns()
                if done.returncode != 0:
                    raise SystemExit(
                        f"bench: {' '.join(argv)} exited {done.returncode}:\n"
                        + done.stderr.decode(errors="replace")
                    )
                if round_index < warmup:
                    warm[key].append(_ms(start, end))
                else:
                    samples[key].append(_ms(start, end))
                    if resource is not None:
                        cpu[key].append(_ms(cpu_start, cpu_end))
        info["cli_output_files"] = sum(1 for p in previous.rglob("*") if p.is_file())

    def minus(a: str, b: str, label: str) -> Measurement:
        return Measurement(
            f"example.{a}_minus_{b}",
            label,
            [x - y for x, y in zip(samples[a], samples[b], strict=True)],
            note="per-round paired differences",
            cpu_ms=[x - y for x, y in zip(cpu[a], cpu[b], strict=True)],
        )

    notes = {
        "cli_new": "each run builds into a folder that does not exist yet",
        "cli_replace": "each run replaces the previous build (plan reads it, swap, delete old)",
    }
    found = [inproc]
    found += [
        Measurement(
            f"example.{key}",
            labels[key],
            samples[key],
            warm[key],
            note=notes.get(key, ""),
            cpu_ms=cpu[key],
        )
        for key in labels
    ]
    found += [
        minus("import", "interp", "  import cost beyond interpreter start"),
        minus("cli_new", "interp", "  CLI build (NEW) beyond interpreter start"),
        minus("cli_replace", "interp", "  CLI build (PREVIOUS) beyond interpreter start"),
        minus("cli_new", "import", "  CLI build (NEW) beyond imports"),
    ]
    return found, info


def goals_for(measurements: dict[str, Measurement]) -> list[Goal]:
    goals = []
    if "large.load_build" in measurements:
        goals.append(
            Goal(
                "large_load_build",
                "large hub: load + build, in-process",
                "median",
                measurements["large.load_build"].median,
                LARGE_GOAL_MS,
                measurements["large.load_build"].cpu_median,
            )
        )
    if "example.cli_new_minus_interp" in measurements:
        goals.append(
            Goal(
                "cli_beyond_interpreter",
                "examples/memhub: CLI build --out NEW beyond interpreter start",
                "median of per-round differences (cli - python -c pass)",
                measurements["example.cli_new_minus_interp"].median,
                CLI_GOAL_MS,
                measurements["example.cli_new_minus_interp"].cpu_median,
            )
        )
    return goals


def environment(runs: int, warmup: int) -> dict[str, object]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "runs": runs,
        "warmup": warmup,
        "loadavg_before": _loadavg(),
    }


def _loadavg() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def render_table(
    env: dict[str, object],
    hubs: dict[str, dict],
    measurements: list[Measurement],
    goals: list[Goal],
    extra: dict[str, float],
) -> str:
    lines = [
        f"memhub build benchmark: Python {env['python']} on {env['platform']}, "
        f"{env['cpus']} CPUs; {env['warmup']} warm-up + {env['runs']} timed runs each",
    ]
    large = hubs.get("large")
    if large:
        lines.append(
            f"large hub: {large['skills']} skills ({large['skill_files']} files), "
            f"{large['mcp_servers']} MCP servers, {large['hooks']} hooks -> "
            f"{large['artifacts']} files, {large['artifact_bytes'] / 1e6:.1f} MB for "
            f"{len(large['hosts'])} hosts ({large['warnings']} coverage warnings)"
        )
    example = hubs.get("example")
    if example:
        lines.append(
            f"examples/memhub: {example['skills']} skills, {example['mcp_servers']} MCP "
            f"server(s), {example['hooks']} hooks -> {example['artifacts']} files; "
            f"subprocess bytecode: {example['bytecode']}"
        )
    lines.append("")
    width = max(len(m.label) for m in measurements)
    header = (
        f"{'measurement':<{width}}  {'runs':>4}  {'median ms':>10}  {'p90 ms':>9}  "
        f"{'min ms':>9}  {'max ms':>9}  {'CPU med ms':>10}"
    )
    lines += [header, "-" * len(header)]
    for m in measurements:
        cpu = f"{m.cpu_median:10.1f}" if m.cpu_median is not None else f"{'-':>10}"
        lines.append(
            f"{m.label:<{width}}  {len(m.samples_ms):>4}  {m.median:10.1f}  {m.p90:9.1f}  "
            f"{min(m.samples_ms):9.1f}  {max(m.samples_ms):9.1f}  {cpu}"
        )
    lines.append("")
    lines.append("goals")
    for g in goals:
        verdict = "PASS" if g.passed else "FAIL"
        lines.append(
            f"  {verdict}  {g.label}: {g.value_ms:.1f} ms  (goal <= {g.limit_ms:.0f} ms; {g.metric})"
        )
        if g.id == "cli_beyond_interpreter" and "difference_of_medians" in extra:
            lines.append(
                f"        for reference, difference of medians: "
                f"{extra['difference_of_medians']:.1f} ms"
            )
        if g.cpu_ms is not None:
            lines.append(f"        for reference, the same on CPU time: {g.cpu_ms:.1f} ms")
    if not goals:
        lines.append("  (none measured)")
    lines.append("")
    lines.append(
        f"load average (1 min) before/after: {env['loadavg_before']} / {env['loadavg_after']} "
        "(other work on the machine widens p90; compare medians and mins)"
    )
    return "\n".join(lines)


def profile_large(hub_dir: Path, top: int) -> str:
    import cProfile
    import io
    import pstats

    build(load(hub_dir))  # warm caches, as the timed runs are
    profiler = cProfile.Profile()
    profiler.enable()
    build(load(hub_dir))
    profiler.disable()
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return stream.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Time memhub load/build against its goals (a report; exit 0 unless --check)."
    )
    parser.add_argument("--runs", type=int, default=15, help="timed runs per measurement (15)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed warm-up runs (1)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal fails")
    parser.add_argument(
        "--hub",
        type=Path,
        help="large hub folder to use (generated there first if missing); default: a temp folder",
    )
    parser.add_argument(
        "--only", choices=("large", "example"), help="run one group of measurements"
    )
    parser.add_argument(
        "--bytecode",
        choices=("cache", "inherit"),
        default="cache",
        help="subprocess bytecode: a private, primed cache (default) or this environment as is",
    )
    parser.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=30,
        metavar="N",
        help="also print the top N (30) functions of one large load + build under cProfile",
    )
    args = parser.parse_args(argv)
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be >= 1 and --warmup >= 0")
    quiet = args.json

    env = environment(args.runs, args.warmup)
    measurements: list[Measurement] = []
    hubs: dict[str, dict] = {}
    profile_text = ""
    tmp: str | None = None
    try:
        if args.only in (None, "large") or args.profile:
            if args.hub is not None:
                hub_dir = args.hub
                if not (hub_dir / "hub.yaml").is_file():
                    _log(quiet, f"generating the large hub into {hub_dir} ...")
                    gen_hub.generate(hub_dir)
            else:
                tmp = tempfile.mkdtemp(prefix="memhub-bench-hub-")
                hub_dir = Path(tmp) / "hub"
                _log(quiet, f"generating the large hub into {hub_dir} ...")
                gen_hub.generate(hub_dir)
            if args.only in (None, "large"):
                found, hubs["large"] = bench_large(
                    hub_dir, runs=args.runs, warmup=args.warmup, quiet=quiet
                )
                measurements += found
            if args.profile:
                profile_text = profile_large(hub_dir, args.profile)
        if args.only in (None, "example"):
            found, hubs["example"] = bench_example(
                runs=args.runs, warmup=args.warmup, quiet=quiet, bytecode=args.bytecode
            )
            measurements += found
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    by_id = {m.id: m for m in measurements}
    goals = goals_for(by_id)
    extra: dict[str, float] = {}
    if "example.cli_new" in by_id:
        extra["difference_of_medians"] = (
            by_id["example.cli_new"].median - by_id["example.interp"].median
        )
    env["loadavg_after"] = _loadavg()
    if args.json:
        document = {
            "environment": env,
            "hubs": hubs,
            "measurements": [m.to_json() for m in measurements],
            "goals": [g.to_json() for g in goals],
            "cli_difference_of_medians_ms": round(extra["difference_of_medians"], 3)
            if extra
            else None,
            "all_goals_pass": all(g.passed for g in goals),
        }
        if profile_text:
            document["profile"] = profile_text
        print(json.dumps(document, indent=2))
    else:
        print(render_table(env, hubs, measurements, goals, extra))
        if profile_text:
            print("\ncProfile of one large load + build (warm):\n")
            print(profile_text)
    if args.check and not all(g.passed for g in goals):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
