"""Where the MCP server's tool calls run: read-only tools on a few reader threads, every other
tool on one writer thread in arrival order.

A call never waits behind another's I/O unless both write: a search over a huge record or a
slow disk keeps one reader busy while `list_orgs`, `get_memory` and the rest are answered by
the others (and the event loop keeps reading requests meanwhile). Writes stay one at a time
in this process (and, across processes, under the operation lock). Threads start when a call
finds none idle, up to each lane's size; SQLite connections stay on the thread that opened
them, and every thread closes its own (`release`) when the server stops.
"""

from __future__ import annotations

import asyncio
import queue
import sys
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

__all__ = ["READERS", "Lane", "Worker"]

READERS = 4  # read-only calls at once; past that a read waits for a reader to be free

_Job = tuple[Future[Any], Callable[[], Any]] | None


class Lane:
    """Up to `size` threads taking jobs from one queue, in arrival order."""

    def __init__(self, name: str, size: int, release: Callable[[], None]) -> None:
        self.name, self.size, self.release = name, size, release
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = threading.Semaphore(0)  # one token per thread free for the next job
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        """Run `fn` on one of the lane's threads; its future."""
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError(f"{self.name} is closed")
            if not self._idle.acquire(blocking=False) and len(self._threads) < self.size:
                thread = threading.Thread(
                    target=self._serve, name=f"{self.name}-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            self._jobs.put((future, fn))
        return future

    def _serve(self) -> None:
        try:
            while True:
                job = self._jobs.get()
                if job is None:
                    return
                future, fn = job
                if not future.set_running_or_notify_cancel():
                    self._idle.release()
                    continue
                try:
                    value = fn()
                except BaseException as exc:  # the caller's to report
                    self._idle.release()  # free before the caller hears: its next call reuses us
                    future.set_exception(exc)
                else:
                    self._idle.release()
                    future.set_result(value)
        finally:
            _quietly(self.release)  # this thread's connections, on this thread

    def close(self) -> None:
        """Finish the queued jobs, then stop every thread (each releasing its own)."""
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        for _ in threads:
            self._jobs.put(None)
        for thread in threads:
            thread.join()


class Worker:
    """The server's two lanes: `run` a tool call, `call`/`soon` setup on the writer thread."""

    def __init__(self, release: Callable[[], None] = lambda: None, readers: int = READERS) -> None:
        self._release = release
        self.writer = Lane("memhub-mcp-write", 1, self._released)
        self.readers = Lane("memhub-mcp-read", readers, self._released)

    def _released(self) -> None:
        self._release()

    def releasing(self, release: Callable[[], None]) -> None:
        """What each thread runs as it stops (the service's per-thread index connection)."""
        self._release = release

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run `fn` on the writer thread and wait (for setup, before the event loop runs)."""
        return self.writer.submit(fn).result()

    def soon(self, fn: Callable[[], Any]) -> None:
        """Run `fn` on the writer thread ahead of any call, without waiting."""
        self.writer.submit(lambda: _quietly(fn))

    async def run(self, fn: Callable[[], Any], *, read_only: bool = False) -> Any:
        """`fn` on a reader thread (read-only tools) or the writer thread (all others)."""
        lane = self.readers if read_only else self.writer
        return await asyncio.wrap_future(lane.submit(fn))

    def close(self) -> None:
        self.readers.close()
        self.writer.close()


def _quietly(fn: Callable[[], Any]) -> None:
    try:
        fn()
    except Exception:  # the first call meets the same problem and reports it as a tool error
        traceback.print_exc(file=sys.stderr)
