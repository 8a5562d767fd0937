"""The CLI's layout: one module per verb, loaded only when that verb runs."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
import pytest
from memhub.compiler.cli.main import COMMANDS, cli


def test_importing_the_cli_loads_no_verb_and_no_engine() -> None:
    code = (
        "import sys, memhub.compiler.cli.main\n"
        "print(' '.join(m for m in sys.modules if m.startswith('memhub')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    verbs = {f"memhub.compiler.cli.{module}" for module in COMMANDS.values()}
    assert not verbs & set(loaded)
    assert not [
        m for m in loaded if m.startswith(("memhub.compiler.hosts", "memhub.compiler.install"))
    ]


def test_every_verb_module_holds_its_command() -> None:
    ctx = click.Context(cli)
    assert cli.list_commands(ctx) == sorted(COMMANDS)
    for name, module in COMMANDS.items():
        command = importlib.import_module(f"memhub.compiler.cli.{module}").command
        assert isinstance(command, click.Command)
        assert cli.get_command(ctx, name) is command
        assert command.help, f"`memhub {name}` has no help text"


def test_a_new_verb_is_one_module_and_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """CONTRIBUTING's "add a verb": a module holding `command`, one COMMANDS line."""
    import json
    import types

    from memhub.compiler.cli import main as cli_main
    from memhub.compiler.cli.options import json_option, reply

    module = types.ModuleType("memhub.compiler.cli.greet")

    @click.command("greet")
    @json_option
    def command(as_json: bool) -> int:
        """Say hello."""
        if as_json:
            return reply({"hello": "world"})
        click.echo("hello")
        return 0

    module.command = command  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(cli_main.COMMANDS, "greet", "greet")
    monkeypatch.setattr(cli, "commands", dict(cli.commands))  # what the group loads, undone
    assert cli_main.main(["greet"]) == 0 and capsys.readouterr().out == "hello\n"
    assert cli_main.main(["greet", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document == {
        "command": "greet",
        "ok": True,
        "exit_code": 0,
        "data": {"hello": "world"},
        "warnings": [],
        "errors": [],
    }
    assert cli_main.main(["--help"]) == 0 and "greet" in capsys.readouterr().out
