"""`memhub capture list|show|status`: what session capture sent, and how it is doing.

Capture itself runs in the hooks (`runtime/capture/`); these commands only read its state
under `$MEMHUB_HOME/capture/`, the local store, and the capture credential. Nothing here
contacts a server.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import click
from memhub.compiler.cli.options import EXIT_CHANGES as EXIT_PROBLEM
from memhub.compiler.cli.options import EXIT_OK, json_option, reply
from memhub.hubspec import MemhubError


def _store() -> Any:
    from memhub.runtime.backends.local import LocalStore

    return LocalStore()


def capture_rows() -> list[dict[str, Any]]:
    """One row per captured session: capture state merged with the local store's rows."""
    from memhub.runtime.capture import core as capture

    # A state file without either id (edited by hand) still gets its row, under None.
    rows: dict[str | None, dict[str, Any]] = {}
    for state in capture.all_states():
        cid = state.get("conversation_id") or state.get("session_id")
        rows[cid] = {
            "id": cid,
            "session_id": state.get("session_id"),
            "host": state.get("host"),
            "title": state.get("title"),
            "records": state.get("records_acked", 0),
            "last_flush": state.get("last_ok_at"),
            "skipped": state.get("skip"),
        }
    with _store() as store:
        for session in store.sessions():
            cid = session["conversation_id"]
            row = rows.setdefault(
                cid,
                {
                    "id": cid,
                    "session_id": session["session_id"],
                    "host": session["host"],
                    "title": None,
                    "last_flush": session["updated_at"],
                    "skipped": None,
                },
            )
            row["records"] = session["records"]  # what the store holds is authoritative
            row["title"] = session["title"] or row["title"]
    out = sorted(rows.values(), key=lambda r: r.get("last_flush") or 0, reverse=True)
    for row in out:
        row["last_flush"] = (
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row["last_flush"]))
            if isinstance(row.get("last_flush"), int | float)
            else None
        )
    return out


@click.group("capture")
def command() -> None:
    """What session capture sent, and how it is doing.

    Capture runs in the generated hooks: each turn's new transcript lines go to the
    backend (the local store under $MEMHUB_HOME by default; MEMHUB_BACKEND=remote with
    MEMHUB_REMOTE_URL for a MemHub-compatible server). MEMHUB_CAPTURE=0 turns it off.
    """


@command.command("list")
@json_option
def list_command(as_json: bool) -> int:
    """Captured sessions: id, host, title, record count, last flush."""
    rows = capture_rows()
    if as_json:
        return reply({"sessions": rows})
    if not rows:
        click.echo("no captured sessions")
        return EXIT_OK
    width = max(len(r["id"]) for r in rows)
    click.echo(f"{'ID':<{width}}  {'HOST':<6}  {'RECORDS':>7}  {'LAST FLUSH':<20}  TITLE")
    for row in rows:
        title = row["title"] or ("(skipped: " + row["skipped"] + ")" if row["skipped"] else "")
        click.echo(
            f"{row['id']:<{width}}  {row['host'] or '-':<6}  {row['records']:>7}  "
            f"{row['last_flush'] or '-':<20}  {title}"
        )
    return EXIT_OK


@command.command("show")
@click.argument("session")
@json_option
def show_command(session: str, as_json: bool) -> int:
    """A captured session's records as JSONL (SESSION: its id or a unique prefix).

    From the local store; for a session captured to a remote backend, the records are
    read again from the transcript, up to the capture cursor. --json: one document whose
    `data.records` holds them.
    """
    source, records = _records(session)
    if as_json:
        return reply({"session": session, "source": source, "records": list(records)})
    if source == "transcript":
        click.echo(
            "memhub: records read from the transcript up to the capture cursor "
            "(they were sent to the remote backend)",
            err=True,
        )
    for record in records:
        click.echo(json.dumps(record, ensure_ascii=False))
    return EXIT_OK


@command.command("status")
@json_option
def status_command(as_json: bool) -> int:
    """Backend, credential, each session's cursor, failures and stepped-over records."""
    from memhub.runtime.capture import core as capture

    report = capture.status()
    if as_json:
        return reply(report)
    backend = report["backend"]
    where = f" {backend['remote_url']}" if backend.get("remote_url") else ""
    click.echo(f"capture: {'on' if report['enabled'] else 'off (MEMHUB_CAPTURE=0)'}")
    click.echo(f"backend: {backend['backend']}{where} (from {backend['source']})")
    credential = report.get("credential")
    if credential is not None:
        state = (
            "expired"
            if credential["expired"]
            else ("present" if credential["present"] else "missing: run `memhub login`")
        )
        click.echo(f"credential: {state} ({credential['source'] or credential['path']})")
    click.echo(f"log: {report['log']}")
    click.echo(f"health: {report['health'] or 'ok'}")
    for s in report["sessions"]:
        size = "?" if s["size"] is None else str(s["size"])
        line = (
            f"  {s['host']:<6} {s['conversation_id']}  cursor {s['cursor']}/{size}"
            f"  pending {s['pending_bytes'] if s['pending_bytes'] is not None else '?'} B"
            f"  cap {s['cap']}  acked {s['records_acked']}  last ok {s['last_ok_at'] or '-'}"
        )
        if s["skip"]:
            line += f"  skipped: {s['skip']}"
        if s["last_error"]:
            line += f"  last error {s['last_error']} at {s['last_error_at']}"
        if s["stepped_over"]:
            count = sum(len(x.get("ids") or []) for x in s["stepped_over"])
            line += f"  stepped over {count} record(s)"
        click.echo(line)
    return EXIT_OK


def _state_for(ref: str) -> dict[str, Any] | None:
    from memhub.runtime.capture import core as capture

    states = capture.all_states()
    exact = [s for s in states if ref in (s.get("conversation_id"), s.get("session_id"))]
    if exact:
        return exact[0]
    prefix = [s for s in states if str(s.get("conversation_id", "")).startswith(ref)]
    return prefix[0] if len(prefix) == 1 else None


class _Unreadable(MemhubError):
    """A captured session whose records are neither in the store nor readable here."""

    exit_code = EXIT_PROBLEM


def _records(ref: str) -> tuple[str, Iterator[dict[str, Any]]]:
    """(where they come from: store or transcript, the records of captured session `ref`)."""
    with _store() as store:
        found = store.session(ref)
    if found is not None:
        return "store", _stored(found["conversation_id"])
    state = _state_for(ref)
    if state is None:
        raise MemhubError(f"no captured session {ref!r} (see `memhub capture list`)")
    return "transcript", _from_transcript(state)


def _stored(conversation_id: str) -> Iterator[dict[str, Any]]:
    with _store() as store:
        yield from store.records(conversation_id)


def _from_transcript(state: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The records of a session sent to a remote backend, read again up to the cursor."""
    import importlib

    host, session_id = state["host"], state["session_id"]
    reader = importlib.import_module(f"memhub.runtime.transcripts.{host}")
    path = state.get("transcript")
    if not path or not os.path.isfile(path) or not hasattr(reader, "parse_lines"):
        raise _Unreadable(f"the transcript of {session_id} is not readable here")
    return _transcript_records(reader, path, session_id, state)


def _transcript_records(
    reader: Any, path: str, session_id: str, state: dict[str, Any]
) -> Iterator[dict[str, Any]]:
    from memhub.runtime.transcripts.lines import iter_file_records

    cursor = int(state.get("offset") or 0)
    context = state.get("initial_context") or reader.initial_context(path)
    for record in iter_file_records(path, session_id, reader.parse_lines, context):
        if record.end is not None and record.end > cursor:
            break
        yield record.to_json()
