"""Time directive recall from a remote server (`memory.recall.remote`) as the host runs it.

The memory of bench_recall.py (10,000 directives) is served by a real `memhub mcp serve
--http` on loopback. Two bundles of examples/team-memory are built for Claude Code: one as it
is (local recall, reading the memory itself), one with `memory.recall.remote` naming the
server (its `recall.json` beside the vendored runtime; the hook's own home holds no memory).
Each row runs the bundle's PreToolUse hook process on a mutating command that fires a
directive, side by side with `python3 -S -c pass` in interleaved, rotated rounds: medians of
wall and CPU time and their ratio to the bare start. The remote rows: a session's first
lookup (a new session each call: the MCP handshake, then the call) and a later one (the
session kept: one request). The prompt row runs the UserPromptSubmit hook (`recall.prompt`)
on a prompt naming a file that a served fact names (a new session each round, so the
pointer is shown each time) from the server (`search_memory`, a handshake each time). Loopback, so the figures are memhub's cost, not a network's. A report, not a
test.

    python bench/bench_remote_recall.py [--runs 21] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_recall import REPO, N, _children_cpu, _record, medians, memory, payload

KEY_ENV = "MEMHUB_BENCH_RECALL_KEY"
HIT = "mutating, a hit"
FACTS = 50  # facts naming a runbook each: what a prompt's pointer finds
MARKS = {"PreToolUse": b"Relevant team directives",
         "UserPromptSubmit": b"memhub memory names what this prompt names"}  # fmt: skip


def _fact(i: int, pid: str) -> Any:
    from memhub.runtime.memory.records import Record, Source

    return Record(
        id=f"f-{i:05d}", title=f"runbook {i}", kind="fact", scope="project", project=pid,
        created="2026-01-01T00:00:00Z", updated="2026-01-01T00:00:00Z",
        source=Source(kind="user"), body=f"docs/runbook_{i}.md says how service {i} ships\n",
    )  # fmt: skip


def served_memory(root: Path, count: int = N) -> tuple[Path, Path]:
    """bench_recall's memory as record files, indexed by memhub itself (a server scans its
    files: the bench index of bench_recall.memory names files that do not exist)."""
    from memhub.runtime.memory import layout
    from memhub.runtime.memory import projects as P
    from memhub.runtime.memory.gitcheckout import checkout_of
    from memhub.runtime.memory.records import render_record

    home, app = root / "server-home", root / "served-app"
    app.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=app, check=True)
    registry_file = layout.projects_file(layout.memory_root(home))
    found = checkout_of(app)
    assert found is not None
    registry, pid, _ = P.connect(P.load_registry(registry_file), found, "app")
    P.save_registry(registry_file, registry)
    for record in [_record(i, pid) for i in range(count)] + [_fact(i, pid) for i in range(FACTS)]:
        path = layout.record_path(layout.memory_root(home), record.scope, record.project, record.id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(render_record(record))
    memhub = str(Path(sys.executable).parent / "memhub")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "MEMHUB_HOME": str(home)}
    subprocess.run([memhub, "memory", "index"], cwd=app, env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    return home, app


def serve(home: Path, app: Path, root: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    """`memhub mcp serve --http` over `home`'s memory: (process, url, key)."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "MEMHUB_HOME": str(home)}
    memhub = str(Path(sys.executable).parent / "memhub")
    process = subprocess.Popen(
        [memhub, "mcp", "serve", "--project", str(app), "--http", "--port", "0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert process.stderr is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r"serving (http://\S+)", process.stderr.readline().decode())
        if found:
            return process, found.group(1), (home / "mcp" / "http.key").read_text().strip()
    process.kill()
    raise SystemExit("the memory server did not start")


def remote_hub(root: Path, url: str) -> Path:
    """examples/team-memory with `memory.recall.remote` naming `url`."""
    hub = root / "remote-hub"
    shutil.copytree(REPO / "examples" / "team-memory", hub)
    text = (hub / "hub.yaml").read_text()
    anchor = "  scopes: [shared, project]\n"
    recall = f"  recall:\n    remote: {{url: '{url}', key_env: {KEY_ENV}}}\n"
    (hub / "hub.yaml").write_text(text.replace(anchor, anchor + recall, 1))
    return hub


def bundle_command(
    hub: Path, out: Path, event: str = "PreToolUse", handler: str = "recall.directives"
) -> list[str]:
    """The `event` command of `hub` running `handler`, built for Claude Code into `out`."""
    from memhub.compiler.build import build
    from memhub.hubspec import load

    for artifact in build(load(hub), ["claude"]).artifacts:
        target = out / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
    plugin = out / "plugins" / "team-memory"
    hooks = json.loads((plugin / "hooks" / "claude-hooks.json").read_text("utf-8"))
    (command,) = [
        h["command"] for g in hooks["hooks"][event] for h in g["hooks"] if handler in h["command"]
    ]  # fmt: skip
    argv = shlex.split(command.replace("${CLAUDE_PLUGIN_ROOT}", str(plugin)))
    return [sys.executable, *argv[1:]]


Row = tuple[list[str] | None, dict[str, str], str]  # argv (None: the bare start), env, session


def rounds(rows: dict[str, Row], app: Path, runs: int) -> dict[str, dict[str, float]]:
    names = list(rows)
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for r in range(-3, runs):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            argv, env, session = rows[name]
            event = "UserPromptSubmit" if session.startswith("prompt") else "PreToolUse"
            if argv is None:
                argv, data = [sys.executable, "-S", "-c", "pass"], b"{}"
            else:
                body = _payload(app, event, r)
                body["session_id"] = f"{session}-{r}" if session.endswith("new") else session
                data = json.dumps(body).encode()
            before, started = _children_cpu(), time.perf_counter()
            done = subprocess.run(argv, input=data, capture_output=True, env=env, check=True)
            hit = MARKS[event] in done.stdout
            if r >= 0 and argv[1:3] != ["-S", "-c"] and not hit:  # warm-up builds caches
                log = Path(env["MEMHUB_HOME"], "logs", "hook.log")
                why = log.read_text()[-600:] if log.exists() else "no log"
                raise SystemExit(f"{name}: no directive in {done.stdout[:300]!r}: {why}")
            if r >= 0:
                wall[name].append((time.perf_counter() - started) * 1000)
                cpu[name].append((_children_cpu() - before) * 1000)
    return medians(wall, cpu, names)


def _payload(app: Path, event: str, r: int) -> dict[str, Any]:
    if event == "PreToolUse":
        return payload(app, HIT, r + 10)
    text = f"what does docs/runbook_{(r + 10) % FACTS}.md say about shipping?"
    return {"cwd": str(app), "hook_event_name": event, "prompt": text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="process rounds (default 21)")
    parser.add_argument("--served", type=int, default=N, help=f"directives served (default {N})")
    parser.add_argument("--json", action="store_true", dest="as_json")
    args = parser.parse_args(argv)
    if args.runs > 45:  # 50 distinct directives fire per session; the kept session must hit
        parser.error("--runs is at most 45")
    with tempfile.TemporaryDirectory(prefix="memhub-bench-remote-") as tmp:
        root = Path(tmp)
        home, app = memory(root)
        server_home, served_app = served_memory(root, max(args.served, 110))
        process, url, key = serve(server_home, served_app, root)
        try:
            base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root),
                    "PYTHONPYCACHEPREFIX": str(root / "pycache")}  # fmt: skip
            local_env = {**base, "MEMHUB_HOME": str(home)}
            remote_env = {**base, "MEMHUB_HOME": str(root / "client-home"), KEY_ENV: key}
            local = bundle_command(REPO / "examples" / "team-memory", root / "local")
            hub = remote_hub(root, url)
            remote = bundle_command(hub, root / "remote")
            prompt = ("UserPromptSubmit", "recall.prompt")
            remote_prompt = bundle_command(hub, root / "rp", *prompt)
            rows = {
                "python3 -S -c pass": (None, base, ""),
                "local, a hit": (local, local_env, "bench-local"),
                "remote, first in session": (remote, remote_env, "bench-new"),
                "remote, session kept": (remote, remote_env, "bench-kept"),
                "prompt, remote pointer": (remote_prompt, remote_env, "prompt-remote-new"),
            }
            result = rounds(rows, app, args.runs)
        finally:
            process.terminate()
            process.wait(timeout=20)
    if args.as_json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"recall as a hook process (PreToolUse, a directive fires; UserPromptSubmit, a"
          f" pointer; {N} directives local, {max(args.served, 110)} served), medians:")  # fmt: skip
    for name, row in result.items():
        print(f"  {name:26} {row['median_ms']:6.1f} ms {row['ratio']:5.2f}x"
              f"   cpu {row['cpu_ms']:6.1f} ms {row['cpu_ratio']:5.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
