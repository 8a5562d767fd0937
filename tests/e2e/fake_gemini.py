"""A scripted fake of the Gemini API (generativelanguage v1beta), for driving the real Gemini CLI
offline.

Script: ``shell_commands`` is a list of shell commands. While the ``contents`` of a
``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` that offers the
``run_shell_command`` function carry fewer ``functionResponse`` parts than there are commands,
the answer is one ``functionCall`` of ``run_shell_command`` with the next command; otherwise it
is ``final_text``. The stream is SSE with data-only frames, one chunk per answer.
``:generateContent`` (helper calls such as the model router, which ask for JSON matching a
schema) gets a value that fills the schema, and ``:countTokens`` a fixed count.
Loopback, bounded and self-stopping: see fakeserver.py.

Point the CLI here with ``GOOGLE_GEMINI_BASE_URL=<base_url>`` (the bare origin: the SDK adds
``/v1beta/...``), a dummy ``GEMINI_API_KEY`` and ``security.auth.selectedType:
"gemini-api-key"`` in settings.json (without it the CLI picks the "gateway" auth type and
headless mode exits 41).

Standalone: ``python -m tests.e2e.fake_gemini [PORT] [COMMAND ...]``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .fakeserver import FakeServer, Reply, serve_from_command_line

FINAL_TEXT = "All done."
SHELL_TOOL = "run_shell_command"
_USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


class FakeGemini(FakeServer):
    def __init__(self, shell_commands: list[str] | None = None, final_text: str = FINAL_TEXT):
        super().__init__()
        self.shell_commands = list(shell_commands or ["echo memhub-e2e"])
        self.final_text = final_text

    @property
    def base_url(self) -> str:
        """The value for GOOGLE_GEMINI_BASE_URL."""
        return self.origin

    def function_call_count(self) -> int:
        return self.count("function_call")

    def answer_get(self, path: str) -> Reply:
        if path.rstrip("/").endswith("/models"):
            return Reply.json("models", {"models": []})
        return super().answer_get(path)

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        model = path.rsplit("/", 1)[-1].split(":", 1)[0] or "fake-model"
        if path.endswith(":countTokens"):
            return Reply.json("count_tokens", {"totalTokens": 10})
        if path.endswith(":generateContent"):
            config = body.get("generationConfig") or {}
            if config.get("responseMimeType") == "application/json":
                schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
                text = json.dumps(_fill(schema))
            else:
                text = self.final_text
            return Reply.json("generate", _chunk(model, [{"text": text}]))
        if not path.endswith(":streamGenerateContent"):
            return Reply.json(
                "not_found",
                {"error": {"code": 404, "message": f"not found: {path}", "status": "NOT_FOUND"}},
                status=404,
            )
        command = self._next_command(body)
        if command is not None:
            parts = [{"functionCall": {"name": SHELL_TOOL,
                                       "args": {"command": command, "description": "e2e step"}}}]  # fmt: skip
            label = "function_call"
        else:
            parts = [{"text": self.final_text}]
            label = "text"
        return Reply.sse(label, [(None, _chunk(model, parts))])

    def _next_command(self, body: dict[str, Any]) -> str | None:
        tools = {
            decl.get("name")
            for tool in body.get("tools") or []
            if isinstance(tool, dict)
            for decl in tool.get("functionDeclarations") or []
            if isinstance(decl, dict)
        }
        if SHELL_TOOL not in tools:
            return None
        done = sum(
            1
            for content in body.get("contents") or []
            if isinstance(content, dict)
            for part in content.get("parts") or []
            if isinstance(part, dict) and "functionResponse" in part
        )
        return self.shell_commands[done] if done < len(self.shell_commands) else None


def _chunk(model: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": _USAGE,
        "modelVersion": model,
    }


def _fill(schema: dict[str, Any], depth: int = 0) -> Any:
    """A value of the (Gemini-style, upper- or lower-case) JSON schema: first enum value,
    every property filled, empty arrays."""
    if depth > 20:
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: _fill(v, depth + 1) for k, v in props.items() if isinstance(v, dict)}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "fake"


def main(argv: list[str]) -> int:
    server = FakeGemini(argv[1:] or None)
    return serve_from_command_line(server, "Gemini API", int(argv[0]) if argv else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
