"""`memhub sessions`: each host's native sessions as one canonical JSONL stream.

The readers live in the runtime (`runtime/transcripts/<host>.py`); this command only selects the
sessions and prints them. It reads transcripts and nothing else: it never uploads and never
touches the capture state under `$MEMHUB_HOME/capture/`.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import sys
from collections.abc import Iterable, Sequence
from typing import IO, Any

import click
from memhub.compiler.cli.options import EXIT_INCOMPLETE, EXIT_OK, error_record, reply

HOSTS = ("claude", "codex", "copilot", "cursor", "gemini")


def _readers() -> dict[str, Any]:
    from memhub.runtime.transcripts import claude as read_claude
    from memhub.runtime.transcripts import codex as read_codex
    from memhub.runtime.transcripts import copilot as read_copilot
    from memhub.runtime.transcripts import cursor as read_cursor
    from memhub.runtime.transcripts import gemini as read_gemini

    return {
        "claude": read_claude,
        "codex": read_codex,
        "copilot": read_copilot,
        "cursor": read_cursor,
        "gemini": read_gemini,
    }


def _line(value: dict[str, Any]) -> str:
    # ASCII escapes keep every line valid JSON whatever the transcript held (lone surrogates)
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")) + "\n"


def stream_sessions(
    hosts: Sequence[str],
    *,
    since: str | None = None,
    sessions: Iterable[str] = (),
    metadata_only: bool = False,
    explicit_hosts: bool = False,
    out: IO[str],
    err: IO[str],
) -> int:
    """Print the selected sessions; return EXIT_OK, or EXIT_INCOMPLETE when a source failed.

    A host's storage folder that is missing counts as a missing source when the host was
    asked for by name; a transcript that cannot be read always does. Each failure is named
    on `err`; the sessions that could be read are still printed, whole, on `out`.
    """
    readers = _readers()
    wanted = set(sessions)
    found: set[str] = set()
    incomplete = False

    def fail(source: object, reason: str) -> None:
        nonlocal incomplete
        incomplete = True
        err.write(f"memhub sessions: incomplete coverage: {source}: {reason}\n")

    for host in hosts:
        reader = readers[host]
        roots = reader.roots()
        present = [root for root in roots if root.is_dir()]
        if not present:
            if explicit_hosts:
                names = " or ".join(str(root) for root in roots)
                fail(host, f"no sessions folder ({names} does not exist)")
            continue
        try:
            paths = reader.discover()
        except OSError as exc:
            fail(host, f"cannot list sessions: {exc}")
            continue
        for path in paths:
            try:
                if wanted and not _may_match(reader, path, wanted):
                    continue
                session, records = reader.read_session(path, metadata_only=metadata_only)
            except (OSError, ValueError, sqlite3.Error) as exc:
                fail(path, f"unreadable: {type(exc).__name__}: {exc}")
                continue
            if wanted and session.id not in wanted:
                continue
            found.add(session.id)
            if since is not None and (session.updated or session.started or "") < since:
                continue
            chunk = [_line(session.header(metadata_only))]
            chunk.extend(_line(record.to_json()) for record in records)
            out.write("".join(chunk))
    for missing in sorted(wanted - found):
        fail(f"session {missing}", "not found in " + ", ".join(hosts))
    return EXIT_INCOMPLETE if incomplete else EXIT_OK


def _may_match(reader: Any, path: Any, wanted: set[str]) -> bool:
    """Cheap pre-check for --session: the id in the path, or the reader's id for the path."""
    text = str(path)
    if any(session_id in text for session_id in wanted):
        return True
    return reader.session_id_for(path) in wanted


@click.group("sessions", invoke_without_command=True)
@click.option(
    "--host",
    "hosts",
    multiple=True,
    type=click.Choice(HOSTS),
    help="Read only this host's sessions (repeatable). Default: every host.",
)
@click.option(
    "--since",
    metavar="ISO",
    help="Only sessions active at or after this ISO-8601 time (UTC when no offset).",
)
@click.option(
    "--session",
    "session_ids",
    multiple=True,
    metavar="ID",
    help="Only the session with this id (repeatable).",
)
@click.option(
    "--metadata-only",
    is_flag=True,
    help="Identity headers only: no records and no titles derived from prompts.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON document instead of JSONL: `data.sessions`, each header with its "
    "`records`; a source not read is in `errors`.",
)
@click.pass_context
def command(
    ctx: click.Context,
    hosts: tuple[str, ...],
    since: str | None,
    session_ids: tuple[str, ...],
    metadata_only: bool,
    as_json: bool,
) -> int | None:
    """Print the hosts' native sessions as canonical JSONL. Reads only.

    `memhub sessions prs` lists the pull requests sessions opened instead.

    Per session: an identity header line ({"type": "session", "id", "host", "source",
    "title", "title_source", "started", "updated", "cwd", "thread_source", "parent", ...})
    then its records ({"type": "record", "id", "ts", "kind", "role", "text", "usage",
    "raw", ...}). Sources: Claude Code ($CLAUDE_CONFIG_DIR or ~/.claude), Codex
    ($CODEX_HOME or ~/.codex), Cursor (~/.cursor), Gemini CLI (~/.gemini). It never
    uploads anything and never moves a capture cursor.

    Exit codes: 0 every source read; 2 invalid usage; 4 incomplete coverage: a source is
    missing or unreadable (a host asked for by --host with no sessions folder, a
    transcript that cannot be read, a --session not found). Each such source is named on
    stderr, and stdout still holds valid JSONL for everything that could be read.
    """
    if ctx.invoked_subcommand is not None:
        return None  # `sessions prs`: the subcommand answers
    from memhub.runtime.transcripts.timestamps import iso_utc

    cutoff = None
    if since is not None:
        cutoff = iso_utc(since)
        if cutoff is None:
            raise click.BadParameter(f"{since!r} is not an ISO-8601 time", param_hint="--since")
    options: dict[str, Any] = {
        "since": cutoff,
        "sessions": session_ids,
        "metadata_only": metadata_only,
        "explicit_hosts": bool(hosts),
    }
    if as_json:
        return _reply_sessions(hosts or HOSTS, options)
    try:
        return stream_sessions(hosts or HOSTS, **options, out=sys.stdout, err=sys.stderr)
    except BrokenPipeError:  # the reader of stdout went away (`| head`): not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep Python's exit flush quiet
        return EXIT_OK


def _reply_sessions(hosts: Sequence[str], options: dict[str, Any]) -> int:
    """`sessions --json`: the same stream, gathered into one envelope."""
    out, err = io.StringIO(), io.StringIO()
    code = stream_sessions(hosts, **options, out=out, err=err)
    sessions: list[dict[str, Any]] = []
    for line in out.getvalue().splitlines():
        item = json.loads(line)
        if item.get("type") == "session":
            sessions.append({**item, "records": []})
        else:
            sessions[-1]["records"].append(item)
    sys.stderr.write(err.getvalue())
    prefix = "memhub sessions: incomplete coverage: "
    errors = [
        error_record("IncompleteCoverage", line.removeprefix(prefix))
        for line in err.getvalue().splitlines()
    ]
    return reply({"sessions": sessions}, exit_code=code, errors=errors)


def _add_subcommands() -> None:
    from memhub.compiler.cli import sessions_prs

    command.add_command(sessions_prs.command)


_add_subcommands()
