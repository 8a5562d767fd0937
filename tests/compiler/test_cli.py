"""The CLI's contract: exit codes, one status word per path, JSON output, no traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main

from tests.hubs import HUBS


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def data(stdout: str) -> Any:
    """The `data` of a --json envelope."""
    return json.loads(stdout)["data"]


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    target = tmp_path / "hub"
    shutil.copytree(HUBS["full"], target)
    return target


def test_build_writes_bundle_and_reports_each_file(hub: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code, stdout, _ = run(capsys, "build", str(hub), "--out", str(out))
    assert code == 0
    assert "create  plugins/full-probe/.claude-plugin/plugin.json" in stdout
    assert "host" in stdout and "coverage" not in stdout.splitlines()[0]
    assert (out / ".claude-plugin" / "marketplace.json").is_file()
    assert (out / ".memhub-build.json").is_file()
    script = out / "plugins/full-probe/skills/triage/scripts/repro.sh"
    assert script.stat().st_mode & 0o111, "executable bit of a skill file was lost"


def test_second_build_reports_unchanged_and_removes_stale_files(
    hub: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "out"
    assert run(capsys, "build", str(hub), "--out", str(out))[0] == 0
    (out / "plugins/full-probe/stale.txt").write_text("old")
    code, stdout, _ = run(capsys, "build", str(hub), "--out", str(out), "--json")
    assert code == 0
    statuses = {f["path"]: f["status"] for f in data(stdout)["files"]}
    assert statuses.pop("plugins/full-probe/stale.txt") == "delete"
    assert set(statuses.values()) == {"unchanged"}
    assert not (out / "plugins/full-probe/stale.txt").exists()


def test_build_refuses_a_folder_it_did_not_write(hub: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    code, _, err = run(capsys, "build", str(hub), "--out", str(out))
    assert code == 2
    assert "did not build" in err and "Fix:" in err
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_build_with_host_selection_writes_only_that_host(hub: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code, stdout, _ = run(capsys, "build", str(hub), "--out", str(out), "--host", "codex", "--json")
    assert code == 0
    report = data(stdout)
    assert report["hosts"] == ["codex"]
    paths = {f["path"] for f in report["files"]}
    assert ".agents/plugins/marketplace.json" in paths
    assert not any(".claude-plugin" in p or ".cursor-plugin" in p for p in paths)


def test_unknown_host_is_a_usage_error(hub: Path, tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, "build", str(hub), "--out", str(tmp_path / "o"), "--host", "vim")
    assert code == 2
    assert "vim" in err
    assert not (tmp_path / "o").exists()


def test_diff_exit_codes_and_key_path_changes(hub: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    run(capsys, "build", str(hub), "--out", str(out))
    code, stdout, _ = run(capsys, "diff", str(hub), "--against", str(out), "--exit-code")
    assert (code, stdout) == (0, "")
    text = (hub / "hub.yaml").read_text().replace("version: 1.2.3", "version: 1.3.0")
    (hub / "hub.yaml").write_text(text)
    code, stdout, _ = run(
        capsys, "diff", str(hub), "--against", str(out), "--exit-code", "--color", "never"
    )
    assert code == 1
    assert "--- a/plugins/full-probe/.claude-plugin/plugin.json" in stdout
    assert '~ version: "1.2.3" -> "1.3.0"' in stdout
    assert "\x1b[" not in stdout
    code, stdout, _ = run(capsys, "diff", str(hub), "--against", str(out))
    assert code == 0, "without --exit-code a diff with changes still succeeds"


def test_diff_shows_text_files_as_unified_diff(hub: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    run(capsys, "build", str(hub), "--out", str(out))
    skill = hub / "skills/triage/SKILL.md"
    skill.write_text(skill.read_text().replace("smallest fix", "simplest fix"))
    code, stdout, _ = run(capsys, "diff", str(hub), "--against", str(out), "--color", "always")
    assert code == 0
    assert "\x1b[31m-2. Find the cause; propose the smallest fix." in stdout
    assert "\x1b[32m+2. Find the cause; propose the simplest fix." in stdout


def test_diff_json_carries_fingerprints_and_keys_not_contents(
    hub: Path, tmp_path: Path, capsys
) -> None:
    code, stdout, _ = run(capsys, "diff", str(hub), "--against", str(tmp_path / "none"), "--json")
    assert code == 0
    report = data(stdout)
    assert report["summary"]["create"] == len(report["changes"])
    first = report["changes"][0]
    assert first["target"].startswith("sha256:") and first["actual"] is None


def test_diff_writes_nothing(hub: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "never"
    run(capsys, "diff", str(hub), "--against", str(target))
    assert not target.exists()


def test_validate_ok_and_warnings(hub: Path, capsys) -> None:
    code, stdout, err = run(capsys, "validate", str(hub))
    assert code == 0
    assert stdout.startswith("valid: full-probe 1.2.3")
    line = "agent-plugins: hook 'start': Agent Plugins 1.0 defines no hooks"
    assert f"warning: [build only] {line}" in err


def test_validate_json_lists_problems_with_positions(hub: Path, capsys) -> None:
    text = (hub / "hub.yaml").read_text().replace("event: turn_end", "event: turn_ending")
    (hub / "hub.yaml").write_text(text)
    code, stdout, _ = run(capsys, "validate", str(hub), "--json")
    assert code == 2
    report = json.loads(stdout)
    assert report["data"]["valid"] is False and report["ok"] is False
    (error,) = report["errors"]
    (problem,) = error["problems"]
    assert problem["file"].endswith("hub.yaml")
    assert problem["key"] == "hooks[7].event"
    assert "turn_end" in problem["message"] and problem["fix"]
    assert (
        problem["line"]
        == text.splitlines().index(
            next(line for line in text.splitlines() if "turn_ending" in line)
        )
        + 1
    )


def test_missing_hub_is_reported_not_raised(tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, "validate", str(tmp_path / "nowhere"))
    assert code == 2
    assert "no hub file here" in err and "memhub init" in err
    assert "Traceback" not in err


def test_init_creates_a_hub_that_builds_without_warning(tmp_path: Path, capsys) -> None:
    target = tmp_path / "My Tools"
    code, stdout, _ = run(capsys, "init", str(target))
    assert code == 0
    assert "create" in stdout
    head = (target / "hub.yaml").read_text().splitlines()[0]
    assert head == "# yaml-language-server: $schema=.memhub/hub.schema.json"
    assert json.loads((target / ".memhub/hub.schema.json").read_text())["title"] == "memhub hub"
    code, stdout, _ = run(capsys, "validate", str(target), "--json")
    assert code == 0
    report = json.loads(stdout)
    assert report["data"]["plugin"] == "my-tools"
    assert report["warnings"] == []


def test_init_never_overwrites(tmp_path: Path, capsys) -> None:
    run(capsys, "init", str(tmp_path))
    before = (tmp_path / "hub.yaml").read_bytes()
    code, _, err = run(capsys, "init", str(tmp_path))
    assert code == 2 and "already exists" in err
    assert (tmp_path / "hub.yaml").read_bytes() == before


def test_hosts_lists_every_adapter(capsys) -> None:
    code, stdout, _ = run(capsys, "hosts", "--json")
    assert code == 0
    hosts = {h["name"]: h for h in data(stdout)}
    assert set(hosts) == {
        "claude",
        "codex",
        "cursor",
        "gemini",
        "opencode",
        "copilot",
        "agent-plugins",
    }
    assert hosts["codex"]["events"]["turn_end"]["host_event"] == "Stop"
    assert hosts["copilot"]["events"]["turn_end"]["host_event"] == "agentStop"
    assert hosts["gemini"]["events"]["turn_end"]["host_event"] == "AfterAgent"
    assert hosts["agent-plugins"]["events"]["turn_end"]["host_event"] is None


def test_unexpected_errors_exit_70_with_a_log_and_no_traceback(
    hub: Path, tmp_path: Path, capsys, monkeypatch
) -> None:

    def explode(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("memhub.compiler.build.build", explode)
    code, _, err = run(capsys, "validate", str(hub))
    assert code == 70
    assert "unexpected error: RuntimeError: boom" in err
    assert "Traceback" not in err
    logs = list((Path(os.environ["MEMHUB_HOME"]) / "logs").glob("crash-*.log"))
    assert logs and "RuntimeError: boom" in logs[0].read_text()


def test_help_explains_every_command(capsys) -> None:
    code, stdout, _ = run(capsys, "--help")
    assert code == 0
    for command in ("build", "diff", "validate", "init", "hosts"):
        assert command in stdout
    code, stdout, _ = run(capsys, "diff", "--help")
    assert "--exit-code" in stdout and "--against" in stdout


def test_rebuild_with_no_change_leaves_the_folder_untouched(
    hub: Path, tmp_path: Path, capsys
) -> None:
    out = tmp_path / "out"
    run(capsys, "build", str(hub), "--out", str(out))
    manifest = out / "plugins/full-probe/.claude-plugin/plugin.json"
    inode, mtime = manifest.stat().st_ino, manifest.stat().st_mtime_ns
    assert run(capsys, "build", str(hub), "--out", str(out))[0] == 0
    assert (manifest.stat().st_ino, manifest.stat().st_mtime_ns) == (inode, mtime)
    text = (hub / "hub.yaml").read_text().replace("version: 1.2.3", "version: 1.2.4")
    (hub / "hub.yaml").write_text(text)
    assert run(capsys, "build", str(hub), "--out", str(out))[0] == 0
    assert '"version": "1.2.4"' in manifest.read_text()
