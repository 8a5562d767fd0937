"""Time the session brief (`recall.brief`) and prompt recall (`recall.prompt`) with 10,000
directives in memory, in process and as hook processes beside `python3 -S -c pass`.

The memory: one connected project whose index holds `--directives` lessons (path and command
triggers, a few of them on the files the branch touches) and 200 facts, some naming those
files; the checkout's branch has 20 commits touching 40 files. Rows:

* in process: the handler's own cost (modules already imported, a new session each call),
  medians over `--runs` calls;
* processes: the vendored hook entry (`python3 -S <runtime>/hook.py claude <event> <handler>`)
  against `python3 -S -c pass`, rows interleaved per round (rotated order), medians.

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
    from memhub.runtime.memory import layout, projects, scan
    from memhub.runtime.memory.catalog import fields_json
    from memhub.runtime.memory.gitcheckout import checkout_of
    from memhub.runtime.memory.index import MemoryIndex
    from memhub.runtime.memory.recordfile import record_doc
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
    with MemoryIndex(layout.index_file(root)) as index:
        docs = [record_doc(r, f"/m/{r.id}.md", r.id) for r in made]
        index.rebuild(docs)
        scan._make_table(index.db)
        index.db.executemany(
            "INSERT INTO scan_files (path, scope, project, mtime_ns, size, inode, checked_ns,"
            " revision, state, line, message, fix, fields, content)"
            " VALUES (?, ?, ?, 0, 0, 0, 0, ?, 'record', NULL, '', '', ?, '')",
            [(d.path, d.scope, d.project or "", d.revision, fields_json(r))
             for d, r in zip(docs, made, strict=True)],
        )  # fmt: skip
        index.db.commit()


def payload(event: str, repo: Path, session: str, prompt: str | None = None) -> dict:
    data = {"session_id": session, "cwd": str(repo), "hook_event_name": event}
    if prompt is not None:
        data["prompt"] = prompt
    return data


def in_process(home: Path, repo: Path, runs: int) -> dict[str, float]:
    """Median milliseconds of each handler called in this process (a new session each call)."""
    from memhub.runtime.dispatch import Output
    from memhub.runtime.events import normalise
    from memhub.runtime.handlers import HANDLERS

    cases = {
        "recall.brief (session_start)": ("recall.brief", SESSION_START, None),
        "recall.prompt, no identifier": ("recall.prompt", PROMPT, PLAIN_PROMPT),
        "recall.prompt, a path and a PR": ("recall.prompt", PROMPT, NAMING_PROMPT),
    }
    out: dict[str, float] = {}
    for label, (name, event, prompt) in cases.items():
        times = []
        for n in range(runs + 1):
            ev = normalise("claude", event, payload(event, repo, f"bench-{label}-{n}", prompt))
            start = time.perf_counter()
            HANDLERS[name](ev, Output(str(home)))
            times.append(time.perf_counter() - start)
        out[label] = statistics.median(times[1:]) * 1000  # the first call imports
    return out


def processes(root: Path, home: Path, repo: Path, runs: int) -> dict[str, float]:
    """Median milliseconds of each hook process and of a bare interpreter, interleaved."""
    runtime = root / "vendored" / "memhub_runtime"
    runtime.parent.mkdir()
    os.symlink(REPO / "runtime", runtime)
    hook = str(runtime / "hook.py")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root),
           "MEMHUB_HOME": str(home), "LANG": "C.UTF-8"}  # fmt: skip
    python = sys.executable
    rows = {
        "python3 -S -c pass": ([python, "-S", "-c", "pass"], None),
        "session_start (recall.brief)": (
            [python, "-S", hook, "claude", SESSION_START, "recall.brief"], (SESSION_START, None)),
        "prompt_submit, no identifier (recall.prompt)": (
            [python, "-S", hook, "claude", PROMPT, "recall.prompt"], (PROMPT, PLAIN_PROMPT)),
        # the same process with a handler that returns at once: what the dispatcher costs
        "prompt_submit, dispatcher alone (capture.commit)": (
            [python, "-S", hook, "claude", PROMPT, "capture.commit"], (PROMPT, PLAIN_PROMPT)),
    }  # fmt: skip
    times: dict[str, list[float]] = {label: [] for label in rows}
    labels = list(rows)
    for round_ in range(runs + 3):
        for label in labels[round_ % len(labels) :] + labels[: round_ % len(labels)]:
            argv, what = rows[label]
            data = b""
            if what is not None:
                data = json.dumps(payload(what[0], repo, f"p-{round_}", what[1])).encode()
            start = time.perf_counter()
            subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, env=env, check=True)
            if round_ >= 3:  # warm-up rounds fill the bytecode cache
                times[label].append(time.perf_counter() - start)
    return {label: statistics.median(t) * 1000 for label, t in times.items()}


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
        procs = processes(root, home, repo, args.runs)
    bare = procs["python3 -S -c pass"]
    result = {
        "directives": args.directives,
        "in_process_ms": inproc,
        "process_ms": procs,
        "process_ratio": {k: v / bare for k, v in procs.items()},
    }
    if args.as_json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.directives} directives; medians")
    for label, ms in inproc.items():
        print(f"  in process  {label:<44} {ms:8.2f} ms")
    for label, ms in procs.items():
        print(f"  process     {label:<44} {ms:8.2f} ms  {ms / bare:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
