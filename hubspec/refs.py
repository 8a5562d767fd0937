"""`${...}` references in hub strings: environment secrets and plugin locations.

A hub never holds a secret value. It writes `${env:NAME}`, and each host adapter
translates that into its host's own reference syntax. `${plugin_root}` and
`${plugin_data}` name the installed plugin's folder and its persistent data folder;
`${project_dir}` names the project folder the host works in (a stdio server's argument: each
adapter writes it as the folder the host starts the server in, or as the host's workspace
variable where it starts servers elsewhere).

`${env:NAME:-default}` gives NAME a default for when it is unset: a plain value (no `$`, `{`
or `}`, so never a nested reference), never a credential, at most DEFAULT_MAX characters.
Each adapter writes it in its host's own syntax where the host has one (`env_default`), and
otherwise starts the server through memhub's launcher or says in coverage that it cannot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memhub.runtime import credentials

from .vocabulary import ENV_NAME

REFERENCE = re.compile(r"\$\{([^}]*)\}")
PLUGIN_REFS = ("plugin_root", "plugin_data")
PROJECT_REF = "project_dir"
# Where the hosts that start a stdio server in their working folder find the project: that
# folder itself. Claude Code, Codex (also under `codex exec -C DIR`) and Gemini CLI start a
# stdio server without a `cwd` in the folder the session works in (tests/e2e records it with
# each real CLI); Cursor does not, and names its workspace `${workspaceFolder}` instead.
PROJECT_IN_CWD = "."
DEFAULT_SEPARATOR = ":-"
USER_CONFIG_PREFIX = "user_config."  # `${user_config.KEY}`: an install-time option
DEFAULT_MAX = 1024  # a default is a fallback value (a URL, a level), not a document
_DEFAULT_REFUSED = frozenset("${}")


@dataclass(frozen=True, slots=True)
class Reference:
    """One `${...}` occurrence: `env` or `user_config` (with `name`), `plugin_root`,
    `plugin_data`, `project_dir`, or unknown."""

    kind: str
    name: str
    raw: str
    default: str | None = None  # `${env:NAME:-default}`: the value when NAME is unset


def references(text: str) -> list[Reference]:
    if "${" not in text:
        return []  # most strings hold none; every server field of every host asks
    out = []
    for match in REFERENCE.finditer(text):
        body = match.group(1)
        if body.startswith("env:"):
            name, sep, default = body[4:].partition(DEFAULT_SEPARATOR)
            out.append(Reference("env", name, match.group(0), default if sep else None))
        elif body.startswith(USER_CONFIG_PREFIX):
            out.append(Reference("user_config", body[len(USER_CONFIG_PREFIX) :], match.group(0)))
        elif body in PLUGIN_REFS or body == PROJECT_REF:
            out.append(Reference(body, body, match.group(0)))
        else:
            out.append(Reference("unknown", body, match.group(0)))
    return out


def reference_problems(
    text: str, *, allow_plugin: bool, allow_unknown: bool, allow_user_config: bool = False
) -> list[str]:
    """Why the references in `text` are unusable (empty list when fine). `allow_user_config`:
    `${user_config.KEY}` may stand here (an MCP server's values)."""
    problems = []
    for ref in references(text):
        if ref.kind == "user_config":
            problems += _user_config_problems(ref, allow_user_config)
        elif ref.kind == "env" and not ENV_NAME.match(ref.name):
            problems.append(
                f"{ref.raw} is not a valid environment reference "
                "(a name of letters, digits and underscores)"
            )
        elif ref.kind == "env" and ref.default is not None:
            problems += default_problems(ref)
        elif (ref.kind in PLUGIN_REFS or ref.kind == PROJECT_REF) and not allow_plugin:
            problems.append(f"{ref.raw} is not allowed here")
        elif ref.kind == "unknown" and not allow_unknown:
            problems.append(
                f"{ref.raw} is not a memhub reference (use ${{env:NAME}}, ${{plugin_root}}, "
                "${plugin_data} or ${project_dir})"
            )
    rest = REFERENCE.sub("", text)
    if ("${" in rest and not allow_unknown) or "${env:" in rest:
        problems.append("an unterminated ${ reference")
    return problems


def _user_config_problems(ref: Reference, allowed: bool) -> list[str]:
    """Why `${user_config.KEY}` is unusable: a bad name, or a place that is not a server's."""
    if not ENV_NAME.match(ref.name):
        return [f"{ref.raw} is not a valid option name (letters, digits and underscores)"]
    if not allowed:
        return [
            f"{ref.raw} is not usable here: an install-time option goes in an MCP server's "
            f"command, args, env, url or headers (a hook command reads "
            f"$CLAUDE_PLUGIN_OPTION_{ref.name})"
        ]
    return []


def default_problems(ref: Reference) -> list[str]:
    """Why the default of `${env:NAME:-default}` is unusable: nested, huge or a secret."""
    default = ref.default or ""
    shown = ref.raw if len(ref.raw) <= 80 else ref.raw[:77] + "..."
    if _DEFAULT_REFUSED & set(default):
        return [
            f"the default in {shown} holds `$`, `{{` or `}}` (a default is a plain value; "
            "nested references are not expanded by every host)"
        ]
    if len(default) > DEFAULT_MAX:
        return [f"the default in {shown} is {len(default)} characters (at most {DEFAULT_MAX})"]
    # The value as a whole, with the default in place, is checked where the value is
    # (Checker): here, a default for a variable whose name says it holds a secret.
    why = literal_secret(ref.name, default)
    if why:
        return [
            f"the default of ${{env:{ref.name}}} looks like a literal "
            f"credential ({why}); a secret never has a default in a hub"
        ]
    return []


def shell_ref(name: str) -> str:
    """`${NAME}`: how Claude Code, Gemini CLI, Copilot CLI and a shell name a variable."""
    return "${" + name + "}"


def shell_default(name: str, default: str) -> str:
    """`${NAME:-default}`: a variable with a default, in the same syntax."""
    return "${" + name + DEFAULT_SEPARATOR + default + "}"


def with_defaults(text: str) -> str:
    """`text` as a host uses it when every variable with a default is unset: what the
    credential checks read (`--token ${env:T:-abc123}` holds a literal token)."""
    if DEFAULT_SEPARATOR not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        ref = references(match.group(0))[0]
        return ref.default if ref.kind == "env" and ref.default is not None else match.group(0)

    return REFERENCE.sub(replace, text)


def hub_env_ref(name: str, default: str | None) -> tuple[str, str]:
    """A host's `${NAME}` or `${NAME:-default}` in hub syntax, for `memhub import`, and a note
    when its default cannot be kept (nested, huge or a secret: the hub refuses those)."""
    if default is None:
        return "${env:" + name + "}", ""
    ref = Reference("env", name, shell_default(name, default), default)
    if default_problems(ref):
        return "${env:" + name + "}", f"the default of ${{{name}}} was dropped: " + (
            default_problems(ref)[0]
        )
    return "${env:" + name + DEFAULT_SEPARATOR + default + "}", ""


def has_default(values: Iterable[str]) -> bool:
    """Whether any of `values` holds an `${env:NAME:-default}`."""
    return any(ref.default is not None for v in values for ref in references(v))


def has_credential(value: str) -> bool:
    """Whether `value` holds a literal credential (`memhub.runtime.credentials`, the one
    detector the loader, apply, import and the redactor share)."""
    return bool(credentials.find(value))


def literal_secret(key: str, value: str) -> str | None:
    """Why `value` (for env var or header `key`) looks like a pasted credential, else None."""
    return credentials.literal_for_key(key, value)


def substitute(
    text: str,
    *,
    env: Callable[[str], str],
    plugin_root: str,
    plugin_data: str,
    project_dir: str = PROJECT_IN_CWD,
    env_default: Callable[[str, str], str] | None = None,
) -> str:
    """Rewrite memhub references into a host's syntax; other text is kept as is.
    `project_dir`: the host's way to name its project folder (default: its working folder).
    `env_default(name, default)` writes `${env:NAME:-default}` where the host has defaults;
    without it the default is dropped (the adapter routes or reports such a server)."""
    if "${" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        if body.startswith("env:"):
            name, sep, default = body[4:].partition(DEFAULT_SEPARATOR)
            return env_default(name, default) if sep and env_default else env(name)
        if body == "plugin_root":
            return plugin_root
        if body == "plugin_data":
            return plugin_data
        if body == PROJECT_REF:
            return project_dir
        return match.group(0)

    return REFERENCE.sub(replace, text)


def env_only(text: str) -> str | None:
    """The NAME when `text` is exactly `${env:NAME}` (no default), else None."""
    if not text.startswith("${env:"):
        return None
    refs = references(text)
    if len(refs) == 1 and refs[0].kind == "env" and refs[0].raw == text and refs[0].default is None:
        return refs[0].name
    return None
