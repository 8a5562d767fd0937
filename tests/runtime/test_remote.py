"""The remote backend against a real MCP streamable-HTTP server built with the official SDK.

The server runs on loopback under uvicorn in a thread. Its `import_conversation` tool keeps
what a MemHub server keeps: per conversation, each record id once (a re-sent id is a replay,
not a second record). In front of it, an ASGI middleware injects 413s, 500s (before and
after the tool ran), timeouts (before and after) and expired sessions, and a TCP proxy
resets connections (RST) before a request reaches the server and after the server answered.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import stat
import struct
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.backends import remote
from memhub.runtime.backends.base import AuthFailed, BackendError, PayloadTooLarge
from memhub.runtime.capture import core as capture
from memhub.runtime.capture.redact import redact
from memhub.runtime.transcripts import claude as read_claude

from tests.conftest import in_ci
from tests.runtime.test_capture import claude_project

try:
    import uvicorn
    from mcp.server.mcpserver import MCPServer
except ImportError:  # pragma: no cover - the test extra installs both
    if in_ci():
        raise
    pytest.skip("the mcp SDK (test extra) is not installed", allow_module_level=True)

TOKEN = "mhk_" + "t" * 32
REAL_LIMIT = 512 * 1024  # the SDK's own request-body limit answers 413 above this


class Memory:
    """What the server stored, and everything it was sent."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: dict[str, dict[str, dict[str, Any]]] = {}
        self.order: dict[str, list[str]] = {}
        self.received: Counter[tuple[str, str]] = Counter()
        self.titles: dict[str, str | None] = {}
        self.calls = 0

    def store(self, conversation_id: str, messages: list[dict[str, Any]], title: str | None):
        with self.lock:
            self.calls += 1
            rows = self.rows.setdefault(conversation_id, {})
            order = self.order.setdefault(conversation_id, [])
            new = 0
            for message in messages:
                rid = message["id"]
                self.received[(conversation_id, rid)] += 1
                if rid not in rows:
                    order.append(rid)
                    new += 1
                rows[rid] = message
            if title:
                self.titles[conversation_id] = title
            return new


class Chaos:
    """ASGI middleware: random faults in front of the MCP app (only when `enabled`)."""

    def __init__(self, app: Any, rng: random.Random, delay: float):
        self.app, self.rng, self.delay = app, rng, delay
        self.enabled = False
        self.faults: Counter[str] = Counter()
        self.require_token: str | None = TOKEN

    def _pick(self, body: bytes, has_session: bool) -> str | None:
        if not self.enabled:
            return None
        try:
            messages = json.loads(body)["params"]["arguments"]["messages"]
        except (ValueError, KeyError, TypeError):
            messages = None
        r = self.rng.random()
        table = [
            ("500-before", 0.05),
            ("500-after", 0.04),
            ("timeout-before", 0.006),
            ("timeout-after", 0.006),
            ("404-session", 0.02 if has_session else 0.0),
            # a proxy whose limit varies, but never below one record
            ("413", 0.08 if messages and len(messages) > 1 and len(body) > 8_000 else 0.0),
        ]
        for name, p in table:
            if r < p:
                return name
            r -= p
        return None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if (
            self.require_token
            and headers.get(b"authorization") != f"Bearer {self.require_token}".encode()
        ):
            await _respond(send, 401)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        fault = self._pick(body, b"mcp-session-id" in headers)
        if fault:
            self.faults[fault] += 1
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            if fault:  # the app's answer is swallowed: to it, the client is gone
                return {"type": "http.disconnect"}
            return await receive()

        async def swallow(message: Any) -> None:
            return None

        if fault in ("500-before", "413", "404-session"):
            await _respond(send, {"500-before": 500, "413": 413, "404-session": 404}[fault])
        elif fault == "timeout-before":
            await asyncio.sleep(self.delay)  # the client gave up; the server still stores
            await self.app(scope, replay, swallow)
        elif fault in ("500-after", "timeout-after"):
            await self.app(scope, replay, swallow)  # stored, but the answer is lost
            if fault == "timeout-after":
                await asyncio.sleep(self.delay)
            await _respond(send, 500)
        else:
            await self.app(scope, replay, send)


async def _respond(send: Any, status: int) -> None:
    await send({"type": "http.response.start", "status": status, "headers": []})
    await send({"type": "http.response.body", "body": b""})


class ResetProxy:
    """A TCP proxy that resets (RST) connections at random, before or after the server."""

    def __init__(self, upstream: int, rng: random.Random, p_before: float, p_after: float):
        self.upstream, self.rng = upstream, rng
        self.p_before, self.p_after = p_before, p_after
        self.enabled = False
        self.resets: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _roll(self, p: float) -> bool:
        with self.lock:
            return self.enabled and self.rng.random() < p

    @staticmethod
    def _rst(*socks: socket.socket) -> None:
        for sock in socks:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.shutdown(socket.SHUT_RD)  # wakes a thread blocked in recv; sends nothing
            except OSError:
                pass
            sock.close()  # with linger 0: RST

    def _accept(self) -> None:
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            server = socket.create_connection(("127.0.0.1", self.upstream))
        except OSError:
            self._rst(client)
            return
        for sock in (client, server):  # no Nagle delay: each request is a few small writes
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        done = threading.Event()

        def pump(src: socket.socket, dst: socket.socket, p: float, label: str) -> None:
            try:
                while not done.is_set():
                    data = src.recv(65536)
                    if not data:
                        break
                    if self._roll(p):
                        self.resets[label] += 1
                        break
                    dst.sendall(data)
            except OSError:
                pass
            if not done.is_set():
                done.set()
                self._rst(client, server)

        threading.Thread(
            target=pump, args=(client, server, self.p_before, "before"), daemon=True
        ).start()
        pump(server, client, self.p_after, "after")

    def close(self) -> None:
        self.stopped = True
        self.listener.close()


class Server:
    def __init__(self, *, json_response: bool = False, stateless: bool = False, seed: int = 7):
        self.memory = Memory()
        memory = self.memory
        mcp = MCPServer("memhub-test")

        @mcp.tool()
        def import_conversation(
            messages: list[dict[str, Any]],
            conversation_id: str,
            source_platform: str | None = None,
            flush: str | None = None,
            title: str | None = None,
            namespace: str | None = None,
        ) -> dict[str, Any]:
            """Store records keyed by id (MemHub's watermark semantics)."""
            new = memory.store(conversation_id, messages, title)
            return {
                "conversation_id": conversation_id,
                "ack_through": messages[-1]["id"] if messages else None,
                "records_new": new,
                "records_dropped": 0,
            }

        app = mcp.streamable_http_app(
            json_response=json_response,
            stateless_http=stateless,
            max_request_body_size=REAL_LIMIT,
        )
        self.chaos = Chaos(app, random.Random(seed), delay=0.8)
        port = _free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(
                self.chaos, host="127.0.0.1", port=port, log_level="error", lifespan="on"
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the MCP server did not start"
            time.sleep(0.01)
        self.proxy = ResetProxy(port, random.Random(seed + 1), p_before=0.02, p_after=0.02)
        self.url = f"http://127.0.0.1:{self.proxy.port}/mcp"

    def chaos_on(self) -> None:
        self.chaos.enabled = self.proxy.enabled = True

    def close(self) -> None:
        self.proxy.close()
        self.server.should_exit = True
        self.thread.join(timeout=20)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server() -> Iterator[Server]:
    instance = Server()
    yield instance
    instance.close()


def backend(url: str, **overrides: Any) -> remote.RemoteBackend:
    options = {"timeout": 0.5, "connect_timeout": 0.5, "attempts": 10, "backoff": 0.01}
    options.update(max_backoff=0.05, deadline=60.0)
    options.update(overrides)
    return remote.RemoteBackend(url, token=TOKEN, **options)


def claude_line(uid: str, role: str, text: str) -> str:
    return (
        json.dumps(
            {
                "type": role,
                "uuid": uid,
                "timestamp": "2026-02-03T04:05:06.000Z",
                "cwd": "/srv/repo",
                "message": {"role": role, "content": text},
            }
        )
        + "\n"
    )


def test_a_thousand_turns_through_faults_lose_and_duplicate_nothing(
    server: Server, tmp_path: Path
) -> None:
    rng = random.Random(11)
    sessions = [f"sess-{n}" for n in range(10)]
    paths = {sid: claude_project() / f"{sid}.jsonl" for sid in sessions}
    client = backend(server.url)
    server.chaos_on()
    statuses: Counter[str] = Counter()
    for turn in range(1000):
        sid = sessions[turn % len(sessions)]
        with open(paths[sid], "a", encoding="utf-8") as handle:
            for k in range(rng.randint(1, 3)):
                size = rng.choice([80, 400, 2_000, 9_000, 30_000])
                role = "user" if k == 0 else "assistant"
                handle.write(claude_line(f"{sid}-t{turn}-{k}", role, "w" * size))
            if rng.random() < 0.1:  # the host is mid-write
                handle.write(claude_line(f"{sid}-t{turn}-half", "assistant", "h")[:30])
                handle.flush()
                statuses[
                    capture.flush("claude", sid, paths[sid], "turn", backend=client).status
                ] += 1
                handle.write(claude_line(f"{sid}-t{turn}-half", "assistant", "h")[30:])
        statuses[capture.flush("claude", sid, paths[sid], "turn", backend=client).status] += 1
    for sid in sessions:  # the backstop, still under fire, until nothing is left
        for _ in range(20):
            result = capture.flush("claude", sid, paths[sid], "session_end", backend=client)
            statuses[result.status] += 1
            if result.status == "nothing":
                break
    client.close()
    faults = server.chaos.faults + server.proxy.resets
    memory = server.memory
    total = 0
    for sid in sessions:
        _, records = read_claude.read_session(paths[sid])
        expected = [r.id for r in records]
        total += len(expected)
        assert len(expected) == len(set(expected))
        assert memory.order[sid] == expected or sorted(memory.order[sid]) == sorted(expected)
        assert set(memory.rows[sid]) == set(expected)  # zero lost, nothing extra
        assert len(memory.order[sid]) == len(expected)  # zero duplicated
        for record in records:
            assert memory.rows[sid][record.id]["raw"] == redact(record.raw)
        state = capture.load_state("claude", sid)
        assert state["offset"] == paths[sid].stat().st_size
        assert not state["stepped_over"]
    replays = sum(n - 1 for n in memory.received.values())
    print(
        f"\n{total} records in 10 sessions; server calls {memory.calls}; replays {replays};"
        f" faults {dict(faults)}; flushes {dict(statuses)}"
    )
    assert all(faults[name] for name in ("500-before", "500-after", "413", "before", "after"))
    assert faults["timeout-before"] + faults["timeout-after"] > 0


def test_sse_json_and_urllib_clients(tmp_path: Path) -> None:
    for json_response, stateless, client_kind in [
        (False, False, "httpx"),
        (True, True, "httpx"),
        (False, False, "urllib"),
        (True, False, "urllib"),
    ]:
        instance = Server(json_response=json_response, stateless=stateless)
        try:
            with backend(instance.url, client=client_kind) as client:
                header = {"conversation_id": "c1", "host": "claude", "title": "T"}
                ack = client.import_conversation(header, [{"id": "a"}, {"id": "b"}])
                assert ack["ack_through"] == "b"
                assert instance.memory.order["c1"] == ["a", "b"]
                assert instance.memory.titles["c1"] == "T"
        finally:
            instance.close()


def test_real_413_is_its_own_exception(server: Server) -> None:
    with backend(server.url) as client, pytest.raises(PayloadTooLarge):
        client.import_conversation(
            {"conversation_id": "c1", "host": "claude"}, [{"id": "big", "x": "y" * REAL_LIMIT}]
        )
    assert server.memory.calls == 0


def test_capture_steps_over_a_record_the_server_can_never_take(
    server: Server, tmp_path: Path
) -> None:
    path = claude_project() / "s.jsonl"
    path.write_text(
        claude_line("u1", "user", "hi")
        + claude_line("big", "user", "z" * REAL_LIMIT)
        + claude_line("a1", "assistant", "ok"),
        encoding="utf-8",
    )
    with backend(server.url) as client:
        result = capture.flush("claude", "s", path, "commit", backend=client)
    assert (result.status, result.sent, result.stepped_over) == ("ok", 2, 1)
    assert server.memory.order["s"] == ["u1", "a1"]
    assert capture.load_state("claude", "s")["offset"] == path.stat().st_size


def test_refused_credential(server: Server, tmp_path: Path) -> None:
    path = claude_project() / "s.jsonl"
    path.write_text(claude_line("u1", "user", "hi"), encoding="utf-8")
    client = remote.RemoteBackend(server.url, token="mhk_" + "w" * 32, attempts=2, backoff=0.01)
    with pytest.raises(AuthFailed):
        client.import_conversation({"conversation_id": "c", "host": "claude"}, [{"id": "x"}])
    result = capture.flush("claude", "s", path, "turn", backend=client)
    client.close()
    assert result.status == "failed"
    assert capture.load_state("claude", "s")["last_error"] == "auth"
    assert capture.load_state("claude", "s")["offset"] == 0
    assert "credential" in capture.health()


def test_gives_up_after_bounded_retries(tmp_path: Path) -> None:
    port = _free_port()  # nothing listens there
    sleeps: list[float] = []
    client = remote.RemoteBackend(
        f"http://127.0.0.1:{port}/mcp", token=TOKEN, attempts=4, backoff=0.2, sleep=sleeps.append
    )
    with pytest.raises(BackendError) as failure:
        client.import_conversation({"conversation_id": "c", "host": "claude"}, [{"id": "x"}])
    assert failure.value.retryable and "4 attempt" in str(failure.value)
    assert len(sleeps) == 3 and all(0 <= s <= 0.2 * 2 ** (i) for i, s in enumerate(sleeps))


def test_what_leaves_the_machine_is_redacted(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/dana")
    path = claude_project() / "s.jsonl"
    secret = "Zq9secretvalue77"
    path.write_text(
        claude_line("u1", "user", f"run curl -u dana:{secret} https://x with mhk_{secret}")
        + claude_line("a1", "assistant", "edited /home/dana/repo/app.py; mail dana@corp.example"),
        encoding="utf-8",
    )
    with backend(server.url) as client:
        assert capture.flush("claude", "s", path, "turn", backend=client).sent == 2
    sent = json.dumps(server.memory.rows["s"])
    assert secret not in sent
    assert "/home/" not in sent and "dana@" not in sent
    assert "-u dana:<redacted>" in sent and "~/repo/app.py" in sent


def test_url_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BackendError, match="plain http"):
        remote.RemoteBackend("http://memory.example/mcp", token=TOKEN)
    with pytest.raises(BackendError, match="not an http"):
        remote.RemoteBackend("ftp://memory.example/mcp", token=TOKEN)
    monkeypatch.delenv("MEMHUB_API_KEY", raising=False)
    with pytest.raises(AuthFailed, match="memhub login"):
        remote.RemoteBackend("https://memory.example/mcp")


def test_credential_file_is_private_and_used(server: Server) -> None:
    path = remote.save_credential(TOKEN, expires_at="2999-01-01T00:00:00Z")
    assert path == Path(os.environ["MEMHUB_HOME"]) / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert remote.load_credential()["api_key"] == TOKEN
    assert not remote.credential_expired(remote.load_credential())
    with remote.RemoteBackend(server.url, attempts=2) as client:  # the stored key is used
        client.import_conversation({"conversation_id": "c", "host": "claude"}, [{"id": "x"}])
    remote.save_credential(TOKEN, expires_at="2001-01-01T00:00:00Z")
    assert remote.credential_expired(remote.load_credential())
