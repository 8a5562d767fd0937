"""A scripted fake of the Anthropic Messages API, for driving the real Claude Code CLI offline.

Loopback only (127.0.0.1, ephemeral port), stdlib only, runs in a daemon thread.

Script: ``bash_commands`` is a list of shell commands. While the conversation in a request
that offers the ``Bash`` tool carries fewer ``tool_result`` blocks than there are commands,
the server answers with a ``tool_use`` call of ``Bash`` running the next command; otherwise it
answers with text and ``end_turn``. ``count_tokens`` and non-streaming requests get plain JSON.

Bounds: at most ``max_requests`` requests are answered (later ones get HTTP 503), and the
server shuts itself down after ``max_lifetime_s`` even if nobody calls :meth:`stop`.

Standalone: ``python fake_anthropic.py [PORT] [COMMAND ...]`` serves until Ctrl-C / lifetime.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL_TEXT = "All done."


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    answer: str  # "tool_use", "text", "count_tokens", "json", "rejected", "not_found"


@dataclass
class FakeAnthropic:
    bash_commands: list[str] = field(default_factory=lambda: ["echo memhub-e2e"])
    final_text: str = FINAL_TEXT
    max_requests: int = 200
    max_lifetime_s: float = 900.0
    host: str = "127.0.0.1"

    def __post_init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # ----------------------------------------------------------------- lifecycle
    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> FakeAnthropic:
        if self.host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("the fake model server binds to loopback only")
        handler = _make_handler(self)
        server = ThreadingHTTPServer((self.host, 0), handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.2},
            name="fake-anthropic", daemon=True,
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
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ queries
    def messages_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.answer in ("tool_use", "text", "json")]

    def tool_use_count(self) -> int:
        with self._lock:
            return sum(1 for r in self.requests if r.answer == "tool_use")

    # ------------------------------------------------------------------ script
    def decide(self, body: dict[str, Any]) -> tuple[str, str | None]:
        """Return ("tool_use", command) or ("text", None) for a streaming messages call."""
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        if "Bash" not in tools:
            return "text", None
        done = _count_tool_results(body.get("messages") or [])
        if done < len(self.bash_commands):
            return "tool_use", self.bash_commands[done]
        return "text", None


def _count_tool_results(messages: list[Any]) -> int:
    n = 0
    for msg in messages:
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, list):
            n += sum(1 for c in content if isinstance(c, dict) and c.get("type") == "tool_result")
    return n


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _make_handler(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep pytest output clean
            pass

        def _record(self, body: Any, answer: str) -> int:
            with fake._lock:
                fake.requests.append(
                    RecordedRequest(self.command, self.path, dict(self.headers), body, answer)
                )
                return len(fake.requests)

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            out = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def _over_budget(self) -> bool:
            with fake._lock:
                return len(fake.requests) >= fake.max_requests

        def do_GET(self) -> None:
            self._record(None, "not_found")
            self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                             "message": self.path}})

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_raw": raw[:2000].decode("utf-8", "replace")}
            if self._over_budget():
                self._record(body, "rejected")
                self._send_json(503, {"type": "error", "error": {
                    "type": "overloaded_error", "message": "fake server request budget spent"}})
                return
            path = self.path.split("?", 1)[0]
            if path.endswith("/count_tokens"):
                self._record(body, "count_tokens")
                self._send_json(200, {"input_tokens": 10})
                return
            if not path.endswith("/v1/messages"):
                self._record(body, "not_found")
                self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                                 "message": path}})
                return
            model = body.get("model", "fake-model")
            if not body.get("stream"):
                i = self._record(body, "json")
                self._send_json(200, {
                    "id": f"msg_fake_{i}", "type": "message", "role": "assistant", "model": model,
                    "content": [{"type": "text", "text": fake.final_text}],
                    "stop_reason": "end_turn", "stop_sequence": None,
                    "usage": {"input_tokens": 5, "output_tokens": 3},
                })
                return
            kind, command = fake.decide(body)
            i = self._record(body, kind)
            frames = [_sse("message_start", {"type": "message_start", "message": {
                "id": f"msg_fake_{i}", "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 1}}})]
            if kind == "tool_use":
                tool_input = {"command": command, "description": "memhub e2e step"}
                frames += [
                    _sse("content_block_start", {"type": "content_block_start", "index": 0,
                                                 "content_block": {"type": "tool_use",
                                                                   "id": f"toolu_fake_{i}",
                                                                   "name": "Bash", "input": {}}}),
                    _sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                 "delta": {"type": "input_json_delta",
                                                           "partial_json": json.dumps(tool_input)}}),
                    _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    _sse("message_delta", {"type": "message_delta",
                                           "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                           "usage": {"output_tokens": 10}}),
                ]
            else:
                frames += [
                    _sse("content_block_start", {"type": "content_block_start", "index": 0,
                                                 "content_block": {"type": "text", "text": ""}}),
                    _sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                 "delta": {"type": "text_delta",
                                                           "text": fake.final_text}}),
                    _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    _sse("message_delta", {"type": "message_delta",
                                           "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                           "usage": {"output_tokens": 3}}),
                ]
            frames.append(_sse("message_stop", {"type": "message_stop"}))
            payload = b"".join(frames)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def main(argv: list[str]) -> int:
    port = int(argv[0]) if argv else 0
    commands = argv[1:] or ["echo memhub-e2e"]
    fake = FakeAnthropic(bash_commands=commands)
    # Standalone mode binds the requested port; tests always use an ephemeral one.
    handler = _make_handler(fake)
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    print(f"fake anthropic on http://127.0.0.1:{server.server_address[1]}", flush=True)
    timer = threading.Timer(fake.max_lifetime_s, server.shutdown)
    timer.daemon = True
    timer.start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        timer.cancel()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
