"""memhub's memory search side by side with `grep -ril` on the same record files, and inside a
running MCP server.

For each size (10,000 and 100,000 records by default) the script writes synthetic records
(deterministic: titles, bodies and tags from a technical vocabulary with Zipf-like word
frequencies, one project connected to a real git checkout, a tenth of the records shared)
into a temporary MEMHUB_HOME with `records.render_record`, then:

* times `memhub memory index --rebuild` (reported per 10,000 records);
* times `memhub memory search TERM --json` (the installed console script, run in the
  project's checkout) against `grep -ril TERM <project records> <shared records>`, for three
  terms found in about 0.1 %, 1 % and 10 % of the records: rounds interleave the two (who
  goes first alternates), `os.sync()` before every timed run, medians and their ratio;
* at the largest size, starts `memhub mcp serve` over stdio with the official SDK client and
  times `--queries` `search_memory` calls one after another: p50 and p99.

memhub runs as `pip install` leaves it (bench_anchors.install_memhub: a venv holding a
regular install of this checkout) unless `--quick`, which uses this interpreter's memhub and
small sizes to keep the script working (tests/bench runs it). A report, not a test: exit 0
unless `--check` is given and a goal is missed.

    python bench/bench_memory.py [--sizes 10000 100000] [--rounds 5] [--queries 1000]
                                 [--rebuild-runs 3] [--server-seconds 600]
                                 [--json] [--check] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from memhub.runtime.memory import layout, projects, records
from memhub.runtime.memory.gitcheckout import checkout_of

REPO = Path(__file__).resolve().parents[1]
SEED = 10
SHARED_EVERY = 10  # every 10th record is shared, the rest belong to the project
TARGETS = {"rare": 0.001, "medium": 0.01, "common": 0.10}  # share of records holding the term
GOALS = {10_000: 1.0, 100_000: 0.2}  # memhub / grep, at least at these sizes
P99_GOAL_MS = 20.0
# A technical vocabulary; bodies draw from it with Zipf-like weights (rank order = frequency).
_VOCABULARY = """
the a to of and in is for on with run use when not this that it from by be are or as at
test build deploy config file error server client cache release branch commit review merge
python node docker api database index query table schema migration token secret key user
project module package version dependency install update script command shell path folder
log debug trace retry timeout request response header status queue worker job task cron
service endpoint route handler hook event session memory record search scope shared local
remote network proxy port socket thread process lock journal backup restore rollback undo
plan diff apply check lint format type compile bundle plugin skill agent host codex claude
gemini cursor model prompt context window limit budget cost latency throughput benchmark
metric alert dashboard oncall incident postmortem runbook staging production preview canary
feature flag toggle experiment rollout percentage region zone cluster node pod container
image registry mirror artifact storage bucket object blob upload download stream chunk batch
page cursor offset sort filter tag label owner team reviewer approval policy permission role
access audit compliance privacy encryption certificate rotation expiry renewal vault keychain
windows linux macos terminal editor vim emacs vscode jetbrains git github gitlab ci pipeline
workflow action runner matrix cache warm cold flaky quarantine snapshot fixture mock stub fake
parser lexer grammar yaml json toml markdown frontmatter unicode utf encoding newline bom crlf
"""
WORDS = list(dict.fromkeys(_VOCABULARY.split()))  # distinct, in rank order
TAGS = ["deploy", "ci", "testing", "security", "release", "infra", "docs", "db", "perf", "ux"]
_TOKEN = re.compile(r"[a-z0-9]+")
KINDS = ("fact", "preference", "decision", "lesson", "procedure", "artifact")


@dataclass(frozen=True)
class Corpus:
    """A generated memory: its home, the checkout to run in, the record folders, the terms."""

    home: Path
    checkout: Path
    folders: tuple[Path, ...]
    terms: dict[str, tuple[str, int]]  # target name -> (term, records holding it)
    size: int


@dataclass(frozen=True)
class Words:
    """The generator's vocabulary: Zipf-weighted common words, service names (each in about
    1 % of the records) and component names (each in about 0.1 %)."""

    weights: list[float]  # cumulative Zipf weights over WORDS
    services: list[str]
    components: list[str]


def vocabulary(rng: random.Random) -> Words:
    acc, weights = 0.0, []
    for rank in range(len(WORDS)):
        acc += 1.0 / (rank + 1)
        weights.append(acc)
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    made: set[str] = set()
    while len(made) < 1_024:  # pronounceable names of 3 syllables: no English word's substring
        made.add("".join(rng.choice(syllables) for _ in range(3)))
    names = sorted(made)
    return Words(weights, names[:24], names[24:])


def _sentence(rng: random.Random, words: Words, count: int) -> str:
    picked = rng.choices(WORDS, cum_weights=words.weights, k=count)
    if rng.random() < 0.06:
        picked.insert(rng.randrange(len(picked)), rng.choice(words.services))
    if rng.random() < 0.25:
        picked.insert(rng.randrange(len(picked)), rng.choice(words.components))
    text = " ".join(picked)
    return text[0].upper() + text[1:] + "."


def _record(rng: random.Random, number: int, project: str, words: Words) -> records.Record:
    """One realistic-looking record: a title, two to six sentences, tags, triggers for
    directives, a name for artifacts; every tenth shared."""
    component = rng.choice(words.components)
    title = f"{_sentence(rng, words, rng.randint(3, 8))[:-1]} in {component}"
    body = " ".join(_sentence(rng, words, rng.randint(6, 16)) for _ in range(rng.randint(2, 6)))
    shared = number % SHARED_EVERY == 0
    stamp = f"2026-{1 + number % 12:02d}-{1 + number % 28:02d}T{number % 24:02d}:00:00Z"
    kind = rng.choice(KINDS)
    triggers = records.Triggers()
    if kind in records.DIRECTIVES:
        triggers = records.Triggers(
            paths=(f"src/{component}/**",), commands=(f"{rng.choice(WORDS[40:])} {component}",)
        )
    return records.Record(
        id=f"r-20260101000000-{number:08x}", title=title, kind=kind,
        scope="shared" if shared else "project", project=None if shared else project,
        created=stamp, updated=stamp, tags=tuple(rng.sample(TAGS, rng.randint(0, 3))),
        source=records.Source(kind=rng.choice(("user", "agent", "import"))),
        name=f"{component}-notes-{number}" if kind == "artifact" else None,
        triggers=triggers, body=body + "\n",
    )  # fmt: skip


def generate(root: Path, size: int) -> Corpus:
    """`size` records under root/home, one project bound to the git checkout root/app."""
    home, repo = root / "home", root / "app"
    repo.mkdir(parents=True)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "i"], check=True)
    mem = layout.memory_root(home)
    found = checkout_of(repo)
    assert found is not None, repo
    connected = projects.connect(projects.Registry(), found, "bench")
    mem.mkdir(parents=True)
    projects.save_registry(layout.projects_file(mem), connected.registry)
    pid = connected.project_id
    folders = (layout.project_records(mem, pid), layout.shared_records(mem))
    for folder in folders:
        folder.mkdir(parents=True)
    rng = random.Random(SEED)
    words = vocabulary(rng)
    df: Counter[str] = Counter()
    for number in range(size):
        record = _record(rng, number, pid, words)
        data = records.render_record(record)
        layout.record_path(mem, record.scope, record.project, record.id).write_bytes(data)
        df.update(set(_TOKEN.findall(data.decode().lower())))
    return Corpus(home, repo, folders, _pick_terms(df, size), size)


def _pick_terms(df: Counter[str], size: int) -> dict[str, tuple[str, int]]:
    """For each target share, the word whose share is closest, among words of four letters
    or more that are no part of another word (so grep's substring match and the index's
    word match find the same records)."""
    tokens = sorted(df)
    usable = [
        (w, n)
        for w, n in df.items()
        if w.isalpha() and len(w) >= 4 and w not in TAGS
        and not any(w in other and w != other for other in tokens)
    ]  # fmt: skip
    out: dict[str, tuple[str, int]] = {}
    for name, share in TARGETS.items():
        want = max(1, round(share * size))
        term, count = min(usable, key=lambda wn: (abs(wn[1] - want), wn[0]))
        out[name] = (term, count)
    return out


# ------------------------------------------------------------------ running
def memhub_script(scratch: Path, quick: bool) -> list[str]:
    """The command that runs memhub: a console script in a venv of a regular install (as
    bench_anchors installs it), or this interpreter's memhub with --quick."""
    if quick:
        return [sys.executable, "-m", "memhub.compiler.cli.main"]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_anchors import install_memhub

    python = install_memhub(scratch)
    script = Path(python).parent / "memhub"
    script.write_text(  # what pip writes for the `memhub` entry point
        f"#!{python}\nimport sys\nfrom memhub.compiler.cli.main import run\n"
        "if __name__ == '__main__':\n    sys.exit(run())\n"
    )
    script.chmod(0o755)
    return [str(script)]


def env_for(corpus: Corpus) -> dict[str, str]:
    return {**os.environ, "MEMHUB_HOME": str(corpus.home)}


def timed(cmd: list[str], corpus: Corpus) -> tuple[float, bytes]:
    """Wall seconds of one run (after os.sync(), so no run pays for another's writes)."""
    os.sync()
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=corpus.checkout, env=env_for(corpus), capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1) or (done.returncode == 1 and cmd[0] != "grep"):
        raise SystemExit(f"{cmd[:4]} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return elapsed, done.stdout


def hits_of(output: bytes) -> int:
    """The number of hits `memhub memory search --json` printed (its envelope's
    `data.hits`)."""
    data = json.loads(output)
    hits = data.get("data", {}).get("hits") if isinstance(data, dict) else None
    return len(hits) if isinstance(hits, list) else 0


def rebuild(memhub: list[str], corpus: Corpus, runs: int) -> float:
    """Median seconds of `memhub memory index --rebuild`."""
    return statistics.median(
        timed([*memhub, "memory", "index", "--rebuild"], corpus)[0] for _ in range(runs)
    )


def search_rounds(memhub: list[str], corpus: Corpus, rounds: int) -> dict[str, dict[str, float]]:
    """Per term: median seconds of memhub search and of grep, their ratio, and hit counts."""
    out: dict[str, dict[str, float]] = {}
    for name, (term, count) in corpus.terms.items():
        tools = {
            "memhub": [*memhub, "memory", "search", term, "--json"],
            "grep": ["grep", "-ril", term, *map(str, corpus.folders)],
            # the floor: the same CLI starting and printing the memory group's help
            "startup": [*memhub, "memory", "--help"],
        }
        times: dict[str, list[float]] = {tool: [] for tool in tools}
        found: dict[str, int] = {}
        for n in range(rounds):
            names = list(tools)
            for tool in names[n % 3 :] + names[: n % 3]:  # who goes first rotates
                elapsed, stdout = timed(tools[tool], corpus)
                times[tool].append(elapsed)
                found[tool] = hits_of(stdout) if tool == "memhub" else len(stdout.splitlines())
        if found["memhub"] == 0 or found["grep"] == 0:
            raise SystemExit(f"{name} term {term!r}: memhub found {found['memhub']}, grep "
                             f"{found['grep']}; the benchmark compares searches that find it")  # fmt: skip
        medians = {tool: statistics.median(ts) for tool, ts in times.items()}
        out[name] = {**medians, "ratio": medians["memhub"] / medians["grep"], "df": count,
                     "memhub_hits": found["memhub"], "grep_files": found["grep"]}  # fmt: skip
        out[name]["term"] = term  # type: ignore[assignment]
    return out


def server_latency(
    memhub: list[str], corpus: Corpus, queries: int, budget_s: float
) -> dict[str, float]:
    """p50/p99 milliseconds of `search_memory` calls inside one running `memhub mcp serve`,
    one after another: `queries` of them, or as many as `budget_s` seconds allow."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    rng = random.Random(SEED + 1)
    pool = [term for term, _ in corpus.terms.values()] + WORDS[40:]
    times: list[float] = []

    async def session() -> None:
        params = StdioServerParameters(
            command=memhub[0], args=[*memhub[1:], "mcp", "serve"], cwd=corpus.checkout,
            env={"MEMHUB_HOME": str(corpus.home), "PATH": os.environ.get("PATH", "")},
        )  # fmt: skip
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            await client.call_tool("search_memory", {"query": "warmup"})
            deadline = time.perf_counter() + budget_s
            for _ in range(queries):
                if time.perf_counter() > deadline:
                    break
                query = " ".join(rng.sample(pool, rng.randint(1, 2)))
                start = time.perf_counter()
                result = await client.call_tool("search_memory", {"query": query})
                times.append(time.perf_counter() - start)
                if result.is_error:
                    raise SystemExit(f"search_memory {query!r} failed: {result.content}")

    anyio.run(session)
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"queries": len(times), "asked": queries, "p50_ms": statistics.median(times) * 1000,
            "p99_ms": p99 * 1000, "max_ms": ordered[-1] * 1000}  # fmt: skip


# ------------------------------------------------------------------ report
def run(
    sizes: list[int],
    rounds: int,
    queries: int,
    quick: bool,
    budget_s: float,
    rebuild_runs: int = 3,
) -> dict[str, object]:
    """Every figure, size by size (the corpus of one size is removed before the next)."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    results: dict[str, object] = {"sizes": {}, "server": None}
    try:
        memhub = memhub_script(scratch, quick)
        for size in sizes:
            print(f"{size} records: writing", file=sys.stderr)
            start = time.perf_counter()
            corpus = generate(scratch / f"corpus-{size}", size)
            written = time.perf_counter() - start
            print(f"{size} records: rebuild, search rounds", file=sys.stderr)
            seconds = rebuild(memhub, corpus, rebuild_runs)
            figures = {"write_s": written, "rebuild_s": seconds,
                       "rebuild_per_10k_s": seconds / size * 10_000,
                       "search": search_rounds(memhub, corpus, rounds)}  # fmt: skip
            if size == max(sizes):
                print(f"{size} records: {queries} search_memory calls", file=sys.stderr)
                results["server"] = {
                    "records": size,
                    **server_latency(memhub, corpus, queries, budget_s),
                }
            results["sizes"][str(size)] = figures  # type: ignore[index]
            shutil.rmtree(scratch / f"corpus-{size}", ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return results


def goals(results: dict[str, object]) -> list[tuple[str, bool]]:
    """(what, met) for every goal this run measured."""
    out = []
    sizes = results["sizes"]
    assert isinstance(sizes, dict)
    for size, limit in GOALS.items():
        if str(size) in sizes:
            worst = max(t["ratio"] for t in sizes[str(size)]["search"].values())
            out.append((f"search at {size:,}: <= {limit}x grep (worst term {worst:.2f}x)",
                        worst <= limit))  # fmt: skip
    server = results["server"]
    if isinstance(server, dict) and server["records"] >= 100_000:
        p99 = server["p99_ms"]
        out.append((f"search_memory p99 at {server['records']:,}: <= {P99_GOAL_MS:.0f} ms "
                    f"(is {p99:.1f} ms)", p99 <= P99_GOAL_MS))  # fmt: skip
    return out


def report(results: dict[str, object]) -> str:
    lines = [
        "| records | term (records holding it) | memhub search | grep -ril | memhub / grep"
        " | memhub start-up |",
        "|---|---|---|---|---|---|",
    ]
    sizes = results["sizes"]
    assert isinstance(sizes, dict)
    for size, figures in sizes.items():
        for name, t in figures["search"].items():
            lines.append(
                f"| {int(size):,} | {name}: {t['term']} ({t['df']:,}) | {t['memhub'] * 1000:.0f} ms"
                f" | {t['grep'] * 1000:.0f} ms | {t['ratio']:.2f}x | {t['startup'] * 1000:.0f} ms |"
            )
    lines += ["", "| records | index rebuild | per 10,000 records |", "|---|---|---|"]
    for size, figures in sizes.items():
        lines.append(f"| {int(size):,} | {figures['rebuild_s']:.2f} s"
                     f" | {figures['rebuild_per_10k_s']:.2f} s |")  # fmt: skip
    server = results["server"]
    if isinstance(server, dict):
        done = f"{server['queries']}" + (
            f" (of {server['asked']}: --server-seconds ran out)"
            if server["queries"] < server["asked"] else ""
        )  # fmt: skip
        lines += ["", f"search_memory in one running server, {done} queries over "
                  f"{server['records']:,} records: p50 {server['p50_ms']:.1f} ms, "
                  f"p99 {server['p99_ms']:.1f} ms, max {server['max_ms']:.1f} ms"]  # fmt: skip
    lines += [""] + [f"goal {what}: {'met' if ok else 'MISSED'}" for what, ok in goals(results)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per search (median)")
    parser.add_argument("--queries", type=int, default=1000, help="search_memory calls")
    parser.add_argument("--rebuild-runs", type=int, default=3, help="timed rebuilds (median)")
    parser.add_argument("--server-seconds", type=float, default=600.0,
                        help="stop the search_memory calls after this long (slow servers)")  # fmt: skip
    parser.add_argument("--json", action="store_true", dest="as_json")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--quick", action="store_true",
                        help="small and fast, this interpreter's memhub (keeps the script working)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.rounds, args.queries, args.rebuild_runs = [300], 1, 20, 1
    results = run(
        args.sizes, args.rounds, args.queries, args.quick, args.server_seconds, args.rebuild_runs
    )
    print(json.dumps(results, indent=2) if args.as_json else report(results))
    return 1 if args.check and not all(ok for _, ok in goals(results)) else 0


if __name__ == "__main__":
    raise SystemExit(main())
