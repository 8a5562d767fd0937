"""HTTP transports of the remote backend: httpx where installed, else urllib (a bundle
under `python3 -S`); no redirects, bounded timeouts."""

from __future__ import annotations

import os
from typing import Any


class TransportError(Exception):
    """The request may or may not have reached the server (timeout, reset, refused)."""


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: bytes):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body


class _HttpxTransport:
    def __init__(self, timeout: float, connect_timeout: float):
        import httpx

        self._httpx = httpx
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=connect_timeout),
            follow_redirects=False,
            trust_env=False,
        )

    def post(self, url: str, headers: dict[str, str], body: bytes) -> Response:
        try:
            reply = self._client.post(url, headers=headers, content=body)
        except self._httpx.TransportError as exc:  # timeouts, resets, protocol errors
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc
        return Response(reply.status_code, dict(reply.headers), reply.content)

    def close(self) -> None:
        self._client.close()


class _UrllibTransport:
    def __init__(self, timeout: float, connect_timeout: float):
        import urllib.request

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: Any, **kwargs: Any) -> None:
                return None

        self._request = urllib.request
        self._opener = urllib.request.build_opener(NoRedirect, urllib.request.ProxyHandler({}))
        self._timeout = timeout

    def post(self, url: str, headers: dict[str, str], body: bytes) -> Response:
        import http.client
        import urllib.error

        request = self._request.Request(url, data=body, headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self._timeout) as reply:
                return Response(reply.status, dict(reply.headers.items()), reply.read())
        except urllib.error.HTTPError as exc:
            try:
                data = exc.read()
            except (OSError, http.client.HTTPException):
                data = b""
            return Response(exc.code, dict(exc.headers.items()) if exc.headers else {}, data)
        except (TimeoutError, urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        pass


def make_transport(kind: str | None, timeout: float, connect_timeout: float) -> Any:
    kind = kind or os.environ.get("MEMHUB_HTTP_CLIENT") or "auto"
    if kind in ("auto", "httpx"):
        try:
            return _HttpxTransport(timeout, connect_timeout)
        except ImportError:
            if kind == "httpx":
                raise
    return _UrllibTransport(timeout, connect_timeout)
