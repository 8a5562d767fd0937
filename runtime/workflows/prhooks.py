"""The PR hooks (`after_tool` on shell and MCP): `workflow.pr_link` records a self-link
against the session and asks, for a call that only names a PR, to link it only if this
session wrote it; `workflow.pr_babysit` arms the babysit loop after this session opened a PR.
Both read one decision (`prs.pr_decision`), made once per hook process."""

from __future__ import annotations

from .hookdata import output, session_key, succeeded
from .prs import PrDecision, none, pr_decision

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..dispatch import Output
    from ..events import Event

# the event the last decision was made for (one hook process handles one event; both
# handlers bound to it share the decision)
_last: list[tuple[object, PrDecision]] = []


def decide(event: Event) -> PrDecision:
    """The PR decision for this event, made once."""
    if _last and _last[0][0] is event:
        return _last[0][1]
    decision = _decide(event)
    _last[:] = [(event, decision)]
    return decision


def _decide(event: Event) -> PrDecision:
    if event.tool_class == "shell":
        if event.command is None:
            return none("no-command")
        text = event.command if isinstance(event.command, str) else " ".join(event.command)
        if "gh" not in text and "github" not in text:
            return none("not-github")  # the common case reads no output at all
        tool: str = "shell"
        subject: object = event.command
    elif event.tool_class == "mcp" and event.tool_name:
        if "github" not in event.tool_name.lower():
            return none("not-github")
        tool, subject = event.tool_name, event.tool_input
    else:
        return none("not-a-pr-tool")
    if not succeeded(event):
        return none("failed")
    text = output(event)
    if event.failed is None and tool == "shell" and _refused(text):
        return none("failed")  # Codex sends no exit status: gh's refusal is the failure
    from .skillnames import skill_prefix

    return pr_decision(tool, subject, text, True, skills=skill_prefix(event.host))


def _refused(output: str) -> bool:
    """Whether the output is gh's refusal to open a second PR for the branch (it names the
    existing PR, the only failed create whose output names one)."""
    return "a pull request for branch" in output and "already exists" in output


def link(event: Event, out: Output) -> None:
    """Self-link: record it. Judged: the instruction to link only if this session wrote it."""
    decision = decide(event)
    if decision.kind == "judged" and decision.text:
        out.context(decision.text)
    elif decision.kind == "self-link" and decision.pr is not None and event.session_id:
        from . import prstore

        recorded = prstore.record(
            out.home,
            session_key(event),
            event.host,
            event.session_id,
            decision.pr,
            decision.reason,
            event.cwd or "",
        )
        if not recorded:
            from ..dispatch import log

            log(out.home, "workflow.pr_link", f"could not record the link to {decision.pr.url}")


def babysit(event: Event, out: Output) -> None:
    """After this session opened a PR: the instruction to start the babysit loop."""
    decision = decide(event)
    if decision.kind == "self-link" and decision.babysit and decision.text:
        out.context(decision.text)
