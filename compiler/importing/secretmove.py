"""Literal secrets of imported servers become `${env:NAME}` references; values go to `.env`.

A literal secret is a token-shaped value, a secret-named env or header value, a bearer header,
or URL user:password. Its value is kept only in the `.env` text this module builds.
"""

from __future__ import annotations

import base64
import copy
import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote

from memhub.compiler.importing.hostconfig import InstalledServer
from memhub.hubspec.refs import has_credential, literal_secret, references
from memhub.hubspec.vocabulary import ENV_NAME
from memhub.runtime import credentials

SecretStatus = Literal["new", "in .env", "conflict"]
ENV_HEADER = "# added by memhub import: values of the ${env:NAME} references in hub.yaml\n"
# Only what decides which part of an already-flagged value is the secret (refs.py flags it).
_AUTH_SCHEME = re.compile(r"(?i)^(\s*(?:bearer|basic|token)\s+)(\S+)(.*)$", re.S)
_ENV_BARE = re.compile(r"[A-Za-z0-9_./:@+,=-]*")


@dataclass(frozen=True, slots=True)
class MovedSecret:
    """A literal secret that became `${env:NAME}`: the name, where it was, its `.env` fate."""

    name: str
    where: str
    status: SecretStatus
    value: str = field(repr=False)


def env_name(text: str) -> str:
    """An environment variable name made from `text` (upper snake case)."""
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()
    if not cleaned:
        return "SECRET"
    return cleaned if ENV_NAME.match(cleaned) else f"S_{cleaned}"


class Secrets:
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


def move_secrets(server: InstalledServer, secrets: Secrets, notes: list[str]) -> dict[str, Any]:
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
    args: list[str], base: str, secrets: Secrets, at: Any, notes: list[str]
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


def _url(spec: dict[str, Any], base: str, secrets: Secrets, at: Any, notes: list[str]) -> str:
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
