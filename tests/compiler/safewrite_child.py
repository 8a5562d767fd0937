"""Scenario and subprocess driver for the safewrite crash, fault and concurrency tests.

Imported by test_safewrite.py for the scenario; run as a script for a real child process:

    safewrite_child.py kill K HOME ROOT [apply|undo|restore]   SIGKILL itself before op K
    safewrite_child.py count HOME ROOT [apply|undo|restore]    print how many ops a run makes
    safewrite_child.py concurrent HOME DIR INDEX ROUNDS        one of the eight writers
    safewrite_child.py hold HOME                               hold the lock until stdin closes
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memhub.compiler.safewrite import durable, fsops, journal
from memhub.compiler.safewrite.errors import WriteError
from memhub.compiler.safewrite.lock import operation_lock
from memhub.compiler.safewrite.recovery import recover
from memhub.compiler.safewrite.restore import restore_originals
from memhub.compiler.safewrite.transaction import Transaction
from memhub.compiler.safewrite.undo import undo_last

# -- the scenario: a home-like folder, one earlier apply, and an apply touching 11 targets --

SEED: dict[str, tuple[bytes, int]] = {
    ".claude.json": (
        b'{\n  "numStartups": 3,\n  "mcpServers": {"mine": {"command": "x"}}\n}\n',
        0o600,
    ),
    ".codex/config.toml": (b'# my codex config\nmodel = "o3"\n\n[tui]\ntheme = "dark"\n', 0o644),
    "bin/hook.sh": (b"#!/bin/sh\necho original\n", 0o755),
    "notes.md": (b"# personal notes\n", 0o644),
    ".claude/skills/alpha/SKILL.md": (b"---\nname: alpha\n---\noriginal\n", 0o644),
    ".claude/skills/alpha/run.sh": (b"#!/bin/sh\necho alpha\n", 0o755),
    ".claude/skills/old/SKILL.md": (b"---\nname: old\n---\n", 0o644),
    "private/secret.env": (b"TOKEN_REF=${env:TOKEN}\n", 0o600),
}
PRIVATE_DIRS = ["private"]
REPLACED_TREES = [".claude/skills/alpha"]

TARGETS = [
    ".claude.json",
    ".codex/config.toml",
    "bin/hook.sh",
    "notes.md",
    ".claude/skills/alpha",
    ".claude/skills/beta",
    ".claude/skills/old",
    ".gemini/settings.json",
    "private/secret.env",
    "AGENTS.md",
    "deep/a/b/c.txt",
]


def seed(root: Path) -> None:
    """Write the original state (what the user had before memhub)."""
    for rel, (data, mode) in SEED.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        os.chmod(path, mode)
    for rel in PRIVATE_DIRS:
        os.chmod(root / rel, 0o700)


def add_key(key: str, value: Any) -> Callable[[bytes | None], bytes]:
    """A merge that sets one top-level JSON key and keeps everything else."""

    def merge(current: bytes | None) -> bytes:
        data = json.loads(current) if current else {}
        data[key] = value
        return (json.dumps(data, indent=2) + "\n").encode()

    return merge


def apply_one(tx: Transaction, root: Path) -> None:
    """The earlier, committed apply."""
    tx.write_merged(root / ".claude.json", add_key("one", 1))
    tx.write(root / ".codex/config.toml", SEED[".codex/config.toml"][0] + b"\n[mcp_servers.a]\n")
    tx.write(root / "bin/hook.sh", b"#!/bin/sh\necho one\n")
    tx.write_tree(
        root / ".claude/skills/alpha",
        {"SKILL.md": (b"---\nname: alpha\n---\none\n", 0o644), "run.sh": (b"#!/bin/sh\n", 0o755)},
    )
    tx.write(root / "AGENTS.md", b"# agents v1\n")


def apply_two(tx: Transaction, root: Path) -> None:
    """The apply under test: 11 targets, existing and new, files and folders."""
    tx.write_merged(root / ".claude.json", add_key("two", 2))
    tx.write(root / ".codex/config.toml", SEED[".codex/config.toml"][0] + b"\n[mcp_servers.b]\n")
    tx.write(root / "bin/hook.sh", b"#!/bin/sh\necho two\n")
    tx.delete(root / "notes.md")
    tx.write_tree(
        root / ".claude/skills/alpha",
        {
            "SKILL.md": (b"---\nname: alpha\n---\ntwo\n", 0o644),
            "scripts/go.sh": (b"#!/bin/sh\necho go\n", 0o755),
        },
    )
    tx.write_tree(
        root / ".claude/skills/beta",
        {"SKILL.md": (b"---\nname: beta\n---\n", 0o644), "ref/a.md": (b"a\n", 0o644)},
    )
    tx.delete_tree(root / ".claude/skills/old")
    tx.write(root / ".gemini/settings.json", b'{"mcpServers": {"b": {}}}\n')
    tx.write(root / "private/secret.env", b"TOKEN_REF=${env:TOKEN}\nMORE=1\n")
    tx.write(root / "AGENTS.md", b"# agents v2\n")
    tx.write(root / "deep/a/b/c.txt", b"deep\n")


def run_apply(home: Path, root: Path, apply: Callable[[Transaction, Path], None]) -> None:
    """One apply: lock, transaction, changes."""
    with operation_lock(home), Transaction(home, command="apply") as tx:
        apply(tx, root)


def prepare(home: Path, root: Path, *, second: bool = False) -> None:
    """Seed `root` and commit apply one (and apply two when `second`)."""
    root.mkdir(parents=True, exist_ok=True)
    seed(root)
    run_apply(home, root, apply_one)
    if second:
        run_apply(home, root, apply_two)


Snapshot = dict[str, tuple[Any, ...]]


def snapshot(root: Path) -> Snapshot:
    """Every entry under `root`: folders with modes, files with bytes and modes, links."""
    found: Snapshot = {}
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            full = Path(base) / name
            rel = full.relative_to(root).as_posix()
            info = full.lstat()
            if stat.S_ISLNK(info.st_mode):
                found[rel] = ("link", os.readlink(full))
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = ("dir", stat.S_IMODE(info.st_mode))
            else:
                found[rel] = ("file", full.read_bytes(), stat.S_IMODE(info.st_mode))
    return found


def target_state(snap: Snapshot, rel: str) -> Snapshot:
    """The part of a snapshot at or under one target."""
    return {k: v for k, v in snap.items() if k == rel or k.startswith(rel + "/")}


# -- fault points: every call that changes a file system ------------------------------------

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


ALL_POINTS = frozenset(
    {"write", "replace", "rename", "unlink", "rmdir", "mkdir", "chmod", "fchmod", "fsync"}
    | {"open", "exchange", "syncfs"}
)
NO_FSYNC = ALL_POINTS - {"fsync", "syncfs"}
WRITES = NO_FSYNC - {"chmod", "fchmod"}


@contextlib.contextmanager
def faults(
    at: Callable[[int, str], None], points: frozenset[str] = ALL_POINTS
) -> Iterator[list[str]]:
    """Call `at(n, name)` before every file-system-changing call in `points`; yields them."""
    calls: list[str] = []
    originals: dict[str, Any] = {}

    def wrap(name: str, real: Callable[..., Any], counts: Callable[..., bool]) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if counts(*args, **kwargs):
                calls.append(name)
                at(len(calls), name)
            return real(*args, **kwargs)

        return wrapper

    def always(*_: Any, **__: Any) -> bool:
        return True

    def writes(_path: Any, flags: int, *_: Any, **__: Any) -> bool:
        return bool(flags & _WRITE_FLAGS)

    def never(*_: Any, **__: Any) -> bool:
        return False

    for name in sorted(ALL_POINTS - {"exchange", "syncfs"}):
        test = never if name not in points else writes if name == "open" else always
        originals[name] = getattr(os, name)
        setattr(os, name, wrap(name, originals[name], test))
    real_exchange, real_syncfs = fsops._exchange, durable._syncfs
    fsops._exchange = wrap("exchange", real_exchange, always if "exchange" in points else never)
    durable._syncfs = wrap("syncfs", real_syncfs, always if "syncfs" in points else never)
    try:
        yield calls
    finally:
        for name, real in originals.items():
            setattr(os, name, real)
        fsops._exchange, durable._syncfs = real_exchange, real_syncfs


def operation(kind: str) -> Callable[[Path, Path], Any]:
    """What the child runs under faults: apply two, an undo, or a restore."""
    if kind == "apply":
        return lambda home, root: run_apply(home, root, apply_two)
    if kind == "undo":
        return lambda home, root: undo_last(home)
    return lambda home, root: restore_originals(home)


def _kill_at(step: int) -> Callable[[int, str], None]:
    """A fault that SIGKILLs this process just before call number `step`."""

    def at(n: int, _name: str) -> None:
        if n == step:
            os.kill(os.getpid(), signal.SIGKILL)

    return at


# -- one crash or fault case, run in a pool worker -----------------------------------------

# kind -> (state before, state after a completed run); states are names of reference snapshots
BEFORE_AFTER = {"apply": ("one", "two"), "undo": ("two", "one"), "restore": ("two", "seed")}
# kind -> recovery tool -> the state it must reach after a crash of that kind
AFTER_CRASH = {
    "apply": {"recover": "one", "recover+undo": "seed", "undo": "seed", "restore": "seed"},
    "undo": {"recover": "two", "recover+undo": "one", "undo": "one", "restore": "seed"},
    "restore": {"recover": "two", "recover+undo": "one", "undo": "one", "restore": "seed"},
}
# kind -> the state `undo_last` reaches after a completed run of that kind
UNDO_AFTER = {"apply": "one", "undo": "seed", "restore": "two"}


def references(base: Path) -> dict[str, Snapshot]:
    """Snapshots of the scenario's states: seed, after apply one, after apply two."""
    home, root = base / "home", base / "root"
    root.mkdir(parents=True)
    seed(root)
    refs = {"seed": snapshot(root)}
    run_apply(home, root, apply_one)
    refs["one"] = snapshot(root)
    run_apply(home, root, apply_two)
    refs["two"] = snapshot(root)
    return refs


def call_names(base: Path, kind: str, points: frozenset[str]) -> list[str]:
    """The fault points a clean run of `kind` passes, in order."""
    home, root = base / "home", base / "root"
    prepare(home, root, second=kind != "apply")
    with operation_lock(home), faults(lambda n, name: None, points) as calls:
        operation(kind)(home, root)
    return calls


def count_calls(base: Path, kind: str, points: frozenset[str]) -> int:
    """How many fault points a clean run of `kind` passes."""
    return len(call_names(base, kind, points))


def is_temp(rel: str) -> bool:
    """Whether a path is (inside) one of memhub's temp, staging or set-aside copies."""
    return any(".memhub-" in part for part in rel.split("/"))


def whole_problems(snap: Snapshot, old: Snapshot, new: Snapshot) -> list[str]:
    """Targets neither wholly old nor wholly new, and other entries that are neither."""
    problems = []
    for rel in TARGETS:
        now = target_state(snap, rel)
        if not now and rel in REPLACED_TREES and fsops.renameat2_fn() is None:
            continue  # without renameat2 a folder swap is two renames; recover completes it
        if now not in (target_state(old, rel), target_state(new, rel)):
            problems.append(f"{rel} is half written: {sorted(now)}")

    def outside(rel: str) -> bool:
        return not is_temp(rel) and not any(rel == t or rel.startswith(t + "/") for t in TARGETS)

    for rel in filter(outside, snap):
        if snap[rel] != old.get(rel) and snap[rel] != new.get(rel):
            problems.append(f"{rel} changed: {snap[rel]!r:.80}")
    for rel in filter(outside, old):
        if rel not in snap and rel in new:
            problems.append(f"{rel} vanished")
    return problems


def open_journals(home: Path) -> list[str]:
    """Journals whose run still needs rolling back."""
    return [p.name for p in journal.journal_paths(home) if journal.is_open(p)]


def _forked(fn: Callable[[], None]) -> int:
    """Run `fn` in a forked child process; its wait status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 70
        try:
            fn()
            code = 0
        finally:
            os._exit(code)
    return os.waitpid(pid, 0)[1]


def fail_at_steps(steps: set[int]) -> Callable[[int, str], None]:
    """A fault that raises EIO at each call numbered in `steps`."""

    def at(n: int, name: str) -> None:
        if n in steps:
            raise OSError(5, f"injected failure of os.{name} (call {n})")

    return at


def _fail_at(step: int, sticky: bool) -> Callable[[int, str], None]:
    """A fault that raises EIO at call number `step` (and after it, when `sticky`)."""

    def at(n: int, name: str) -> None:
        if n == step or (sticky and n > step):
            raise OSError(5, f"injected failure of os.{name} (call {n})")

    return at


def crash_task(
    task: tuple[str, str, int, str, dict[str, Snapshot], frozenset[str]],
) -> tuple[bool, list[str]]:
    """One case: `mode` kill|fault|sticky of a `kind` run at call `step`.

    Returns whether the run completed (the step was past its last call) and the problems;
    an exception is a problem too (raised in a pool worker it could hang the pool).
    """
    try:
        return _crash_case(*task)
    except Exception as err:
        mode, kind, step = task[:3]
        return False, [f"{mode} {kind} at call {step}: {type(err).__name__}: {err}"]


def _crash_case(
    mode: str,
    kind: str,
    step: int,
    base: str,
    refs: dict[str, Snapshot],
    points: frozenset[str],
) -> tuple[bool, list[str]]:
    """The body of `crash_task`."""
    os.fsync = lambda fd: None  # SIGKILL and raised errors do not exercise fsync; speed
    durable._syncfs = lambda fd: None
    home, root = Path(base) / "home", Path(base) / "root"
    prepare(home, root, second=kind != "apply")
    old, new = (refs[name] for name in BEFORE_AFTER[kind])
    problems: list[str] = []
    where = f"{mode} {kind} at call {step}: "

    def expect(name: str, label: str) -> None:
        snap = snapshot(root)
        if snap != refs[name]:
            diff = sorted(
                k for k in set(snap) | set(refs[name]) if snap.get(k) != refs[name].get(k)
            )
            problems.append(f"{where}{label}: not the {name} state; differs at {diff}")

    if mode == "kill":

        def victim() -> None:
            with operation_lock(home), faults(_kill_at(step), points):
                operation(kind)(home, root)

        status = _forked(victim)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            expect(BEFORE_AFTER[kind][1], "completed run")
            undo_last(home)
            expect(UNDO_AFTER[kind], "undo after the completed run")
            return True, problems
        if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
            return False, [f"{where}child ended with status {status}, not SIGKILL"]
        problems += [where + p for p in whole_problems(snapshot(root), old, new)]
        tool = ["recover+undo", "undo", "restore"][step % 3]
        if tool == "recover+undo":
            recover(home)
            expect(AFTER_CRASH[kind]["recover"], "recover")
            undo_last(home)
        elif tool == "undo":
            undo_last(home)
        else:
            restore_originals(home)
        expect(AFTER_CRASH[kind][tool], tool)
    else:
        error: BaseException | None = None
        with operation_lock(home), faults(_fail_at(step, mode == "sticky"), points):
            try:
                operation(kind)(home, root)
            except Exception as err:
                error = err
        if error is None:
            expect(BEFORE_AFTER[kind][1], "run with no failure left")
            return True, problems
        if not isinstance(error, WriteError):
            problems.append(f"{where}raised {type(error).__name__}: {error}")
        if mode == "sticky":
            problems += [where + p for p in whole_problems(snapshot(root), old, new)]
            recover(home)
            # A commit record can land although its fsync failed and nothing after it could
            # be written: then the run is committed, and wholly new.
            last = journal.Journal.load(journal.journal_paths(home)[-1])
            if snapshot(root) == new and last.state == "committed" and last.command == kind:
                return False, problems
        expect(BEFORE_AFTER[kind][0], "after the failure")
        if open_journals(home):
            problems.append(f"{where}journals left open: {open_journals(home)}")
        if step % 10 == 0:
            operation(kind)(home, root)
            expect(BEFORE_AFTER[kind][1], "the same run again")
            restore_originals(home)
            expect("seed", "restore --originals")
    return False, problems


def main(argv: list[str]) -> int:
    """Run one child role."""
    role = argv[0]
    if role in ("kill", "count"):
        step, rest = (int(argv[1]), argv[2:]) if role == "kill" else (0, argv[1:])
        home, root, kind = Path(rest[0]), Path(rest[1]), rest[2] if len(rest) > 2 else "apply"
        with operation_lock(home):
            with faults(_kill_at(step), NO_FSYNC) as calls:
                operation(kind)(home, root)
            print(len(calls), flush=True)
        return 0
    if role == "concurrent":
        home, folder, index, rounds = Path(argv[1]), Path(argv[2]), int(argv[3]), int(argv[4])
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        sys.stdin.readline()
        own = folder / f"own-{index}.txt"
        for number in range(rounds):

            def merge(current: bytes | None, key: str = f"p{index}-r{number}") -> bytes:
                time.sleep(0.002)  # widen the read-modify-write window
                return add_key(key, os.getpid())(current)

            with operation_lock(home, timeout=120), Transaction(home) as tx:
                tx.write_merged(folder / "shared.json", merge)
                before = own.read_bytes() if own.exists() else b""
                tx.write(own, before + f"round {number}\n".encode())
                # Only the lock keeps this read-then-write consistent across processes.
                counter = folder / "counter.txt"
                seen = fsops.fingerprint(counter)
                count = int(counter.read_text()) if counter.exists() else 0
                time.sleep(0.002)
                tx.write(counter, b"%d\n" % (count + 1), expect=seen)
        return 0
    if role == "hold":
        with operation_lock(Path(argv[1])):
            print("locked", flush=True)
            sys.stdin.read()
        return 0
    raise SystemExit(f"unknown role {role}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
