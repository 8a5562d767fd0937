"""GitHub Copilot CLI's hook payloads as memhub events, and its hook answer.

Seen with copilot 1.0.102 (tests/e2e/test_copilot_runtime.py): every event carries
`sessionId`, `timestamp` (ms) and `cwd`; sessionStart `source`, sessionEnd `reason`,
userPromptSubmitted `prompt`; tool events `toolName` and `toolArgs` (an object), then
`toolResult` ({resultType, textResultForLlm}) after the tool or `error` on failure;
`transcriptPath` arrives only on agentStop, and names `session-state/<id>/events.jsonl`
under Copilot's home. The answer is one JSON object: a top-level `additionalContext` reaches
the model on sessionStart, userPromptSubmitted, preToolUse, postToolUse and
postToolUseFailure (dispatch.CONTEXT_EVENTS); Copilot has no message for the user.

Imported only by a Copilot hook (events.normalise), so the other hosts pay nothing for it.
"""

from .events import Event, _text
from .lowos import getenv

# Copilot host event -> logical event (compiler/hosts/copilot.py EVENTS, read backwards)
LOGICAL: dict[str, str] = {
    "sessionStart": "session_start",
    "sessionEnd": "session_end",
    "userPromptSubmitted": "prompt_submit",
    "preToolUse": "before_tool",
    "postToolUse": "after_tool",
    "postToolUseFailure": "after_tool_failure",
    "agentStop": "turn_end",
    "preCompact": "pre_compact",
}
# Copilot tool name -> tool class (compiler/hosts/copilot.py TOOLS, read backwards). An MCP
# tool's name is `<server>-<tool>` with nothing marking it as one: it has no class here.
TOOLS: dict[str, str] = {
    "bash": "shell",
    "create": "edit",
    "edit": "edit",
    "view": "read",
    "grep": "search",
    "glob": "search",
    "web_fetch": "web",
    "task": "agent",
}
SHELL_DONE = " completed with exit code "  # the tail of its bash result: `<shellId: 0 ...N>`


def normalise(host_event: str, payload: dict) -> Event:
    """The `Event` of one Copilot hook call; odd fields stay None."""
    event = Event("copilot", host_event, payload)
    event.name = LOGICAL.get(host_event)
    event.session_id = _text(payload.get("sessionId"))
    event.cwd = _text(payload.get("cwd"))
    event.transcript_path = _text(payload.get("transcriptPath")) or _transcript(event.session_id)
    event.prompt = _text(payload.get("prompt"))
    event.source = (
        _text(payload.get("source"))
        or _text(payload.get("reason"))
        or _text(payload.get("trigger"))
    )
    if event.name in ("before_tool", "after_tool", "after_tool_failure"):
        _tool(event, payload)
    return event


def _transcript(session_id: str | None) -> str | None:
    """Where Copilot keeps the session's events (only agentStop names it): under
    $COPILOT_HOME, else ~/.copilot. None for an id that is not one plain folder name."""
    if not session_id or "/" in session_id or "\\" in session_id or session_id.startswith("."):
        return None
    home = _text(getenv("COPILOT_HOME"))
    if home is None:
        user_home = _text(getenv("HOME"))
        if user_home is None:
            return None
        home = user_home.rstrip("/") + "/.copilot"
    return f"{home.rstrip('/')}/session-state/{session_id}/events.jsonl"


def _tool(event: Event, payload: dict) -> None:
    args = payload.get("toolArgs")
    event.tool_input = args if isinstance(args, dict) else {}
    event.tool_name = _text(payload.get("toolName"))
    event.tool_class = TOOLS.get(event.tool_name or "")
    if event.tool_class == "shell":
        command = event.tool_input.get("command")
        event.command = command if isinstance(command, str) else None
    if event.name == "after_tool_failure":
        event.failed = True
    elif event.name == "after_tool":
        event.failed = _failed(payload.get("toolResult"), event.tool_class == "shell")


def _failed(result: object, shell: bool) -> bool | None:
    """Whether a postToolUse call failed: its resultType, and for bash the exit code its
    result ends with (a command that exits 1 is a successful tool call to Copilot)."""
    if not isinstance(result, dict):
        return None
    kind = result.get("resultType")
    if kind not in ("success", None):
        return True
    text = result.get("textResultForLlm")
    if shell and isinstance(text, str):
        cut = text.rfind(SHELL_DONE)
        if cut >= 0:
            code = text[cut + len(SHELL_DONE) :].rstrip().rstrip(">").strip()
            if code.lstrip("-").isdigit():
                return int(code) != 0
    return False if kind == "success" else None


def render(host_event: str, messages: list[str], contexts: list[str], carried: frozenset) -> str:
    """Copilot's answer: `additionalContext` on an event that shows it to the model. It has
    no user message: on sessionStart the messages go to the model, which can say them."""
    from .events import dumps

    if host_event == "sessionStart":
        contexts = messages + contexts
    if contexts and host_event in carried:
        return dumps({"additionalContext": "\n\n".join(contexts)})
    return "{}"
