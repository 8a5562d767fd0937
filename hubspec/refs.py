"""`${...}` references in hub strings: environment secrets and plugin locations.

A hub never holds a secret value. It writes `${env:NAME}`, and each host adapter
translates that into its host's own reference syntax. `${plugin_root}` and
`${plugin_data}` name the installed plugin's folder and its persistent data folder;
`${project_dir}` names the project folder the host works in (a stdio server's argument: each
adapter writes it as the folder the host starts the server in, or as the host's workspace
variable where it starts servers elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Callable
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


@dataclass(frozen=True, slots=True)
class Reference:
    """One `${...}` occurrence: `env` (with `name`), `plugin_root`, `plugin_data`,
    `project_dir`, or unknown."""

    kind: str
    name: str
    raw: str


def references(text: str) -> list[Reference]:
    if "${" not in text:
        return []  # most strings hold none; every server field of every host asks
    out = []
    for match in REFERENCE.finditer(text):
        body = match.group(1)
        if body.startswith("env:"):
            out.append(Reference("env", body[4:], match.group(0)))
        elif body in PLUGIN_REFS or body == PROJECT_REF:
            out.append(Reference(body, body, match.group(0)))
        else:
            out.append(Reference("unknown", body, match.group(0)))
    return out


def reference_problems(text: str, *, allow_plugin: bool, allow_unknown: bool) -> list[str]:
    """Why the references in `text` are unusable (empty list when fine)."""
    problems = []
    for ref in references(text):
        if ref.kind == "env" and not ENV_NAME.match(ref.name):
            problems.append(
                f"{ref.raw} is not a valid environment reference "
                "(a name of letters, digits and underscores)"
            )
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
) -> str:
    """Rewrite memhub references into a host's syntax; other text is kept as is.
    `project_dir`: the host's way to name its project folder (default: its working folder)."""
    if "${" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        if body.startswith("env:"):
            return env(body[4:])
        if body == "plugin_root":
            return plugin_root
        if body == "plugin_data":
            return plugin_data
        if body == PROJECT_REF:
            return project_dir
        return match.group(0)

    return REFERENCE.sub(replace, text)


def env_only(text: str) -> str | None:
    """The NAME when `text` is exactly `${env:NAME}`, else None."""
    if not text.startswith("${env:"):
        return None
    refs = references(text)
    if len(refs) == 1 and refs[0].kind == "env" and refs[0].raw == text:
        return refs[0].name
    return None
