"""One CLI convention: NO_COLOR, exit codes in --help, one host option, counts and summaries."""

from __future__ import annotations

import io
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.compiler.cli.options import EXIT_CODES, use_color

from tests.compiler.installkit import run
from tests.hubs import HUBS

ESC = "\x1b["


@pytest.fixture
def full_hub(tmp_path: Path) -> Path:
    target = tmp_path / "full"
    shutil.copytree(HUBS["full"], target)
    return target


# -- colour --------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("choice", "no_color", "expected"),
    [
        ("auto", None, True),
        ("auto", "1", False),
        ("auto", "", True),  # NO_COLOR set but empty does not count (no-color.org)
        ("always", "1", True),  # an explicit flag wins
        ("never", None, False),
    ],
)
def test_colour_on_a_terminal_follows_no_color_and_the_flag(
    choice: str, no_color: str | None, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    assert use_color(choice, _Terminal()) is expected
    assert use_color("auto", io.StringIO()) is False  # not a terminal: never by default


def _diff_on_a_terminal(hub: Path, against: Path, env: dict[str, str]) -> str:
    """`memhub diff` run as a real process whose stdout is a terminal."""
    leader, follower = pty.openpty()
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "diff", str(hub), "--against"]
    proc = subprocess.Popen(
        [*argv, str(against)], stdout=follower, stderr=subprocess.DEVNULL, env=env
    )
    os.close(follower)
    chunks = []
    try:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the process closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert proc.wait(timeout=60) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_no_color_turns_the_diff_plain_on_a_real_terminal(full_hub: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = _diff_on_a_terminal(full_hub, tmp_path / "none", env)
    assert ESC in coloured and "+++ b/" in coloured
    plain = _diff_on_a_terminal(full_hub, tmp_path / "none", {**env, "NO_COLOR": "1"})
    assert ESC not in plain and "+++ b/" in plain


# -- help ----------------------------------------------------------------------------------


def test_top_level_help_lists_every_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    listed = {int(m.group(1)) for m in re.finditer(r"^\s+(\d+)  \S", out, re.MULTILINE)}
    assert listed == {code for code, _ in EXIT_CODES} >= {0, 1, 2, 3, 4, 70, 130}
    assert "NO_COLOR" in out and "--json" in out
    for name in ("status", "sessions", "login", "undo", "restore"):
        assert f"  {name} " in out


# -- diff ----------------------------------------------------------------------------------


def test_diff_has_one_host_option_for_bundle_and_install(
    full_hub: Path, hub: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "diff", str(full_hub), "--against", str(tmp_path / "a"))
    assert code == 0 and ".claude-plugin" in out
    code, out, _ = run(
        capsys, "diff", str(full_hub), "--against", str(tmp_path / "a"), "--hosts", "codex"
    )
    assert code == 0 and ".agents/plugins/marketplace.json" in out
    assert ".claude-plugin" not in out and ".cursor-plugin" not in out
    code, out, _ = run(capsys, "diff", str(hub), "--scope", "user", "--hosts", "claude")
    assert code == 0 and ".claude" in out and ".codex" not in out
    code, _, err = run(capsys, "diff", str(full_hub), "--against", str(tmp_path), "--hosts", "vim")
    assert code == 2 and "vim" in err
    code, _, err = run(capsys, "diff", str(full_hub), "--against", str(tmp_path), "--host", "codex")
    assert code == 2 and "No such option '--host'" in err
    code, out, _ = run(capsys, "diff", "--help")
    assert "--hosts" in out and "--host " not in out


def test_diff_scope_shows_the_warnings_plan_shows(
    hub: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PROBE_TOKEN", raising=False)
    _, _, planned = run(capsys, "plan", str(hub), "--hosts", "claude,codex")
    warnings = [line for line in planned.splitlines() if line.startswith("warning")]
    assert any("${env:PROBE_TOKEN} has no value" in line for line in warnings), planned
    code, out, err = run(capsys, "diff", str(hub), "--scope", "user", "--hosts", "claude,codex")
    assert code == 0
    assert [line for line in err.splitlines() if line.startswith("warning")] == warnings
    assert "warning" not in out, "stdout holds the diff only"


# -- counts and summaries ------------------------------------------------------------------


def test_plan_apply_and_uninstall_print_a_counts_line(
    hub: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "plan", str(hub), "--hosts", "claude")
    creates = sum(1 for line in out.splitlines() if line.startswith("create  "))
    assert f"plan: {creates} create, 0 update, 0 delete, 0 unchanged (claude; user scope)" in out
    _, out, _ = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert f"apply: {creates} create, 0 update, 0 delete, 0 unchanged (claude" in out
    code, out, _ = run(capsys, "plan", str(hub), "--hosts", "claude")
    assert code == 0
    assert out.splitlines()[0] == f"plan: 0 create, 0 update, 0 delete, {creates} unchanged " + (
        "(claude; user scope)"
    ), "nothing changes: only the counts, no unchanged path"
    _, verbose, _ = run(capsys, "plan", str(hub), "--hosts", "claude", "-v")
    assert sum(1 for line in verbose.splitlines() if "unchanged  /" in line) == creates
    _, out, _ = run(capsys, "uninstall", str(hub), "--hosts", "claude")
    assert "uninstall: 0 create, " in out


def test_a_rebuild_prints_a_summary_not_a_line_per_unchanged_file(
    full_hub: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    _, first, _ = run(capsys, "build", str(full_hub), "--out", str(out_dir))
    created = sum(1 for line in first.splitlines() if line.startswith("create  "))
    assert created > 10
    code, again, _ = run(capsys, "build", str(full_hub), "--out", str(out_dir))
    assert code == 0
    assert "unchanged  " not in again
    assert f"({created} unchanged)" in again.splitlines()[-1]
    _, verbose, _ = run(capsys, "build", str(full_hub), "--out", str(out_dir), "-v")
    assert sum(1 for line in verbose.splitlines() if line.startswith("unchanged  ")) == created


# -- init and validate ---------------------------------------------------------------------


def test_init_ends_with_the_next_steps_for_both_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "hub"
    code, out, _ = run(capsys, "init", str(target))
    assert code == 0
    tail = out[out.index("Next:") :]
    assert f"memhub validate {target}" in tail
    assert f"memhub build {target} --out {target}/dist" in tail  # a bundle
    assert f"memhub diff {target} --scope user" in tail and f"memhub apply {target}" in tail
    code, out, _ = run(capsys, "init", str(tmp_path / "other"), "--json")
    import json

    steps = json.loads(out)["data"]["next"]
    assert [s["run"].split()[1] for s in steps] == ["validate", "build", "diff"]


def test_validate_labels_the_warnings_only_a_bundle_has(
    full_hub: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "validate", str(full_hub))
    assert code == 0
    lines = err.splitlines()
    # Claude bundles carry no CLAUDE.md, but an install writes it: a bundle-only warning
    claude = next(line for line in lines if "claude: instructions" in line)
    assert claude.startswith("warning: [build only] ")
    # no install has a plugin folder for ${plugin_data}: apply leaves the server out too
    codex = next(line for line in lines if "codex: mcp 'local-tool'" in line)
    assert codex.startswith("warning: [build and apply] ")
    # agent-plugins is a bundle-only host
    assert all(
        line.startswith("warning: [build only] agent-plugins:")
        for line in lines
        if "agent-plugins:" in line
    )
    both = sum("[build and apply]" in line for line in lines)
    assert f"{len(lines) - both} build only, {both} build and apply)" in out
