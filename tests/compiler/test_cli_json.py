"""One --json envelope on every verb: {command, ok, exit_code, data, warnings, errors}."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import click
import pytest
from memhub.compiler.cli.main import COMMANDS, cli, main

from tests.compiler.installkit import claude_json, run

ENVELOPE = {"command", "ok", "exit_code", "data", "warnings", "errors"}


def every_command() -> list[str]:
    """Every command a person can run, subcommands of a group as `group sub`."""
    ctx = click.Context(cli)
    names = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        if isinstance(command, click.Group):
            names += [f"{name} {sub}" for sub in command.list_commands(ctx)]
        else:
            names.append(name)
    return names


# the arguments each command runs with here (HUB is the install probe hub, TMP a fresh folder)
ARGS: dict[str, tuple[str, ...]] = {
    "apply": ("HUB", "--hosts", "claude"),
    "build": ("HUB", "--out", "TMP/out"),
    "capture list": (),
    "capture show": ("no-such-session",),
    "capture status": (),
    "diff": ("HUB", "--against", "TMP/none"),
    "doctor": (),
    "history": (),
    "hosts": (),
    "import": ("--into", "TMP/imported", "--dry-run"),
    "init": ("TMP/new-hub",),
    "login": ("--status",),
    "mcp key": (),
    "mcp serve": ("--http", "--host", "0.0.0.0"),  # refused before it binds: nothing serves
    "memory accept": ("r-nope",),
    "memory add": ("--kind", "fact", "--title", "t", "--body", "b", "--scope", "shared"),
    "memory edit": ("r-nope", "--revision", "0", "--title", "x"),
    "memory export": ("r-nope", "--to", "TMP/out"),
    "memory get": ("r-nope",),
    "memory import": ("TMP/none.md",),
    "memory index": (),
    "memory list": (),
    "memory rm": ("r-nope", "--revision", "0"),
    "memory search": ("x",),
    "plan": ("HUB", "--hosts", "claude"),
    "project connect": ("TMP",),
    "project disconnect": ("p-000000000000",),
    "project list": (),
    "recall stats": (),
    "restore": ("--originals", "--dry-run"),
    "rules add": (
        "--book",
        "b",
        "--id",
        "r",
        "--event",
        "bash",
        "--command",
        "make",
        "--text",
        "t",
    ),
    "rules check": ("make",),
    "rules fires": (),
    "rules list": (),
    "sessions": (),
    "status": (),
    "undo": (),
    "uninstall": ("HUB", "--hosts", "claude"),
    "validate": ("HUB",),
}


def test_every_command_has_a_case_here() -> None:
    assert set(every_command()) == set(ARGS)
    assert {name.split()[0] for name in ARGS} == set(COMMANDS)


def envelope_of(out: str) -> dict[str, Any]:
    document = json.loads(out)  # exactly one JSON document on stdout
    assert set(document) == ENVELOPE, document
    return document


@pytest.mark.parametrize("name", sorted(ARGS))
def test_json_is_one_envelope(
    name: str, hub: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    words = name.split()
    assert main([*words, "--help"]) == 0
    assert "--json" in capsys.readouterr().out
    args = [a.replace("HUB", str(hub)).replace("TMP", str(tmp_path)) for a in ARGS[name]]
    code, out, err = run(capsys, *words, *args, "--json")
    document = envelope_of(out)
    assert document["command"] == name
    assert document["exit_code"] == code and document["ok"] is (code == 0), err
    assert all(isinstance(w, str) for w in document["warnings"])
    assert all({"error", "message"} <= set(e) for e in document["errors"])
    if code != 0 and name not in ("login", "doctor"):  # a failing check is data, not an error
        assert document["errors"], document


def test_a_usage_error_is_an_envelope_too(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diff", "--json")
    document = envelope_of(out)
    assert code == 2 and document["exit_code"] == 2 and document["command"] == "diff"
    (error,) = document["errors"]
    assert error["error"] == "UsageError" and "--against" in error["message"]
    assert "--against" in err  # and said on stderr as without --json


def test_an_invalid_hub_is_an_envelope_with_its_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "plan", str(tmp_path / "nowhere"), "--json")
    document = envelope_of(out)
    assert code == 2 and document["data"] is None and document["command"] == "plan"
    (error,) = document["errors"]
    assert error["error"] == "HubError"
    assert "no hub file here" in error["problems"][0]["message"]


def test_a_crash_is_an_envelope(
    hub: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("memhub.compiler.build.build", explode)
    code, out, _ = run(capsys, "build", str(hub), "--out", "never", "--json")
    document = envelope_of(out)
    assert code == 70 and document["errors"][0]["error"] == "UnexpectedError"
    assert "boom" in document["errors"][0]["message"]


def test_apply_json_says_what_was_applied_and_what_is_left_to_do(
    hub: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "apply", str(hub), "--hosts", "claude,codex", "--json")
    assert code == 0, err
    data = envelope_of(out)["data"]
    assert "targets" not in data and "memhub_plan" not in data, "not the plan document"
    assert data["hosts"] == ["claude", "codex"] and data["scope"] == "user"
    assert data["applied"] and {a["kind"] for a in data["applied"]} == {"create"}
    assert data["counts"]["create"] == len(data["applied"])
    assert {"host": "codex", "step": "restart Codex"} in data["next"]
    assert data["undo"] == "memhub undo"
    code, out, _ = run(capsys, "apply", str(hub), "--hosts", "claude,codex", "--json")
    again = envelope_of(out)["data"]
    assert again["applied"] == [] and again["undo"] is None


def test_import_json_asks_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Without --yes or --dry-run, --json refuses (exit 1) and writes nothing."""
    claude_json().write_text(json.dumps({"mcpServers": {"mine": {"command": "my-server"}}}))
    into = tmp_path / "imported"
    code, out, _ = run(capsys, "import", "--into", str(into), "--hosts", "claude", "--json")
    document = envelope_of(out)
    assert [s["name"] for s in document["data"]["servers"]] == ["mine"]
    assert code == 1 and document["errors"][0]["error"] == "ConfirmationNeeded"
    assert document["data"]["written"] is False and not into.exists()
    code, out, _ = run(
        capsys, "import", "--into", str(into), "--hosts", "claude", "--json", "--yes"
    )
    document = envelope_of(out)
    assert code == 0 and document["data"]["written"] is True and (into / "hub.yaml").is_file()


def test_login_json_reports_the_credential_never_the_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "mh-secret-key-0123456789"
    code, out, _ = run(capsys, "login", "--status", "--json")
    document = envelope_of(out)
    assert code == 1 and document["data"]["credential"] is None
    monkeypatch.setenv("MEMHUB_API_KEY", key)
    code, out, _ = run(capsys, "login", "--expires-at", "2999-01-01T00:00:00Z", "--json")
    assert code == 0 and envelope_of(out)["data"]["expires_at"] == "2999-01-01T00:00:00Z"
    assert key not in out
    monkeypatch.delenv("MEMHUB_API_KEY")
    code, out, _ = run(capsys, "login", "--status", "--json")
    data = envelope_of(out)["data"]
    assert code == 0 and data["usable"] and data["credential"]["mode"] == "0o600"
    assert key not in out
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # no key on standard input
    code, out, _ = run(capsys, "login", "--json")
    assert code == 2 and "no usable key" in envelope_of(out)["errors"][0]["message"]


def test_capture_show_json_holds_the_records(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "capture", "show", "nope", "--json")
    document = envelope_of(out)
    assert code == 2 and "no captured session 'nope'" in document["errors"][0]["message"]
