"""The remote capture backend: a MemHub-compatible MCP server over streamable HTTP.

It runs only where capture sends (the detached flush child), never on a hook's hot path:
importing this module imports nothing beyond the standard library; the HTTP client
(httpx, or the standard library's urllib where httpx is not installed, as in a bundle
run under `python3 -S`) is loaded when a backend is made.

Protocol: `initialize` (protocol 2025-06-18; the server's `Mcp-Session-Id` is kept), the
`notifications/initialized` notification, then `tools/call` of `import_conversation` with
`{"messages": [records], "conversation_id", "source_platform", "flush", "title",
"namespace"?}`. Replies may be JSON or an SSE stream. The ack comes from the tool result's
`structuredContent` (or a `{"result": ...}` wrapper, or a JSON text block) and must name
the conversation id sent.

Credential: `MEMHUB_API_KEY`, else `$MEMHUB_HOME/credentials.json` (written 0600 by
`memhub login`), sent as `Authorization: Bearer <key>`. Plain http is refused except to a
loopback host; redirects are refused.

Failures: 5xx, 429, timeouts and connection errors are retried with exponential backoff and
full jitter (bounded attempts and a deadline); 413 raises `PayloadTooLarge` at once (capture
halves the session's payload cap); 401/403 raise `AuthFailed`; a tool error, another 4xx or
an ack that does not confirm the payload raise `BackendError`.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from typing import Any
from urllib.parse import urlsplit

from .base import AuthFailed, BackendError, PayloadTooLarge
from .credential import (  # noqa: F401  (the public API of the remote backend)
    credential_expired,
    credential_path,
    load_credential,
    save_credential,
)
from .transport import Response, TransportError, make_transport

PROTOCOL_VERSION = "2025-06-18"
CLIENT_INFO = {"name": "memhub-capture", "version": "1"}
LOOPBACK = ("localhost", "127.0.0.1", "::1", "[::1]")


# --- JSON-RPC over streamable HTTP ---------------------------------------------------------


def _messages(response: Response) -> list[Any]:
    """The JSON-RPC messages of a reply: a JSON body, or every `data:` event of an SSE body."""
    kind = response.headers.get("content-type", "")
    text = response.body.decode("utf-8", "replace")
    if "text/event-stream" in kind:
        out: list[Any] = []
        data: list[str] = []
        for line in [*text.splitlines(), ""]:
            if not line:
                if data:
                    with contextlib.suppress(ValueError):
                        out.append(json.loads("\n".join(data)))
                    data = []
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
        return out
    if not text.strip():
        return []
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise BackendError(f"reply is not JSON ({response.status})", retryable=True) from exc
    return value if isinstance(value, list) else [value]


def ack_of(result: dict[str, Any]) -> dict[str, Any] | None:
    """The `import_conversation` ack inside a tool result, or None."""
    candidates: list[Any] = []
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        candidates.append(structured)
        if isinstance(structured.get("result"), dict):
            candidates.append(structured["result"])
    for block in result.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            with contextlib.suppress(ValueError, TypeError):
                value = json.loads(block.get("text") or "")
                if isinstance(value, dict):
                    candidates.append(value)
                    if isinstance(value.get("result"), dict):
                        candidates.append(value["result"])
    acks = [c for c in candidates if isinstance(c, dict) and "conversation_id" in c]
    with_through = [c for c in acks if c.get("ack_through")]
    chosen = with_through or acks
    return chosen[0] if chosen else None


class RemoteBackend:
    """`import_conversation` against a MemHub-compatible MCP server."""

    kind = "remote"

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = 60.0,
        connect_timeout: float = 10.0,
        attempts: int = 6,
        backoff: float = 0.5,
        max_backoff: float = 10.0,
        deadline: float = 240.0,
        client: str | None = None,
        sleep: Any = time.sleep,
    ):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BackendError(f"not an http(s) URL: {url!r}", retryable=False)
        if parts.scheme == "http" and parts.hostname not in LOOPBACK:
            raise BackendError(
                "plain http is refused for a remote backend (use https)", retryable=False
            )
        if token is None:
            credential = load_credential()
            token = credential["api_key"] if credential else None
        if not token:
            raise AuthFailed("no capture credential: run `memhub login` or set MEMHUB_API_KEY")
        self.url = url
        self._token = token
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.deadline = deadline
        self._sleep = sleep
        self._http = make_transport(client, timeout, connect_timeout)
        self._ready = False
        self._session: str | None = None
        self._protocol: str | None = None
        self._next_id = 0

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RemoteBackend:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- the backend interface -------------------------------------------------------------

    def import_conversation(
        self, session_header: dict[str, Any], records: list[dict[str, Any]]
    ) -> dict[str, Any]:
        conversation_id = session_header["conversation_id"]
        arguments: dict[str, Any] = {
            "messages": records,
            "conversation_id": conversation_id,
            "source_platform": session_header.get("host"),
        }
        for key in ("flush", "title", "namespace", "agent_brain_id"):
            if session_header.get(key):
                arguments[key] = session_header[key]
        result = self.call_tool("import_conversation", arguments)
        if result.get("isError"):
            text = " ".join(
                str(b.get("text", "")) for b in result.get("content") or [] if isinstance(b, dict)
            )
            raise BackendError(f"import_conversation failed: {text[:200]}", retryable=False)
        ack = ack_of(result)
        if ack is None or ack.get("conversation_id") != conversation_id:
            raise BackendError("the server's reply does not acknowledge this conversation")
        if ack.get("records_dropped"):
            raise BackendError(f"the server dropped {ack['records_dropped']} record(s)")
        return ack

    # --- MCP ----------------------------------------------------------------------------

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """`tools/call`, initializing first; retried per the policy above."""
        call = {"name": name, "arguments": arguments}
        try:
            encoded = json.dumps(call, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: no server takes it, send U+FFFD
            from ..transcripts.clean import clean_value

            call = clean_value(json.loads(json.dumps(call)))[0]
            encoded = json.dumps(call, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        started = time.monotonic()
        last: Exception | None = None
        attempt = 0
        for attempt in range(self.attempts):
            if attempt:
                pause = self._pause(attempt, last)
                if time.monotonic() - started + pause > self.deadline:
                    break
                self._sleep(pause)
            try:
                if not self._ready:
                    self._initialize()
                request_id = self._id()
                body = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}' % (
                    request_id,
                    encoded,
                )
                return self._request(body, request_id)
            except _SessionExpired as exc:
                self._ready, self._session, self._protocol = False, None, None
                last = exc
            except PayloadTooLarge:
                raise
            except (TransportError, BackendError) as exc:
                if isinstance(exc, BackendError) and not exc.retryable:
                    raise
                last = exc
        raise BackendError(f"gave up after {attempt + 1} attempt(s): {last}", retryable=True)

    def _pause(self, attempt: int, last: Exception | None) -> float:
        ceiling = min(self.max_backoff, self.backoff * (2 ** (attempt - 1)))
        pause = random.uniform(0, ceiling)  # full jitter
        after = getattr(last, "retry_after", None)
        if isinstance(after, int | float) and after > 0:
            pause = max(pause, min(after, self.max_backoff))
        return pause

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {self._token}",
        }
        if self._protocol:
            headers["MCP-Protocol-Version"] = self._protocol
        if self._session:
            headers["Mcp-Session-Id"] = self._session
        return headers

    def _initialize(self) -> None:
        """The handshake: `initialize`, then `notifications/initialized`."""
        self._ready, self._session, self._protocol = False, None, None
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": CLIENT_INFO,
        }
        request_id = self._id()
        body = json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}
        ).encode()
        reply = self._http.post(self.url, self._headers(), body)
        self._check_status(reply)
        result = self._result(reply, request_id)
        version = result.get("protocolVersion")
        self._session = reply.headers.get("mcp-session-id") or None
        self._protocol = version if isinstance(version, str) else PROTOCOL_VERSION
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        try:
            self._check_status(self._http.post(self.url, self._headers(), note))
        except BaseException:
            self._session = self._protocol = None
            raise
        self._ready = True

    def _request(self, body: bytes, request_id: int) -> dict[str, Any]:
        reply = self._http.post(self.url, self._headers(), body)
        self._check_status(reply)
        return self._result(reply, request_id)

    def _result(self, reply: Response, request_id: int) -> dict[str, Any]:
        for message in _messages(reply):
            if not isinstance(message, dict) or message.get("id") != request_id:
                continue
            if "error" in message:
                error = message["error"] if isinstance(message["error"], dict) else {}
                code = error.get("code")
                text = f"JSON-RPC error {code}: {str(error.get('message', ''))[:200]}"
                # an internal or server error may pass on a retry; a bad request will not
                raise BackendError(text, retryable=code in (-32603, -32000))
            result = message.get("result")
            if not isinstance(result, dict):
                raise BackendError("the server's result is not an object")
            return result
        raise _Retryable(f"no JSON-RPC response in the reply ({reply.status})")

    def _check_status(self, reply: Response) -> None:
        status = reply.status
        if status < 300:
            return
        if status == 413:
            raise PayloadTooLarge()
        if status in (401, 403):
            raise AuthFailed(f"the server refused the credential ({status})", status=status)
        if status == 404 and self._session:
            raise _SessionExpired("the MCP session expired (404)")
        if status == 429 or status >= 500:
            error = _Retryable(f"HTTP {status}")
            after = reply.headers.get("retry-after", "")
            error.retry_after = float(after) if after.replace(".", "", 1).isdigit() else None
            raise error
        if 300 <= status < 400:
            raise BackendError(f"redirect refused ({status})", retryable=False, status=status)
        raise BackendError(f"HTTP {status}", retryable=False, status=status)


class _Retryable(BackendError):
    retry_after: float | None = None

    def __init__(self, message: str):
        super().__init__(message, retryable=True)


class _SessionExpired(BackendError):
    def __init__(self, message: str):
        super().__init__(message, retryable=True)
