"""Time directive recall (`recall.directives`) with 10,000 directives in memory.

Two tables from one run:

* in process: the handler alone (`directives_hook.run` on a normalised event), p50 and p90
  per path, on a warm process: a read-only command (no lookup), a mutating command no
  trigger can match (refused by the filter), one that matches a directive's command and an
  edit of a file a directive's glob matches (a cache lookup each; a new handle every call,
  so none is skipped as answered; after the first, the directive has fired and is dropped);
* as the host runs it, wall time and CPU time: the bundle's hook process (`python3 -S .../hook.py claude PreToolUse
  recall.directives=edit,shell`, built from examples/team-memory) on the same payloads,
  side by side with `python3 -S -c pass` in interleaved, rotated rounds; medians and the
  ratio to the bare start.

The memory is a connected git checkout whose project and shared scope hold 10,000 active
lessons (half each), indexed as a scan leaves them; the derived trigger cache is built by
the warm-up. A report, not a test.

    python bench/bench_recall.py [--runs 31] [--calls 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
N = 10_000
SESSION = "bench-recall-session"


def p(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _record(i: int, pid: str) -> Any:
    """Directive `i`: it names its own module, runbook, command, client and error."""
    from memhub.runtime.memory.records import Record, Source, Triggers

    triggers = Triggers(
        paths=(f"services/svc{i}/handlers/*.py", f"docs/runbook_{i}.md"),
        commands=(f"deploy-svc{i} --prod",),
        identifiers=(f"Svc{i}Client",),
        errors=(f"E{i:05d} quota exceeded",),
    )
    return Record(
        id=f"r-{i:05d}", title=f"lesson {i}", kind="lesson",
        scope="project" if i % 2 else "shared", project=pid if i % 2 else None,
        created="2026-01-01T00:00:00Z", updated="2026-01-01T00:00:00Z",
        source=Source(kind="user"), body=f"how service {i} is deployed\n", triggers=triggers,
    )  # fmt: skip


def memory(root: Path) -> tuple[Path, Path]:
    """A memhub home with a connected checkout and N directives indexed: (home, checkout)."""
    from memhub.runtime.memory import layout
    from memhub.runtime.memory import projects as P
    from memhub.runtime.memory.gitcheckout import checkout_of

    home, app = root / "home", root / "app"
    app.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=app, check=True)
    registry_file = layout.projects_file(layout.memory_root(home))
    found = checkout_of(app)
    assert found is not None
    registry, pid, _ = P.connect(P.load_registry(registry_file), found, "app")
    P.save_registry(registry_file, registry)
    records = [_record(i, pid) for i in range(N)]
    index_path = layout.index_file(layout.memory_root(home))
    index_path.parent.mkdir(parents=True, exist_ok=True)
    index_as_scanned(index_path, records, lambda r: f"/m/{r.scope}/{r.project or ''}/{r.id}.md")
    return home, app


def index_as_scanned(index_path: Path, records: list[Any], path_of: Any) -> None:
    """Index `records` as a scan of their files leaves them (the FTS index and the scan
    table), without writing the files: `path_of(record)` names each one."""
    from memhub.runtime.memory import scan
    from memhub.runtime.memory.catalog import fields_json
    from memhub.runtime.memory.index import MemoryIndex
    from memhub.runtime.memory.recordfile import record_doc

    with MemoryIndex(index_path) as index:
        docs = [record_doc(r, path_of(r), r.id) for r in records]
        index.rebuild(docs)
        scan._make_table(index.db)
        index.db.executemany(
            "INSERT INTO scan_files (path, scope, project, mtime_ns, size, inode, checked_ns,"
            " revision, state, line, message, fix, fields, content)"
            " VALUES (?, ?, ?, 0, 0, 0, 0, ?, 'record', NULL, '', '', ?, '')",
            [(d.path, d.scope, d.project or "", d.revision, fields_json(r))
             for d, r in zip(docs, records, strict=True)],
        )  # fmt: skip
        index.db.commit()


def _letters(i: int) -> str:
    """`i` in letters: a new handle each call that shares no digit window with the
    directives' own numbered triggers (which would send every call to the cache)."""
    return "".join(chr(97 + (i // 26**k) % 26) for k in range(5))


def payload(app: Path, kind: str, i: int) -> dict[str, Any]:
    """A Claude Code PreToolUse payload; `i` makes each handle new."""
    w = _letters(i)
    if kind == "read-only shell":
        tool: dict[str, Any] = {"tool_name": "Bash", "tool_input": {"command": "git status"}}
    elif kind == "mutating shell":
        tool = {"tool_name": "Bash", "tool_input": {"command": f"rm -rf build/{w} && make"}}
    elif kind == "mutating, a hit":
        command = f"deploy-svc{7 + 2 * (i % 50)} --prod && touch {w}.flag"
        tool = {"tool_name": "Bash", "tool_input": {"command": command}}
    else:
        path = f"{app}/services/svc{7 + 2 * (i % 50)}/handlers/api_{w}.py"
        tool = {"tool_name": "Edit", "tool_input": {"file_path": path}}
    return {"session_id": SESSION, "cwd": str(app), "hook_event_name": "PreToolUse", **tool}


KINDS = ("read-only shell", "mutating shell", "mutating, a hit", "edit")


def in_process(home: Path, app: Path, calls: int) -> dict[str, dict[str, float]]:
    from memhub.runtime.dispatch import Output
    from memhub.runtime.events import normalise
    from memhub.runtime.memory import directives_hook

    os.environ["MEMHUB_HOME"] = str(home)
    times: dict[str, list[float]] = {k: [] for k in KINDS}
    for i in range(-5, calls):  # five warm-up rounds build the cache and the project memo
        for kind in KINDS:
            event = normalise("claude", "PreToolUse", payload(app, kind, i + 1000))
            started = time.perf_counter()
            directives_hook.run(event, Output(str(home)))
            if i >= 0:
                times[kind].append((time.perf_counter() - started) * 1000)
    return {k: {"p50_ms": p(v, 0.5), "p90_ms": p(v, 0.9)} for k, v in times.items()}


def bundle_hook(root: Path) -> list[str]:
    """The bundle's PreToolUse command (examples/team-memory built for Claude Code)."""
    from memhub.compiler.build import build
    from memhub.hubspec import load

    out = root / "bundle"
    for artifact in build(load(REPO / "examples" / "team-memory"), ["claude"]).artifacts:
        target = out / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
    plugin = out / "plugins" / "team-memory"
    hooks = json.loads((plugin / "hooks" / "claude-hooks.json").read_text("utf-8"))
    (command,) = [
        h["command"] for g in hooks["hooks"]["PreToolUse"] for h in g["hooks"]
        if "recall.directives" in h["command"]
    ]  # fmt: skip
    argv = shlex.split(command.replace("${CLAUDE_PLUGIN_ROOT}", str(plugin)))
    return [sys.executable, *argv[1:]]


def processes(root: Path, home: Path, app: Path, runs: int) -> dict[str, dict[str, float]]:
    hook = bundle_hook(root)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root),
           "MEMHUB_HOME": str(home), "PYTHONPYCACHEPREFIX": str(root / "pycache")}  # fmt: skip
    rows = {"python3 -S -c pass": None, **{k: k for k in KINDS}}
    names = list(rows)
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for r in range(-3, runs):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            kind = rows[name]
            argv = [sys.executable, "-S", "-c", "pass"] if kind is None else hook
            data = b"{}" if kind is None else json.dumps(payload(app, kind, r + 10)).encode()
            before, started = _children_cpu(), time.perf_counter()
            subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, env=env, check=True)
            if r >= 0:
                wall[name].append((time.perf_counter() - started) * 1000)
                cpu[name].append((_children_cpu() - before) * 1000)
    return medians(wall, cpu, names)


def medians(
    wall: dict[str, list[float]], cpu: dict[str, list[float]], names: list[str]
) -> dict[str, dict[str, float]]:
    """Each row's median wall and CPU ms, and its ratios to the first row's (the bare start)."""
    base, base_cpu = statistics.median(wall[names[0]]), statistics.median(cpu[names[0]])
    return {
        n: {
            "median_ms": statistics.median(wall[n]),
            "ratio": statistics.median(wall[n]) / base,
            "cpu_ms": statistics.median(cpu[n]),
            "cpu_ratio": statistics.median(cpu[n]) / base_cpu,
        }
        for n in names
    }


def _children_cpu() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31, help="process rounds (default 31)")
    parser.add_argument("--calls", type=int, default=200, help="in-process calls per path")
    parser.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memhub-bench-recall-") as tmp:
        root = Path(tmp)
        home, app = memory(root)
        report = {
            "directives": N,
            "in_process": in_process(home, app, args.calls),
            "process": processes(root, home, app, args.runs),
        }
    if args.as_json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"recall.directives with {N} directives, in process (warm):")
    for kind, row in report["in_process"].items():
        print(f"  {kind:<18} p50 {row['p50_ms']:7.2f} ms   p90 {row['p90_ms']:7.2f} ms")
    print("as a hook process (PreToolUse), medians (wall, CPU):")
    for name, row in report["process"].items():
        print(
            f"  {name:<20} {row['median_ms']:7.1f} ms {row['ratio']:5.2f}x"
            f"   cpu {row['cpu_ms']:6.1f} ms {row['cpu_ratio']:5.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
