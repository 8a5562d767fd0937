"""memhub apply side by side with the anchors, ruler and rulesync, on the same jobs.

Each job is one project (project scope) for Claude Code, Codex, Cursor and Gemini CLI:
N MCP servers (stdio: command, args, env) and M skills (one SKILL.md each), written in
each tool's own source format (memhub's hub.yaml, ruler's .ruler/ruler.toml and skills,
rulesync's .rulesync/mcp.json and skills). Every tool runs as a real subprocess in a fresh
folder; the rounds interleave the tools (and rotate who goes first), and each figure is a
median. After every run the written files are counted: a tool that did not really write
every server and skill for every host fails the benchmark.

The anchors are installed with npm into a cache folder beside the host CLIs
(~/.cache/memhub/anchors, or $MEMHUB_ANCHORS), once. A report, not a test: exit 0 unless
--check is given and a goal fails.

    python bench/bench_anchors.py [--rounds 5] [--jobs servers-20,skills-200] [--json] [--check]
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
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ANCHORS = {"@intellectronica/ruler": "0.3.44", "rulesync": "8.32.0"}
HOSTS = "claude,codex,cursor,gemini"
RULER_AGENTS = "claude,codex,cursor,gemini-cli"
RULESYNC_TARGETS = "claudecode,codexcli,cursor,geminicli"
# Where each host's MCP servers and skills are read from in a project (either folder counts:
# Gemini reads .agents/skills ahead of its own; ruler and rulesync write .gemini/skills).
MCP_FILES = {
    "claude": ".mcp.json",
    "codex": ".codex/config.toml",
    "cursor": ".cursor/mcp.json",
    "gemini": ".gemini/settings.json",
}
SKILL_DIRS = {
    "claude": (".claude/skills",),
    "codex": (".agents/skills",),
    "cursor": (".cursor/skills",),
    "gemini": (".gemini/skills", ".agents/skills"),
}


@dataclass(frozen=True, slots=True)
class Job:
    name: str
    servers: int
    skills: int
    reapply: bool = False
    anchors: bool = True  # the largest jobs are memhub's alone (goals in seconds)


JOBS = (
    Job("servers-20", 20, 0),
    Job("servers-100", 100, 0, anchors=False),
    Job("servers-200", 200, 0),
    Job("servers-200-reapply", 200, 0, reapply=True),
    Job("skills-200", 0, 200),
    Job("servers-1000", 1000, 0, anchors=False),
    Job("skills-5000", 0, 5000, anchors=False),
)


def anchor_bin() -> Path:
    """The anchors' node_modules/.bin, installed with npm on first use."""
    default = Path.home() / ".cache" / "memhub" / "anchors"
    cache = Path(os.environ.get("MEMHUB_ANCHORS") or default)
    bin_dir = cache / "node_modules" / ".bin"
    if all(_installed(cache, name) == version for name, version in ANCHORS.items()):
        return bin_dir
    if shutil.which("npm") is None:
        raise SystemExit("npm is not on PATH: it installs the anchors (ruler, rulesync)")
    cache.mkdir(parents=True, exist_ok=True)
    specs = [f"{name}@{version}" for name, version in ANCHORS.items()]
    cmd = ["npm", "install", "--prefix", str(cache), "--no-audit", "--no-fund", *specs]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return bin_dir


def _installed(cache: Path, name: str) -> str | None:
    try:
        manifest = cache / "node_modules" / name / "package.json"
        return json.loads(manifest.read_text("utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return None


def _server(i: int) -> dict[str, object]:
    return {"command": "npx", "args": ["-y", f"@bench/mcp-{i}"], "env": {"LEVEL": str(i)}}


def _skill_md(i: int, extra: str = "") -> str:
    return (
        f"---\nname: skill-{i:04d}\ndescription: Bench skill {i}, for timing installs.\n"
        f"{extra}---\n\nWhen asked about topic {i}, list the steps and check each one.\n"
    )


def _write_skills(root: Path, count: int, extra: str = "") -> None:
    for i in range(count):
        folder = root / f"skill-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(_skill_md(i, extra), "utf-8")


def memhub_source(root: Path, job: Job) -> Path:
    """A hub of the job's servers and skills (its own folder, beside the project)."""
    hub = root / "hub"
    lines = [
        "version: 1",
        "plugin: {name: bench, version: 1.0.0, description: Bench hub}",
        "marketplace: {name: bench-market, owner: {name: bench}}",
        "hosts: [claude, codex, cursor, gemini]",
        "skills: skills",
    ]
    if job.servers:
        lines += ["mcp:", "  servers:"]
        for i in range(job.servers):
            lines.append(f"    s{i:04d}: {json.dumps(_server(i))}")
    (hub / "skills").mkdir(parents=True)
    (hub / "hub.yaml").write_text("\n".join(lines) + "\n", "utf-8")
    _write_skills(hub / "skills", job.skills)
    return hub


def ruler_source(project: Path, job: Job) -> None:
    ruler = project / ".ruler"
    (ruler / "skills").mkdir(parents=True)
    (ruler / "AGENTS.md").write_text("# Bench\n", "utf-8")
    lines = ["[mcp]", "enabled = true", ""]
    for i in range(job.servers):
        lines += [f"[mcp_servers.s{i:04d}]", 'command = "npx"', f'args = ["-y", "@bench/mcp-{i}"]']
        lines += [f"[mcp_servers.s{i:04d}.env]", f'LEVEL = "{i}"', ""]
    (ruler / "ruler.toml").write_text("\n".join(lines), "utf-8")
    _write_skills(ruler / "skills", job.skills)


def rulesync_source(project: Path, job: Job) -> None:
    source = project / ".rulesync"
    (source / "skills").mkdir(parents=True)
    servers = {f"s{i:04d}": {"type": "stdio", **_server(i)} for i in range(job.servers)}
    (source / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2), "utf-8")
    _write_skills(source / "skills", job.skills, 'targets: ["*"]\n')
    config = {"targets": RULESYNC_TARGETS.split(","), "features": ["mcp", "skills"]}
    (project / "rulesync.jsonc").write_text(json.dumps(config), "utf-8")


def _count_servers(project: Path, host: str) -> int:
    path = project / MCP_FILES[host]
    if not path.is_file():
        return 0
    if path.suffix == ".toml":
        data = tomllib.loads(path.read_text("utf-8"))
        return sum(1 for name in data.get("mcp_servers", {}) if name.startswith("s"))
    servers = json.loads(path.read_text("utf-8")).get("mcpServers", {})
    return sum(1 for name in servers if name.startswith("s"))


def _count_skills(project: Path, host: str) -> int:
    found = 0
    for folder in SKILL_DIRS[host]:
        found = max(found, len(list((project / folder).glob("skill-*/SKILL.md"))))
    return found


def check_written(tool: str, project: Path, job: Job) -> None:
    """Raise unless every host got every server and skill of the job."""
    for host in HOSTS.split(","):
        servers, skills = _count_servers(project, host), _count_skills(project, host)
        if servers != job.servers or skills != job.skills:
            raise SystemExit(
                f"{tool} on {job.name}: {host} got {servers}/{job.servers} servers and "
                f"{skills}/{job.skills} skills; the benchmark compares nothing it did not write"
            )


Runner = Callable[[Path, Job], tuple[list[str], Path, dict[str, str]]]


def _env(root: Path) -> dict[str, str]:
    home = root / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env.update(MEMHUB_HOME=str(home / ".memhub"), CODEX_HOME=str(home / ".codex"))
    env["CLAUDE_CONFIG_DIR"] = str(home / ".claude")
    return env


def memhub_run(python: str) -> Runner:
    """memhub apply, run by `python` (the bench's own install of memhub, see install_memhub)."""

    def prepare(root: Path, job: Job) -> tuple[list[str], Path, dict[str, str]]:
        project = root / "project"
        project.mkdir()
        hub = memhub_source(root, job)
        cli = [python, "-m", "memhub.compiler.cli.main", "apply", str(hub)]
        return (
            [*cli, "--scope", "project", "--project", str(project), "--hosts", HOSTS],
            project,
            _env(root),
        )

    return prepare


def ruler_run(bin_dir: Path) -> Runner:
    def prepare(root: Path, job: Job) -> tuple[list[str], Path, dict[str, str]]:
        project = root / "project"
        project.mkdir()
        ruler_source(project, job)
        cmd = [str(bin_dir / "ruler"), "apply", "--project-root", str(project), "--agents"]
        cmd += [RULER_AGENTS, "--no-gitignore", "--no-backup", "--local-only"]
        return cmd, project, _env(root)

    return prepare


def rulesync_run(bin_dir: Path) -> Runner:
    def prepare(root: Path, job: Job) -> tuple[list[str], Path, dict[str, str]]:
        project = root / "project"
        project.mkdir()
        rulesync_source(project, job)
        cmd = [str(bin_dir / "rulesync"), "generate", "--targets", RULESYNC_TARGETS]
        return [*cmd, "--features", "mcp,skills", "--silent"], project, _env(root)

    return prepare


# The file-system floor: a bare interpreter making the same folders and writing the same
# files memhub writes (each skill's folder and SKILL.md in the three skill folders the four
# hosts read, each host's MCP file), nothing else: no parsing, no checks, no sync. A tool
# cannot be faster than this on the machine it runs on; the 5,000-skill job is bounded by it.
FLOOR = r"""
import json, os, sys
project, servers, skills = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hub = sys.argv[4]
for folder in (".claude/skills", ".cursor/skills", ".agents/skills"):
    base = os.path.join(project, folder)
    os.makedirs(base, exist_ok=True)
    for i in range(skills):
        name = "skill-%04d" % i
        with open(os.path.join(hub, "skills", name, "SKILL.md"), "rb") as source:
            text = source.read()
        os.mkdir(os.path.join(base, name))
        with open(os.path.join(base, name, "SKILL.md"), "wb") as out:
            out.write(text)
entries = {"s%04d" % i: {"command": "npx", "args": ["-y", "@bench/mcp-%d" % i],
           "env": {"LEVEL": str(i)}} for i in range(servers)}
for name in (".mcp.json", ".cursor/mcp.json", ".gemini/settings.json"):
    path = os.path.join(project, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        json.dump({"mcpServers": entries}, out, indent=2)
os.makedirs(os.path.join(project, ".codex"), exist_ok=True)
with open(os.path.join(project, ".codex", "config.toml"), "w") as out:
    for name, entry in entries.items():
        out.write("[mcp_servers.%s]\ncommand = %s\nargs = %s\n" % (name,
                  json.dumps(entry["command"]), json.dumps(entry["args"])))
        out.write("[mcp_servers.%s.env]\nLEVEL = %s\n\n" % (name, json.dumps(entry["env"]["LEVEL"])))
"""


def floor_run(root: Path, job: Job) -> tuple[list[str], Path, dict[str, str]]:
    project = root / "project"
    project.mkdir()
    hub = memhub_source(root, job)  # the same SKILL.md bytes memhub copies
    cmd = [sys.executable, "-S", "-c", FLOOR, str(project), str(job.servers), str(job.skills)]
    return [*cmd, str(hub)], project, _env(root)


def timed_run(tool: str, prepare: Runner, job: Job, scratch: Path) -> float:
    """Seconds of the job's timed run in a fresh folder (after a first apply, if re-apply).
    Run folders stay until the whole benchmark ends: deleting thousands of files between
    runs makes the file system slow to create the next run's (ext4 skips recently freed
    inodes), which would time the clean-up, not the tool."""
    tmp = tempfile.mkdtemp(prefix=f"{tool}-", dir=scratch)
    cmd, project, env = prepare(Path(tmp), job)

    def once() -> float:
        # Every tool starts on a clean file system: what the previous run left unwritten is
        # written now, not during this run (memhub's one syncfs would otherwise write back
        # the data a tool before it left dirty, and pay for that tool's writes).
        os.sync()
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=project, env=env, capture_output=True, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{tool} failed on {job.name}: {done.stderr.decode()[-2000:]}")
        return elapsed

    if job.reapply:
        once()
    elapsed = once()
    check_written(tool, project, job)
    return elapsed


def run(jobs: list[Job], rounds: int) -> dict[str, dict[str, float]]:
    """Median seconds per job and tool, the tools interleaved round by round."""
    bin_dir = anchor_bin() if any(job.anchors for job in jobs) else Path()
    times: dict[str, dict[str, list[float]]] = {job.name: {} for job in jobs}
    scratch = Path(tempfile.mkdtemp(prefix="bench-anchors-"))
    try:
        tools: dict[str, Runner] = {"memhub": memhub_run(install_memhub(scratch))}
        tools.update(ruler=ruler_run(bin_dir), rulesync=rulesync_run(bin_dir), floor=floor_run)
        _rounds(jobs, rounds, tools, times, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        job: {tool: statistics.median(ts) for tool, ts in by.items()} for job, by in times.items()
    }


def install_memhub(scratch: Path) -> str:
    """An interpreter running memhub as `pip install` leaves it: a venv holding a regular
    (not editable) install of this checkout, byte-compiled, whose dependencies are this
    interpreter's. Timing the checkout itself would add the editable finder's start-up,
    which no user pays."""
    import site
    import sysconfig

    venv = scratch / "memhub-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", purelib]
    subprocess.run([*pip, str(REPO)], check=True, stdout=subprocess.DEVNULL)
    # the dependencies (PyYAML, ...) from here: a .pth line adds a folder to sys.path without
    # reading the .pth files in it, so the checkout's editable finder stays out
    (Path(purelib) / "bench-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    import compileall

    compileall.compile_dir(str(Path(purelib) / "memhub"), quiet=1)
    return str(python)


def _rounds(
    jobs: list[Job],
    rounds: int,
    tools: dict[str, Runner],
    times: dict[str, dict[str, list[float]]],
    scratch: Path,
) -> None:
    for n in range(rounds):
        for job in jobs:
            names = list(tools) if job.anchors else ["memhub", "floor"]
            names = names[n % len(names) :] + names[: n % len(names)]  # who goes first rotates
            for tool in names:
                elapsed = timed_run(tool, tools[tool], job, scratch)
                times[job.name].setdefault(tool, []).append(elapsed)


def goals(medians: dict[str, dict[str, float]]) -> dict[str, tuple[str, bool]]:
    """Each goal of the job table: what it asks and whether this run met it."""
    out: dict[str, tuple[str, bool]] = {}
    for job, limit in (("servers-20", 0.6), ("servers-200", 0.6), ("skills-200", 0.6)):
        if job in medians and "ruler" in medians[job]:
            ratio = medians[job]["memhub"] / medians[job]["ruler"]
            out[job] = (f"<= {limit}x ruler", ratio <= limit)
    job = "servers-200-reapply"
    if job in medians and "ruler" in medians[job]:
        out[job] = ("<= 0.3x ruler", medians[job]["memhub"] / medians[job]["ruler"] <= 0.3)
    if "servers-1000" in medians:
        out["servers-1000"] = ("<= 1.5 s", medians["servers-1000"]["memhub"] <= 1.5)
        if "servers-100" in medians:
            scale = medians["servers-1000"]["memhub"] / medians["servers-100"]["memhub"]
            out["servers-1000 / servers-100"] = (f"<= 12x (is {scale:.1f}x)", scale <= 12)
    if "skills-5000" in medians:
        out["skills-5000"] = ("<= 5 s", medians["skills-5000"]["memhub"] <= 5.0)
    return out


def report(medians: dict[str, dict[str, float]]) -> str:
    met = goals(medians)
    lines = [
        "| job | memhub | ruler | rulesync | floor | memhub / ruler | memhub / floor | goal |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for job, by in medians.items():
        ruler, floor = by.get("ruler"), by.get("floor")
        ratio = f"{by['memhub'] / ruler:.2f}x" if ruler else "-"
        over = f"{by['memhub'] / floor:.2f}x" if floor else "-"
        goal = met.get(job)
        verdict = f"{goal[0]}: {'met' if goal[1] else 'MISSED'}" if goal else ""
        times = " | ".join(_s(by.get(tool)) for tool in ("memhub", "ruler", "rulesync", "floor"))
        lines.append(f"| {job} | {times} | {ratio} | {over} | {verdict} |")
    for name, (what, ok) in met.items():
        if name not in medians:
            lines.append(f"| {name} | | | | | | | {what}: {'met' if ok else 'MISSED'} |")
    return "\n".join(lines)


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", help="comma-separated job names (default: all)")
    parser.add_argument("--json", action="store_true", dest="as_json")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args(argv)
    chosen = [job for job in JOBS if not args.jobs or job.name in args.jobs.split(",")]
    medians = run(chosen, args.rounds)
    met = goals(medians)
    if args.as_json:
        print(json.dumps({"medians_s": medians, "goals": met}, indent=2))
    else:
        print(f"project scope, hosts {HOSTS}; median of {args.rounds} interleaved rounds")
        print(report(medians))
    return 1 if args.check and not all(ok for _, ok in met.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
