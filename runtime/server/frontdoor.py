"""The stdio front door of `memhub mcp serve`: the handshake answered from a cache while the
MCP SDK imports, then every message served by the SDK.

Why: importing the SDK takes about 0.8 s, and Codex (0.171) offers the model only the MCP
servers that have listed their tools about a second after the session starts; a server that
is slower is missing from the first turn. With the cache, `initialize` and `tools/list` are
answered in the time Python takes to start.

How: the real stdin and stdout move to new descriptors and the SDK gets two pipes on 0 and 1.
A reader thread copies the host's lines into the SDK's pipe as they come (the pipe is the
queue), except that the first `initialize` and the `tools/list` after it are answered from
the cache and passed on under ids of our own, so the SDK still sees the whole handshake. A
writer thread copies the SDK's lines out and keeps back its answers to those ids: they are
compared with the cache, and a different answer (another SDK, edited tools) rewrites it.
Without a cache entry every line goes through, and the SDK's own answers fill the cache.
Stdlib only: this runs before the SDK is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import stat
import tempfile
import threading
from pathlib import Path
from typing import Any

REPLAY_INIT = "memhub-frontdoor-initialize"
REPLAY_LIST = "memhub-frontdoor-tools-list"
PRIMING = "MEMHUB_MCP_PRIMING"  # set in the primer's server: it starts no primer itself
END = b"memhub-frontdoor-end\n"  # no JSON: the SDK can never write this line
MAX_CACHE_BYTES = 1 << 20
# what the tool list and the server's greeting are made of: an edit to any changes the key
SOURCES = ("app.py", "tools.py", "writetools.py", "shapes.py")
SDK_PACKAGES = ("mcp", "mcp_types")


def cache_key(writable: bool) -> str:
    """A digest of what the handshake answers depend on: our server's sources, the installed
    SDK (its files' sizes and times) and whether the write tools are served."""
    h = hashlib.blake2b(digest_size=16)
    h.update(b"write" if writable else b"read")
    here = Path(__file__).parent
    for name in SOURCES:
        h.update(name.encode() + b"\0" + (here / name).read_bytes())
    for package in SDK_PACKAGES:
        spec = importlib.util.find_spec(package)
        origin = spec.origin if spec is not None else None
        info = os.stat(origin) if origin else None
        h.update(f"{package}:{origin}:{info and info.st_size}:{info and info.st_mtime_ns}".encode())
    return h.hexdigest()


def cache_file(home: Path, writable: bool) -> Path:
    return home / "cache" / f"mcp-handshake-{'write' if writable else 'read'}.json"


class Cache:
    """The SDK's answers to `initialize` (without the protocol version it echoes, and the
    versions it echoed) and to `tools/list`."""

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        self.init: dict[str, Any] = {}
        self.versions: list[str] = []
        self.tools: Any = None
        self.changed = False
        stored = _load(path)
        if isinstance(stored, dict) and stored.get("key") == key:
            init, versions = stored.get("init"), stored.get("versions")
            self.init = dict(init) if isinstance(init, dict) else {}
            self.versions = (
                [v for v in versions if isinstance(v, str)] if isinstance(versions, list) else []
            )
            self.tools = stored.get("tools")

    @property
    def complete(self) -> bool:
        return bool(self.init and self.versions and isinstance(self.tools, dict))

    def hello(self, version: Any) -> dict[str, Any] | None:
        """The SDK's answer to an `initialize` asking for `version`, when known."""
        if not self.init or not isinstance(version, str) or version not in self.versions:
            return None
        return {"protocolVersion": version, **self.init}

    def learn(self, version: Any, init: Any = None, tools: Any = None) -> None:
        """Keep an answer the SDK gave; a new or different one is saved once both are known."""
        if isinstance(init, dict):
            template = {k: v for k, v in init.items() if k != "protocolVersion"}
            if template != self.init:
                self.init, self.versions, self.changed = template, [], True
            if isinstance(version, str) and init.get("protocolVersion") == version:
                self.add_versions([version])
        if tools is not None and tools != self.tools:
            self.tools = tools
            self.changed = True
        self.save()  # now: hosts end their servers with a signal, so there may be no "later"

    def add_versions(self, versions: list[str]) -> None:
        """Versions the SDK answers by echoing them (its own list, or one it echoed)."""
        new = [v for v in versions if v not in self.versions]
        if new:
            self.versions = [*self.versions, *new]
            self.changed = True

    def save(self) -> None:
        if not self.changed or not self.init or self.tools is None:
            return
        data = {"key": self.key, "init": self.init, "versions": self.versions, "tools": self.tools}
        with contextlib.suppress(OSError):  # a cache that cannot be written is only slower
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".handshake-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(data, out, separators=(",", ":"))
                os.replace(tmp, self.path)  # a symlink in its place is replaced, not followed
                self.changed = False
            except OSError:
                os.unlink(tmp)


def _load(path: Path) -> Any:
    """The cache file's JSON, or None: a missing, odd (a FIFO, a directory, a symlink), huge
    or broken file is no cache."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CACHE_BYTES:
            return None
        data = os.read(fd, MAX_CACHE_BYTES + 1)
        return json.loads(data)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


class FrontDoor:
    """Stands between the host's stdio and the SDK's for one server process."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self._out_lock = threading.Lock()
        self._pending: dict[Any, tuple[str, Any]] = {}  # request id -> (method, version)
        self._version: Any = None  # the protocol version the host asked for
        self._answered_init = False
        self._answered_list = False
        self._real_in = os.dup(0)
        self._real_out = os.dup(1)
        sdk_in, self._to_sdk = os.pipe()
        self._from_sdk, sdk_out = os.pipe()
        os.dup2(sdk_in, 0)
        os.dup2(sdk_out, 1)
        os.close(sdk_in)
        os.close(sdk_out)
        self._reader = threading.Thread(target=self._read_host, name="frontdoor-in", daemon=True)
        self._writer = threading.Thread(target=self._write_host, name="frontdoor-out")
        self._reader.start()
        self._writer.start()

    # ------------------------------------------------------------------ host -> SDK
    def _read_host(self) -> None:
        with os.fdopen(self._real_in, "rb") as host:
            for line in host:
                try:
                    passed = self._inbound(line)
                except Exception:  # never lose a line to a bug here: the SDK answers it
                    passed = line
                with contextlib.suppress(BrokenPipeError):
                    _write_all(self._to_sdk, passed)
        os.close(self._to_sdk)  # the host hung up: the SDK reads its end of input and stops

    def _inbound(self, line: bytes) -> bytes:
        """The line to pass to the SDK, after answering it here when the cache can."""
        message = _parse(line)
        if message is None or "id" not in message:
            return line
        method = message.get("method")
        if method == "initialize":
            params = message.get("params")
            self._version = params.get("protocolVersion") if isinstance(params, dict) else None
            cached = self.cache.hello(self._version)
            if cached is not None and not self._answered_init:
                self._answered_init = True
                self._reply(message["id"], cached)
                return _with_id(message, REPLAY_INIT)
            self._pending[message["id"]] = ("initialize", self._version)
        elif method == "tools/list":
            cached_tools = self.cache.tools
            params = message.get("params")
            first_page = not (isinstance(params, dict) and params.get("cursor"))
            if self._answered_init and not self._answered_list and cached_tools and first_page:
                self._answered_list = True
                self._reply(message["id"], cached_tools)
                return _with_id(message, REPLAY_LIST)
            self._pending[message["id"]] = ("tools/list", None)
        return line

    # ------------------------------------------------------------------ SDK -> host
    def _write_host(self) -> None:
        with os.fdopen(self._from_sdk, "rb") as sdk:
            for line in sdk:
                if line == END:
                    break
                try:
                    passed = self._outbound(line)
                except Exception:  # a line the bookkeeping cannot read still goes out
                    passed = b'"memhub-frontdoor-' not in line
                if passed:
                    self._send(line)

    def _outbound(self, line: bytes) -> bool:
        """Whether the SDK's line goes to the host (not when it answers a replayed request);
        its answers to the handshake are kept for the cache either way."""
        replayed = b'"memhub-frontdoor-' in line
        if not replayed and not self._pending:
            return True
        message = _parse(line)
        if message is None or "result" not in message:
            return not replayed
        rid = message.get("id")
        if rid == REPLAY_INIT:
            self.cache.learn(self._version, init=message["result"])
            return False
        if rid == REPLAY_LIST:
            self.cache.learn(None, tools=message["result"])
            return False
        method, version = self._pending.pop(rid, (None, None))
        if method == "initialize":
            self.cache.learn(version, init=message["result"])
        elif method == "tools/list" and not _has_more(message["result"]):
            self.cache.learn(None, tools=message["result"])
        return True

    def _reply(self, rid: Any, result: Any) -> None:
        answer = {"jsonrpc": "2.0", "id": rid, "result": result}
        self._send(json.dumps(answer, separators=(",", ":")).encode() + b"\n")

    def _send(self, line: bytes) -> None:
        with self._out_lock, contextlib.suppress(BrokenPipeError):
            _write_all(self._real_out, line)

    # ------------------------------------------------------------------ the end
    def close(self) -> None:
        """After the SDK stopped: let its last lines out."""
        with contextlib.suppress(OSError, ValueError):
            import sys

            sys.stdout.flush()
        # the SDK keeps a copy of its output pipe open, so its end is marked by a line of ours
        with contextlib.suppress(OSError):
            _write_all(1, END)
        os.dup2(self._real_out, 1)
        self._writer.join(timeout=10)


def open_door(home: Path, writable: bool) -> FrontDoor:
    """Put the front door between this process's stdio and the SDK about to serve it; with
    no cache yet, a detached primer fills it (this server may be killed before it can)."""
    cache = Cache(cache_file(home, writable), cache_key(writable))
    if not cache.complete and PRIMING not in os.environ:
        from . import primer

        primer.spawn(home, writable)
    return FrontDoor(cache)


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _has_more(result: Any) -> bool:
    return not isinstance(result, dict) or bool(result.get("nextCursor"))


def _with_id(message: dict[str, Any], rid: str) -> bytes:
    return json.dumps({**message, "id": rid}, separators=(",", ":")).encode() + b"\n"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
