"""Ownership state: which entries of which files memhub wrote, for which hub.

One JSON file under MEMHUB_HOME. An entry is owned when the state names it; apply may
replace or remove only owned entries, and drift is an owned entry whose digest changed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.hubspec.errors import MemhubError

STATE_FILE = "state.json"
STATE_VERSION = 1


def memhub_home(env: dict[str, str] | None = None) -> Path:
    """MEMHUB_HOME, else ~/.memhub."""
    source = os.environ if env is None else env
    configured = source.get("MEMHUB_HOME")
    return Path(configured) if configured else Path(source.get("HOME") or Path.home()) / ".memhub"


@dataclass(frozen=True, slots=True)
class Owned:
    """One owned entry: the hub that owns it, its host, the digest memhub wrote, and the
    scope it was installed for (`user`, or `project:<folder>`)."""

    hub: str
    host: str
    digest: str
    scope: str = "user"


@dataclass(slots=True)
class State:
    """target path -> entry key -> Owned."""

    targets: dict[str, dict[str, Owned]] = field(default_factory=dict)

    @classmethod
    def load(cls, home: Path) -> State:
        path = home / STATE_FILE
        if not path.is_file():
            return cls()
        try:
            return cls.from_bytes(path.read_bytes())
        except (OSError, ValueError, TypeError) as exc:
            raise MemhubError(
                f"{path}: unreadable memhub state ({exc}). Fix: restore it from "
                f"{home / 'recovery'} or move it aside to start over"
            ) from None

    @classmethod
    def from_bytes(cls, data: bytes) -> State:
        raw = json.loads(data.decode("utf-8"))
        _check_shape(raw)
        targets = {
            target: {key: Owned(**owned) for key, owned in entries.items()}
            for target, entries in raw.get("targets", {}).items()
        }
        return cls(targets)

    def to_bytes(self) -> bytes:
        data: dict[str, Any] = {
            "version": STATE_VERSION,
            "targets": {
                target: {
                    key: {"hub": o.hub, "host": o.host, "digest": o.digest, "scope": o.scope}
                    for key, o in sorted(entries.items())
                }
                for target, entries in sorted(self.targets.items())
                if entries
            },
        }
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    def same_entries(self, other: State) -> bool:
        """Whether both record the same owned entries (what to_bytes would write alike)."""
        return {t: e for t, e in self.targets.items() if e} == {
            t: e for t, e in other.targets.items() if e
        }

    def owner(self, target: str, key: str) -> Owned | None:
        return self.targets.get(target, {}).get(key)

    def owned_by(self, hub: str, hosts: tuple[str, ...], scope: str) -> dict[str, dict[str, Owned]]:
        """The entries this hub owns on these hosts in this scope, by target (shared ones
        only when every host sharing them is among `hosts`)."""
        found: dict[str, dict[str, Owned]] = {}
        for target, entries in self.targets.items():
            mine = {
                k: o
                for k, o in entries.items()
                if o.hub == hub and o.scope == scope and set(o.host.split(",")) <= set(hosts)
            }
            if mine:
                found[target] = mine
        return found


def _check_shape(raw: Any) -> None:
    """ValueError naming the first part of the document that is not the state's shape
    (`{"targets": {file: {entry: {...}}}}`), so a hand-edited or truncated state is
    refused with where it went wrong instead of crashing later."""
    if not isinstance(raw, dict):
        raise ValueError(f"the document is a JSON {type(raw).__name__}, not an object")
    targets = raw.get("targets", {})
    if not isinstance(targets, dict):
        raise ValueError(f"`targets` is a JSON {type(targets).__name__}, not an object")
    for target, entries in targets.items():
        if not isinstance(entries, dict):
            raise ValueError(f"`targets[{target!r}]` is not an object of entries")
        for key, owned in entries.items():
            if not isinstance(owned, dict):
                raise ValueError(f"`targets[{target!r}][{key!r}]` is not an object")
