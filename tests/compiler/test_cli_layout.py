"""The CLI's layout: one module per verb, loaded only when that verb runs."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
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
