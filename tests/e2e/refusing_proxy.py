"""A loopback HTTP proxy that refuses every request, so host CLIs under test never leave
the machine (their update, telemetry and marketplace calls, and remote MCP servers)."""

from __future__ import annotations

import socketserver
import threading


class RefusingProxy:
    """An HTTP proxy on 127.0.0.1 that answers every request 403 and records its first line.

    Hosts honour HTTPS_PROXY, so the remote MCP server and their own update, telemetry and
    marketplace calls stop here instead of leaving the machine. Bounded: at most
    MAX_CONNECTIONS connections, each read with a timeout, and it stops after LIFETIME_S.
    """

    MAX_CONNECTIONS = 500
    LIFETIME_S = 900.0

    def __init__(self) -> None:
        self.seen: list[str] = []
        proxy = self

        class Handler(socketserver.StreamRequestHandler):
            timeout = 10

            def handle(self) -> None:
                if len(proxy.seen) >= proxy.MAX_CONNECTIONS:
                    return
                try:
                    line = self.rfile.readline(8192).decode("latin-1").strip()
                    proxy.seen.append(line)
                    for _ in range(200):  # the request's headers
                        header = self.rfile.readline(8192)
                        if header in (b"", b"\r\n", b"\n"):
                            break
                    self.wfile.write(
                        b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    )
                except OSError:
                    pass

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True
        )
        self._timer = threading.Timer(self.LIFETIME_S, self._server.shutdown)
        self._timer.daemon = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> RefusingProxy:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
