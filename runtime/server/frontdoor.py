"""The stdio front door of `memhub mcp serve`: what a client asks before the MCP SDK has
imported is answered from a cache, in the protocol era the SDK will serve the connection in;
everything else, and everything once the SDK is up, is served by the SDK.

Why: importing the SDK takes about 0.8 s on an idle machine and several seconds on a busy
one. Codex (0.171) offers the model only the MCP servers that have listed their tools about a
second after the session starts; Claude Code (2.1) gives its `server/discover` probe about 3 s
before it falls back to `initialize`; Gemini CLI (0.61) lists prompts before tools and waits
for each. A server that is slower is missing from the session, or (answered half by a cache
in one era and half by the SDK in the other) drops its protocol.

How: the real stdin and stdout move to new descriptors and the SDK gets two pipes on 0 and 1.
A reader thread copies the host's lines into the SDK's pipe as they come (the pipe is the
queue). The first request decides the connection's era exactly as the SDK decides it
(doorcache.py). Until the SDK writes its first line, a request the era's cache answers
(`initialize` or `server/discover`, the lists, a legacy ping) is answered here and passed on
under an id of our own, so the SDK still sees the whole session; a writer thread copies the
SDK's lines out and keeps back its answers to those ids, which are compared with the cache
(a different answer, from another SDK or edited tools, rewrites it). Requests of the other
era, and those the cache cannot answer, go to the SDK, whose answer is the only one.
A line whose JSON holds a lone surrogate escape (`"\\ud83c"`: Node writes one when it cuts a
string inside an emoji) is passed on with U+FFFD in its place: the SDK's parser refuses such a
line and drops it unanswered, and the client would wait out its timeout.
Stdlib only: this runs before the SDK is imported.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .doorcache import (
    ACKNOWLEDGED,
    CACHED,
    LEGACY,
    LISTEN,
    MODERN,
    SUBSCRIPTION_KEY,
    Cache,
    cache_file,
    cache_key,
    key_sources,
)

__all__ = ["Cache", "FrontDoor", "cache_file", "cache_key", "key_sources", "open_door"]

REPLAY = "memhub-frontdoor-"  # the ids of requests answered here and passed on to the SDK
PRIMING = "MEMHUB_MCP_PRIMING"  # set in the primer's server: it starts no primer itself
END = b"memhub-frontdoor-end\n"  # no JSON: the SDK can never write this line
# The modern era's per-request envelope (the SDK's `_has_modern_envelope`, mcp 2.3)
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"


class FrontDoor:
    """Stands between the host's stdio and the SDK's for one server process."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self._out_lock = threading.Lock()
        # request id (the host's, or a replay id of ours) -> (era, method, version)
        self._pending: dict[Any, tuple[str, str, Any]] = {}
        # listen request id -> (the filter it asks for, whether it was acknowledged here)
        self._listens: dict[Any, tuple[Any, bool]] = {}
        self._era: str | None = None  # decided by the first request, as the SDK decides it
        self._version: Any = None  # legacy: the version `initialize` was answered with
        self._opened = False  # legacy: `initialize` was answered here
        self._sdk_ready = False  # the SDK has written a line: it answers from now on
        self._replays = itertools.count(1)
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
                    line = mended(line)
                    passed = self._inbound(line)
                except Exception:  # never lose a line to a bug here: the SDK answers it
                    passed = line
                with contextlib.suppress(BrokenPipeError):
                    _write_all(self._to_sdk, passed)
        os.close(self._to_sdk)  # the host hung up: the SDK reads its end of input and stops

    def _inbound(self, line: bytes) -> bytes:
        """The line to pass to the SDK, after answering it here when the cache can."""
        message = _parse(line)
        if message is None or "id" not in message or not isinstance(message.get("method"), str):
            return line  # a notification, a reply, or no JSON-RPC: the SDK's business
        method, params = message["method"], message.get("params")
        if self._era is None:
            self._era = MODERN if method != "initialize" and _enveloped(params) else LEGACY
        era = self._era
        if era == MODERN and method == LISTEN:
            self._listen(message["id"], params)
            return line  # the stream itself is the SDK's, under the host's own id
        if method not in CACHED[era] or _has_cursor(params):
            return line
        version = self._version_of(era, method, params)
        result = None if self._sdk_ready else self._cached(era, method, version, params)
        if result is None:
            self._pending[message["id"]] = (era, method, version)
            return line
        replay = f"{REPLAY}{next(self._replays)}"
        self._pending[replay] = (era, method, version)
        self._reply(message["id"], result)
        return _with_id(message, replay)

    def _listen(self, rid: Any, params: Any) -> None:
        """Acknowledge a listen request as the SDK would, when the cache knows how: a modern
        client waits for that first frame of its stream before it lists anything."""
        asked = params.get("notifications") if isinstance(params, dict) else None
        version = self._version_of(MODERN, LISTEN, params)
        honored = None if self._sdk_ready else self.cache.acknowledgement(version, asked)
        self._listens[rid] = (asked, honored is not None)
        if honored is not None:
            ack = {"_meta": {SUBSCRIPTION_KEY: rid}, "notifications": honored}
            self._send_json({"jsonrpc": "2.0", "method": ACKNOWLEDGED, "params": ack})

    def _version_of(self, era: str, method: str, params: Any) -> Any:
        """The protocol version a request is made at: its envelope's (modern), the one it
        asks for (`initialize`) or the connection's."""
        if era == MODERN:
            meta = params.get("_meta") if isinstance(params, dict) else None
            if not isinstance(meta, dict) or not isinstance(meta.get(CAPABILITIES_KEY), dict):
                return None  # the SDK refuses an envelope without the client's capabilities
            return meta.get(VERSION_KEY)
        if method == "initialize":
            return params.get("protocolVersion") if isinstance(params, dict) else None
        return self._version

    def _cached(self, era: str, method: str, version: Any, params: Any) -> Any:
        """The cache's answer to a request the SDK would answer the same way, or None."""
        if era == LEGACY:
            if method == "initialize":
                if self._opened:
                    return None  # a second initialize: the SDK's to refuse
                result = self.cache.answer(era, method, version)
                if result is not None:
                    self._opened, self._version = True, version
                return result
            if not self._opened or _enveloped(params):  # the SDK refuses these
                return None
        return self.cache.answer(era, method, version)

    # ------------------------------------------------------------------ SDK -> host
    def _write_host(self) -> None:
        with os.fdopen(self._from_sdk, "rb") as sdk:
            for line in sdk:
                if line == END:
                    break
                self._sdk_ready = True
                try:
                    passed = self._outbound(line)
                except Exception:  # a line the bookkeeping cannot read still goes out
                    passed = REPLAY.encode() not in line
                if passed:
                    self._send(line)

    def _outbound(self, line: bytes) -> bool:
        """Whether the SDK's line goes to the host (not when it answers a replayed request);
        its answers to what the cache holds are learnt either way."""
        replayed = f'"{REPLAY}'.encode() in line
        if not replayed and not self._pending and not self._listens:
            return True
        message = _parse(line)
        if message is not None and message.get("method") == ACKNOWLEDGED:
            return self._acknowledged(message.get("params"))
        if message is None or not ("result" in message or "error" in message):
            return not replayed
        rid = message.get("id")
        entry = self._pending.pop(rid, None)
        if entry is not None and "result" in message and not _has_more(message["result"]):
            self.cache.learn(*entry, message["result"])
        return not (isinstance(rid, str) and rid.startswith(REPLAY))

    def _acknowledged(self, params: Any) -> bool:
        """Learn the SDK's acknowledgement of a listen request; it goes out unless this door
        acknowledged that stream already."""
        meta = params.get("_meta") if isinstance(params, dict) else None
        sid = meta.get(SUBSCRIPTION_KEY) if isinstance(meta, dict) else None
        entry = self._listens.pop(sid, None) if isinstance(sid, str | int) else None
        if entry is None:
            return True
        asked, acked_here = entry
        assert isinstance(params, dict)
        self.cache.learn_acknowledgement(asked, params.get("notifications"))
        return not acked_here

    def _reply(self, rid: Any, result: Any) -> None:
        self._send_json({"jsonrpc": "2.0", "id": rid, "result": result})

    def _send_json(self, message: dict[str, Any]) -> None:
        self._send(json.dumps(message, separators=(",", ":")).encode() + b"\n")

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


_early: list[FrontDoor] = []  # the door `open_early` opened, until `_serve` takes it


def open_early(args: Sequence[str]) -> None:
    """Open the door for `memhub mcp serve ARGS` before the CLI parses them: importing the
    CLI (click and its group) is most of a server's time to its first answer, and Codex
    offers only the servers that answer within about a second. Only a plain stdio serve
    (no --http, --help or --json); the CLI still checks every argument, and a run that stops
    before it serves exits the process, door and all."""
    if _early or any(a.startswith(("--http", "--help", "-h", "--json")) for a in args):
        return
    from ..backends.base import memhub_home

    _early.append(open_door(memhub_home(), "--write" in args))


def take_early() -> FrontDoor | None:
    """The door `open_early` opened for this process, once."""
    return _early.pop() if _early else None


def open_door(home: Path, writable: bool) -> FrontDoor:
    """Put the front door between this process's stdio and the SDK about to serve it; with
    no full cache yet, a detached primer fills it (this server may be killed before it can)."""
    cache = Cache(cache_file(home, writable), cache_key(writable))
    if not cache.complete and PRIMING not in os.environ:
        from . import primer

        primer.spawn(home, writable)
    return FrontDoor(cache)


# a \\uD800-\\uDFFF escape: maybe half of a pair, maybe lone (json.loads tells)
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def mended(line: bytes) -> bytes:
    """`line` with every lone surrogate its JSON escapes replaced by U+FFFD (a pair stays
    the character it encodes); any other line as it is, unparsed."""
    if b"\\u" not in line or _SURROGATE_ESCAPE.search(line) is None:
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    fixed = _unpaired(message)
    if fixed == message:
        return line  # only pairs (or an escaped backslash before `u`): nothing lone
    return json.dumps(fixed, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _unpaired(value: Any) -> Any:
    """`value` with U+FFFD for each lone surrogate in its strings, keys included."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_unpaired(v) for v in value]
    if isinstance(value, dict):
        return {_unpaired(k): _unpaired(v) for k, v in value.items()}
    return value


def _enveloped(params: Any) -> bool:
    """Whether a request carries the modern envelope's version key (what opens, or is
    refused on, a connection of the other era)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and VERSION_KEY in meta


def _has_cursor(params: Any) -> bool:
    return isinstance(params, dict) and params.get("cursor") is not None


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
