"""`plugin.gemini_folder: shared`: the Gemini CLI extension in the plugin's own folder.

A published extension has its files where the other hosts' plugin has its own (with
`plugin.path: .` the repository root is the extension: `gemini extensions install <repo>`).
There Gemini CLI also reads what the other hosts' copy holds: the agents (so it takes them
as they are) and `hooks/hooks.json` (which Claude Code loads by itself too).
"""

from __future__ import annotations

from memhub.compiler.errors import BuildError
from memhub.compiler.hosts import gemini_prompts
from memhub.compiler.hosts.common import NATIVE_ROOT
from memhub.compiler.hosts.shipped import Shipping, Written
from memhub.hubspec.model import Hub, PromptFile

name = "gemini"
ROOT_DIR = "gemini"  # the extension's own folder: gemini/<name>/ (gemini.ROOT_DIR)
SHARED = "shared"


def root(hub: Hub) -> str:
    """The bundle folder holding the extension: its own, or the native plugin folder's."""
    return NATIVE_ROOT if hub.plugin.gemini_folder == SHARED else ROOT_DIR


def shipping(hub: Hub) -> Shipping:
    """How the extension carries the hub's agents and commands. In a shared folder Gemini
    reads the agents the other hosts' copy holds, so it takes them as they are."""
    if hub.plugin.gemini_folder == SHARED:
        return Shipping(name, NATIVE_ROOT, shared_agent, gemini_prompts.command)
    return Shipping(name, ROOT_DIR, agents=gemini_prompts.agent, commands=gemini_prompts.command)


def shared_hooks_clash(hub: Hub, path: str) -> None:
    """Refuse Gemini hooks that would land on another host's hooks file in a shared folder
    (Gemini CLI reads only hooks/hooks.json, which Claude Code also loads by itself)."""
    others = [h for h, f in hub.hook_files.items() if h != name and f == path]
    if others:
        raise BuildError(
            f"{path}: plugin.gemini_folder: shared puts Gemini CLI's hooks file where "
            f"{', '.join(others)}'s hooks file is (hook_files), and both hosts load it. Fix: "
            "bind these hooks to one of them (hosts:), or set plugin.gemini_folder: apart"
        )


def toml_clash(hub: Hub, how: Shipping) -> None:
    """Refuse a shipped Gemini TOML command where the extension's own command lands."""
    shipped = {item.path for item in hub.files if item.hosts is None or name in item.hosts}
    for command in hub.commands:
        if callable(how.commands) and (command.hosts is None or name in command.hosts):
            path = how.commands(command).path
            if path in shipped:
                raise BuildError(
                    f"{path}: files: ships it, and Gemini CLI's form of the hub's command "
                    f"{command.name!r} lands there too. Fix: rename one, or limit the command "
                    "to the other hosts (commands: {from: ..., hosts: [...]})"
                )


def shared_agent(prompt: PromptFile) -> Written:
    """`agents/<name>.md` as the hub has it: the file the other hosts' copy holds too."""
    left = [key for key in prompt.front if key not in gemini_prompts.KEPT_AGENT_KEYS]
    caveat = (
        f"Gemini CLI reads the file as written (plugin.gemini_folder: shared), front matter "
        f"{', '.join(left)} too, which it checks as its own keys"
        if left
        else ""
    )
    return Written(f"agents/{prompt.name}.md", prompt.content, caveat)
