"""The replayed no-op apply: what it loads, and that it reads `apply`'s arguments as click does.

A repeated apply with nothing changed is answered by cli/replay.py before click, YAML, the
schema checkers, the hub model or any host adapter is imported; a later import at module
level in that path would silently slow every such run, so the child's `sys.modules` is
pinned here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.compiler.cli.apply import command as apply_command
from memhub.compiler.cli.replay import ApplyArgs, parse_apply

from tests.compiler.installkit import ALL, run

# Run memhub in a child and write which modules it had loaded when it was done.
CHILD = (
    "import json, sys\n"
    "from memhub.compiler.cli.main import main\n"
    "code = main(sys.argv[2:])\n"
    "open(sys.argv[1], 'w').write(json.dumps(sorted(sys.modules)))\n"
    "sys.exit(code)\n"
)
# What a replay must not load: the command tree, the hub loader and model, the schema
# checkers, templates, TOML editing, the adapters and the planner.
HEAVY = (
    "click",
    "yaml",
    "jsonschema",
    "jsonschema_rs",
    "jinja2",
    "tomlkit",
    "filelock",
    "dotenv",
    "memhub.hubspec.loader",
    "memhub.hubspec.model",
    "memhub.compiler.hosts",
    "memhub.compiler.formats",
    "memhub.compiler.install.planner",
    "memhub.compiler.install.secrets",
)


def child(tmp_path: Path, *args: str) -> tuple[int, str, list[str]]:
    """memhub ARGS in a fresh interpreter: (exit code, stdout, the modules it loaded)."""
    modules = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(modules), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=False,
    )
    return done.returncode, done.stdout, json.loads(modules.read_text())


def test_a_replayed_apply_loads_no_click_yaml_schema_model_or_adapter(
    hub: Path, home: Path, tmp_path: Path
) -> None:
    args = ("apply", str(hub), "--hosts", ALL)
    code, _, full = child(tmp_path, *args)
    assert code == 0 and "memhub.compiler.install.planner" in full  # the first one plans
    code, out, loaded = child(tmp_path, *args)
    assert code == 0 and "0 create, 0 update, 0 delete" in out
    heavy = [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    assert heavy == [], f"a replayed no-op apply imported {heavy}"


def written(home: Path) -> list[Path]:
    """The host files an apply left under `home` (memhub's own are named by time or by a
    digest of the environment, which names the home)."""
    return [
        p.relative_to(home) for p in home.rglob("*") if p.is_file() and ".memhub" not in p.parts
    ]


def test_a_plain_first_apply_runs_without_click_and_prints_what_click_prints(
    hub: Path, home: Path, tmp_path: Path
) -> None:
    """A plain apply that is not a no-op runs without the command tree (cli/applyrun.py);
    the same apply run through click, in a fresh home, prints the same and writes the same."""
    args = ("apply", str(hub), "--hosts", ALL, "-v")
    code, out, loaded = child(tmp_path, *args)
    assert code == 0 and "create" in out and "memhub.compiler.install.planner" in loaded
    assert "click" not in loaded, "a plain first apply imported click"
    first = written(home)
    # again, from scratch, through the click group
    other = tmp_path / "other-home"
    env = {**os.environ, "HOME": str(other), "MEMHUB_HOME": str(other / ".memhub")}
    env.update(
        {k: v.replace(str(home), str(other)) for k, v in os.environ.items() if str(home) in v}
    )
    via_click = (
        "import sys\n"
        "from memhub.compiler.cli.main import _group\n"
        "sys.exit(_group().main(args=sys.argv[1:], prog_name='memhub'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", via_click, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.replace(str(other), str(home)) == out
    assert sorted(written(other)) == sorted(first)
    state = (home / ".memhub" / "state.json").read_text()
    assert (other / ".memhub" / "state.json").read_text().replace(str(other), str(home)) == state


@pytest.mark.parametrize("swap", ["fifo", "folder", "symlink-out"])
def test_a_hub_file_swapped_after_an_apply_is_never_replayed(
    hub: Path, home: Path, tmp_path: Path, swap: str
) -> None:
    """After a remembered apply, hub.yaml turned into a FIFO or a folder is refused without
    blocking (exit 2, nothing replayed); a link to the same bytes elsewhere is read as the
    hub it names, and answers as that hub does."""
    args = ("apply", str(hub), "--hosts", ALL)
    assert child(tmp_path, *args)[0] == 0
    assert child(tmp_path, *args)[0] == 0  # remembered now
    hub_file = hub / "hub.yaml"
    text = hub_file.read_bytes()
    hub_file.unlink()
    if swap == "fifo":
        os.mkfifo(hub_file)
    elif swap == "folder":
        hub_file.mkdir()
    else:
        outside = tmp_path / "elsewhere.yaml"
        outside.write_bytes(text)
        hub_file.symlink_to(outside)
    done = subprocess.run(
        [sys.executable, "-m", "memhub.compiler.cli.main", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,  # a FIFO read would block here
        check=False,
    )
    if swap == "symlink-out":
        assert done.returncode == 0, done.stderr
        assert "0 create, 0 update, 0 delete" in done.stdout
    else:
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert "hub.yaml" in done.stderr and "0 create" not in done.stdout


def test_apply_verbose_is_remembered_apart_from_apply(hub: Path, home: Path, capsys) -> None:
    """-v lists the unchanged paths too: a replay of plain apply's output would drop them."""
    from memhub.compiler.install.noopmemo import MEMO_DIR
    from memhub.compiler.install.state import memhub_home

    assert run(capsys, "apply", str(hub), "--hosts", ALL)[0] == 0
    plain = run(capsys, "apply", str(hub), "--hosts", ALL)
    verbose = run(capsys, "apply", str(hub), "--hosts", ALL, "-v")
    assert verbose[0] == 0 and "unchanged  " in verbose[1] and "unchanged  " not in plain[1]
    assert run(capsys, "apply", str(hub), "--hosts", ALL, "-v") == verbose  # replayed
    for memo in (memhub_home() / MEMO_DIR).glob("*.json"):
        memo.unlink()
    assert run(capsys, "apply", str(hub), "--hosts", ALL, "-v") == verbose  # in full


READ = [
    ["apply"],
    ["--debug", "apply", "hub"],
    ["apply", "hub", "--scope", "project", "--project", "checkout", "--hosts", "claude"],
    ["apply", "--scope=project", "--project=checkout", "--hosts=claude,codex", "hub"],
    ["apply", "--adopt", "-v", "--force", "hub", "--scope", "user", "--scope", "project"],
    ["apply", "--verbose", "--hosts", "codex", "--hosts", "gemini"],
]
LEFT_TO_CLICK = [
    [],
    ["hosts"],
    ["plan", "hub"],
    ["apply", "--json"],
    ["apply", "--help"],
    ["apply", "-h"],
    ["--version"],
    ["apply", "hub", "other"],
    ["apply", "--", "hub"],
    ["apply", "--scope", "global"],
    ["apply", "--scope"],
    ["apply", "--hosts", "--adopt"],
    ["apply", "--hosts="],
    ["apply", "--unknown"],
    ["apply", "-vx"],
    ["apply", ""],
    ["apply", "--debug"],
    ["--debug", "--debug", "plan"],
]


@pytest.mark.parametrize("argv", READ, ids=" ".join)
def test_the_replay_reads_apply_arguments_as_click_does(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hub").mkdir()
    (tmp_path / "checkout").mkdir()
    words = argv[argv.index("apply") + 1 :]
    params = apply_command.make_context("apply", list(words)).params
    assert parse_apply(argv) == ApplyArgs(
        hub=params["hub"],
        scope=params["scope"],
        project=params["project"],
        hosts=params["hosts"],
        adopt=params["adopt"],
        verbose=params["verbose"],
        force=params["force"],
    )


@pytest.mark.parametrize("argv", LEFT_TO_CLICK, ids=lambda a: " ".join(a) or "nothing")
def test_the_replay_leaves_anything_else_to_click(argv: list[str]) -> None:
    assert parse_apply(argv) is None


def test_the_replay_leaves_paths_click_refuses_and_saved_plans_to_click(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text("{}")
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert parse_apply(["apply", str(plan)]) is None  # a saved plan: apply.py checks it
    assert parse_apply(["apply", "--scope", "project", "--project", str(a_file)]) is None
    unreadable = tmp_path / "locked"
    unreadable.mkdir(mode=0)
    try:
        if not os.access(unreadable, os.R_OK):  # root reads anything
            assert parse_apply(["apply", str(unreadable)]) is None
    finally:
        unreadable.chmod(0o700)
