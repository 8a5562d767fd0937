"""`memhub import`, the pure part: what the hosts have installed -> the files of a new hub.

`plan_import` takes the `Installed` records the host adapters read and returns everything
the command would write: hub.yaml (each item under a `# imported from <file> <key>`
comment), copies of skill folders and instruction files, the `.env` lines for the secrets
found, and notes. A literal secret (a token-shaped value, a secret-named env or header
value, a bearer header, URL user:password) becomes a `${env:NAME}` reference; its value goes
to `.env` only and is never part of hub.yaml, a note, or anything the command prints.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote

import yaml
from memhub.compiler.artifact import FILE_MODE
from memhub.compiler.importing.hostconfig import (
    Installed,
    InstalledInstructions,
    InstalledServer,
    InstalledSkill,
    Skipped,
)
from memhub.hubspec.errors import MemhubError
from memhub.hubspec.refs import has_credential, literal_secret, references
from memhub.hubspec.schema_check import hub_schema
from memhub.hubspec.vocabulary import ENV_NAME, MCP_SERVER_NAME, bundle_hosts
from memhub.runtime import credentials

SecretStatus = Literal["new", "in .env", "conflict"]
INSTRUCTIONS = "instructions/AGENTS.md"
SCHEMA_FILE = ".memhub/hub.schema.json"
GITIGNORE = "# secrets: referenced as ${env:NAME} in hub.yaml, never committed\n.env\n"
ENV_HEADER = "# added by memhub import: values of the ${env:NAME} references in hub.yaml\n"
# Only what decides which part of an already-flagged value is the secret (refs.py flags it).
_AUTH_SCHEME = re.compile(r"(?i)^(\s*(?:bearer|basic|token)\s+)(\S+)(.*)$", re.S)
_ENV_BARE = re.compile(r"[A-Za-z0-9_./:@+,=-]*")
_MIN_CHECKED_SECRET = 8  # values this long must not appear in anything but .env


@dataclass(frozen=True, slots=True)
class MovedSecret:
    """A literal secret that became `${env:NAME}`: the name, where it was, its `.env` fate."""

    name: str
    where: str
    status: SecretStatus
    value: str = field(repr=False)


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
    secrets = _Secrets(parse_env(existing_env or ""))
    notes: list[str] = []
    skipped = [s for each in installed for s in each.skipped]
    servers = _servers(installed, secrets, notes)
    overrides = _overrides(servers, notes)
    skills, skill_sources = _skills(installed, skipped, notes)
    instructions = _instructions(installed, notes)
    hosts = [h.host for h in installed if not h.empty]
    hub_yaml = _hub_yaml(
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
    support = [(SCHEMA_FILE, (json.dumps(hub_schema(), indent=2) + "\n").encode(), FILE_MODE)]
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
        hub_yaml=hub_yaml,
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

_Server = tuple[str, dict[str, Any], list[InstalledServer]]  # hub name, spec, where from


def _servers(installed: Sequence[Installed], secrets: _Secrets, notes: list[str]) -> list[_Server]:
    """Each server once: the same name with the same spec (after moving secrets) is one
    server; the same name with different specs becomes one server per variant, suffixed."""
    groups: dict[str, list[tuple[InstalledServer, dict[str, Any]]]] = {}
    for host in installed:
        for server in host.servers:
            spec = _move_secrets(server, secrets, notes)
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
    out: list[_Server] = []
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


def _move_secrets(server: InstalledServer, secrets: _Secrets, notes: list[str]) -> dict[str, Any]:
    """The server's spec with every literal secret replaced by a `${env:NAME}` reference."""
    spec = copy.deepcopy(dict(server.spec))
    base = env_name(server.name)

    def at(part: str) -> str:
        return f"{server.where} {part}"

    def tokens(value: str, wanted: str, part: str) -> str:
        moved = secrets.tokens(value, wanted, at(part))
        if moved != value and part not in ("env", "headers"):
            notes.append(
                f"{at(part)}: a token moved to .env; hosts that read references only in env "
                "and headers get the reference text there, not the value"
            )
        return moved

    if "command" in spec:
        spec["command"] = tokens(spec["command"], f"{base}_COMMAND", "command")
        if "args" in spec:
            spec["args"] = _move_arg_secrets(list(spec["args"]), base, secrets, at, notes)
        for key, value in list(spec.get("env", {}).items()):
            if literal_secret(key, value):
                spec["env"][key] = secrets.secret(value, key, at(f"env.{key}"))
        if "cwd" in spec:
            spec["cwd"] = tokens(spec["cwd"], f"{base}_CWD", "cwd")
    else:
        spec["url"] = _url(spec, base, secrets, at, notes)
        spec["url"] = tokens(spec["url"], f"{base}_URL_TOKEN", "url")
        for key, value in list(spec.get("headers", {}).items()):
            if literal_secret(key, value):
                wanted = f"{base}_TOKEN" if key.lower() == "authorization" else f"{base}_{key}"
                spec["headers"][key] = secrets.secret(value, wanted, at(f"headers.{key}"))
    if "description" in spec:
        spec["description"] = tokens(spec["description"], f"{base}_DESCRIPTION", "description")
    return spec


def _move_arg_secrets(
    args: list[str], base: str, secrets: _Secrets, at: Any, notes: list[str]
) -> list[str]:
    """Args with each literal credential as a reference. They are searched as the one
    command line they make, so `["--token", "X"]` is found; a value that starts an arg
    is the whole arg (`["--password", "two words"]`)."""
    line, starts = "", []
    for arg in args:
        starts.append(len(line))
        line += arg + " "
    spans: list[list[tuple[int, int]]] = [[] for _ in args]
    for found in credentials.find(line):
        index = max(i for i, start in enumerate(starts) if start <= found.start)
        start = found.start - starts[index]
        end = min(found.end - starts[index], len(args[index]))
        spans[index].append((0, len(args[index])) if start == 0 else (start, end))
    out = []
    for index, arg in enumerate(args):
        if not spans[index]:
            out.append(arg)
            continue
        out.append(secrets.spans(arg, spans[index], f"{base}_ARG{index}", at(f"args[{index}]")))
        notes.append(
            f"{at(f'args[{index}]')}: a token moved to .env; hosts that read references only "
            "in env and headers get the reference text there, not the value"
        )
    return out


def _url(spec: dict[str, Any], base: str, secrets: _Secrets, at: Any, notes: list[str]) -> str:
    """The URL without user:password (sent as a Basic header instead) and with secret-named
    query values as references."""
    url: str = spec["url"]
    scheme, sep, rest = url.partition("://")
    netloc = re.split(r"[/?#]", rest, maxsplit=1)[0]
    if sep and "@" in netloc:
        userinfo = netloc.rsplit("@", 1)[0]
        url = f"{scheme}://{rest[len(userinfo) + 1 :]}"
        user, _, password = userinfo.partition(":")
        value = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
        reference = secrets.reference(f"{base}_BASIC_AUTH", value, at("url user:password"))
        headers = spec.setdefault("headers", {})
        if any(k.lower() == "authorization" for k in headers):
            notes.append(
                f"{at('url')}: user:password was removed from the URL and kept in .env as "
                f"{reference}; the server's own Authorization header stays in use"
            )
        else:
            headers["Authorization"] = f"Basic {reference}"
    head, sep, query = url.partition("?")
    if not sep:
        return url
    query, hash_sep, fragment = query.partition("#")
    params = query.split("&")
    for index, param in enumerate(params):
        key, eq, value = param.partition("=")
        if eq and value and literal_secret(unquote(key), unquote(value)):
            wanted = f"{base}_{unquote(key)}"
            params[index] = f"{key}={secrets.reference(wanted, value, at('url ?' + key))}"
    return f"{head}?{'&'.join(params)}{hash_sep}{fragment}"


def _overrides(servers: list[_Server], notes: list[str]) -> dict[str, dict[str, Any]]:
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


_Instructions = tuple[str, InstalledInstructions, list[str]]  # hub path, doc, also found in


def _instructions(installed: Sequence[Installed], notes: list[str]) -> list[_Instructions]:
    """Distinct instruction texts: the first is the hub's instructions file, the others are
    copied beside it (the hub projects one file to every host) to merge by hand."""
    chosen: list[_Instructions] = []
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


def env_name(text: str) -> str:
    """An environment variable name made from `text` (upper snake case)."""
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()
    if not cleaned:
        return "SECRET"
    return cleaned if ENV_NAME.match(cleaned) else f"S_{cleaned}"


class _Secrets:
    """Allocates `.env` names: one name per distinct value, `NAME_2` when a name is taken by
    another value of this import; a different value already in `.env` is a conflict."""

    def __init__(self, existing: dict[str, str]) -> None:
        self.existing = existing
        self.values: dict[str, str] = {}
        self.moved: list[MovedSecret] = []

    def reference(self, wanted: str, value: str, where: str) -> str:
        base = env_name(wanted)
        name, count = base, 1
        while name in self.values and self.values[name] != value:
            count += 1
            name = f"{base}_{count}"
        status: SecretStatus = "new"
        if name in self.existing:
            status = "in .env" if self.existing[name] == value else "conflict"
        self.values[name] = value
        self.moved.append(MovedSecret(name, where, status, value))
        return "${env:" + name + "}"

    def secret(self, value: str, wanted: str, where: str) -> str:
        """A value `literal_secret` flagged, with its secret part as a reference."""
        if has_credential(value):
            return self.tokens(value, wanted, where)
        scheme = _AUTH_SCHEME.match(value)
        if scheme and not references(scheme.group(2)):
            return (
                scheme.group(1) + self.reference(wanted, scheme.group(2), where) + scheme.group(3)
            )
        return self.reference(wanted, value, where)

    def tokens(self, value: str, wanted: str, where: str) -> str:
        """`value` with each literal credential in it (`credentials.find`) as a reference."""
        return self.spans(value, [(f.start, f.end) for f in credentials.find(value)], wanted, where)

    def spans(self, value: str, spans: list[tuple[int, int]], wanted: str, where: str) -> str:
        """`value` with each (start, end) span as a reference to its text."""
        out, at = [], 0
        for start, end in spans:
            out += [value[at:start], self.reference(wanted, value[start:end], where)]
            at = end
        return "".join(out) + value[at:]

    def env_text(self, existing: str | None) -> str | None:
        """The new `.env`: the existing text plus one line per new name; None if unchanged."""
        added: dict[str, str] = {}
        for secret in self.moved:
            if secret.status == "new":
                added.setdefault(secret.name, secret.value)
        if not added:
            return None
        head = existing or ""
        if head and not head.endswith("\n"):
            head += "\n"
        return head + ENV_HEADER + "".join(env_line(k, v) + "\n" for k, v in added.items())


def env_line(name: str, value: str) -> str:
    """`NAME=value`, quoted (dotenv style) when the value needs it."""
    if _ENV_BARE.fullmatch(value):
        return f"{name}={value}"
    if "'" not in value and "\n" not in value:
        return f"{name}='{value}'"
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'{name}="{escaped}"'


def parse_env(text: str) -> dict[str, str]:
    """NAME -> value of a dotenv file (`export` prefixes, quotes and comments understood)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        stripped = stripped.removeprefix("export ").lstrip()
        key, eq, value = stripped.partition("=")
        if not eq:
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            inner = value[1:-1]
            if value[0] == '"':
                inner = re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), inner)
            value = inner
        else:
            value = value.split(" #", 1)[0].rstrip()
        out[key.strip()] = value
    return out


def _check_no_secret_leaks(plan: ImportPlan) -> None:
    """The one invariant: a moved value appears in nothing but `.env`."""
    shown = "\n".join([plan.hub_yaml, *plan.notes, *(str(s) for s in plan.skipped)])
    for secret in plan.secrets:
        if len(secret.value) >= _MIN_CHECKED_SECRET and secret.value in shown:
            raise MemhubError(
                f"memhub import would write the value of {secret.name} outside .env; nothing "
                "was written. Fix: this is a memhub bug; please report it"
            )


# -- hub.yaml ---------------------------------------------------------------------------------


def _hub_yaml(
    *,
    name: str,
    owner: str,
    scope: str,
    hosts: list[str],
    servers: list[_Server],
    skill_sources: dict[str, list[str]],
    instructions: list[_Instructions],
    overrides: dict[str, dict[str, Any]],
    secrets: bool,
) -> str:
    listed = ", ".join(hosts) or "no host"
    out = [
        f"# yaml-language-server: $schema={SCHEMA_FILE}",
        f"# Imported by `memhub import` from the {scope} scope of {listed}; each item names",
        "# the file (and key) it came from. The host files were left as they were.",
    ]
    if secrets:
        out += [
            "# Secrets are ${env:NAME} references: their values are in .env beside this file",
            "# (mode 0600; never commit it).",
        ]
    out += [
        "version: 1",
        "plugin:",
        f"  name: {_scalar(name)}",
        "  version: 0.1.0",
        f"  description: {_scalar(f'Agent setup imported from {listed} by memhub import.')}",
        "marketplace:",
        f"  name: {_scalar(name + '-market')}",
        "  owner:",
        f"    name: {_scalar(owner)}",
    ]
    bundle = [h for h in bundle_hosts() if h in hosts]
    if bundle:
        out += ["hosts:", *(f"  - {_scalar(h)}" for h in bundle)]
    if servers:
        out += ["mcp:", "  servers:"]
        for hub_name, spec, members in servers:
            out += _source_comments(members[0].where, [m.where for m in members[1:]], "    ")
            out += _block(hub_name, spec, "    ")
    if skill_sources:
        for skill, paths in skill_sources.items():
            out += _source_comments(paths[0], paths[1:], "", label=f"skills/{skill}/")
        out.append("skills: skills")
    if instructions:
        target, doc, also = instructions[0]
        out += _source_comments(doc.path, also, "")
        for other, other_doc, _ in instructions[1:]:
            out.append(_comment(f"not used until merged: {other} from {other_doc.path}", ""))
        out.append(f"instructions: {_scalar(target)}")
    if overrides:
        out.append("overrides:")
        for host, by_server in overrides.items():
            out += [f"  {_scalar(host)}:", "    mcp_servers:"]
            for hub_name, keys in by_server.items():
                wheres = sorted({where for _, where in keys.values()})
                out += _source_comments(wheres[0], wheres[1:], "      ")
                out += _block(hub_name, {k: v for k, (v, _) in keys.items()}, "      ")
    return "\n".join(out) + "\n"


def _comment(text: str, indent: str) -> str:
    return f"{indent}# " + re.sub(r"[\r\n]+", " ", text)


def _source_comments(first: str, others: list[str], indent: str, label: str = "") -> list[str]:
    head = f"{label} imported from {first}" if label else f"imported from {first}"
    return [_comment(head, indent), *(_comment(f"  also in {o}", indent) for o in others)]


def _block(key: str, value: Any, indent: str) -> list[str]:
    """`key: value` as block YAML at `indent`."""
    head = f"{indent}{_scalar(key)}:"
    if isinstance(value, Mapping):
        if not value:
            return [head + " {}"]
        lines = [head]
        for k, v in value.items():
            lines += _block(str(k), v, indent + "  ")
        return lines
    if isinstance(value, list | tuple):
        if not value:
            return [head + " []"]
        lines = [head]
        for item in value:
            if isinstance(item, Mapping | list | tuple):
                lines.append(f"{indent}  -")
                nested = _block("x", item, indent + "  ")[1:]
                lines += nested
            else:
                lines.append(f"{indent}  - {_scalar(item)}")
        return lines
    return [f"{head} {_scalar(value)}"]


_PLAIN = re.compile(r"[A-Za-z0-9_$~./-][^\r\n\t#]*")


def _scalar(value: Any) -> str:
    """A YAML scalar that reads back as `value`: plain when that is safe, else quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text == text.strip() and _reads_back(text, text):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted if _reads_back(quoted, text) else json.dumps(text)


def _reads_back(written: str, value: str) -> bool:
    try:
        return yaml.safe_load(f"k: {written}") == {"k": value}
    except yaml.YAMLError:
        return False
