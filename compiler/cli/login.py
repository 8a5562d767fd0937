"""`memhub login`: store the capture credential (a MemHub access key), 0600.

Nothing here contacts a server: the key is only stored, and `--status` reports it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click
from memhub.compiler.cli.options import EXIT_CHANGES as EXIT_PROBLEM
from memhub.compiler.cli.options import EXIT_OK, json_option, reply
from memhub.hubspec import MemhubError


@click.command("login")
@click.option("--status", "show_status", is_flag=True, help="Report the stored key; no change.")
@click.option(
    "--expires-at",
    metavar="ISO-8601",
    help="When the key expires (UTC, e.g. 2027-03-01T00:00:00Z); capture health warns then.",
)
@json_option
def command(show_status: bool, expires_at: str | None, as_json: bool) -> int:
    """Store the capture credential (a MemHub access key) for the remote backend.

    The key is read from MEMHUB_API_KEY, else from standard input (typed without echo on
    a terminal), and stored 0600 in $MEMHUB_HOME/credentials.json. It is never printed.
    Background capture hooks read it; they cannot open a browser. --status reports it
    (exit 1 when there is none or it expired).
    """
    from memhub.runtime.backends import remote

    if show_status:
        report = login_status(remote)
        code = EXIT_OK if report["usable"] else EXIT_PROBLEM
        if as_json:
            return reply(report, exit_code=code)
        for line in status_lines(report):
            click.echo(line)
        return code
    key = os.environ.get("MEMHUB_API_KEY", "").strip()
    if not key:
        if sys.stdin.isatty():  # with --json the prompt goes to stderr: stdout is the document
            key = click.prompt(
                "MemHub access key", hide_input=True, default="", show_default=False, err=as_json
            )
        else:
            key = sys.stdin.readline()
        key = key.strip()
    if not key or len(key) < 8 or any(ch.isspace() for ch in key):
        raise MemhubError(
            "no usable key: pass it on standard input or in MEMHUB_API_KEY "
            "(one token, at least 8 characters)"
        )
    if expires_at and not _iso(expires_at):
        raise MemhubError(f"--expires-at {expires_at!r} is not an ISO-8601 UTC time")
    path = remote.save_credential(key, expires_at=_iso(expires_at) if expires_at else None)
    if as_json:
        return reply({"stored": str(path), "mode": "0600", "expires_at": _iso(expires_at or "")})
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


def login_status(remote: Any) -> dict[str, Any]:
    """The backend and the stored credential, described (never the key itself)."""
    from memhub.runtime.capture import core as capture

    credential = remote.load_credential()
    path = remote.credential_path()
    config = capture.backend_config()
    report: dict[str, Any] = {
        "backend": config["backend"],
        "remote_url": config.get("remote_url"),
        "path": str(path),
        "credential": None,
        "usable": False,
    }
    if credential is None:
        return report
    found: dict[str, Any] = {"source": credential["source"]}
    if credential["source"] != "env":
        found["created_at"] = credential.get("created_at")
        found["mode"] = oct(path.stat().st_mode & 0o777)
    found["expires_at"] = credential.get("expires_at")
    found["expired"] = bool(credential.get("expires_at")) and remote.credential_expired(credential)
    report["credential"] = found
    report["usable"] = not found["expired"]
    return report


def status_lines(report: dict[str, Any]) -> list[str]:
    url = f" {report['remote_url']}" if report.get("remote_url") else ""
    lines = [f"backend: {report['backend']}{url}"]
    found = report["credential"]
    if found is None:
        path = report["path"]
        return [*lines, f"credential: none (run `memhub login`; it would be stored in {path})"]
    if found["source"] == "env":
        lines.append("credential: from MEMHUB_API_KEY")
    else:
        mode = found["mode"]
        note = "" if mode == "0o600" else f"; mode {mode}: run `memhub login` again to fix it"
        lines.append(f"credential: {report['path']} (stored {found['created_at'] or '?'}{note})")
    if found["expires_at"]:
        lines.append(f"expires: {found['expires_at']}" + (" (expired)" if found["expired"] else ""))
    return lines
