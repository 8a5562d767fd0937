"""The hub's fixed vocabulary: host names, logical hook events, limits, name patterns."""

from __future__ import annotations

import re

# Logical events (DESIGN.md, "Logical hooks"); adapters map them to host events.
EVENTS: tuple[str, ...] = (
    "session_start",
    "session_end",
    "prompt_submit",
    "before_tool",
    "after_tool",
    "after_tool_failure",
    "turn_end",
    "pre_compact",
)
TOOL_EVENTS: frozenset[str] = frozenset({"before_tool", "after_tool", "after_tool_failure"})


def bundle_hosts() -> tuple[str, ...]:
    """Every host adapter's name in build order: the schema's host names. The compiler's
    ADAPTERS is the one host list; it is read when asked (not at import), because the
    adapters themselves import hubspec."""
    from memhub.compiler.hosts import ADAPTERS

    return tuple(ADAPTERS)


def default_hosts() -> tuple[str, ...]:
    """A hub's `hosts:` when it names none: every host but the opt-in ones."""
    from memhub.compiler.hosts import ADAPTERS, OPT_IN_HOSTS

    return tuple(h for h in ADAPTERS if h not in OPT_IN_HOSTS)


KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MCP_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A line memhub reads as one of its own block markers in an instruction file
# (compiler/textblock.py); hub instructions may not contain one, or the block they are
# written into would end early and the file be refused on every later apply.
BLOCK_MARKER = re.compile(r"^<!-- memhub:(begin|end) ([A-Za-z0-9._-]+) -->[ \t]*\r?$", re.MULTILINE)

NAME_MAX = 64
# A sanity cap on a skill's `description`, not any host's limit: each host adapter says what
# its own CLI does beyond its length (SKILL_DESCRIPTION_MAX there); this only keeps a huge
# input (a pasted file, a runaway generator) out of every host's skill listing.
SKILL_DESCRIPTION_CAP = 64 * 1024
HOOK_TIMEOUT_MAX = 600
