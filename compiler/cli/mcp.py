"""`memhub mcp serve | key`: memhub's own MCP server over the local memory.

The server lives in the runtime (`runtime/server/`); this verb fixes its workspace (the
project of a folder's git checkout, the scopes, read or read+write) and starts it over stdio
or, with --http, streamable HTTP on loopback behind a bearer key.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli.options import EXIT_OK, error_record, json_option, reply
from memhub.hubspec import MemhubError


class ServeError(MemhubError):
    """The server cannot start as asked (exit 2)."""


def _home() -> Path:
    from memhub.runtime.backends.base import memhub_home

    return memhub_home()


@click.group("mcp")
def command() -> None:
    """memhub's MCP server over the local memory (the MemHub tool set, served locally)."""


@command.command("serve")
@click.option(
    "--project",
    "project",
    type=click.Path(file_okay=False, path_type=Path),
    help="Serve the project of this folder's git checkout (default: the working directory's).",
)
@click.option("--write", is_flag=True, help="Also serve the write tools (save, update, delete).")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    type=click.Choice(["shared", "project"]),
    help="Serve only these scopes (repeatable; default: both).",
)
@click.option("--http", "http", is_flag=True, help="Streamable HTTP on loopback instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address (--http).")
@click.option("--port", type=click.IntRange(0, 65535), help="Port (--http; 0: a free one).")
@json_option
def serve(
    project: Path | None,
    write: bool,
    scopes: tuple[str, ...],
    http: bool,
    host: str,
    port: int | None,
    as_json: bool,
) -> int:
    """Serve the memory of one project over MCP until the client disconnects.

    The workspace is fixed at start: the project resolved from the git checkout of --project
    (or the working directory) and the scopes given; no tool argument widens it. A folder
    that is no connected project serves the shared memory only (and says why on stderr).
    Read tools always; save_memory, save_artifact, update_memory, delete_memory,
    create_agent_brain and refresh_brain_overview only with --write.

    With --http the server listens on loopback only (a non-loopback --host is refused; the
    default port is 7717) and every request needs `Authorization: Bearer <key>`. The key is
    made on first use and stored 0600 in $MEMHUB_HOME/mcp/http.key; `memhub mcp key` prints
    it and `memhub mcp key --rotate` replaces it (running servers take the new one at once).
    Once listening it says so on stderr: `memhub mcp: serving http://127.0.0.1:PORT/mcp`.
    With --json, a server that cannot start prints the JSON envelope (stdio stays the
    protocol's).
    """
    try:
        return _serve(project, write, scopes, http, host, port)
    except (click.UsageError, ServeError) as exc:
        if not as_json:
            raise
        message = exc.format_message() if isinstance(exc, click.UsageError) else str(exc)
        click.echo(f"memhub: {message}", err=True)
        error = error_record(type(exc).__name__, message)
        return reply(None, exit_code=exc.exit_code, errors=[error])


def _serve(
    project: Path | None,
    write: bool,
    scopes: tuple[str, ...],
    http: bool,
    host: str,
    port: int | None,
) -> int:
    from memhub.runtime.server import frontdoor

    door = frontdoor.take_early()  # main.py opened it, when the arguments ask for stdio
    if not http and (port is not None or host != "127.0.0.1"):
        if door is not None:
            door.close()
        raise click.UsageError("--host and --port go with --http")
    sock = _bind(host, port) if http else None
    try:
        if sock is None and door is None:  # answer the handshake while the SDK imports
            door = frontdoor.open_door(_home(), write)
        workspace = _workspace(project, scopes or ("shared", "project"), write)
        try:
            from memhub.runtime.server import app
        except ImportError as exc:  # a dependency; a broken install says so plainly
            raise ServeError(f"the MCP server needs the `mcp` package ({exc})") from None
        served = app.build(workspace, folder=(project or Path.cwd()).resolve())
        if door is not None:
            app.serve_stdio(served)
            return EXIT_OK
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    finally:
        if door is not None:
            door.close()
    assert sock is not None
    from memhub.runtime.server import auth
    from memhub.runtime.server import http as http_server

    try:
        keys = auth.KeyFile(workspace.home)
    except auth.UnsafeKey as exc:
        sock.close()
        served.close()
        raise ServeError(str(exc)) from None
    http_server.serve_http(served, keys, sock)
    return EXIT_OK


def _bind(host: str, port: int | None) -> Any:
    """The listening socket, bound before anything else starts (loopback only)."""
    from memhub.runtime.server import http as http_server

    try:
        http_server.check_loopback(host)
    except http_server.NotLoopback as exc:
        raise click.UsageError(str(exc)) from None
    chosen = http_server.DEFAULT_PORT if port is None else port
    try:
        return http_server.bind(host, chosen)
    except OSError as exc:
        raise ServeError(f"cannot listen on {host} port {chosen}: {exc.strerror or exc}") from None


def _workspace(project: Path | None, scopes: tuple[str, ...], write: bool) -> Any:
    from memhub.runtime.memory.errors import MemoryServiceError
    from memhub.runtime.memory.workspace import open_workspace

    try:
        workspace = open_workspace(
            _home(), cwd=Path.cwd(), project=project, scopes=scopes, writable=write
        )
    except MemoryServiceError as exc:
        raise ServeError(str(exc)) from None
    if workspace.project_id is None:
        # A folder that is no project serves the shared memory (as a session started outside
        # a project does, whichever way the host names its folder); a typo is an error.
        if project is not None and not project.is_dir():
            raise ServeError(f"--project {project}: no such folder")
        served = " and ".join(workspace.scopes) or "nothing"
        click.echo(f"memhub mcp: {workspace.message}; serving {served}", err=True)
    return workspace


@command.command("key")
@click.option("--rotate", is_flag=True, help="Replace the key; the old one stops working.")
@json_option
def key(rotate: bool, as_json: bool) -> int:
    """Print the bearer key of `memhub mcp serve --http` (made on first use).

    It is stored 0600 in $MEMHUB_HOME/mcp/http.key. Clients send it as
    `Authorization: Bearer <key>`; memhub's capture reads it from MEMHUB_API_KEY.
    """
    from memhub.runtime.server import auth

    home = _home()
    try:
        value = auth.rotate(home) if rotate else auth.load_or_create(home)
    except auth.UnsafeKey as exc:
        raise ServeError(str(exc)) from None
    if as_json:
        return reply({"key": value, "path": str(auth.key_path(home)), "rotated": rotate})
    if rotate:
        click.echo(f"memhub mcp: new key stored in {auth.key_path(home)}", err=True)
    sys.stdout.write(value + "\n")
    return EXIT_OK
