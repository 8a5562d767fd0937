"""Printing a line the way `click.echo` prints a string, without importing click: a plain
`memhub apply` runs without the command tree (see main.py), and what it prints must not
depend on which way it ran."""

from __future__ import annotations

import sys


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Write `message` (and a newline) to stdout, or stderr with `err`, and flush.

    The stream is looked up on each call, as click does, so a redirected sys.stdout (the
    no-op memo records what a run prints) gets the text."""
    stream = sys.stderr if err else sys.stdout
    stream.write(message + "\n" if nl else message)
    stream.flush()
