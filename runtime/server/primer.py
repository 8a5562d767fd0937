"""Fill the handshake cache of `memhub mcp serve` (frontdoor.py) from a detached process.

A cold server learns the SDK's answers only once the SDK has loaded, about a second in, and
hosts kill their servers without a word when a session ends (Codex 0.171 sends SIGKILL): a
short session leaves no cache, and the next is cold again. So a cold server starts this
primer in a session of its own. It runs one more server (with the primer's mark, so that one
starts no primer), holds the handshake open until the SDK has answered, and adds the
protocol versions the SDK answers by echoing them. One primer at a time per cache file.

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

from . import frontdoor

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
    """Run one server through the handshake so that its front door saves the cache; then add
    the SDK's echoed versions. False when another primer holds the lock or it failed."""
    path = frontdoor.cache_file(home, writable)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(path.with_name(path.name + ".lock")) as mine:
        if not mine:
            return False
        if frontdoor.Cache(path, frontdoor.cache_key(writable)).complete:
            return True  # another primer, or a server that lived long enough, was first
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

        if not _handshake(writable, LATEST_HANDSHAKE_VERSION):
            return False
        cache = frontdoor.Cache(path, frontdoor.cache_key(writable))
        if cache.init:
            cache.add_versions(list(HANDSHAKE_PROTOCOL_VERSIONS))
            cache.save()
        return cache.complete


def _handshake(writable: bool, version: str) -> bool:
    """initialize, initialized, tools/list and a ping, each answered, then the end."""
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "mcp", "serve"]
    proc = subprocess.Popen(
        [*argv, "--write"] if writable else argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    killer = threading.Timer(TIMEOUT_S, proc.kill)
    killer.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        hello = {"protocolVersion": version, "capabilities": {},
                 "clientInfo": {"name": "memhub-primer", "version": "1"}}  # fmt: skip
        for message in (
            {"id": 1, "method": "initialize", "params": hello},
            {"method": "notifications/initialized"},
            {"id": 2, "method": "tools/list"},
            {"id": 3, "method": "ping"},  # answered after the list: the SDK is through
        ):
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        proc.stdin.flush()
        for line in proc.stdout:
            with contextlib.suppress(ValueError):
                if json.loads(line).get("id") == 3:
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
