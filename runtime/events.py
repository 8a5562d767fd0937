"""One event shape for every host's hook payload, and the JSON the hook reads and writes.

`normalise(host, host_event, payload)` turns a Claude Code, Codex, Cursor or Gemini CLI hook
payload (the JSON on the hook's stdin, hosts.md 1.3 / 2.2 / 3.2 / 4.2; Copilot CLI's goes to
events_copilot.py) into an `Event`: the logical event name, host, session id, transcript
path, cwd, tool class, tool name and, for shell tools, the command; the prompt; whether the
tool failed.

Hot path: imports only the C accelerator `_json` (the `json` package pulls in `re` and
`enum`, which would double the hook's start-up cost; it is the fallback) and `lowos`.
"""

from .lowos import getenv

# typing.TYPE_CHECKING without importing typing (the hot path); annotations using these names
# are strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# host event -> logical event, per host (the compiler's adapters map the other way)
LOGICAL: dict[str, dict[str, str]] = {
    "claude": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "UserPromptSubmit": "prompt_submit",
        "PreToolUse": "before_tool",
        "PostToolUse": "after_tool",
        "PostToolUseFailure": "after_tool_failure",
        "Stop": "turn_end",
        "SubagentStop": "turn_end",  # a subagent's turn, in its own transcript (see normalise)
        "PreCompact": "pre_compact",
    },
    "codex": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "UserPromptSubmit": "prompt_submit",
        "PreToolUse": "before_tool",
        "PostToolUse": "after_tool",  # also after a failed call; Codex has no failure event
        "Stop": "turn_end",
        "PreCompact": "pre_compact",
    },
    "cursor": {
        "sessionStart": "session_start",
        "sessionEnd": "session_end",
        "beforeSubmitPrompt": "prompt_submit",
        "preToolUse": "before_tool",
        "postToolUse": "after_tool",
        "postToolUseFailure": "after_tool_failure",
        "stop": "turn_end",
        "preCompact": "pre_compact",
        # Cursor's specialised tool events (older builds and the cursor-agent CLI)
        "beforeShellExecution": "before_tool",
        "afterShellExecution": "after_tool",
        "beforeMCPExecution": "before_tool",
        "afterMCPExecution": "after_tool",
        "beforeReadFile": "before_tool",
        "afterFileEdit": "after_tool",
    },
    "gemini": {
        "SessionStart": "session_start",
        "SessionEnd": "session_end",
        "BeforeAgent": "prompt_submit",
        "BeforeTool": "before_tool",
        "AfterTool": "after_tool",  # after_tool_failure when tool_response.error is set
        "AfterAgent": "turn_end",
        "PreCompress": "pre_compact",
    },
}

# tool name -> tool class, per host (the compiler's TOOLS tables, read backwards)
TOOLS: dict[str, dict[str, str]] = {
    "claude": {
        "Bash": "shell",
        "Edit": "edit",
        "MultiEdit": "edit",
        "Write": "edit",
        "NotebookEdit": "edit",
        "Read": "read",
        "Grep": "search",
        "Glob": "search",
        "WebFetch": "web",
        "WebSearch": "web",
        "Task": "agent",
        "Agent": "agent",
    },
    "codex": {
        "Bash": "shell",
        "shell": "shell",
        "local_shell": "shell",
        "exec_command": "shell",
        "apply_patch": "edit",
        "Edit": "edit",
        "Write": "edit",
        "spawn_agent": "agent",
        "Agent": "agent",
    },
    "cursor": {
        "Shell": "shell",
        "Write": "edit",
        "Edit": "edit",
        "Read": "read",
        "Grep": "search",
        "Glob": "search",
        "WebFetch": "web",
        "WebSearch": "web",
        "Task": "agent",
    },
    "gemini": {
        "run_shell_command": "shell",
        "replace": "edit",
        "write_file": "edit",
        "read_file": "read",
        "read_many_files": "read",
        "grep_search": "search",
        "glob": "search",
        "search_file_content": "search",
        "web_fetch": "web",
        "google_web_search": "web",
        "invoke_agent": "agent",
    },
}
CODEX_PATCH = ("apply_patch", "applypatch")  # the command words Codex runs as a patch
# hosts that send an edit's before-tool event but no after-tool one (Codex 0.171 reports an
# `apply_patch` on PreToolUse only): what follows an edit is said before it there
EDIT_BEFORE_ONLY = frozenset({"codex"})
MCP_PREFIX = {"claude": "mcp__", "codex": "mcp__", "cursor": "MCP:", "gemini": "mcp_"}
# Cursor's specialised events name no tool: their class (and a tool name for matchers)
CURSOR_EVENT_TOOLS = {
    "beforeShellExecution": ("shell", "Shell"),
    "afterShellExecution": ("shell", "Shell"),
    "beforeMCPExecution": ("mcp", None),
    "afterMCPExecution": ("mcp", None),
    "beforeReadFile": ("read", "Read"),
    "afterFileEdit": ("edit", "Edit"),
}


class Event:
    """A hook event, the same for every host. `payload` keeps the host's JSON as it came."""

    __slots__ = (
        "command",
        "cwd",
        "failed",
        "host",
        "host_event",
        "name",
        "payload",
        "prompt",
        "session_id",
        "source",
        "tool_class",
        "tool_input",
        "tool_name",
        "transcript_path",
    )

    def __init__(self, host: str, host_event: str, payload: dict) -> None:
        self.host = host
        self.host_event = host_event
        self.payload = payload
        self.name: str | None = None  # the logical event; None for an event memhub doesn't map
        self.session_id: str | None = None
        self.transcript_path: str | None = None
        self.cwd: str | None = None
        self.tool_name: str | None = None
        self.tool_class: str | None = None
        self.tool_input: dict = {}
        self.command: str | list | None = None  # shell tools: the command line (or argv list)
        self.prompt: str | None = None
        self.failed: bool | None = None  # tool events: True / False, None when unknown
        self.source: str | None = None  # session_start source, session_end reason, trigger

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__ if k != "payload"}

    def __repr__(self) -> str:
        return f"Event({self.as_dict()!r})"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def tool_class(host: str, tool_name: str | None) -> str | None:
    """The tool class of a host's tool name (shell, edit, read, search, web, mcp, agent)."""
    if not tool_name:
        return None
    known = TOOLS.get(host, {}).get(tool_name)
    if known:
        return known
    prefix = MCP_PREFIX.get(host)
    if prefix and tool_name.startswith(prefix):
        return "mcp"
    return None


def looks_like_cursor(payload: dict) -> bool:
    """Cursor runs Claude Code's hooks too (third-party hooks), with its own payloads."""
    return bool(payload.get("cursor_version"))


def normalise(host: str, host_event: str, payload: object) -> Event:
    """The `Event` of one hook call. Never raises on odd payloads: missing or mistyped
    fields stay None."""
    if not isinstance(payload, dict):
        payload = {}
    if host == "copilot":  # its own camelCase payloads, in a module only its hooks import
        from .events_copilot import normalise as copilot

        return copilot(host_event, payload)
    if host == "claude" and looks_like_cursor(payload):
        host = "cursor"
        host_event = _text(payload.get("hook_event_name")) or host_event
    event = Event(host, host_event, payload)
    table = LOGICAL.get(host, {})
    event.name = table.get(host_event)
    if event.name is None and host == "cursor":
        # Claude-named events reaching Cursor's table through its third-party hook support
        event.name = LOGICAL["claude"].get(host_event)
    event.session_id = _text(payload.get("session_id")) or _text(payload.get("conversation_id"))
    if host == "gemini" and not event.session_id:
        event.session_id = _text(getenv("GEMINI_SESSION_ID"))
    event.transcript_path = _text(payload.get("transcript_path"))
    if host_event == "SubagentStop":
        _subagent(event, payload)
    if host == "cursor" and not event.transcript_path:
        event.transcript_path = _text(getenv("CURSOR_TRANSCRIPT_PATH"))
    event.cwd = _text(payload.get("cwd"))
    if not event.cwd:
        roots = payload.get("workspace_roots")
        if isinstance(roots, list) and roots and isinstance(roots[0], str):
            event.cwd = roots[0]
    event.prompt = _text(payload.get("prompt"))
    event.source = (
        _text(payload.get("source"))
        or _text(payload.get("reason"))
        or _text(payload.get("trigger"))
        or _text(payload.get("status"))
    )
    if event.name in ("before_tool", "after_tool", "after_tool_failure"):
        _tool(event, payload)
    return event


def _subagent(event: Event, payload: dict) -> None:
    """Claude's SubagentStop names the parent's transcript and session, and the subagent's
    transcript apart (`agent_transcript_path`): the turn that ended is the subagent's, so
    the event is that transcript's, under the session id the readers give it (its file
    name's stem, `agent-<id>`)."""
    path = _text(payload.get("agent_transcript_path"))
    if not path:
        return
    name = path.rsplit("/", 1)[-1]
    event.transcript_path = path
    event.session_id = name[: -len(".jsonl")] if name.endswith(".jsonl") else name


def _tool(event: Event, payload: dict) -> None:
    host = event.host
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, str):  # Cursor's MCP events send it as a JSON string
        parsed = loads(tool_input)
        tool_input = parsed if isinstance(parsed, dict) else {"input": tool_input}
    event.tool_input = tool_input if isinstance(tool_input, dict) else {}
    event.tool_name = _text(payload.get("tool_name"))
    if host == "cursor" and event.host_event in CURSOR_EVENT_TOOLS:
        event.tool_class, name = CURSOR_EVENT_TOOLS[event.host_event]
        event.tool_name = event.tool_name or name
    else:
        event.tool_class = tool_class(host, event.tool_name)
    if event.tool_class == "shell":
        command = event.tool_input.get("command")
        if command is None:
            command = payload.get("command")  # Cursor's shell events: top-level command
        if isinstance(command, str) or (
            isinstance(command, list) and all(isinstance(w, str) for w in command)
        ):
            event.command = command
        if host == "codex" and _codex_patch(event.command):
            event.tool_class, event.command = "edit", None  # an edit, whatever the tool
    if event.name == "after_tool_failure":
        event.failed = True
    elif event.name == "after_tool":
        event.failed = _failed(host, event.host_event, payload, event.tool_class == "shell")
        if event.failed and host == "gemini":
            event.name = "after_tool_failure"
    else:
        event.failed = None


def _codex_patch(command: str | list | None) -> bool:
    """A Codex shell call that is `apply_patch` (`apply_patch <<'EOF' ...`, as a line or an
    argv): Codex applies the patch itself and reports the call as Bash, so the handlers see
    an edit of the envelope's files."""
    if isinstance(command, list):  # `[apply_patch, PATCH]`, `[bash, -lc, "apply_patch <<..."]`
        if len(command) == 2 and command[0] in CODEX_PATCH:
            return True
        shell = len(command) == 3 and command[1] in ("-lc", "-c")
        command = command[2] if shell else None
    if not isinstance(command, str) or not command.lstrip().startswith(CODEX_PATCH):
        return False
    return "*** Begin Patch" in command


def _failed(host: str, host_event: str, payload: dict, shell: bool) -> bool | None:
    if host == "claude":
        return False  # failures arrive as PostToolUseFailure
    if host == "cursor":
        return host_event == "postToolUseFailure"
    response = payload.get("tool_response")
    if host == "gemini":
        if not isinstance(response, dict):
            return False
        shell_failed = shell and _gemini_exit_code(response) not in (None, 0)
        return bool(response.get("error")) or shell_failed
    if isinstance(response, dict):  # Codex: a structured response may carry an exit code
        code = response.get("exit_code", response.get("exitCode"))
        if isinstance(code, int) and not isinstance(code, bool):
            return code != 0
    return None


_GEMINI_AFTER_CODE = ("Signal: ", "Background PIDs: ", "Process Group PGID: ",
                      "</untrusted_context>")  # fmt: skip


def _gemini_exit_code(response: dict) -> int | None:
    """The exit code in Gemini CLI's shell result (`Exit Code: N`, one of the lines after the
    output; the CLI reports a command that failed as a successful call, and 0.61 writes the
    line only when N is not 0). Only the result's own tail counts: an `Exit Code:` line the
    command printed is followed by more output, not by these lines alone."""
    text = response.get("llmContent")
    if not isinstance(text, str):
        return None
    cut = text.rfind("\nExit Code: ")
    if cut < 0:
        return None
    word, _, rest = text[cut + len("\nExit Code: ") :].partition("\n")
    if not all(not line or line.startswith(_GEMINI_AFTER_CODE) for line in rest.split("\n")):
        return None
    word = word.strip()
    return int(word) if word.lstrip("-").isdigit() else None


# --- JSON without importing the json package ------------------------------------------------


def _constant(name: str) -> float:
    return float(name.lower().replace("infinity", "inf"))


class _Context:
    """What `_json.make_scanner` reads from a JSONDecoder."""

    strict = False
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_constant)
    memo: dict = {}  # noqa: RUF012 - the scanner clears and fills it per call


_scan: "Callable[[str, int], tuple[object, int]] | None" = None


def loads(text: str | bytes) -> object:
    """Parse one JSON document; None when it is not valid JSON (never raises ValueError)."""
    global _scan
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = text.strip(" \t\r\n\ufeff")
    if not text:
        return None
    try:
        if _scan is None:
            try:
                from _json import make_scanner  # the C scanner the json package also uses
            except ImportError:  # pragma: no cover - CPython always has it
                import json

                return json.loads(text)
            # typeshed types the context as a make_scanner itself; the C scanner only reads
            # the attributes _Context has (typeshed notes that it should be a duck type).
            _scan = make_scanner(_Context())  # type: ignore[arg-type]
        value, end = _scan(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    finally:
        _Context.memo.clear()
    return value if not text[end:].strip(" \t\r\n") else None


def dumps(value: object) -> str:
    """Compact JSON text of dicts, lists, strings, numbers, booleans and None (ASCII only)."""
    try:
        from _json import encode_basestring_ascii as quote
    except ImportError:  # pragma: no cover
        import json

        return json.dumps(value, separators=(",", ":"))
    return _dump(value, quote)


def _dump(value: object, quote: "Callable[[str], str]") -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return (
            repr(value) if value == value and value not in (float("inf"), -float("inf")) else "null"
        )
    if isinstance(value, dict):
        return "{" + ",".join(quote(str(k)) + ":" + _dump(v, quote) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_dump(v, quote) for v in value) + "]"
    return quote(str(value))
