"""Time the session brief (`recall.brief`) and prompt recall (`recall.prompt`) with 10,000
directives in memory, in process and as hook processes beside `python3 -S -c pass`.

The memory: one connected project whose index holds `--directives` lessons (path and command
triggers, a few of them on the files the branch touches) and 200 facts, some naming those
files; the checkout's branch has 20 commits touching 40 files. Rows:

* in process: the handler's own cost (modules already imported, a new session each call),
  medians over `--runs` calls;
* processes: the vendored hook entry (`python3 -S <runtime>/hook.py claude <event> <handler>`)
  against `python3 -S -c pass`, rows interleaved per round (rotated order), medians.

The session brief is measured warm (its map and pointer caches current: the common case),
cold (no cache: the map is built in the hook, the pointers go to the detached child, whose
fork the row pays), with only the pointers stale (a new commit), and cold with the child
off (`MEMHUB_BRIEF_POINTERS=0`: everything in the hook, what every start cost before the
caches). The first prompt after a start that left its pointers to the child is a row too.

A report, not a test: `--json` prints the figures.

    python bench/bench_brief.py [--directives 10000] [--runs 31] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_recall import index_as_scanned

REPO = Path(__file__).resolve().parent.parent
SESSION_START = "SessionStart"
PROMPT = "UserPromptSubmit"
PLAIN_PROMPT = "please make the failing tests pass and keep it simple"
NAMING_PROMPT = "why does src/mod3/file3.py break on PR #12?"


def _git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=b", "-c", "user.email=b@example.org"]
    subprocess.run(["git", "-C", str(repo), *ident, *args], check=True, capture_output=True)


def make_checkout(root: Path) -> Path:
    repo = root / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    _git(repo, "checkout", "-q", "-b", "feature/ENG-42")
    for commit in range(20):
        for n in (commit * 2, commit * 2 + 1):
            path = repo / "src" / f"mod{n}" / f"file{n}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"def handler_{n}():\n    return {n}\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", f"step {commit} (PR #{commit + 1})")
    return repo


def make_memory(home: Path, repo: Path, directives: int) -> None:
    """A registry binding `repo`, and an index as a scan would leave it."""
    from memhub.runtime.memory import layout, projects
    from memhub.runtime.memory.gitcheckout import checkout_of
    from memhub.runtime.memory.records import Record, Source, Triggers

    root = layout.memory_root(home)
    path = layout.projects_file(root)
    found = checkout_of(repo)
    assert found is not None
    registry, pid, _ = projects.connect(projects.load_registry(path), found, "shop")
    projects.save_registry(path, registry)

    def record(rid: str, kind: str, title: str, body: str, triggers: Triggers) -> Record:
        return Record(
            id=rid, title=title, kind=kind, scope="project", project=pid,
            created="2026-01-01T00:00:00Z", updated="2026-01-01T00:00:00Z",
            source=Source(kind="user"), body=body, triggers=triggers,
        )  # fmt: skip

    made = [
        record(f"r-l{i:05d}", "lesson", f"Lesson {i}", f"Mind the module {i}.\n",
               Triggers(paths=(f"src/mod{i}/file{i}.py",), commands=(f"make target{i}",)))
        for i in range(directives)
    ]  # fmt: skip
    made += [
        record(f"r-f{i:05d}", "fact", f"Fact {i}", f"src/mod{i}/file{i}.py does {i}.\n", Triggers())
        for i in range(200)
    ]
    root.mkdir(parents=True, exist_ok=True)
    index_as_scanned(layout.index_file(root), made, lambda r: f"/m/{r.id}.md")


def payload(event: str, repo: Path, session: str, prompt: str | None = None) -> dict:
    data = {"session_id": session, "cwd": str(repo), "hook_event_name": event}
    if prompt is not None:
        data["prompt"] = prompt
    return data


def _caches(home: Path) -> Path:
    return home / "hooks" / "recall" / "brief"


def _forget(home: Path, which: str) -> None:
    """Drop the brief's caches: "all" (cold), "pointers" (the branch moved) or "" (warm)."""
    folder = _caches(home)
    for path in folder.glob("*.json") if which else ():
        if which == "all" or path.name.startswith("ptr-"):
            path.unlink()


def _settle(home: Path, timeout: float = 10.0) -> None:
    """Wait until the detached child wrote the pointer cache (it must not run beside the
    next measurement)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not list(_caches(home).glob("ptr-*.json")):
        time.sleep(0.01)
    time.sleep(0.02)


def in_process(home: Path, repo: Path, runs: int) -> dict[str, float]:
    """Median milliseconds of each handler called in this process (a new session each call;
    the brief's detached job is left unrun: the caches are prepared as each row says)."""
    from memhub.runtime.dispatch import Output
    from memhub.runtime.events import normalise
    from memhub.runtime.handlers import HANDLERS
    from memhub.runtime.memory import brief_pointers

    cases = {
        "recall.brief, caches current": ("recall.brief", SESSION_START, None, ""),
        "recall.brief, no caches": ("recall.brief", SESSION_START, None, "all"),
        "recall.brief, no caches, POINTERS=0": ("recall.brief", SESSION_START, None, "all0"),
        "recall.prompt, no identifier": ("recall.prompt", PROMPT, PLAIN_PROMPT, ""),
        "recall.prompt, a path and a PR": ("recall.prompt", PROMPT, NAMING_PROMPT, ""),
    }
    out: dict[str, float] = {}
    for label, (name, event, prompt, forget) in cases.items():
        times = []
        for n in range(runs + 1):
            _forget(home, forget.rstrip("0"))
            if forget.endswith("0"):
                os.environ["MEMHUB_BRIEF_POINTERS"] = "0"
            ev = normalise("claude", event, payload(event, repo, f"bench-{label}-{n}", prompt))
            result = Output(str(home))
            start = time.perf_counter()
            HANDLERS[name](ev, result)
            times.append(time.perf_counter() - start)
            os.environ.pop("MEMHUB_BRIEF_POINTERS", None)
            for job in result.jobs:  # fill the pointer cache, as the child would
                brief_pointers.refresh(*job["args"])
        out[label] = statistics.median(times[1:]) * 1000  # the first call imports
    return out


def processes(
    root: Path, home: Path, repo: Path, runs: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU milliseconds of each hook process and of a bare interpreter,
    interleaved. A row that starts the detached child waits for it before the next runs."""
    runtime = root / "vendored" / "memhub_runtime"
    runtime.parent.mkdir()
    os.symlink(REPO / "runtime", runtime)
    hook = str(runtime / "hook.py")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root),
           "MEMHUB_HOME": str(home), "LANG": "C.UTF-8"}  # fmt: skip
    python = sys.executable
    brief = [python, "-S", hook, "claude", SESSION_START, "recall.brief"]
    ask = [python, "-S", hook, "claude", PROMPT, "recall.prompt"]
    # label: (argv, (event, prompt) or None, caches to drop first, extra environment)
    rows = {
        "python3 -S -c pass": ([python, "-S", "-c", "pass"], None, "", {}),
        "session_start, caches current (warm)": (brief, (SESSION_START, None), "", {}),
        "session_start, no caches (cold)": (brief, (SESSION_START, None), "all", {}),
        "session_start, pointers stale (map cached)": (
            brief, (SESSION_START, None), "pointers", {}),
        "session_start, no caches, MEMHUB_BRIEF_POINTERS=0": (
            brief, (SESSION_START, None), "all", {"MEMHUB_BRIEF_POINTERS": "0"}),
        "prompt_submit, no identifier (recall.prompt)": (ask, (PROMPT, PLAIN_PROMPT), "", {}),
        "prompt_submit, first prompt delivers the brief's rest": (
            ask, (PROMPT, PLAIN_PROMPT), "pending", {}),
        "turn_end, caches current (recall.refresh)": (
            [python, "-S", hook, "claude", "Stop", "recall.refresh"], ("Stop", None), "", {}),
        # the same process with a handler that returns at once: what the dispatcher costs
        "prompt_submit, dispatcher alone (capture.commit)": (
            [python, "-S", hook, "claude", PROMPT, "capture.commit"], (PROMPT, PLAIN_PROMPT),
            "", {}),
    }  # fmt: skip
    times: dict[str, list[float]] = {label: [] for label in rows}
    cpu: dict[str, list[float]] = {label: [] for label in rows}
    labels = list(rows)
    for round_ in range(runs + 3):
        for label in labels[round_ % len(labels) :] + labels[: round_ % len(labels)]:
            argv, what, forget, extra = rows[label]
            session = f"p-{round_}-{labels.index(label)}"
            if forget == "pending":  # a session whose start left its pointers to the child
                _forget(home, "pointers")
                start_event = json.dumps(payload(SESSION_START, repo, session)).encode()
                subprocess.run(brief, input=start_event, stdout=subprocess.DEVNULL, env=env)
                _settle(home)
            else:
                _forget(home, forget)
            data = b""
            if what is not None:
                data = json.dumps(payload(what[0], repo, session, what[1])).encode()
            took = _timed(argv, data, {**env, **extra})
            if forget and forget != "pending":
                _settle(home)
            if round_ >= 3:  # warm-up rounds fill the bytecode cache
                times[label].append(took[0])
                cpu[label].append(took[1])
    wall = {label: statistics.median(t) * 1000 for label, t in times.items()}
    return wall, {label: statistics.median(t) * 1000 for label, t in cpu.items()}


def _timed(argv: list[str], data: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one process; its detached grandchild
    is not its child, so its CPU is not counted (the fork is)."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
    assert child.stdin is not None
    child.stdin.write(data)
    child.stdin.close()
    _, status, usage = os.wait4(child.pid, 0)
    took = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, argv
    return took, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directives", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memhub-bench-brief-") as tmp:
        root = Path(tmp)
        home = root / "memhub-home"
        repo = make_checkout(root)
        make_memory(home, repo, args.directives)
        os.environ["HOME"] = str(root)
        inproc = in_process(home, repo, args.runs)
        procs, cpu = processes(root, home, repo, args.runs)
    bare, bare_cpu = procs["python3 -S -c pass"], cpu["python3 -S -c pass"]
    result = {
        "directives": args.directives,
        "in_process_ms": inproc,
        "process_ms": procs,
        "process_ratio": {k: v / bare for k, v in procs.items()},
        "process_cpu_ms": cpu,
        "process_cpu_ratio": {k: v / bare_cpu for k, v in cpu.items()},
    }
    if args.as_json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.directives} directives; medians (wall, and CPU: user + system)")
    for label, ms in inproc.items():
        print(f"  in process  {label:<56} {ms:8.2f} ms")
    for label, ms in procs.items():
        print(f"  process     {label:<56} {ms:8.2f} ms  {ms / bare:5.2f}x"
              f"   cpu {cpu[label]:6.2f} ms  {cpu[label] / bare_cpu:5.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
