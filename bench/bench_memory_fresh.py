"""What checking the memory's files costs a `memhub` process: an unchanged memory's
`memhub memory index` (every record file's stat, so an edit in place is seen at once), the
floor of that check on this machine (a bare stat of every file by Python's loop and by GNU
find, and the CLI's own start-up), a search in the trust window, and a search and a
`memory index` right after `memhub memory add` (issue 22: a search rescanned until 2 s had
passed). Wall seconds, CPU seconds (user + system) and peak RSS of
each process, medians.

The records are bench_memory's (`generate`): deterministic, one project bound to a git
checkout, a tenth shared. memhub is this interpreter's (`python -m memhub.compiler.cli.main`),
so PYTHONPATH can point another checkout's code at the same corpus (before/after). A report,
not a test.

    python bench/bench_memory_fresh.py [--size 100000] [--runs 5] [--corpus DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_memory import generate

MEMHUB = [sys.executable, "-m", "memhub.compiler.cli.main"]
# GNU find printing each file's mtime and size: a stat per file, from outside Python
FIND_ARGS = ["-maxdepth", "1", "-name", "*.md", "-printf", "%T@ %s\n"]
STAT_ALL = (  # each entry stat'ed relative to its open folder (fstatat), as memhub does
    "import os, sys\n"
    "for folder in sys.argv[1:]:\n"
    "    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)\n"
    "    with os.scandir(fd) as entries:\n"
    "        for entry in entries:\n"
    "            entry.stat(follow_symlinks=False)\n"
    "    os.close(fd)\n"
)


def measured(cmd: list[str], cwd: Path, home: Path) -> tuple[dict[str, float], bytes]:
    """One process: {wall_s, cpu_s, rss_mib} (its own rusage, from wait4) and its stdout."""
    env = {**os.environ, "MEMHUB_HOME": str(home)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{cmd[3:6]} failed ({child.returncode}): {err.read()[-2000:]!r}")
        cpu = usage.ru_utime + usage.ru_stime
        return {"wall_s": wall, "cpu_s": cpu, "rss_mib": usage.ru_maxrss / 1024}, out.read()


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def corpus_at(root: Path, size: int) -> tuple[Path, Path, list[str], str]:
    """(home, checkout, record folders, a rare term) of a corpus made once under `root`."""
    saved = root / "corpus.json"
    if not saved.is_file():
        made = generate(root, size)
        subprocess.run([*MEMHUB, "memory", "index", "--rebuild"], cwd=made.checkout,
                       env={**os.environ, "MEMHUB_HOME": str(made.home)}, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        saved.write_text(json.dumps({"home": str(made.home), "checkout": str(made.checkout),
                                     "folders": [str(f) for f in made.folders],
                                     "term": made.terms["rare"][0]}))  # fmt: skip
    data = json.loads(saved.read_text())
    return Path(data["home"]), Path(data["checkout"]), data["folders"], data["term"]


def hits(output: bytes) -> int:
    return len(json.loads(output)["data"]["hits"])


def run(root: Path, size: int, runs: int) -> dict[str, dict[str, float]]:
    home, checkout, folders, term = corpus_at(root, size)

    def timed(*args: str) -> tuple[dict[str, float], bytes]:
        return measured([*MEMHUB, *args], checkout, home)

    timed("memory", "index")  # one full check: what the window and the fingerprint start from
    time.sleep(2.1)  # past RACY_NS: the stats of that check are trusted
    timed("memory", "index")
    rows: dict[str, list[dict[str, float]]] = {}

    def row(name: str, figures: dict[str, float]) -> None:
        rows.setdefault(name, []).append(figures)

    for _ in range(runs):  # nothing written: the unchanged memory
        row("memory index (unchanged)", timed("memory", "index")[0])
        row("stat of every record file (floor)",
            measured([sys.executable, "-c", STAT_ALL, *folders], checkout, home)[0])  # fmt: skip
        if shutil.which("find"):
            row("find -printf of every record file (floor)",
                measured(["find", *folders, *FIND_ARGS], checkout, home)[0])  # fmt: skip
        row("memhub start-up (memory --help)", timed("memory", "--help")[0])
        searched, out = timed("memory", "search", term, "--json")
        assert hits(out) > 0, term
        row("memory search (unchanged)", searched)
    for n in range(runs):  # each timed command right after a `memory add`
        word = f"quokka{n}x{time.time_ns() % 100_000}"
        timed("memory", "add", "--kind", "fact", "--title", f"Fresh {word}", "--body", word,
              "--yes")  # fmt: skip
        searched, out = timed("memory", "search", word, "--json")
        assert hits(out) == 1, word
        row("memory search right after memory add", searched)
        timed("memory", "add", "--kind", "fact", "--title", f"Again {word}", "--body", "again",
              "--yes")  # fmt: skip
        row("memory index right after memory add", timed("memory", "index")[0])
    return {name: median_of(values) for name, values in rows.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", type=Path, help="make the corpus here once, reuse it after")
    parser.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    if args.corpus is not None:
        args.corpus.mkdir(parents=True, exist_ok=True)
        results = run(args.corpus, args.size, args.runs)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            results = run(Path(tmp), args.size, args.runs)
    if args.as_json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"| {args.size:,} records | wall | CPU | peak RSS |\n|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['wall_s']:.2f} s | {r['cpu_s']:.2f} s | {r['rss_mib']:.0f} MiB |")
    print(floor_line(results))
    return 0


def floor_line(results: dict[str, dict[str, float]]) -> str:
    """How far `memory index` on an unchanged memory is above its floor: the start-up of
    the same CLI plus a bare stat of every record file (Python's, the same system calls)."""
    index = results["memory index (unchanged)"]["cpu_s"]
    floor = (results["memhub start-up (memory --help)"]["cpu_s"]
             + results["stat of every record file (floor)"]["cpu_s"])  # fmt: skip
    return (f"\nmemory index (unchanged): {index:.2f} s CPU against a floor of {floor:.2f} s"
            f" (start-up + bare stat): {index / floor:.2f}x the floor")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
