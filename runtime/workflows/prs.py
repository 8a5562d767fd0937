"""Session <-> PR linking and PR babysitting: what one finished tool call means.

`pr_decision(tool, command_or_args, output, exit_ok)` answers one of three ways:
- "self-link": this call opened the PR and the URL provably came from that create (a
  `gh pr create` that is the line's last command, not in a pipeline, `||`, background or
  compound command, stdout not redirected, whose output ends with the bare URL gh prints; or a
  GitHub MCP create tool's result). The caller records the link; the text arms the babysit loop.
- "judged": a GitHub call naming exactly one PR (a `gh pr` action, `gh api` / curl to a pulls
  endpoint, a GitHub MCP PR tool, or a create whose failure a pipeline could hide); the text
  asks the agent to link only if this session wrote that code.
- "none": anything else, including every failed call and every odd input (never raises).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .prrefs import PullRequest

MAX_OUTPUT = 100_000  # the output's tail that is read; gh prints the URL last


class PrDecision:
    """The answer for one call: kind, the PR (when one), the text to inject ("" for none),
    whether the text arms the babysit loop, and a short reason for stats and logs."""

    __slots__ = ("babysit", "kind", "pr", "reason", "text")

    def __init__(
        self, kind: str, pr: PullRequest | None, reason: str, text: str = "", babysit: bool = False
    ) -> None:
        self.kind = kind
        self.pr = pr
        self.reason = reason
        self.text = text
        self.babysit = babysit

    def __repr__(self) -> str:
        return f"PrDecision({self.kind!r}, {self.pr!r}, {self.reason!r})"


def none(reason: str) -> PrDecision:
    return PrDecision("none", None, reason)


def pr_decision(
    tool: str,
    command_or_args: object,
    output: object,
    exit_ok: bool,
    *,
    skills: str = "/memhub:",
) -> PrDecision:
    """What a finished call means for PR linking. `tool` is "shell" (then `command_or_args` is
    the command line or argv list) or an MCP tool's name (then it is the tool's arguments);
    `output` is the call's stdout (or its whole output); `exit_ok` whether the host reported
    success. `skills` prefixes the skill names in the text (a host's skill syntax)."""
    try:
        if exit_ok is not True:
            return none("failed")
        text = output if isinstance(output, str) else ""
        text = text[-MAX_OUTPUT:]
        command = command_or_args
        if tool == "shell":
            if isinstance(command, str) and "gh" not in command and "github" not in command:
                return none("not-github")  # the common case imports and parses nothing
            from .prdecide import shell

            decision = shell(command, text)
        elif isinstance(tool, str) and tool:
            if "github" not in tool.lower():
                return none("not-github")
            from .prdecide import mcp

            decision = mcp(tool, command, text)
        else:
            return none("unknown-tool")
        if decision.kind != "none" and decision.pr is not None:
            from .prtexts import render  # the texts only when something fires

            decision.text, decision.babysit = render(decision, skills)
        return decision
    except Exception:  # a hook never fails the agent: an odd input is silence
        return none("error")
