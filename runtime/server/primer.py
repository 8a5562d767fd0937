"""Fill the handshake cache of `memhub mcp serve` (frontdoor.py) from a detached process.

A cold server learns the SDK's answers only once the SDK has loaded, a second or more in, and
hosts kill their servers without a word when a session ends (Codex 0.171 sends SIGKILL): a
short session leaves no cache, and the next is cold again. So a cold server starts this
primer in a session of its own. It runs two more servers at once (with the primer's mark, so
those start no primer), one per protocol era: each is asked everything its era's cache holds
(doorcache.CACHED), and its front door saves the answers. Then the primer adds the protocol
versions the SDK answers alike. One primer at a time per cache file.

    python -m memhub.runtime.server.primer HOME write|read
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import doorcache, frontdoor

TIMEOUT_S = 60.0


def spawn(home: Path, writable: bool) -> None:
    """Start the primer, detached: it outlives this server and its process group."""
    argv = [sys.executable, "-m", __name__, str(home), "write" if writable else "read"]
    env = {**os.environ, "MEMHUB_HOME": str(home), frontdoor.PRIMING: "1"}
    with contextlib.suppress(OSError):
        subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )


def prime(home: Path, writable: bool) -> bool:
    """Run one server per era through what a client asks first, so that their front doors
    save the cache; then add the SDK's echoed versions. False when another primer holds the
    lock or it failed."""
    path = frontdoor.cache_file(home, writable)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(path.with_name(path.name + ".lock")) as mine:
        if not mine:
            return False
        if frontdoor.Cache(path, frontdoor.cache_key(writable)).complete:
            return True  # another primer, or servers that lived long enough, were first
        from mcp_types.version import (
            HANDSHAKE_PROTOCOL_VERSIONS,
            LATEST_HANDSHAKE_VERSION,
            LATEST_MODERN_VERSION,
            MODERN_PROTOCOL_VERSIONS,
        )

        sessions = {
            doorcache.LEGACY: _legacy_session(LATEST_HANDSHAKE_VERSION),
            doorcache.MODERN: _modern_session(LATEST_MODERN_VERSION),
        }
        done = _at_once([lambda m=m: _handshake(home, writable, m) for m in sessions.values()])
        if not all(done):
            return False
        cache = frontdoor.Cache(path, frontdoor.cache_key(writable))
        # the SDK answers every version of an era alike: a handshake one by echoing it
        cache.add_versions(doorcache.LEGACY, list(HANDSHAKE_PROTOCOL_VERSIONS))
        cache.add_versions(doorcache.MODERN, list(MODERN_PROTOCOL_VERSIONS))
        cache.mark_primed()  # each request was answered: what is not cached, the SDK answers
        return cache.complete


HELLO = {"name": "memhub-primer", "version": "1"}
# What Claude Code 2.1 listens for; the listen request's stream ends only with the session,
# so the primer waits for its acknowledgement instead of an answer.
LISTENED = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
LISTENER = "listen"


def _legacy_session(version: str) -> list[dict[str, Any]]:
    """initialize, initialized, then every other request the legacy cache answers."""
    hello = {"protocolVersion": version, "capabilities": {}, "clientInfo": HELLO}
    asked = [m for m in doorcache.CACHED[doorcache.LEGACY] if m != "initialize"]
    return [
        {"id": 0, "method": "initialize", "params": hello},
        {"method": "notifications/initialized"},
        *({"id": n, "method": method} for n, method in enumerate(asked, 1)),
    ]


def _modern_session(version: str) -> list[dict[str, Any]]:
    """Every request the modern cache answers, each with its envelope."""
    envelope = {
        frontdoor.VERSION_KEY: version,
        frontdoor.CAPABILITIES_KEY: {},
        "io.modelcontextprotocol/clientInfo": HELLO,
    }
    methods = doorcache.CACHED[doorcache.MODERN]
    listen = {"_meta": envelope, "notifications": LISTENED}
    return [
        {"id": n, "method": method, "params": {"_meta": envelope}}
        for n, method in enumerate(methods)
    ] + [{"id": LISTENER, "method": doorcache.LISTEN, "params": listen}]


def _at_once(jobs: list[Any]) -> list[bool]:
    """Run `jobs` on threads of their own (each waits on a server process); their results."""
    results = [False] * len(jobs)

    def run(n: int) -> None:
        results[n] = bool(jobs[n]())

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _handshake(home: Path, writable: bool, messages: list[dict[str, Any]]) -> bool:
    """Send `messages` to a server, wait until each request is answered, then end it."""
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "mcp", "serve"]
    env = {**os.environ, "MEMHUB_HOME": str(home), frontdoor.PRIMING: "1"}  # no primer of its own
    proc = subprocess.Popen(
        [*argv, "--write"] if writable else argv,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    killer = threading.Timer(TIMEOUT_S, proc.kill)
    killer.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        for message in messages:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        proc.stdin.flush()
        waiting = {m["id"] for m in messages if "id" in m}
        for line in proc.stdout:
            with contextlib.suppress(ValueError, AttributeError, TypeError):
                waiting.discard(_answered(json.loads(line)))
            if not waiting:
                break
        else:
            return False
        proc.stdin.close()
        return proc.wait() == 0
    except (OSError, AttributeError):
        return False
    finally:
        killer.cancel()
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()


def _answered(message: dict[str, Any]) -> Any:
    """The request a line answers: its id, or the listen request it acknowledges."""
    if message.get("method") == doorcache.ACKNOWLEDGED:
        return message["params"]["_meta"][doorcache.SUBSCRIPTION_KEY]
    return message.get("id")


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[bool]:
    """Yield True while holding an exclusive, non-blocking lock on `lock` (False if taken)."""
    try:
        import fcntl
    except ImportError:  # Windows: no lock; two primers at once only do the work twice
        yield True
        return
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def main() -> int:
    home, mode = sys.argv[1], sys.argv[2]
    try:
        return 0 if prime(Path(home), mode == "write") else 1
    except Exception:  # a primer that fails leaves the next server cold, nothing worse
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
