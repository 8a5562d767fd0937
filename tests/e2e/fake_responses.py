"""A scripted fake of the OpenAI Responses API (streaming), for driving the real Codex CLI offline.

Script: ``shell_commands`` is a list of shell commands, handed out in order, each once: a
``POST /v1/responses`` that offers a shell tool gets one call of it with the next command
(``exec_command`` with ``{"cmd"}`` on Codex 0.171; older ``shell_command`` / ``shell`` shapes
too) while commands remain; any other request (the last turn, or a compaction request, which
offers no tools) gets the assistant message ``final_text``. Counting calls on the server side,
not outputs in the request, keeps the script finite when Codex compacts the history away.
Loopback, bounded and self-stopping: see fakeserver.py.

Standalone: ``python -m tests.e2e.fake_responses [PORT] [COMMAND ...]``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .fakeserver import FakeServer, Reply, serve_from_command_line

FINAL_TEXT = "All done."
_USAGE = {
    "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15,
}  # fmt: skip


class FakeResponses(FakeServer):
    def __init__(self, shell_commands: list[str] | None = None, final_text: str = FINAL_TEXT):
        super().__init__()
        self.shell_commands = list(shell_commands or ["echo memhub-e2e"])
        self.final_text = final_text
        self.issued = 0

    @property
    def base_url(self) -> str:
        """The value for a Codex model provider's ``base_url``."""
        return f"{self.origin}/v1"

    def answer_get(self, path: str) -> Reply:
        if path.endswith("/models"):
            return Reply.json("models", {"object": "list", "data": [], "models": []})
        return super().answer_get(path)

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        if not path.rstrip("/").endswith("/responses"):
            return Reply.json("not_found", {"error": {"message": f"not found: {path}"}}, 404)
        n = len(self.requests)
        tools = {t.get("name") or t.get("type") for t in body.get("tools") or []
                 if isinstance(t, dict)}  # fmt: skip
        rid = f"resp_fake_{n}"
        frames: list[tuple[str | None, dict[str, Any]]] = [
            ("response.created", {"type": "response.created", "response": {
                "id": rid, "object": "response", "status": "in_progress", "output": []}}),
        ]  # fmt: skip
        shell_tool = next(
            (t for t in ("exec_command", "shell_command", "shell") if t in tools), None
        )
        if shell_tool is not None and self.issued < len(self.shell_commands):
            command = self.shell_commands[self.issued]
            self.issued += 1
            if shell_tool == "exec_command":
                name, args = "exec_command", {"cmd": command}
            elif shell_tool == "shell_command":
                name, args = "shell_command", {"command": command}
            else:
                name, args = "shell", {"command": ["bash", "-lc", command]}
            item = {"type": "function_call", "id": f"fc_fake_{n}", "call_id": f"call_fake_{n}",
                    "name": name, "arguments": json.dumps(args), "status": "completed"}  # fmt: skip
            label = "function_call"
            frames += [
                ("response.output_item.added", {"type": "response.output_item.added",
                 "output_index": 0, "item": {**item, "arguments": "", "status": "in_progress"}}),
                ("response.output_item.done", {"type": "response.output_item.done",
                 "output_index": 0, "item": item}),
            ]  # fmt: skip
        else:
            msg = {"type": "message", "id": f"msg_fake_{n}", "role": "assistant",
                   "status": "completed",
                   "content": [{"type": "output_text", "text": self.final_text, "annotations": []}]}  # fmt: skip
            label = "message"
            frames += [
                ("response.output_item.added", {"type": "response.output_item.added",
                 "output_index": 0, "item": {**msg, "content": [], "status": "in_progress"}}),
                ("response.output_text.delta", {"type": "response.output_text.delta",
                 "output_index": 0, "content_index": 0, "item_id": msg["id"],
                 "delta": self.final_text}),
                ("response.output_item.done", {"type": "response.output_item.done",
                 "output_index": 0, "item": msg}),
            ]  # fmt: skip
        frames.append(("response.completed", {"type": "response.completed", "response": {
            "id": rid, "object": "response", "status": "completed", "output": [],
            "usage": _USAGE}}))  # fmt: skip
        return Reply.sse(label, frames)


def main(argv: list[str]) -> int:
    server = FakeResponses(argv[1:] or None)
    return serve_from_command_line(server, "Responses API", int(argv[0]) if argv else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
