"""The handshake cache of the stdio front door (frontdoor.py): the SDK's own answers to what a
client asks before the SDK has loaded, kept per protocol era.

An MCP connection lives in one of two eras, which the SDK picks from the client's first
request: the legacy one opens with `initialize`, the modern one (2026-07-28) with any request
carrying the per-request `_meta` envelope (Claude Code opens with `server/discover`). The two
answer the same method differently (a modern result carries `resultType`, `ttlMs` and the
server's identity in `_meta`), so each era keeps its own answers and the protocol versions
they hold for. A served connection only ever gets the answers of its own era.

The file is written by several processes (a server, the primer's two servers, one per era):
each writes the eras it learnt and keeps the others as the file has them, under a lock.
Stdlib only: this runs before the SDK is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

LEGACY, MODERN = "legacy", "modern"
ERAS = (LEGACY, MODERN)
OPENING = {LEGACY: "initialize", MODERN: "server/discover"}
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
# What each era's cache answers: the opening, the lists (first page), a legacy ping. A modern
# ping is no method at all for the SDK: it waits for the SDK's own refusal.
CACHED: dict[str, tuple[str, ...]] = {
    LEGACY: ("initialize", *LISTS, "ping"),
    MODERN: ("server/discover", *LISTS),
}
# A modern client opens its notification stream with this long-lived request and waits for the
# stream's first frame, an acknowledgement naming what it will deliver (Claude Code 2.1 asks
# for the three list changes): the cache keeps the SDK's acknowledgement per filter asked.
LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
SUBSCRIPTION_KEY = "io.modelcontextprotocol/subscriptionId"
MAX_CACHE_BYTES = 1 << 20
SDK_PACKAGES = ("mcp", "mcp_types")


def key_sources() -> list[str]:
    """The modules the answers are made of: every module of the server package, so that a
    tool added in a module of its own changes the key too."""
    return sorted(p.name for p in Path(__file__).parent.glob("*.py"))


def cache_key(writable: bool) -> str:
    """A digest of what the answers depend on: our server's sources, the installed SDK (its
    files' sizes and times) and whether the write tools are served."""
    h = hashlib.blake2b(digest_size=16)
    h.update(b"write" if writable else b"read")
    here = Path(__file__).parent
    for name in key_sources():
        h.update(name.encode() + b"\0" + (here / name).read_bytes())
    for package in SDK_PACKAGES:
        spec = importlib.util.find_spec(package)
        origin = spec.origin if spec is not None else None
        info = os.stat(origin) if origin else None
        h.update(f"{package}:{origin}:{info and info.st_size}:{info and info.st_mtime_ns}".encode())
    return h.hexdigest()


def cache_file(home: Path, writable: bool) -> Path:
    return home / "cache" / f"mcp-handshake-{'write' if writable else 'read'}.json"


class Era:
    """One era's answers (method -> the SDK's result; `initialize` without the version it
    echoes) and the protocol versions they hold for."""

    def __init__(self, stored: Any = None) -> None:
        stored = stored if isinstance(stored, dict) else {}
        versions, answers = stored.get("versions"), stored.get("answers")
        self.versions = (
            [v for v in versions if isinstance(v, str)] if isinstance(versions, list) else []
        )
        self.answers: dict[str, Any] = (
            {m: a for m, a in answers.items() if isinstance(a, dict)} if isinstance(answers, dict) else {}
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {"versions": self.versions, "answers": self.answers}


class Cache:
    """The SDK's answers of both eras, for one cache file and key."""

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        self.eras, self.primed = self._stored()
        self.dirty: set[str] = set()

    def _stored(self) -> tuple[dict[str, Era], bool]:
        stored = _load(self.path)
        if not isinstance(stored, dict) or stored.get("key") != self.key:
            stored = {}
        return {era: Era(stored.get(era)) for era in ERAS}, stored.get("primed") is True

    @property
    def complete(self) -> bool:
        """Whether there is nothing left to prime: every era answers everything it caches,
        or a primer asked it all (what this SDK does not answer, it answers itself)."""
        return self.primed or (
            all(
                self.eras[era].versions and all(m in self.eras[era].answers for m in CACHED[era])
                for era in ERAS
            )
            and bool(self.eras[MODERN].answers.get(LISTEN))
        )

    def mark_primed(self) -> None:
        """A primer asked everything: no server starts another for this key."""
        self.primed = True
        self.dirty.add("primed")
        self.save()

    def answer(self, era: str, method: str, version: Any) -> dict[str, Any] | None:
        """The SDK's result for `method` in a connection of `era` at `version`, when known."""
        held = self.eras[era]
        result = held.answers.get(method)
        if result is None or not isinstance(version, str) or version not in held.versions:
            return None
        if method == "initialize":
            return {"protocolVersion": version, **result}
        return result

    def learn(self, era: str, method: str, version: Any, result: Any) -> None:
        """Keep a result the SDK gave; a new or different one is saved at once (hosts end
        their servers with a signal, so there may be no later)."""
        if not isinstance(result, dict) or method not in CACHED[era]:
            return
        held = self.eras[era]
        answer = {k: v for k, v in result.items() if k != "protocolVersion"}
        if method == OPENING[era]:
            if held.answers.get(method) != answer:  # another server: nothing else holds
                held.answers, held.versions = {method: answer}, []
                self.dirty.add(era)
            echoed = result.get("protocolVersion", version) if era == LEGACY else version
            if isinstance(version, str) and echoed == version:
                self.add_versions(era, [version])
        elif held.answers.get(method) != result:
            held.answers[method] = result
            self.dirty.add(era)
        self.save()

    def acknowledgement(self, version: Any, asked: Any) -> dict[str, Any] | None:
        """What the SDK's acknowledgement of a listen request asking for `asked` names."""
        held = self.eras[MODERN]
        if not isinstance(version, str) or version not in held.versions:
            return None
        found = held.answers.get(LISTEN, {}).get(_filter_key(asked))
        return found if isinstance(found, dict) else None

    def learn_acknowledgement(self, asked: Any, honored: Any) -> None:
        """Keep what the SDK acknowledged for a listen request asking for `asked`."""
        held = self.eras[MODERN]
        if not isinstance(honored, dict) or OPENING[MODERN] not in held.answers:
            return
        acks = held.answers.setdefault(LISTEN, {})
        if acks.get(_filter_key(asked)) != honored:
            acks[_filter_key(asked)] = honored
            self.dirty.add(MODERN)
            self.save()

    def add_versions(self, era: str, versions: list[str]) -> None:
        """Versions the era's answers hold for (ones the SDK answered, or answers alike)."""
        held = self.eras[era]
        new = [v for v in versions if v not in held.versions]
        if new and OPENING[era] in held.answers:
            held.versions = [*held.versions, *new]
            self.dirty.add(era)

    def save(self) -> None:
        """Write the eras learnt here, keeping the others as the file has them now."""
        mine = {era for era in ERAS if era in self.dirty and OPENING[era] in self.eras[era].answers}
        if not mine and "primed" not in self.dirty:
            return
        with contextlib.suppress(OSError):  # a cache that cannot be written is only slower
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _locked(self.path.with_name(self.path.name + ".write-lock")):
                on_disk, primed = self._stored()
                eras = {era: (self.eras[era] if era in mine else on_disk[era]) for era in ERAS}
                data = {era: eras[era].to_json() for era in ERAS}
                _write(self.path, {"key": self.key, "primed": self.primed or primed, **data})
                self.eras, self.primed = eras, self.primed or primed
                self.dirty -= {*mine, "primed"}


def _filter_key(asked: Any) -> str:
    return json.dumps(asked, sort_keys=True, separators=(",", ":"))


def _write(path: Path, data: dict[str, Any]) -> None:
    import tempfile  # here: a server's start is on the clock, a save is not

    fd, tmp = tempfile.mkstemp(prefix=".handshake-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, separators=(",", ":"))
        os.replace(tmp, path)  # a symlink in its place is replaced, not followed
    except OSError:
        os.unlink(tmp)
        raise


@contextlib.contextmanager
def _locked(lock: Path) -> Iterator[None]:
    """Hold an exclusive lock on `lock` (a few microseconds: one read and one write)."""
    try:
        import fcntl
    except ImportError:  # Windows: two writers at once may drop one era, which is relearnt
        yield
        return
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


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
