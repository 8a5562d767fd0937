"""Remembered no-op installs: when nothing an install reads has changed, nothing would change.

A plan is a function of the hub's files, the target files and folders, the ownership state,
the environment that places host folders and holds secret values, and memhub's own code.
After a plan finds nothing to do, and after an apply that wrote everything (the next plan
finds nothing to do), this records the stat signature (`hubspec.statsig`) of all of those.
The next plan with the same arguments whose fresh signature matches is that same no-op, so
`memhub diff` and a no-op `memhub apply` answer without loading the hub. Any change to any
input, or a lost memo, means a full plan.

A path changed less than `statsig.RACY_NS` before the memo was taken (what an apply just
wrote) could be rewritten in the same clock tick with the same size and go unseen by its
stat: the memo keeps the digest of its content too, and a recall reads it again until it
is old enough (then the memo is saved without it). Stdlib only; this is the fast path.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import shutil
import stat
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from memhub.hubspec import statsig

MEMO_DIR = Path("cache") / "noop"
# 2: secret values are digested with a keyed hash (version 1 used plain SHA-256).
MEMO_VERSION = 2
# The per-install key of that hash: random, private to the user, never leaves the machine.
KEY_FILE = "key"
KEY_BYTES = 32
# Variables that move every host's folders or memhub's own; each host adds its own.
PLACING_ENV = ("HOME", "MEMHUB_HOME", "XDG_CONFIG_HOME")
_CODE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding compiler/, hubspec/, ...
_CODE_FOLDERS = ("compiler", "hubspec", "runtime", "schemas", "templates")


@dataclass(frozen=True, slots=True)
class Remembered:
    """What a no-op run printed, and its exit code: the same inputs print the same."""

    stdout: str
    stderr: str
    code: int


def memo_key(
    hub_file: Path,
    args: Mapping[str, object],
    env: Mapping[str, str],
    host_env: Iterable[str] = (),
) -> str:
    """Which plan: the hub, the install arguments and the folder-placing environment
    (`host_env`: the variables the chosen hosts' adapters read, see `placing_env`; or
    leave them to `host_checks`, which a recall verifies without loading any adapter)."""
    key = {
        "hub": os.path.abspath(hub_file),
        "args": {k: str(v) for k, v in sorted(args.items())},
        "env": {name: env.get(name) for name in (*PLACING_ENV, *sorted(set(host_env)))},
        # installed hook commands name this interpreter and this code's runtime
        "python": sys.executable,
        "code": os.fspath(_CODE_ROOT),
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def _code_files() -> list[str]:
    """memhub's own modules, schemas and templates, subpackages included: an edit or upgrade
    changes the answer."""
    found: list[str] = []
    for folder in _CODE_FOLDERS:
        for parent, dirs, files in os.walk(_CODE_ROOT / folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            found += (os.path.join(parent, name) for name in files)
    return sorted(found)


def install_key(home: Path) -> bytes | None:
    """This install's random memo key (created 0600 on first use); None when it cannot be
    read or made, and then nothing is remembered.

    A plain hash of the secret values would let anyone who can read a memo test guesses
    of a weak secret offline; keyed, a guess cannot be checked without this file."""
    path = home / MEMO_DIR / KEY_FILE
    try:
        info = os.lstat(path)
        if stat.S_ISREG(info.st_mode) and not info.st_mode & 0o077 and info.st_uid == os.getuid():
            key = path.read_bytes()
            if len(key) == KEY_BYTES:
                return key
    except OSError:
        pass
    key = os.urandom(KEY_BYTES)
    statsig.save_cache(path, key)  # atomic, 0600; a bad or foreign key file is replaced
    try:
        return key if path.read_bytes() == key else None  # another run's key won the race
    except OSError:
        return None


def secrets_digest(names: Iterable[str], env: Mapping[str, str], env_file: Path, key: bytes) -> str:
    """Whether and what each referenced variable holds, as one keyed digest (never the
    values, never a plain hash of them)."""
    digest = hmac.new(key, digestmod=hashlib.sha256)
    with contextlib.suppress(OSError):
        digest.update(env_file.read_bytes())  # small; the .env's text decides its values
    for name in names:
        value = env.get(name)
        digest.update(f"{name}\0{'-' if value is None else value}\n".encode())
    return digest.hexdigest()


def _lstat_signature(info: os.stat_result) -> tuple[str, int]:
    """A file's (or link's) own signature from its lstat."""
    return (
        f"{info.st_mode}\0{info.st_size}\0{info.st_ino}\0{info.st_mtime_ns}\0{info.st_ctime_ns}",
        max(info.st_mtime_ns, info.st_ctime_ns),
    )


def _path_signature(path: str) -> tuple[str, int] | None:
    """One path's signature, None when absent: a folder with its whole listing, else its
    lstat (links on the way are followed by lstat itself). A path that is itself a link
    also signs what it resolves to: an edit of `~/dotfiles/claude.json` behind
    `~/.claude.json` leaves the link's own stat as it was."""
    sig = statsig.tree_signature(path)
    if sig is not None:
        return sig
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    sig = _lstat_signature(info)
    if not stat.S_ISLNK(info.st_mode):
        return sig
    real = os.path.realpath(path)
    behind = statsig.tree_signature(real)
    if behind is None:
        try:
            behind = _lstat_signature(os.lstat(real))
        except OSError:  # dangling, or a loop realpath gave up on
            behind = ("absent", 0)
    return f"{sig[0]}\0{real}\0{behind[0]}", max(sig[1], behind[1])


def _signature(paths: list[str]) -> tuple[str, int, list[str]]:
    """One signature over many paths (each folder with its whole listing, each file alone),
    the newest change in them, and the paths too young for their stat to be trusted."""
    digest = hashlib.sha256()
    newest = 0
    young: list[str] = []
    trusted = time.time_ns() - statsig.RACY_NS
    for path in paths:
        sig = _path_signature(path)
        if sig is None:
            digest.update(f"{path}\0absent\n".encode())
            continue
        digest.update(f"{path}\0{sig[0]}\n".encode("utf-8", "surrogateescape"))
        newest = max(newest, sig[1])
        if sig[1] > trusted:
            young.append(path)
    return digest.hexdigest(), newest, young


def _files(folder: str) -> list[tuple[str, str | None]]:
    """`statsig.listing(folder)` in one walk: each entry's relative path, with its full path
    when it is a regular file (not a link) whose bytes are read, else None."""
    found: list[tuple[str, str | None]] = [("", None)]
    pending = [(folder, "")]
    while pending:
        path, rel = pending.pop()
        with os.scandir(path) as items:
            for item in items:
                name = rel + item.name
                found.append((name, item.path if item.is_file(follow_symlinks=False) else None))
                if item.is_dir(follow_symlinks=False):
                    pending.append((item.path, name + "/"))
    found.sort(key=lambda pair: pair[0])
    return found


def content_digest(path: str, key: bytes) -> str:
    """What a path holds: a file's bytes, a folder's files (by relative path), a link's
    target; `absent` when there is nothing. Read only for paths too young for their stat.
    Keyed with the install's memo key, as the secret values are: a young `.env` must not
    sit in the memo as a plain hash anyone could test guesses against."""
    digest = hmac.new(key, digestmod=hashlib.sha256)
    try:
        if os.path.islink(path):
            digest.update(b"link\0" + os.fsencode(os.readlink(path)) + b"\0")
            path = os.path.realpath(path)
        if os.path.isdir(path):
            for rel, full in _files(path):
                digest.update(os.fsencode(rel) + b"\0")
                if full is not None:
                    with open(full, "rb") as handle:
                        digest.update(handle.read() + b"\0")
        else:
            digest.update(Path(path).read_bytes())
    except FileNotFoundError:
        return "absent"
    except OSError:
        return "unreadable"  # never equal to a digest: the memo is not trusted
    return digest.hexdigest()


def written_digest(content: bytes | Iterable[tuple[str, bytes]], key: bytes) -> str:
    """content_digest of a file (its bytes) or a folder (its files: relative path and
    bytes) as this run wrote it, without reading it back: the listing a folder's digest
    walks is its files and the folders that hold them. A path changed since it was written
    differs from this on the recall's check, which reads the disk, so the memo is then
    simply not used."""
    digest = hmac.new(key, digestmod=hashlib.sha256)
    if isinstance(content, bytes):
        digest.update(content)
        return digest.hexdigest()
    files = dict(content)
    listed = {""} | set(files)
    for rel in files:
        parts = rel.split("/")[:-1]
        listed.update("/".join(parts[: depth + 1]) for depth in range(len(parts)))
    for rel in sorted(listed):
        digest.update(os.fsencode(rel) + b"\0")
        if rel in files:
            digest.update(files[rel] + b"\0")
    return digest.hexdigest()


def host_checks(
    env_names: Iterable[str], executables: Iterable[str], env: Mapping[str, str]
) -> dict[str, dict[str, str | None]]:
    """What chose and placed the hosts: each placing variable's value, and where each host
    CLI is found on PATH (which hosts an apply without --hosts picks)."""
    path = env.get("PATH")
    return {
        "env": {name: env.get(name) for name in sorted(set(env_names))},
        "which": {exe: shutil.which(exe, path=path) for exe in sorted(set(executables))},
    }


def _checks_hold(checks: object, env: Mapping[str, str]) -> bool:
    if checks is None:
        return True
    if not isinstance(checks, dict):
        return False
    now = host_checks(checks.get("env", {}), checks.get("which", {}), env)
    return now == {"env": checks.get("env", {}), "which": checks.get("which", {})}


def _plain_or_absent(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


class NoopMemo:
    """One memo file per plan key under MEMHUB_HOME/cache/noop/."""

    def __init__(self, home: Path, key: str) -> None:
        self.home = home
        self.path = home / MEMO_DIR / f"{key}.json"

    def recall(self, env: Mapping[str, str], env_file: Path) -> Remembered | None:
        """The remembered no-op if every input is as it was, else None (also when the
        .env is there but not a regular file: a FIFO would block the read, and the full
        run refuses it with its reason)."""
        if not _plain_or_absent(env_file):
            return None
        try:
            memo = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(memo, dict) or memo.get("version") != MEMO_VERSION:
            self.forget()  # an older memo may hold an unkeyed digest of secret values
            return None
        key = install_key(self.home)
        if key is None:
            return None
        if not _checks_hold(memo.get("checks"), env):
            return None
        names = memo.get("names", [])
        if not hmac.compare_digest(
            str(memo.get("secrets")), secrets_digest(names, env, env_file, key)
        ):
            return None
        sig = _signature(_code_files() + memo.get("paths", []))
        if sig[0] != memo.get("signature"):
            return None
        racy = memo.get("racy") or {}
        if any(content_digest(path, key) != digest for path, digest in racy.items()):
            return None
        if racy and not sig[2]:  # every path is old enough now: its stat is enough
            statsig.save_cache(self.path, json.dumps({**memo, "racy": {}}).encode("utf-8"))
        return Remembered(memo["stdout"], memo["stderr"], memo["code"])

    def remember(
        self,
        paths: Iterable[str],
        names: Iterable[str],
        env: Mapping[str, str],
        env_file: Path,
        outcome: Remembered,
        checks: dict[str, dict[str, str | None]] | None = None,
        written: Mapping[str, bytes | Iterable[tuple[str, bytes]]] | None = None,
    ) -> None:
        """Record a no-op plan's inputs (best effort), with the content of those too young
        for their stat to be trusted, and the `host_checks` a recall verifies. `written`:
        what this run wrote at some of the paths (see written_digest), not read again."""
        listed = sorted(set(paths))
        key = install_key(self.home)
        if key is None:
            return
        sig = _signature(_code_files() + listed)
        # No second pass to see whether a young path changed while its content was read:
        # a change that moves its stat fails the recall's signature check anyway (which
        # comes before the content check), and one that does not is invisible to a second
        # pass too. At 5,000 skills that pass was 20,000 more folder walks.
        written = written or {}
        racy = {
            path: written_digest(written[path], key)
            if path in written and not os.path.islink(path)
            else content_digest(path, key)
            for path in sig[2]
        }
        names = list(names)
        memo = {
            "version": MEMO_VERSION,
            "signature": sig[0],
            "paths": listed,
            "racy": racy,
            "checks": checks,
            "names": names,
            "secrets": secrets_digest(names, env, env_file, key),
            "stdout": outcome.stdout,
            "stderr": outcome.stderr,
            "code": outcome.code,
        }
        statsig.save_cache(self.path, json.dumps(memo).encode("utf-8"))

    def forget(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
