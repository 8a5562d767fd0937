"""What the workflow and rules hooks read from one tool event, per host payload: the call's
output as the model got it (stdout for a shell call), whether it succeeded, the paths an edit
writes (an edit tool's path fields or a Codex `apply_patch` envelope's files), and where the
session's state lives. Stdlib only; never raises on odd payloads."""

from __future__ import annotations

import os

from ..applypatch import patch_paths
from ..events import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..events import Event

MAX_TEXT = 200_000  # characters of output read; gh prints the URL last, so the tail is kept
# the path fields of every host's edit/write/notebook tools (directives.PATH_KEYS and more)
PATH_KEYS = ("file_path", "notebook_path", "path", "absolute_path", "filePath", "target_file")
PATCH_KEYS = ("patch", "input", "command")  # where Codex puts the envelope
MAX_PATHS = 20


_GEMINI_TAILS = ("\nError: ", "\nExit Code: ", "\nSignal: ", "\nBackground PIDs: ",
                 "\nProcess Group PGID: ")  # fmt: skip


def _gemini_shell(text: str) -> tuple[str, int | None]:
    """The `Output:` section of Gemini CLI's shell result (in `<untrusted_context>`: `Output:
    ...`, `Exit Code: N` when not 0, `Process Group PGID: N`; older builds lead with
    `Command:` and `Directory:` and list `Error:`, `Signal:`), and its exit code (None when
    it names none)."""
    if text.startswith("<untrusted_context>\n"):  # Gemini CLI 0.61 wraps the result
        text = text[len("<untrusted_context>\n") :].removesuffix("</untrusted_context>")
    if text.startswith("Output: "):
        body = text[len("Output: ") :]
    elif text.startswith("Command: ") and "\nOutput: " in text:
        body = text[text.find("\nOutput: ") + len("\nOutput: ") :]
    else:
        return text, None
    code = None
    cut = body.find("\nExit Code: ")
    if cut >= 0:
        word = body[cut + len("\nExit Code: ") :].split("\n", 1)[0].strip()
        code = int(word) if word.lstrip("-").isdigit() else None
    for stop in _GEMINI_TAILS:
        cut = body.find(stop)
        if cut >= 0:
            body = body[:cut]
    return body, code


def _gemini_text(response: dict) -> str:
    content = response.get("llmContent", response.get("returnDisplay"))
    if isinstance(content, list):  # parts: the text ones
        texts = [p.get("text") for p in content if isinstance(p, dict)]
        content = "\n".join(t for t in texts if isinstance(t, str))
    return _as_text(content)


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return dumps(value)


def output(event: Event) -> str:
    """The call's output: a shell call's stdout (Claude Code's `stdout`, Codex's string,
    Gemini's `Output:` section), an MCP call's result as text; "" when none is given."""
    response = event.payload.get("tool_response")
    shell = event.tool_class == "shell"
    if event.host == "claude" and shell:
        text = response.get("stdout") if isinstance(response, dict) else response
        return _as_text(text)[-MAX_TEXT:]
    if event.host == "gemini" and isinstance(response, dict):
        text = _gemini_text(response)
        return (_gemini_shell(text)[0] if shell else text)[-MAX_TEXT:]
    if shell and isinstance(response, dict):
        text = response.get("stdout", response.get("output"))
        return _as_text(text)[-MAX_TEXT:]
    return _as_text(response)[-MAX_TEXT:]


def succeeded(event: Event) -> bool:
    """Whether the host reported the call a success (Codex sends no status for a plain
    string result: not a failure; the decisions themselves refuse an output that shows one)."""
    if event.name != "after_tool" or event.failed is True:
        return False
    response = event.payload.get("tool_response")
    if isinstance(response, dict):
        if response.get("interrupted") is True or response.get("is_error") is True:
            return False
        if response.get("isError") is True or response.get("error"):
            return False
        if event.host == "gemini" and event.tool_class == "shell":
            return _gemini_shell(_gemini_text(response))[1] in (None, 0)
    return True


def named_paths(event: Event) -> list[str]:
    """The paths an edit call names as given (absolute, or relative to the session's folder):
    its tool's path fields, else the files of the `apply_patch` envelope it carries."""
    data = event.tool_input
    found = [data[key] for key in PATH_KEYS if isinstance(data.get(key), str) and data[key]]
    if found:
        return found[:MAX_PATHS]
    for key in PATCH_KEYS:
        value = data.get(key)
        if isinstance(value, list) and all(isinstance(word, str) for word in value):
            value = "\n".join(value)  # an argv: `["apply_patch", "*** Begin Patch ..."]`
        if isinstance(value, str) and "*** Begin Patch" in value:
            return patch_paths(value)[:MAX_PATHS]
    return []


def edited_paths(event: Event) -> list[str]:
    """The absolute, normalised paths this edit call writes that stay inside the session's
    folder: the one list the rules, spec-ownership and recall hooks follow (a path that
    leaves the folder, `../..` or a symlink out, is not followed)."""
    cwd = event.cwd or ""
    if not cwd:
        return []
    out = []
    for path in named_paths(event):
        full = os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))
        if inside(full, cwd):
            out.append(full)
    return out


def inside(path: str, root: str) -> bool:
    """Whether `path` (resolved) stays inside the folder `root` (resolved)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def session_key(event: Event) -> str:
    """A file name for the session: `<host>-<session id>`, unsafe characters replaced."""
    raw = f"{event.host}-{event.session_id or 'none'}"
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in raw)[:200]
