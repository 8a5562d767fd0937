"""A `memhub mcp serve` whose MCP SDK import waits until the test releases it: what the front
door answers "before the SDK is ready" is then a fact of the test, not a matter of timing.

The hold is a meta-path finder in a sitecustomize on the server's PYTHONPATH: it blocks the
import of `mcp.server` until a file exists.
"""

from __future__ import annotations

import json
import queue
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from memhub.runtime.server import frontdoor, primer

from tests.runtime.server import kit

# What the SDK is held at: the front door itself needs only the top-level package's spec.
GATED = "mcp.server"
# A hang guard only: the gated answers come from the front door in milliseconds; a front door
# that waits for the SDK never answers while it is held, and the test fails on what it got.
WAIT_S = 20.0
SITECUSTOMIZE = """
import os, sys, time
class _Gate:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ.get("MEMHUB_TEST_GATED"):
            gate = os.environ.get("MEMHUB_TEST_SDK_GATE")
            while gate and not os.path.exists(gate):
                time.sleep(0.01)
            sys.meta_path.remove(self)
        return None
sys.meta_path.insert(0, _Gate())
"""


class Gated:
    """`memhub mcp serve --write` whose SDK import waits until `release()`; every line it
    writes is read on a thread and kept, marked with whether the SDK was still held."""

    def __init__(self, folder: Path, tmp: Path, *args: str, gated: str = GATED) -> None:
        site = tmp / "gate-site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
        self.gate = tmp / "sdk-gate"
        env = {**kit.env(), "PYTHONPATH": str(site), "MEMHUB_TEST_SDK_GATE": str(self.gate)}
        env["MEMHUB_TEST_GATED"] = gated  # the import held: the SDK's, or another
        env[frontdoor.PRIMING] = "1"  # no detached primer: the test primes when it wants one
        self.process = subprocess.Popen(
            [kit.MEMHUB, "mcp", "serve", *(args or ("--write",))],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.released = False
        self.answers: dict[Any, tuple[dict[str, Any], bool]] = {}  # id -> (line, while held)
        self.notes: list[tuple[dict[str, Any], bool]] = []  # notifications, (line, while held)
        self._lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(json.loads(line))
        self._lines.put(None)

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        for message in messages:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def wait(self, *rids: Any) -> dict[Any, dict[str, Any]]:
        """The answers to `rids` (as many as come within the hang guard)."""
        while any(rid not in self.answers for rid in rids):
            try:
                line = self._lines.get(timeout=WAIT_S)
            except queue.Empty:
                break
            if line is None:
                break
            if "id" in line:
                self.answers[line["id"]] = (line, not self.released)
            else:
                self.notes.append((line, not self.released))
        return {rid: self.answers[rid][0] for rid in rids if rid in self.answers}

    def notified(self, method: str) -> list[tuple[dict[str, Any], bool]]:
        """The notifications `method` seen so far (waiting for the first within the guard)."""
        while not any(line["method"] == method for line, _ in self.notes):
            try:
                line = self._lines.get(timeout=WAIT_S)
            except queue.Empty:
                break
            if line is None:
                break
            if "id" in line:
                self.answers[line["id"]] = (line, not self.released)
            else:
                self.notes.append((line, not self.released))
        return [(line, held) for line, held in self.notes if line["method"] == method]

    def held(self, *rids: Any) -> list[Any]:
        """Which of `rids` were answered while the SDK was still held."""
        return [rid for rid in rids if rid in self.answers and self.answers[rid][1]]

    def release(self) -> None:
        self.released = True
        self.gate.write_text("go")

    def close(self) -> None:
        if not self.released:
            self.release()
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_PRIMED: dict[bool, bytes] = {}


def prime(writable: bool = True) -> None:
    """The handshake cache as `memhub apply` leaves it (primer.prime), in this test's home:
    primed once per test process (the cache key is the same in every home), then copied."""
    if writable not in _PRIMED:
        with tempfile.TemporaryDirectory() as scratch:
            home = Path(scratch)
            assert primer.prime(home, writable), "the primer failed"
            _PRIMED[writable] = frontdoor.cache_file(home, writable).read_bytes()
    path = frontdoor.cache_file(kit.home(), writable)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_PRIMED[writable])
