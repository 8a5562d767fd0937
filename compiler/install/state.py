"""Ownership state: which entries of which files memhub wrote, for which plugin.

One JSON file under MEMHUB_HOME. An entry is owned when the state names it; apply may
replace or remove only owned entries, and drift is an owned entry whose digest changed.

The owner is the plugin's identity (its name, and the hub's `id:` when it has one), never
the hub folder's path: a moved or re-cloned hub is the same owner. States written before
(version 1) named the hub folder; they are read and migrated (see `_migrate`).

Besides the entries, the state keeps per target what it was before memhub's first write
(`bases`), so that removing memhub's last entry returns the file byte for byte when
nothing else changed it, and an adopted entry keeps its pre-image (`Owned.pre`).

It also keeps per document the containers (JSON objects and arrays, by key path) memhub
created for its entries (`made`): once someone else changed the file there is no base to
return to, and removing an entry may prune only the containers memhub made, never the
person's own `"hooks": {}`. A target written before this was recorded has no `made`
(None): there memhub cannot tell, and prunes every container its removal leaves empty.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from memhub.compiler.install.entries import EntryKey
from memhub.hubspec.errors import MemhubError

STATE_FILE = "state.json"
STATE_VERSION = 2
_LEGACY_HUB_BYTES = 1 << 20  # a hub.yaml read to migrate a version 1 owner


def memhub_home(env: dict[str, str] | None = None) -> Path:
    """MEMHUB_HOME, else ~/.memhub."""
    source = os.environ if env is None else env
    configured = source.get("MEMHUB_HOME")
    return Path(configured) if configured else Path(source.get("HOME") or Path.home()) / ".memhub"


def owner_id(plugin: str, hub_id: str | None = None) -> str:
    """How the state names an owner: `<plugin>`, or `<plugin>@<hub id>`."""
    return f"{plugin}@{hub_id}" if hub_id else plugin


def owner_plugin(recorded: str) -> str | None:
    """The plugin name of a recorded owner; None for a version 1 hub-folder path."""
    return None if os.path.isabs(recorded) else recorded.partition("@")[0]


@dataclass(frozen=True, slots=True)
class Owner:
    """Who plans: a plugin identity, and the hub folder older states named it by.

    An owner without a hub id claims every recorded owner of its plugin name (an id only
    tells apart two hubs that both carry one), so `uninstall --plugin NAME` and a hub that
    gained an id later still own what they applied.
    """

    id: str
    root: str | None = None

    @classmethod
    def of_hub(cls, hub: Any) -> Owner:
        return cls(owner_id(hub.plugin.name, hub.id), str(Path(hub.root).absolute()))

    def owns(self, recorded: str) -> bool:
        if recorded == self.id or (self.root is not None and recorded == self.root):
            return True
        if os.path.isabs(recorded):
            return False
        name, _, rid = recorded.partition("@")
        mine, _, cid = self.id.partition("@")
        return name == mine and (not rid or not cid or rid == cid)


@dataclass(frozen=True, slots=True)
class Owned:
    """One owned entry: its owner (`owner_id`), its host, the digest memhub wrote, the scope
    it was installed for (`user`, or `project:<folder>`), and, for an entry memhub adopted,
    its pre-image (`pre`: JSON of what was there and who owned it)."""

    hub: str
    host: str
    digest: str
    scope: str = "user"
    pre: str | None = None
    # A text block memhub adopted in place from the person's own copy of its text: that
    # text, put back when the block goes (see textblock.adopt)
    adopted: str | None = None

    def to_json(self) -> dict[str, Any]:
        data = {"hub": self.hub, "host": self.host, "digest": self.digest, "scope": self.scope}
        if self.pre is not None:
            data["pre"] = self.pre
        if self.adopted is not None:
            data["adopted"] = self.adopted
        return data


Container = tuple[str, ...]  # a JSON object's or array's key path in its document


@dataclass(slots=True)
class State:
    """target path -> entry key -> Owned; target path -> its base: the bytes before memhub's
    first write, the folders it made, the digest of its last write (install._settle_base);
    target path -> the containers memhub created in it (see the module docstring)."""

    targets: dict[str, dict[str, Owned]] = field(default_factory=dict)
    bases: dict[str, dict[str, Any]] = field(default_factory=dict)
    migrated: bool = False  # read from an older version: the next apply writes it anew
    made: dict[str, set[Container]] = field(default_factory=dict)

    def made_in(self, target: str) -> set[Container] | None:
        """The containers memhub made in `target`; None for a target written before they
        were recorded (it has entries but no record), where any may be pruned."""
        if target not in self.made and self.targets.get(target):
            return None
        return set(self.made.get(target, ()))

    @classmethod
    def load(cls, home: Path) -> State:
        path = home / STATE_FILE
        if not path.is_file():
            return cls()
        try:
            return cls.from_bytes(path.read_bytes())
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
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
        bases = {t: dict(b) for t, b in raw.get("bases", {}).items()}
        made = {t: {tuple(c) for c in found} for t, found in raw.get("made", {}).items()}
        if raw.get("version", 1) < STATE_VERSION:
            return cls(_migrate(targets), bases, migrated=True, made=made)
        return cls(targets, bases, made=made)

    def to_bytes(self) -> bytes:
        data: dict[str, Any] = {
            "version": STATE_VERSION,
            "targets": {
                target: {key: o.to_json() for key, o in sorted(entries.items())}
                for target, entries in sorted(self.targets.items())
                if entries
            },
            "bases": {t: b for t, b in sorted(self.bases.items()) if self.targets.get(t)},
            "made": {
                t: [list(c) for c in sorted(m)]
                for t, m in sorted(self.made.items())
                if self.targets.get(t)
            },
        }
        from memhub.compiler.formats import jsondump  # not at the top: a replay reads state

        return (jsondump.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    def same_entries(self, other: State) -> bool:
        """Whether both record the same owned entries (what to_bytes would write alike)."""
        return {t: e for t, e in self.targets.items() if e} == {
            t: e for t, e in other.targets.items() if e
        }

    def owner(self, target: str, key: str) -> Owned | None:
        return self.targets.get(target, {}).get(key)

    def owned_by(
        self, owns: Callable[[str], bool], hosts: tuple[str, ...], scope: str
    ) -> dict[str, dict[str, Owned]]:
        """The entries an owner (`owns`, see Owner.owns) has on these hosts in this scope, by
        target (shared ones only when every host sharing them is among `hosts`)."""
        found: dict[str, dict[str, Owned]] = {}
        for target, entries in self.targets.items():
            mine = {
                k: o
                for k, o in entries.items()
                if owns(o.hub) and o.scope == scope and set(o.host.split(",")) <= set(hosts)
            }
            if mine:
                found[target] = mine
        return found


def _migrate(targets: dict[str, dict[str, Owned]]) -> dict[str, dict[str, Owned]]:
    """Version 1 named each owner by its hub folder's path: name it by the plugin identity
    found in that folder's hub.yaml, else by the name of its instructions block (the block
    is named after the plugin). An owner neither gives keeps its path, which the hub still
    at that path claims (Owner.root)."""
    blocks: dict[str, str] = {}
    for entries in targets.values():
        for key, owned in entries.items():
            parsed = EntryKey.parse(key)
            if parsed.kind == "text-block":
                blocks.setdefault(owned.hub, parsed.name)
    found: dict[str, str] = {}
    for entries in targets.values():
        for owned in entries.values():
            if os.path.isabs(owned.hub) and owned.hub not in found:
                identity = _identity_at(Path(owned.hub)) or blocks.get(owned.hub)
                found[owned.hub] = identity or owned.hub
    return {
        target: {key: _renamed(o, found) for key, o in entries.items()}
        for target, entries in targets.items()
    }


def _renamed(owned: Owned, names: dict[str, str]) -> Owned:
    new = names.get(owned.hub, owned.hub)
    return owned if new == owned.hub else replace(owned, hub=new)


def _identity_at(folder: Path) -> str | None:
    """The owner id of the hub in `folder`, None when there is no readable hub there."""
    from memhub.hubspec.yamlsrc import YamlProblems, parse_yaml  # the hub's own parser

    try:
        path = folder / "hub.yaml"
        if path.stat().st_size > _LEGACY_HUB_BYTES:
            return None
        data, _ = parse_yaml(path.read_text("utf-8"), str(path))
        name = data["plugin"]["name"]
        hub_id = data.get("id")
    except (OSError, ValueError, YamlProblems, KeyError, TypeError, AttributeError):
        return None
    if not isinstance(name, str) or not (hub_id is None or isinstance(hub_id, str)):
        return None
    return owner_id(name, hub_id)


def _check_shape(raw: Any) -> None:
    """ValueError naming the first part of the document that is not the state's shape
    (`{"targets": {file: {entry: {...}}}}`), so a hand-edited or truncated state is
    refused with where it went wrong instead of crashing later."""
    if not isinstance(raw, dict):
        raise ValueError(f"the document is a JSON {type(raw).__name__}, not an object")
    targets = raw.get("targets", {})
    if not isinstance(targets, dict):
        raise ValueError(f"`targets` is a JSON {type(targets).__name__}, not an object")
    bases = raw.get("bases", {})
    if not isinstance(bases, dict) or not all(isinstance(b, dict) for b in bases.values()):
        raise ValueError("`bases` is not an object of objects")
    made = raw.get("made", {})
    if not isinstance(made, dict) or not all(
        isinstance(found, list)
        and all(isinstance(c, list) and all(isinstance(k, str) for k in c) for c in found)
        for found in made.values()
    ):
        raise ValueError("`made` is not an object of lists of key paths")
    for target, entries in targets.items():
        if not isinstance(entries, dict):
            raise ValueError(f"`targets[{target!r}]` is not an object of entries")
        for key, owned in entries.items():
            if not isinstance(owned, dict):
                raise ValueError(f"`targets[{target!r}][{key!r}]` is not an object")
