"""Host server specs read back into the hub's shape: the helpers each adapter's converter uses.

Everything here is host-neutral and pure: adapters pass in their own key names and reference
syntax; a server the hub cannot express raises NotImportable with the reason.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from memhub.hubspec.refs import reference_problems

# An environment variable name, as hosts write it after `$` or inside `${...}`.
ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"


class NotImportable(Exception):
    """A server the hub cannot express; the message says why (never a value)."""


def unlaunched(spec: dict[str, Any]) -> dict[str, Any]:
    """A stdio server memhub started through its launcher (`memhub-launch ... -- CMD ARGS`,
    or a bundle's `python3 -S .../memhub_runtime/launcher.py ...`), read back as the hub
    server it came from; any other spec as it is."""
    from memhub.runtime import launcher

    command, args = spec.get("command", ""), list(spec.get("args") or [])
    if os.path.basename(command) == "memhub-launch":
        rest = args
    elif args[:1] == ["-S"] and len(args) > 1 and args[1].endswith("/memhub_runtime/launcher.py"):
        rest = args[2:]
    else:
        return spec
    try:
        options, env_items, argv = launcher.parse_args(rest)
    except launcher.LaunchError as exc:
        raise NotImportable(f"a memhub launcher entry that does not parse: {exc}") from exc
    env = dict(spec.get("env") or {})
    templates = {}
    for item in env_items:
        key, _, template = item.partition("=")
        templates[key] = launcher.to_hub(template)
    words = [launcher.to_hub(word) for word in argv]
    cwd = launcher.to_hub(options["cwd"]) if options["cwd"] else spec.get("cwd")
    # What a host forwarded only for the launcher to read (Codex env_vars) is no env of its own.
    read = set(re.findall(r"\$\{env:(\w+)\}", " ".join([*templates.values(), *words, cwd or ""])))
    for key in [k for k in env if k in read and k not in templates]:
        if env[key] == "${env:" + key + "}":
            del env[key]
    env.update(templates)
    return stdio_spec(words[0], words[1:], env, cwd, spec.get("description"))


def stdio_spec(
    command: str,
    args: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """A hub stdio server, keys in the hub's order, empty ones left out."""
    spec: dict[str, Any] = {"command": command}
    if args:
        spec["args"] = list(args)
    if env:
        spec["env"] = dict(env)
    if cwd:
        spec["cwd"] = cwd
    if description:
        spec["description"] = description
    return spec


def remote_spec(
    url: str,
    transport: str = "http",
    headers: Mapping[str, str] | None = None,
    oauth: Mapping[str, Any] | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """A hub remote server; `transport` is written only when it is not the default (http)."""
    spec: dict[str, Any] = {"url": url}
    if transport != "http":
        spec["transport"] = transport
    if headers:
        spec["headers"] = dict(headers)
    if oauth:
        spec["oauth"] = dict(oauth)
    if description:
        spec["description"] = description
    return spec


def oauth_spec(
    client_id: Any,
    callback_port: Any = None,
    auth_server_metadata_url: Any = None,
    scopes: Iterable[str] | str | None = None,
) -> dict[str, Any] | None:
    """The hub's `oauth` block; None without a client id (the hub requires one)."""
    if not isinstance(client_id, str) or not client_id:
        return None
    spec: dict[str, Any] = {"client_id": client_id}
    if isinstance(callback_port, int) and not isinstance(callback_port, bool):
        spec["callback_port"] = callback_port
    if isinstance(auth_server_metadata_url, str) and auth_server_metadata_url:
        spec["auth_server_metadata_url"] = auth_server_metadata_url
    if isinstance(scopes, str):
        scopes = scopes.split()
    if scopes:
        spec["scopes"] = [s for s in scopes if isinstance(s, str) and s]
    return spec


def to_env_refs(value: str, pattern: re.Pattern[str]) -> str:
    """`value` with each host reference matched by `pattern` written as ${env:NAME}; the
    first group of the match that took part is the NAME."""
    return pattern.sub(lambda m: "${env:" + next(g for g in m.groups() if g) + "}", value)


def strings(value: Any, what: str) -> list[str]:
    """A list of strings (args), or NotImportable naming `what`."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotImportable(f"{what} is not a list of strings")
    return list(value)


def string_map(value: Any, what: str) -> dict[str, str]:
    """A mapping of string to string (env, headers), or NotImportable naming `what`."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise NotImportable(f"{what} is not a table of strings")
    return dict(value)


def nonempty(value: Any, what: str) -> str:
    """A non-empty string (a command, a URL), or NotImportable naming `what`."""
    if not isinstance(value, str) or not value:
        raise NotImportable(f"{what} is not a non-empty string")
    return value


def url_text(value: Any, what: str) -> str:
    """A remote server's URL: a string, empty for a placeholder the user fills in (Claude
    Code loads `"url": ""` as it is), or NotImportable naming `what`."""
    if not isinstance(value, str):
        raise NotImportable(f"{what} is not a string")
    return value


def cwd_for_hub(cwd: str | None) -> str | None:
    """The part of a host's cwd the hub can hold: only a relative `./...` folder."""
    if cwd and (cwd == "." or cwd.startswith("./")) and ".." not in cwd.split("/"):
        return cwd
    return None


def check_references(spec: Mapping[str, Any]) -> None:
    """NotImportable when a value keeps a reference the hub cannot express."""
    values: list[tuple[str, str]] = []
    for key in ("command", "cwd", "url"):
        if isinstance(spec.get(key), str):
            values.append((key, spec[key]))
    values += [(f"args[{i}]", a) for i, a in enumerate(spec.get("args", ()))]
    for key in ("env", "headers"):
        values += [(f"{key}.{k}", v) for k, v in spec.get(key, {}).items()]
    for where, value in values:
        problems = reference_problems(
            value, allow_plugin=False, allow_unknown=False, allow_user_config=True
        )
        if problems:
            raise NotImportable(
                f"{where}: {problems[0]}; the hub has no equivalent of this host variable"
            )


def extras_of(raw: Mapping[str, Any], mapped: Iterable[str]) -> dict[str, Any]:
    """The keys of a host's server spec that the hub shape does not carry, in host syntax."""
    taken = set(mapped)
    return {k: v for k, v in raw.items() if k not in taken}
