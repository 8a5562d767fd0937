"""One MCP tool call to a MemHub-compatible server within a deadline, for recall hooks.

JSON-RPC over streamable HTTP as memhub's own server speaks it (`memhub mcp serve --http`),
with capture's pieces: its urllib transport (no redirects, no proxies), its reply reader (a
JSON body or an SSE stream) and its bearer key. The MCP session (`initialize`, then
`notifications/initialized`) is kept in a small file of the agent session's folder, so a
session's later calls are one request; a server that forgot it (404, or 400 naming the
session) gets one new handshake. Every request gets what is left of the deadline, never
more; one attempt, no retry (the hook fails open instead). Failures raise `RemoteFailure`,
whose text never holds the key. Stdlib; imported only when recall is remote.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

from ..backends.base import BackendError
from ..backends.transport import Response, TransportError, make_transport

# typing.TYPE_CHECKING without importing typing
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PROTOCOL_VERSION", "Client", "RemoteFailure", "redact"]

PROTOCOL_VERSION = "2025-06-18"
CLIENT_INFO = {"name": "memhub-recall", "version": "1"}
SESSION_FILE = "remote.session"
MIN_LEFT_S = 0.02  # less than this left: no request is worth starting


class RemoteFailure(Exception):
    """The call did not give a result: `reason` is a slug (timeout, unreachable, auth,
    http-<status>, garbage, rpc-error, budget), the message says more (key redacted)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


def redact(text: str, key: str | None) -> str:
    """`text` without the key, nor any bearer token."""
    if key:
        text = text.replace(key, "[redacted]")
    head, sep, _ = text.partition("Bearer ")
    return head + sep + "[redacted]" if sep else text


class Client:
    """`tools/call` against `url` with `key`, all of it before `deadline` (time.monotonic)."""

    def __init__(self, url: str, key: str, deadline: float, session_dir: str | None = None):
        self.url, self._key, self.deadline = url, key, deadline
        self._cache = os.path.join(session_dir, SESSION_FILE) if session_dir else ""
        self._session: str | None = None
        self._protocol: str | None = None
        self._next = 0

    @property
    def key(self) -> str:
        """The key this client sends (for redacting what a server echoes)."""
        return self._key

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tool's result object (`content`, `structuredContent`, `isError`)."""
        try:
            return self._call(name, arguments)
        except RemoteFailure as exc:
            raise RemoteFailure(
                exc.reason, redact(str(exc).partition(": ")[2], self._key)
            ) from None

    def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments}
        if self._load():
            try:
                return self._rpc("tools/call", params)
            except _Forgotten:
                self._forget()
        self._initialize()
        return self._rpc("tools/call", params)

    # --- the MCP session ----------------------------------------------------------------------

    def _load(self) -> bool:
        """The session kept for this URL, if any (`<url>\\n<session id>\\n<protocol>`)."""
        if not self._cache:
            return False
        try:
            with open(self._cache, encoding="utf-8") as handle:
                lines = handle.read(4096).split("\n")
        except (OSError, ValueError):
            return False
        if len(lines) < 3 or lines[0] != self.url or not lines[1]:
            return False
        self._session, self._protocol = lines[1], lines[2] or PROTOCOL_VERSION
        return True

    def _keep(self) -> None:
        if not self._cache or not self._session:
            return
        try:
            os.makedirs(os.path.dirname(self._cache), exist_ok=True)
            tmp = f"{self._cache}.{os.getpid()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, f"{self.url}\n{self._session}\n{self._protocol or ''}\n".encode())
            finally:
                os.close(fd)
            os.replace(tmp, self._cache)
        except OSError:
            pass  # the next call makes a new session: slower, still right

    def _forget(self) -> None:
        self._session = self._protocol = None
        if self._cache:
            with contextlib.suppress(OSError):
                os.unlink(self._cache)

    def _initialize(self) -> None:
        self._session = self._protocol = None
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": CLIENT_INFO,
        }
        result, reply = self._exchange("initialize", params)
        version = result.get("protocolVersion")
        self._protocol = version if isinstance(version, str) else PROTOCOL_VERSION
        self._session = reply.headers.get("mcp-session-id") or None
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        self._check(self._post(json.dumps(note).encode()))
        self._keep()

    # --- requests -----------------------------------------------------------------------------

    def _rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self._exchange(method, params)[0]

    def _exchange(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], Response]:
        self._next += 1
        request_id = self._next
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        encoded = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        reply = self._post(encoded.encode("utf-8", "surrogatepass"))
        self._check(reply)
        return self._result(reply, request_id), reply

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {self._key}",
        }
        if self._protocol:
            headers["MCP-Protocol-Version"] = self._protocol
        if self._session:
            headers["Mcp-Session-Id"] = self._session
        return headers

    def _post(self, body: bytes) -> Response:
        left = self.deadline - time.monotonic()
        if left < MIN_LEFT_S:
            raise RemoteFailure("budget", "no time left for the request")
        http = make_transport("urllib", left, left)  # the standard library's, under -S too
        try:
            return http.post(self.url, self._headers(), body)
        except TransportError as exc:
            text = str(exc)
            reason = "timeout" if "timed out" in text or "Timeout" in text else "unreachable"
            raise RemoteFailure(reason, text[:200]) from None
        finally:
            http.close()

    def _check(self, reply: Response) -> None:
        status = reply.status
        if status < 300:
            return
        if status in (401, 403):
            raise RemoteFailure("auth", f"the server refused the key ({status})")
        if self._session and (status == 404 or (status == 400 and b"ession" in reply.body)):
            raise _Forgotten("session", f"the server forgot the MCP session ({status})")
        raise RemoteFailure(f"http-{status}", f"HTTP {status}")

    def _result(self, reply: Response, request_id: int) -> dict[str, Any]:
        from ..backends.remote import _messages  # capture's reader: JSON or an SSE stream

        try:
            messages = _messages(reply)
        except BackendError:
            raise RemoteFailure("garbage", f"the reply is not JSON ({reply.status})") from None
        for message in messages:
            if not isinstance(message, dict) or message.get("id") != request_id:
                continue
            if "error" in message:
                error = message["error"] if isinstance(message["error"], dict) else {}
                text = str(error.get("message", ""))[:200]
                raise RemoteFailure("rpc-error", f"JSON-RPC error {error.get('code')}: {text}")
            result = message.get("result")
            if isinstance(result, dict):
                return result
            break
        raise RemoteFailure("garbage", f"no JSON-RPC result in the reply ({reply.status})")


class _Forgotten(RemoteFailure):
    """The server no longer knows the kept session: make a new one."""
