"""`memhub import`, the pure part: what the hosts have installed -> the files of a new hub.

`plan_import` takes the `Installed` records the host adapters read and returns everything
the command would write: hub.yaml (each item under a `# imported from <file> <key>`
comment), copies of skill folders and instruction files, the `.env` lines for the secrets
found, and notes. A literal secret (a token-shaped value, a secret-named env or header
value, a bearer header, URL user:password) becomes a `${env:NAME}` reference; its value goes
to `.env` only and is never part of hub.yaml, a note, or anything the command prints.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memhub.compiler.artifact import FILE_MODE
from memhub.compiler.formats import jsondump
from memhub.compiler.importing.hostconfig import (
    Installed,
    InstalledServer,
    InstalledSkill,
    Skipped,
)
from memhub.compiler.importing.hubwriter import SCHEMA_FILE, Instructions, Server, hub_yaml
from memhub.compiler.importing.secretmove import MovedSecret, Secrets, move_secrets
from memhub.compiler.install.secrets import parse_env
from memhub.hubspec.errors import MemhubError
from memhub.hubspec.refs import has_credential, literal_secret
from memhub.hubspec.schema_check import hub_schema
from memhub.hubspec.vocabulary import MCP_SERVER_NAME, bundle_hosts

INSTRUCTIONS = "instructions/AGENTS.md"
GITIGNORE = "# secrets: referenced as ${env:NAME} in hub.yaml, never committed\n.env\n"
_MIN_CHECKED_SECRET = 8  # values this long must not appear in anything but .env


@dataclass(frozen=True, slots=True)
class Copy:
    """A skill folder or instruction file copied byte for byte into the hub."""

    target: str  # hub-relative; a folder ends with "/"
    source: str
    files: tuple[tuple[str, bytes, int], ...]  # relative to target ("" for a single file)


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """Everything `memhub import` would write, and what it found but left out."""

    hub_yaml: str
    servers: tuple[tuple[str, tuple[str, ...]], ...]  # hub name, the places it came from
    copies: tuple[Copy, ...]
    support: tuple[tuple[str, bytes, int], ...]  # .gitignore, the schema for editors
    secrets: tuple[MovedSecret, ...]
    env_text: str | None  # the whole new .env; None when it stays as it is
    skipped: tuple[Skipped, ...]
    notes: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not (self.servers or self.copies)

    def files(self) -> list[tuple[str, bytes, int]]:
        """Every hub-relative file to create except .env: hub.yaml, copies, support files."""
        out = [("hub.yaml", self.hub_yaml.encode("utf-8"), FILE_MODE)]
        for item in self.copies:
            out += [(item.target + rel, data, mode) for rel, data, mode in item.files]
        return out + list(self.support)


def plan_import(
    installed: Sequence[Installed],
    *,
    name: str,
    owner: str,
    scope: str,
    existing_env: str | None = None,
    existing_gitignore: str | None = None,
) -> ImportPlan:
    """The hub files for what `installed` holds (pure: reads nothing, writes nothing)."""
    secrets = Secrets(parse_env(existing_env or ""))
    notes: list[str] = []
    skipped = [s for each in installed for s in each.skipped]
    servers = _servers(installed, secrets, notes)
    overrides = _overrides(servers, notes)
    skills, skill_sources = _skills(installed, skipped, notes)
    instructions = _instructions(installed, notes)
    hosts = [h.host for h in installed if not h.empty]
    text = hub_yaml(
        name=name,
        owner=owner,
        scope=scope,
        hosts=hosts,
        servers=servers,
        skill_sources=skill_sources,
        instructions=instructions,
        overrides=overrides,
        secrets=bool(secrets.moved),
    )
    copies = [Copy(f"skills/{s.name}/", s.path, s.files) for s in skills]
    copies += [
        Copy(target, doc.path, (("", doc.text.encode("utf-8"), FILE_MODE),))
        for target, doc, _ in instructions
    ]
    schema = jsondump.dumps(hub_schema(), indent=2, ensure_ascii=True) + "\n"
    support = [(SCHEMA_FILE, schema.encode(), FILE_MODE)]
    if existing_gitignore is None:
        support.append((".gitignore", GITIGNORE.encode(), FILE_MODE))
    elif secrets.moved and ".env" not in existing_gitignore.split():
        notes.append(".gitignore in the hub folder does not list .env; add it before committing")
    for conflict in (s for s in secrets.moved if s.status == "conflict"):
        notes.append(
            f"conflict: .env already sets {conflict.name} to a different value than "
            f"{conflict.where}; .env was kept as it is (edit it if the host's value is current)"
        )
    plan = ImportPlan(
        hub_yaml=text,
        servers=tuple(
            (hub_name, tuple(s.where for s in members)) for hub_name, _, members in servers
        ),
        copies=tuple(copies),
        support=tuple(support),
        secrets=tuple(secrets.moved),
        env_text=secrets.env_text(existing_env),
        skipped=tuple(skipped),
        notes=tuple(notes),
    )
    _check_no_secret_leaks(plan)
    return plan


# -- servers -------------------------------------------------------------------------------


def _servers(installed: Sequence[Installed], secrets: Secrets, notes: list[str]) -> list[Server]:
    """Each server once: the same name with the same spec (after moving secrets) is one
    server; the same name with different specs becomes one server per variant, suffixed."""
    groups: dict[str, list[tuple[InstalledServer, dict[str, Any]]]] = {}
    for host in installed:
        for server in host.servers:
            spec = move_secrets(server, secrets, notes)
            notes += [f"{server.where}: {note}" for note in server.notes]
            groups.setdefault(_server_name(server.name), []).append((server, spec))
    for server_name in groups:
        if server_name not in {s.name for h in installed for s in h.servers}:
            originals = sorted({s.name for s, _ in groups[server_name]})
            notes.append(
                f"MCP server {', '.join(map(repr, originals))} renamed {server_name!r}: hub "
                "server names are letters, digits, '-' and '_'"
            )
    taken = set(groups)
    out: list[Server] = []
    for server_name, items in groups.items():
        variants: dict[str, list[tuple[InstalledServer, dict[str, Any]]]] = {}
        for server, spec in items:
            variants.setdefault(json.dumps(spec, sort_keys=True), []).append((server, spec))
        if len(variants) == 1:
            out.append((server_name, items[0][1], [s for s, _ in items]))
            continue
        names = []
        for members in variants.values():
            first = members[0][0]
            suffixed = _unique(server_name, f"-{first.host}", taken)
            taken.add(suffixed)
            names.append(suffixed)
            out.append((suffixed, members[0][1], [s for s, _ in members]))
        notes.append(
            f"MCP server {server_name!r} is set up differently in "
            f"{', '.join(s.where for s, _ in items)}: imported as {', '.join(names)}; "
            "keep the one you want and remove the others"
        )
    return out


def _server_name(raw: str) -> str:
    if MCP_SERVER_NAME.match(raw):
        return raw
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", raw).strip("-")[:64]
    return cleaned or "server"


def _unique(base: str, suffix: str, taken: set[str]) -> str:
    candidate = base[: 64 - len(suffix)] + suffix
    count = 1
    while candidate in taken:
        count += 1
        tail = f"{suffix}-{count}"
        candidate = base[: 64 - len(tail)] + tail
    return candidate


def _overrides(servers: list[Server], notes: list[str]) -> dict[str, dict[str, Any]]:
    """Host-only keys of each server as `overrides.<host>.mcp_servers.<name>`, where the hub
    has overrides for that host; keys that look like credentials are left in the host."""
    allowed = set(bundle_hosts())  # the hosts `overrides:` may name
    out: dict[str, dict[str, Any]] = {}
    for hub_name, _, members in servers:
        for server in members:
            if not server.extras:
                continue
            kept = {}
            for key, value in server.extras.items():
                if _looks_secret(key, value):
                    notes.append(
                        f"{server.where}: {key!r} was not imported: it looks like a credential "
                        "and the hub has no reference for it there (the host keeps it)"
                    )
                else:
                    kept[key] = value
            if not kept:
                continue
            if server.host not in allowed:
                notes.append(
                    f"{server.where}: host-only keys {', '.join(sorted(kept))} were not "
                    f"imported: the hub has no {server.host} overrides"
                )
                continue
            target = out.setdefault(server.host, {}).setdefault(hub_name, {})
            for key, value in kept.items():
                target.setdefault(key, (value, server.where))
    return out


def _looks_secret(key: str, value: Any) -> bool:
    if isinstance(value, str):
        return bool(literal_secret(key, value)) or has_credential(value)
    if isinstance(value, Mapping):
        return any(_looks_secret(str(k), v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_looks_secret(key, v) for v in value)
    return False


# -- skills and instructions -----------------------------------------------------------------


def _skills(
    installed: Sequence[Installed], skipped: list[Skipped], notes: list[str]
) -> tuple[list[InstalledSkill], dict[str, list[str]]]:
    """Each skill folder once (a folder two hosts read is one); the same name with other
    content elsewhere is left out, named."""
    chosen: dict[str, InstalledSkill] = {}
    sources: dict[str, list[str]] = {}
    for host in installed:
        for skill in host.skills:
            first = chosen.get(skill.name)
            if first is None:
                chosen[skill.name] = skill
                sources[skill.name] = [skill.path]
                _scan_files(skill.path, skill.files, notes)
            elif skill.path in sources[skill.name]:
                continue
            elif _same_files(first.files, skill.files):
                sources[skill.name].append(skill.path)
            else:
                skipped.append(
                    Skipped(
                        f"skill {skill.name!r}",
                        skill.path,
                        f"differs from the skill of that name in {first.path}, which was "
                        "imported; compare them and copy over what you want to keep",
                    )
                )
    return list(chosen.values()), sources


def _same_files(a: Iterable[tuple[str, bytes, int]], b: Iterable[tuple[str, bytes, int]]) -> bool:
    return sorted(a) == sorted(b)


def _scan_files(where: str, files: Iterable[tuple[str, bytes, int]], notes: list[str]) -> None:
    for rel, data, _ in files:
        if has_credential(data.decode("utf-8", "replace")):
            shown = f"{where}/{rel}" if rel else where
            notes.append(
                f"{shown} holds a token-shaped string; it is copied as it is: review it "
                "before sharing the hub"
            )


def _instructions(installed: Sequence[Installed], notes: list[str]) -> list[Instructions]:
    """Distinct instruction texts: the first is the hub's instructions file, the others are
    copied beside it (the hub projects one file to every host) to merge by hand."""
    chosen: list[Instructions] = []
    seen: set[str] = set()
    for host in installed:
        for doc in host.instructions:
            if doc.path in seen:
                continue
            seen.add(doc.path)
            same = next((c for c in chosen if c[1].text == doc.text), None)
            if same is not None:
                same[2].append(doc.path)
                continue
            if not chosen:
                target = INSTRUCTIONS
            else:
                stem = re.sub(r"[^A-Za-z0-9._-]+", "-", doc.path.rsplit("/", 1)[-1])
                target = _unique_path(f"instructions/{doc.host}-{stem}", {c[0] for c in chosen})
            chosen.append((target, doc, []))
            _scan_files(doc.path, [("", doc.text.encode("utf-8"), FILE_MODE)], notes)
    if len(chosen) > 1:
        notes.append(
            f"the hub has one instructions file, {INSTRUCTIONS} (from {chosen[0][1].path}); "
            f"{', '.join(c[0] for c in chosen[1:])} were copied beside it and are not used "
            "until you merge them into it"
        )
    return chosen


def _unique_path(path: str, taken: set[str]) -> str:
    candidate, count = path, 1
    while candidate in taken:
        count += 1
        stem, dot, ext = path.rpartition(".")
        candidate = f"{stem}-{count}.{ext}" if dot else f"{path}-{count}"
    return candidate


# -- secrets ----------------------------------------------------------------------------------


def _check_no_secret_leaks(plan: ImportPlan) -> None:
    """The one invariant: a moved value appears in nothing but `.env`."""
    shown = "\n".join([plan.hub_yaml, *plan.notes, *(str(s) for s in plan.skipped)])
    for secret in plan.secrets:
        if len(secret.value) >= _MIN_CHECKED_SECRET and secret.value in shown:
            raise MemhubError(
                f"memhub import would write the value of {secret.name} outside .env; nothing "
                "was written. Fix: this is a memhub bug; please report it"
            )
