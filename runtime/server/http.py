"""memhub's MCP server over streamable HTTP: loopback only, a bearer key on every request.

The key is the one auth.py keeps under MEMHUB_HOME; a request without it, or with another,
gets 401 before it reaches the MCP transport. A host that is not a loopback address is
refused before anything binds.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
from typing import Any

from .app import Served
from .auth import KeyFile

DEFAULT_PORT = 7717
MAX_BODY = 16 * 1024 * 1024  # capture sends payloads up to 3.5 MB, and a larger record alone
PATH = "/mcp"
LOOPBACK_NAMES = ("localhost",)


class NotLoopback(ValueError):
    """A host to listen on that is reachable from other machines."""


def check_loopback(host: str) -> str:
    """`host` if it is a loopback address (or `localhost`); NotLoopback otherwise."""
    bare = host.strip("[]")
    if bare in LOOPBACK_NAMES:
        return bare
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        raise NotLoopback(
            f"{host!r} is not a loopback address: the memory server listens on 127.0.0.1 or ::1"
        ) from None
    if not address.is_loopback:
        raise NotLoopback(
            f"{host} is reachable from other machines: the memory server listens on loopback"
            " only (127.0.0.1 or ::1)"
        )
    return bare


class BearerGate:
    """ASGI middleware: HTTP requests without the current key get 401, nothing else."""

    def __init__(self, app: Any, keys: KeyFile) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            header = None
            for name, value in scope.get("headers") or ():
                if name == b"authorization":
                    header = value.decode("latin-1")
                    break
            if not self.keys.accepts(header):
                await _unauthorized(send)
                return
        await self.app(scope, receive, send)


async def _unauthorized(send: Any) -> None:
    body = json.dumps(
        {"error": "unauthorized", "message": "a bearer key is required: `memhub mcp key`"}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer realm="memhub"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on loopback (port 0: a free one)."""
    bare = check_loopback(host)
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    if bare == "localhost":
        bare, family = "127.0.0.1", socket.AF_INET
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say so, and
    # without it a reply written in two parts waits ~40 ms for the client's delayed ACK
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bare, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{PATH}"


def serve_http(served: Served, keys: KeyFile, sock: socket.socket) -> None:
    """Serve on the bound socket until interrupted; prints the URL (stderr) once listening."""
    import anyio
    import uvicorn

    host = sock.getsockname()[0]
    inner = served.server.streamable_http_app(
        streamable_http_path=PATH,
        json_response=True,
        max_request_body_size=MAX_BODY,
        host="::1" if ":" in host else "127.0.0.1",
    )
    config = uvicorn.Config(
        BearerGate(inner, keys), log_level="warning", lifespan="on", access_log=False
    )
    server = uvicorn.Server(config)

    async def announce() -> None:
        while not server.started:
            if server.should_exit:  # startup failed (uvicorn logged why)
                return
            await anyio.sleep(0.01)
        print(f"memhub mcp: serving {url_of(sock)} (bearer key: {keys.path})", file=sys.stderr)
        sys.stderr.flush()

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(announce)
            await server.serve(sockets=[sock])

    try:
        anyio.run(main)
    finally:
        served.close()
