"""`memhub mcp serve --http`: loopback only, a bearer key on every request, and memhub's own
remote capture backend storing a real transcript through it."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import anyio
import httpx
import pytest
from memhub.runtime.backends import remote
from memhub.runtime.backends.base import AuthFailed
from memhub.runtime.backends.local import LocalStore
from memhub.runtime.capture import core as capture

from tests.runtime.server import kit
from tests.runtime.test_capture import claude_project

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = kit.repo(tmp_path / "app")
    kit.connect(folder, "app")
    return folder


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com"])
def test_a_host_other_machines_can_reach_is_refused_before_binding(
    host: str, project: Path
) -> None:
    done = subprocess.run(
        [kit.MEMHUB, "mcp", "serve", "--project", str(project), "--http", "--host", host],
        capture_output=True,
        text=True,
        env=kit.env(),
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "loopback" in done.stderr
    assert not (kit.home() / "mcp" / "http.key").exists()  # refused before anything was made


def test_every_request_needs_the_key(project: Path) -> None:
    with kit.http_server(project) as server:
        assert server.url.startswith("http://127.0.0.1:")
        key_file = kit.home() / "mcp" / "http.key"
        assert key_file.stat().st_mode & 0o777 == 0o600
        for headers in ({}, {"Authorization": "Bearer mhk_wrong"}, {"Authorization": "Basic x"}):
            for method in ("POST", "GET", "DELETE"):
                reply = httpx.request(
                    method,
                    server.url,
                    headers={**MCP_HEADERS, **headers},
                    json=INITIALIZE if method == "POST" else None,
                    timeout=30,
                )
                assert reply.status_code == 401, (method, headers, reply.text)
                assert reply.headers["www-authenticate"].startswith("Bearer")
                assert "memhub mcp key" in reply.json()["message"]
        ok = httpx.post(
            server.url,
            headers={**MCP_HEADERS, "Authorization": f"Bearer {server.key}"},
            json=INITIALIZE,
            timeout=30,
        )
        assert ok.status_code == 200 and ok.json()["result"]["serverInfo"]["name"] == "memhub"

        async def listed(key: str | None) -> set[str]:
            async with kit.http_client(server.url, key) as client:
                return {tool.name for tool in (await client.list_tools()).tools}

        assert anyio.run(listed, server.key) == kit.READ_TOOLS
        # a rotated key takes effect in the running server at once: the old one is refused
        rotated = subprocess.run(
            [kit.MEMHUB, "mcp", "key", "--rotate"],
            capture_output=True,
            text=True,
            env=kit.env(),
            timeout=60,
            check=True,
        ).stdout.strip()
        assert rotated != server.key and rotated == key_file.read_text().strip()
        with pytest.raises(Exception):  # noqa: B017 (the SDK raises its own HTTP error)
            anyio.run(listed, server.key)
        assert anyio.run(listed, rotated) == kit.READ_TOOLS


def test_the_key_command_prints_the_key_the_server_uses(project: Path) -> None:
    printed = subprocess.run(
        [kit.MEMHUB, "mcp", "key"], capture_output=True, text=True, env=kit.env(), check=True
    ).stdout.strip()
    with kit.http_server(project) as server:
        assert server.key == printed


def test_a_busy_port_is_a_clear_error(project: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [kit.MEMHUB, "mcp", "serve", "--project", str(project), "--http", "--port", str(port)],
            capture_output=True,
            text=True,
            env=kit.env(),
            timeout=60,
        )
    assert done.returncode == 2 and f"port {port}" in done.stderr


def test_the_remote_capture_backend_stores_a_real_transcript_through_the_server(
    project: Path, material: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Capture pointed at `memhub mcp serve --http --write` (MEMHUB_BACKEND=remote, the key
    as MEMHUB_API_KEY) sends a real Claude session; the server stores it in the local capture
    store under its own project and acknowledges through the last record, so a second flush
    sends nothing."""
    source = next((material / "claude-code" / "claude-code-log-real").glob("*/ef958aa1-*.jsonl"))
    transcript = claude_project() / source.name
    shutil.copyfile(source, transcript)
    sid = source.stem
    pid = kit.connect(project, "app")  # connected already: the same id again
    filed = f"mcp:{pid}:{capture.conversation_id('claude', sid)}"
    with kit.http_server(project, "--write") as server:
        monkeypatch.setenv("MEMHUB_BACKEND", "remote")
        monkeypatch.setenv("MEMHUB_REMOTE_URL", server.url)
        monkeypatch.setenv("MEMHUB_API_KEY", server.key)
        result = capture.flush("claude", sid, transcript, "session_end")
        assert result.status == "ok", result
        stored = LocalStore(kit.home() / "store.sqlite").records(filed)
        assert result.sent == len(stored) > 50
        again = capture.flush("claude", sid, transcript, "session_end")
        assert again.sent == 0  # everything was acknowledged: nothing is sent twice
        # the wire contract itself: the ack names the conversation and its last record
        with remote.RemoteBackend(server.url, token=server.key) as backend:
            header = {"conversation_id": "c-direct", "host": "claude", "title": "direct"}
            ack = backend.import_conversation(header, stored[:3])
            assert ack["conversation_id"] == "c-direct"
            assert ack["ack_through"] == stored[2]["id"] and ack["records_dropped"] == 0
            assert backend.import_conversation(header, [])["ack_through"] is None
        with pytest.raises(AuthFailed):
            remote.RemoteBackend(
                server.url, token="mhk_" + "0" * 43, attempts=1
            ).import_conversation({"conversation_id": "c-x", "host": "claude"}, stored[:1])
    sessions = {s["conversation_id"]: s for s in LocalStore(kit.home() / "store.sqlite").sessions()}
    assert sessions[filed]["host"] == "claude"
    assert sessions[filed]["cwd"] == str(project.resolve())


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_the_listening_socket_is_loopback_tcp_so_replies_are_not_delayed(host: str) -> None:
    """asyncio sets TCP_NODELAY only on sockets made with proto IPPROTO_TCP: without it a
    reply written in two parts waited ~40 ms for the client's delayed ACK (every call)."""
    from memhub.runtime.server import http

    try:
        sock = http.bind(host, 0)
    except OSError:
        pytest.skip(f"{host} is not available here")
    with sock:
        assert sock.proto == socket.IPPROTO_TCP
        address = sock.getsockname()[0]
        assert address in ("127.0.0.1", "::1")
        assert http.url_of(sock).startswith(f"http://{'[::1]' if ':' in address else address}:")
