"""Base of the scripted fake model servers: loopback only, bounded, stops by itself.

A subclass implements :meth:`FakeServer.answer`, which maps one POST (path and JSON body) to a
:class:`Reply`. The base binds 127.0.0.1 on an ephemeral port, serves in a daemon thread,
records every request, answers at most ``max_requests`` requests (later ones get HTTP 503)
and shuts down after ``max_lifetime_s`` even if nobody calls :meth:`stop`.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOPBACK = "127.0.0.1"


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    answer: str  # what the fake answered: a subclass's label, or "rejected" / "not_found"


@dataclass
class Reply:
    label: str
    status: int
    content_type: str
    payload: bytes

    @classmethod
    def json(cls, label: str, data: Any, status: int = 200) -> Reply:
        return cls(label, status, "application/json", json.dumps(data).encode())

    @classmethod
    def sse(cls, label: str, frames: list[tuple[str | None, dict[str, Any]]]) -> Reply:
        """Server-sent events; an event name of None sends a data-only frame."""
        out = b"".join(
            (f"event: {event}\n" if event else "").encode()
            + f"data: {json.dumps(data)}\n\n".encode()
            for event, data in frames
        )
        return cls(label, 200, "text/event-stream", out)


class FakeServer(ABC):
    max_requests: int = 200
    max_lifetime_s: float = 900.0

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # ---------------------------------------------------------------- protocol
    @abstractmethod
    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        """The reply to one POST: each fake model server defines its own protocol here."""

    def answer_get(self, path: str) -> Reply:
        return Reply.json("not_found", {"error": {"message": f"not found: {path}"}}, status=404)

    # ---------------------------------------------------------------- lifecycle
    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def origin(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self, port: int = 0) -> FakeServer:
        server = ThreadingHTTPServer((LOOPBACK, port), _make_handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.2},
            name=type(self).__name__,
            daemon=True,
        )
        self._thread.start()
        self._timer = threading.Timer(self.max_lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def wait(self) -> None:
        """Block until the server stops (standalone mode); bounded by the lifetime timer."""
        if self._thread is not None:
            self._thread.join(timeout=self.max_lifetime_s + 5)

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- queries
    def answers(self) -> list[str]:
        with self._lock:
            return [r.answer for r in self.requests]

    def count(self, label: str) -> int:
        return self.answers().count(label)


def _make_handler(fake: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(reply.payload)))
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            self.wfile.write(reply.payload)
            self.wfile.flush()

        def _serve(self, body: Any) -> None:
            path = self.path.split("?", 1)[0]
            with fake._lock:  # record and answer under one lock: requests are scripted in order
                over = len(fake.requests) >= fake.max_requests
                record = RecordedRequest(self.command, self.path, dict(self.headers), body, "")
                fake.requests.append(record)
                if over:
                    reply = Reply.json(
                        "rejected", {"error": {"message": "fake server request budget spent"}}, 503
                    )
                elif self.command == "GET":
                    reply = fake.answer_get(path)
                else:
                    reply = fake.answer(path, body)
                record.answer = reply.label
            self._send(reply)

        def do_GET(self) -> None:
            self._serve(None)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_undecodable": raw[:200].hex()}
            self._serve(body if isinstance(body, dict) else {"_value": body})

    return Handler


def serve_from_command_line(server: FakeServer, label: str, port: int) -> int:
    """Run `server` in the foreground (for manual probing) until Ctrl-C or its lifetime ends."""
    server.start(port)
    print(f"fake {label} on {server.base_url} (stops after {server.max_lifetime_s:.0f}s)")
    try:
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
