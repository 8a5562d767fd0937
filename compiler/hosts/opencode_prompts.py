"""OpenCode's forms of the hub's agents and commands (`agents/`, `commands/` of its config
folder, which OPENCODE_CONFIG_DIR names for a bundle).

OpenCode checks an agent's front matter strictly: Claude's `tools: Read, Grep` (OpenCode's
is a map) or `color: yellow` (a hex colour or a theme name) make the whole configuration
invalid (seen with opencode 1.18.33), and its models are `provider/model` ids. So an agent
keeps only `description` and becomes a subagent (`mode: subagent`, as a Claude agent is);
a command keeps only `description` (OpenCode would try Claude's `model: haiku` as a model
id). Bodies are kept as written: `$ARGUMENTS` and `$1`... are OpenCode's own placeholders.
"""

from __future__ import annotations

import json

from memhub.compiler.hosts.shipped import Written, dropped_keys
from memhub.hubspec.model import PromptFile

# `name` is the file's name in OpenCode too, so leaving the key out loses nothing
KEPT_AGENT_KEYS = ("name", "description")
KEPT_COMMAND_KEYS = ("name", "description")


def _markdown(folder: str, prompt: PromptFile, front: str, kept: tuple[str, ...]) -> Written:
    described = json.dumps(prompt.description, ensure_ascii=False)
    described = f"description: {described}\n" if prompt.description else ""  # a bare command
    text = f"---\n{described}{front}---\n{prompt.body}" if described or front else prompt.body
    caveat = dropped_keys(prompt, kept, "OpenCode")
    return Written(f"{folder}/{prompt.name}.md", text.encode("utf-8"), caveat)


def agent(prompt: PromptFile) -> Written:
    """`agents/<name>.md`: the description, `mode: subagent` and the body."""
    return _markdown("agents", prompt, "mode: subagent\n", KEPT_AGENT_KEYS)


def command(prompt: PromptFile) -> Written:
    """`commands/<name>.md`: the description and the body (the command's template)."""
    return _markdown("commands", prompt, "", KEPT_COMMAND_KEYS)
