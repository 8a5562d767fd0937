"""`undo` is a stack: `history` lists the runs, `undo` takes the newest not undone, says so
when nothing is left, and `--dry-run` shows what it would put back without writing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.compiler.installkit import run

Capsys = pytest.CaptureFixture[str]


def settings(home: Path) -> Path:
    return home / ".gemini" / "settings.json"


def apply_twice(hub: Path, home: Path, capsys: Capsys) -> tuple[str, str, str]:
    """The user's settings, then two applies of different hubs: the three states."""
    settings(home).parent.mkdir()
    settings(home).write_text('{"theme": "GitHub"}\n')
    states = [settings(home).read_text()]
    assert run(capsys, "apply", str(hub), "--hosts", "gemini")[0] == 0
    states.append(settings(home).read_text())
    text = (hub / "hub.yaml").read_text()
    (hub / "hub.yaml").write_text(text.replace("LEVEL: debug", "LEVEL: info"))
    assert run(capsys, "apply", str(hub), "--hosts", "gemini")[0] == 0
    states.append(settings(home).read_text())
    assert len(set(states)) == 3
    return states[0], states[1], states[2]


def history_json(capsys: Capsys) -> list[dict[str, object]]:
    code, out, err = run(capsys, "history", "--json")
    assert code == 0, err
    envelope = json.loads(out)
    assert envelope["command"] == "history" and envelope["ok"] is True
    runs: list[dict[str, object]] = envelope["data"]["runs"]
    return runs


def test_undo_steps_back_one_run_at_a_time_and_history_marks_the_next(
    hub: Path, home: Path, capsys: Capsys
) -> None:
    user, first, _ = apply_twice(hub, home, capsys)
    runs = history_json(capsys)
    assert [r["command"] for r in runs] == ["apply", "apply"]  # newest first
    assert [r["next_undo"] for r in runs] == [True, False]
    newest, older = runs[0]["run"], runs[1]["run"]

    code, out, err = run(capsys, "undo")
    assert code == 0, err
    assert f"undid run {newest}" in out
    assert settings(home).read_text() == first
    runs = history_json(capsys)
    assert runs[0]["command"] == "undo" and runs[0]["undoes"] == newest
    assert runs[1]["undone_by"] == runs[0]["run"] and not runs[1]["next_undo"]
    assert runs[2]["run"] == older and runs[2]["next_undo"]

    code, out, _ = run(capsys, "undo", "--json")
    assert code == 0
    envelope = json.loads(out)
    assert envelope["command"] == "undo" and envelope["data"]["run"] == older
    assert str(settings(home)) in envelope["data"]["restored"]
    assert settings(home).read_text() == user

    code, out, err = run(capsys, "history")
    assert code == 0 and "<- undo" not in out
    assert out.count("undone by") == 2 and out.count("undid") == 2


def test_undo_with_nothing_to_undo_says_so_and_exits_1(home: Path, capsys: Capsys) -> None:
    code, out, err = run(capsys, "undo")
    assert (code, out) == (1, "")
    assert "nothing to undo" in err
    code, out, _ = run(capsys, "undo", "--json")
    envelope = json.loads(out)
    assert code == 1 and envelope["exit_code"] == 1 and envelope["ok"] is False
    assert envelope["data"]["run"] is None
    assert envelope["errors"][0]["error"] == "NothingToUndo"
    assert "nothing to undo" in envelope["errors"][0]["message"]
    code, out, _ = run(capsys, "history")
    assert code == 0 and "no runs yet" in out


def test_undo_dry_run_shows_what_it_would_put_back_and_writes_nothing(
    hub: Path, home: Path, capsys: Capsys
) -> None:
    _, _, second = apply_twice(hub, home, capsys)
    journal = sorted((home / ".memhub" / "journal").iterdir())
    code, out, err = run(capsys, "undo", "--dry-run")
    assert code == 0, err
    assert "would undo run" in out and "nothing written" in out
    assert f"restore          {settings(home)}" in out
    code, out, _ = run(capsys, "undo", "--dry-run", "--json")
    data = json.loads(out)["data"]
    assert data["dry_run"] is True and data["run"] == history_json(capsys)[0]["run"]
    steps = {s["path"]: s["action"] for s in data["steps"]}
    assert steps[str(settings(home))] == "restore"
    assert settings(home).read_text() == second
    assert sorted((home / ".memhub" / "journal").iterdir()) == journal  # no run recorded


def test_undo_dry_run_names_a_host_edit_it_would_keep(
    hub: Path, home: Path, capsys: Capsys
) -> None:
    _, _, second = apply_twice(hub, home, capsys)
    edited = second.replace("GitHub", "Dracula")  # the host rewrote the file since
    settings(home).write_text(edited)
    code, out, _ = run(capsys, "undo", "--dry-run", "--json")
    assert code == 0
    steps = {s["path"]: s["action"] for s in json.loads(out)["data"]["steps"]}
    assert steps[str(settings(home))] == "revert-entries"
    assert settings(home).read_text() == edited


def test_restore_dry_run_writes_nothing_and_json_uses_the_envelope(
    hub: Path, home: Path, capsys: Capsys
) -> None:
    _, _, second = apply_twice(hub, home, capsys)
    code, out, _ = run(capsys, "restore", "--originals", "--dry-run", "--json")
    envelope = json.loads(out)
    assert code == 0 and envelope["command"] == "restore" and envelope["ok"]
    assert envelope["data"]["restored"] is False
    assert str(settings(home)) in {c["path"] for c in envelope["data"]["changes"]}
    assert settings(home).read_text() == second
    code, out, _ = run(capsys, "restore", "--originals", "--yes", "--json")
    data = json.loads(out)["data"]
    assert code == 0 and data["restored"] is True and data["archive"]
    assert settings(home).read_text() == '{"theme": "GitHub"}\n'
    assert history_json(capsys)[0]["command"] == "restore"
