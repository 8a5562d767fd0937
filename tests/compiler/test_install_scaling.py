"""Apply scales linearly: ten times the servers costs at most fifteen times the CPU time.

In process (no interpreter start-up to hide behind), on all four hosts at project scope:
plan and apply of 60 servers against 600, the CPU time of the best of three runs each.
Every entry edit of a host document is one splice of one batch (tomledit.edit_tables,
jsonedit.set_keys): a quadratic step anywhere (a re-parse per entry, a scan of the file
per lookup) makes 600 servers cost a hundred times 60, not ten. The margin above ten is
the machine's, not the code's: the larger apply touches more fresh memory (measured 8x on
one machine, 12.2x on a CI machine, with calls per server constant).
"""

from __future__ import annotations

import gc
import json
import time
from pathlib import Path

from memhub.compiler.install.engine import apply_install, plan_install
from memhub.compiler.install.scope import Scope
from memhub.hubspec import load

HOSTS = ("claude", "codex", "cursor", "gemini")


def _hub(root: Path, servers: int) -> Path:
    lines = [
        "version: 1",
        "plugin: {name: scale-probe, version: 0.1.0, description: Scale probe}",
        "marketplace: {name: scale-market, owner: {name: Probe}}",
        "mcp:",
        "  servers:",
    ]
    for i in range(servers):
        server = {"command": "npx", "args": ["-y", f"pkg-{i}"], "env": {"LEVEL": str(i)}}
        lines.append(f"    s{i:04d}: {json.dumps(server)}")
    root.mkdir(parents=True)
    (root / "hub.yaml").write_text("\n".join(lines) + "\n", "utf-8")
    return root


def _cpu_of_first_apply(tmp: Path, servers: int, run: int) -> float:
    base = tmp / f"{servers}-{run}"
    hub = load(_hub(base / "hub", servers))
    project = base / "project"
    project.mkdir()
    scope = Scope("project", base / "home", project=project)
    home = base / "memhub"
    gc.collect()
    gc.disable()  # a collection walks the whole heap of the test session, not this apply's
    try:
        start = time.process_time()
        done = apply_install(home, lambda: plan_install(hub, scope, HOSTS, home))
        spent = time.process_time() - start
    finally:
        gc.enable()
    assert len(done.pending) == 4  # one MCP file per host
    again = plan_install(hub, scope, HOSTS, home)
    assert not again.pending
    return spent


def test_ten_times_the_servers_cost_at_most_fifteen_times_the_cpu(tmp_path: Path) -> None:
    small = min(_cpu_of_first_apply(tmp_path, 60, run) for run in range(3))
    large = min(_cpu_of_first_apply(tmp_path, 600, run) for run in range(3))
    assert large <= 15 * small, f"60 servers: {small:.3f} s CPU, 600: {large:.3f} s"
    text = (tmp_path / "600-0" / "project" / ".codex" / "config.toml").read_text()
    assert text.count("[mcp_servers.") == 600


def test_the_shared_agents_skills_copy_is_planned_and_written_once(tmp_path: Path) -> None:
    """Codex and Gemini both read .agents/skills: one folder per skill, owned by both."""
    root = _hub(tmp_path / "hub", 1)
    for name in ("alpha", "beta"):
        folder = root / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nbody\n")
    with (root / "hub.yaml").open("a") as hub_yaml:
        hub_yaml.write("skills: skills\n")
    project = tmp_path / "project"
    project.mkdir()
    scope = Scope("project", tmp_path / "home", project=project)
    plan = plan_install(load(root), scope, ("codex", "gemini"), tmp_path / "memhub")
    shared = [c for c in plan.pending if "/.agents/skills/" in c.path]
    assert sorted(Path(c.path).name for c in shared) == ["alpha", "beta"]
    assert {plan.state_after.targets[c.path][c.entries[0]].host for c in shared} == {"codex,gemini"}
