"""`memhub login`: store the capture credential (a MemHub access key), 0600.

Nothing here contacts a server: the key is only stored, and `--status` reports it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click
from memhub.compiler.cli.options import EXIT_CHANGES as EXIT_PROBLEM
from memhub.compiler.cli.options import EXIT_INVALID, EXIT_OK


@click.command("login")
@click.option("--status", "show_status", is_flag=True, help="Report the stored key; no change.")
@click.option(
    "--expires-at",
    metavar="ISO-8601",
    help="When the key expires (UTC, e.g. 2027-03-01T00:00:00Z); capture health warns then.",
)
def command(show_status: bool, expires_at: str | None) -> int:
    """Store the capture credential (a MemHub access key) for the remote backend.

    The key is read from MEMHUB_API_KEY, else from standard input (typed without echo on
    a terminal), and stored 0600 in $MEMHUB_HOME/credentials.json. It is never printed.
    Background capture hooks read it; they cannot open a browser.
    """
    from memhub.runtime.backends import remote

    if show_status:
        return _login_status(remote)
    key = os.environ.get("MEMHUB_API_KEY", "").strip()
    if not key:
        if sys.stdin.isatty():
            key = click.prompt("MemHub access key", hide_input=True, default="", show_default=False)
        else:
            key = sys.stdin.readline()
        key = key.strip()
    if not key or len(key) < 8 or any(ch.isspace() for ch in key):
        click.echo(
            "memhub: no usable key: pass it on standard input or in MEMHUB_API_KEY "
            "(one token, at least 8 characters)",
            err=True,
        )
        return EXIT_INVALID
    if expires_at and not _iso(expires_at):
        click.echo(f"memhub: --expires-at {expires_at!r} is not an ISO-8601 UTC time", err=True)
        return EXIT_INVALID
    path = remote.save_credential(key, expires_at=_iso(expires_at) if expires_at else None)
    click.echo(f"capture credential stored in {path} (mode 0600)")
    return EXIT_OK


def _iso(text: str) -> str | None:
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _login_status(remote: Any) -> int:
    from memhub.runtime.capture import core as capture

    credential = remote.load_credential()
    path = remote.credential_path()
    config = capture.backend_config()
    click.echo(
        f"backend: {config['backend']}"
        + (f" {config['remote_url']}" if config.get("remote_url") else "")
    )
    if credential is None:
        click.echo(f"credential: none (run `memhub login`; it would be stored in {path})")
        return EXIT_PROBLEM
    if credential["source"] == "env":
        click.echo("credential: from MEMHUB_API_KEY")
    else:
        mode = path.stat().st_mode & 0o777
        note = "" if mode == 0o600 else f"; mode {oct(mode)}: run `memhub login` again to fix it"
        click.echo(f"credential: {path} (stored {credential.get('created_at', '?')}{note})")
    if credential.get("expires_at"):
        expired = remote.credential_expired(credential)
        click.echo(f"expires: {credential['expires_at']}" + (" (expired)" if expired else ""))
        if expired:
            return EXIT_PROBLEM
    return EXIT_OK
