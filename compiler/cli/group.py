"""The click group of `memhub`: a lazy command map, so starting the CLI loads no verb."""

from __future__ import annotations

import importlib

import click
from memhub.compiler.cli.options import EXIT_CODES

HELP = "\n".join(
    [
        "Compile one hub (hub.yaml) into each coding-agent host's native files, or apply it",
        "to the hosts' own config.",
        "",
        "HUB is a hub folder or its hub.yaml (default: the current folder). Every command",
        "takes --json: one document {command, ok, exit_code, data, warnings, errors}.",
        "NO_COLOR (set, not empty) turns colour off; --color always turns it back on.",
        "",
        "\b",
        "Exit codes:",
        *(f"  {code:>3}  {meaning}" for code, meaning in EXIT_CODES),
    ]
)


class LazyGroup(click.Group):
    """A group whose commands are imported from their modules on first use."""

    def __init__(self, *args: object, lazy: dict[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module = importlib.import_module(f"memhub.compiler.cli.{self.lazy[cmd_name]}")
            self.add_command(module.command, cmd_name)
        return super().get_command(ctx, cmd_name)


def make_group(commands: dict[str, str]) -> click.Group:
    """The `memhub` group over `commands` (verb -> module; the dict itself, not a copy)."""

    @click.group(
        cls=LazyGroup,
        lazy=commands,
        help=HELP,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    @click.version_option(package_name="memhub", prog_name="memhub")
    @click.option("--debug", is_flag=True, help="Show tracebacks for unexpected errors.")
    def cli(debug: bool) -> None:
        pass

    return cli
