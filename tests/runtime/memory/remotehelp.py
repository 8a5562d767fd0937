"""What the remote recall tests share: a real `memhub mcp serve --http` in a home of its own,
the `recall.json` an install holds, servers that fail (down, never answering, HTML), the
hook log and the hook as a real process."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from memhub.runtime.memory import remote_settings
from memhub.runtime.memory.records import Triggers

from tests.runtime.server import kit

KEY_ENV = "MEMHUB_TEST_RECALL_KEY"
HOOK = str(Path(sys.executable).parent / "memhub-hook")
Seed = tuple[str, str, str, str, Triggers]  # id, kind, title, body, triggers


class Served:
    def __init__(self, server: kit.HttpServer, folder: Path) -> None:
        self.server, self.folder = server, folder
        self.url, self.key = server.url, server.key


@contextmanager
def serving(base: Path, name: str, seeds: Sequence[Seed]) -> Iterator[Served]:
    """A real HTTP memory server for the project `name` (in `base`), holding `seeds`."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(base / "server-user"))
        mp.setenv("MEMHUB_HOME", str(base / "server-home"))
        folder = kit.repo(base / name)
        pid = kit.connect(folder, name)
        for rid, kind, title, body, triggers in seeds:
            kit.seed(rid, title, body, project=pid, kind=kind, triggers=triggers)
        server = kit.start_http(folder)
    try:
        yield Served(server, folder)
    finally:
        server.stop()


def configure(url: str, key_env: str = KEY_ENV, timeout_ms: int | None = None) -> Path:
    """What `memhub apply` leaves for an install: `$MEMHUB_HOME/recall.json`."""
    home = Path(os.environ["MEMHUB_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    path = home / remote_settings.FILE
    path.write_text(remote_settings.render(url, key_env, timeout_ms))
    return path


def hook_log() -> str:
    path = Path(os.environ["MEMHUB_HOME"]) / "logs" / "hook.log"
    return path.read_text() if path.exists() else ""


def url_of(server: http.server.HTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/mcp"


def down_url() -> str:
    """A port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/mcp"


def fake(kind: str) -> http.server.ThreadingHTTPServer:
    """A server answering HTML ("garbage"), or holding every request for 30 s first ("slow")."""
    hold = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            if kind == "slow":
                hold.wait(30)  # longer than any hook may take
            reply(self, b"<html><body>gateway says hello</body></html>", "text/html")

        def log_message(self, *args: object) -> None:
            pass

    return serve(Handler)


def reply(handler: http.server.BaseHTTPRequestHandler, body: bytes, ctype: str) -> None:
    """A 200 answer of `body`."""
    handler.send_response(200)
    handler.send_header("content-type", ctype)
    handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def serve(handler: type[http.server.BaseHTTPRequestHandler]) -> http.server.ThreadingHTTPServer:
    """`handler` serving on a free loopback port, in a daemon thread."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@contextmanager
def failing(served: Served) -> Iterator[dict[str, str]]:
    """The URLs of servers that do not answer as they should: down, slow, garbage, and the
    real one (`unauthorized`: the caller sets a key that is not its)."""
    servers = {name: fake(name) for name in ("slow", "garbage")}
    try:
        yield {
            "down": down_url(),
            "slow": url_of(servers["slow"]),
            "garbage": url_of(servers["garbage"]),
            "unauthorized": served.url,
        }
    finally:
        for server in servers.values():
            server.shutdown()
            server.server_close()


FAILURES = [("down", "unreachable"), ("slow", "timeout"), ("unauthorized", "auth"),
            ("garbage", "garbage")]  # fmt: skip
WRONG_KEY = "mhk_" + "w" * 43  # a key, not the server's


def run_hook(
    host_event: str, handler: str, payload: dict[str, object], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """The installed hook as the host runs it, answering `payload`."""
    return subprocess.run(
        [HOOK, "claude", host_event, handler], input=json.dumps(payload), capture_output=True,
        text=True, timeout=timeout, env={**os.environ},
    )  # fmt: skip
