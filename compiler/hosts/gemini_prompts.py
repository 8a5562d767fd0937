"""Gemini CLI's forms of the hub's agents and commands (extension `agents/`, `commands/`).

A command is `commands/<name>.toml` with `description` and `prompt`; Gemini passes the
user's words as `{{args}}` (Claude's `$ARGUMENTS`) and has no positional arguments. An
agent is `agents/<name>.md` whose front matter Gemini checks strictly (`name`,
`description`, its own `tools`, `model`, ...): Claude's tool and model names mean nothing
there, so only `name` and `description` are kept.
"""

from __future__ import annotations

import json
import re

from memhub.compiler.formats.tomlvalues import basic_string
from memhub.compiler.hosts.shipped import Written, dropped_keys
from memhub.hubspec.agents import PROMPT_NAME
from memhub.hubspec.model import PromptFile

ARGUMENTS = "$ARGUMENTS"
GEMINI_ARGUMENTS = "{{args}}"
_POSITIONAL = re.compile(r"\$[1-9]")
_LITERAL_SAFE = re.compile(r"^[^\x00-\x08\x0b-\x1f\x7f]*$")
KEPT_AGENT_KEYS = ("name", "description")
KEPT_COMMAND_KEYS = ("name", "description")


def _dropped(prompt: PromptFile, kept: tuple[str, ...]) -> str:
    return dropped_keys(prompt, kept, "Gemini")


def _toml_text(text: str) -> str:
    """A TOML string of `text`: multi-line literal when it can be, else a basic string."""
    if "'''" not in text and _LITERAL_SAFE.match(text) and not text.endswith("'"):
        return "'''\n" + text + "'''"
    return basic_string(text)


def command(prompt: PromptFile) -> Written:
    """`commands/<name>.toml`: the description and the body as the prompt."""
    body = prompt.body.lstrip("\n")
    caveats = [_dropped(prompt, KEPT_COMMAND_KEYS)]
    if _POSITIONAL.search(body):
        caveats.append("Gemini has no positional arguments ($1 ...); they stay as written")
    described = f"description = {basic_string(prompt.description)}\n" if prompt.description else ""
    text = described + f"prompt = {_toml_text(body.replace(ARGUMENTS, GEMINI_ARGUMENTS))}\n"
    path = f"commands/{prompt.name}.toml"
    return Written(path, text.encode("utf-8"), "; ".join(c for c in caveats if c))


def agent(prompt: PromptFile) -> Written:
    """`agents/<name>.md` with the front matter Gemini accepts: the name Claude Code lists
    the agent by (its `name:`) when Gemini takes it as a name, else the file's."""
    name = prompt.title if PROMPT_NAME.match(prompt.title) else prompt.name
    front = (
        f"name: {json.dumps(name)}\n"
        f"description: {json.dumps(prompt.description, ensure_ascii=False)}\n"
    )
    text = f"---\n{front}---\n{prompt.body}"
    caveats = [_dropped(prompt, KEPT_AGENT_KEYS)]
    if name != prompt.title:
        caveats.append(f"Gemini lists it as {name!r}: `name: {prompt.title}` is no Gemini name")
    # Gemini 0.61 offers extension agents to the model without any setting
    # (tests/e2e/test_shipped_hosts.py), although its docs call them a preview.
    return Written(
        f"agents/{prompt.name}.md", text.encode("utf-8"), "; ".join(c for c in caveats if c)
    )
