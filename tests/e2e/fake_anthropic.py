"""A scripted fake of the Anthropic Messages API, for driving the real Claude Code CLI offline.

Script: ``bash_commands`` is a list of shell commands. While the conversation of a streaming
``POST /v1/messages`` that offers the ``Bash`` tool carries fewer ``tool_result`` blocks than
there are commands, the answer is a ``tool_use`` call of ``Bash`` running the next command;
otherwise it is ``final_text`` with ``end_turn``. ``count_tokens`` and non-streaming requests
get plain JSON. With ``subagent_prompt`` set, the main conversation (offered the Agent or
Task tool) first delegates that prompt to a subagent, which answers ``final_text``.
Loopback, bounded and self-stopping: see fakeserver.py.

Standalone: ``python -m tests.e2e.fake_anthropic [PORT] [COMMAND ...]``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .fakeserver import FakeServer, Reply, serve_from_command_line

FINAL_TEXT = "All done."


class FakeAnthropic(FakeServer):
    def __init__(self, bash_commands: list[str] | None = None, final_text: str = FINAL_TEXT):
        super().__init__()
        self.bash_commands = list(bash_commands or ["echo memhub-e2e"])
        self.final_text = final_text
        self.subagent_prompt: str | None = None

    @property
    def base_url(self) -> str:
        """The value for ANTHROPIC_BASE_URL."""
        return self.origin

    def tool_use_count(self) -> int:
        return self.count("tool_use")

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        if path.endswith("/count_tokens"):
            return Reply.json("count_tokens", {"input_tokens": 10})
        if not path.endswith("/v1/messages"):
            return Reply.json("not_found", _error("not_found_error", path), status=404)
        n = len(self.requests)
        model = body.get("model", "fake-model")
        if not body.get("stream"):
            return Reply.json("json", {
                "id": f"msg_fake_{n}", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": self.final_text}],
                "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 3},
            })  # fmt: skip
        delegate = self._delegation(body)
        command = None if delegate else self._next_command(body)
        start = {"type": "message_start", "message": {
            "id": f"msg_fake_{n}", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1},
        }}  # fmt: skip
        if delegate is not None:
            tool, prompt = delegate
            block = {"type": "tool_use", "id": f"toolu_fake_{n}", "name": tool, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps({
                "description": "e2e subagent", "prompt": prompt,
                "subagent_type": "general-purpose"})}  # fmt: skip
            label, stop = "agent", "tool_use"
        elif command is not None:
            block = {"type": "tool_use", "id": f"toolu_fake_{n}", "name": "Bash", "input": {}}
            delta = {"type": "input_json_delta",
                     "partial_json": json.dumps({"command": command, "description": "e2e step"})}  # fmt: skip
            label, stop = "tool_use", "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": self.final_text}
            label, stop = "text", "end_turn"
        return Reply.sse(label, [
            ("message_start", start),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 3}}),
            ("message_stop", {"type": "message_stop"}),
        ])  # fmt: skip

    def _delegation(self, body: dict[str, Any]) -> tuple[str, str] | None:
        """(tool, prompt) when the main conversation should now start the subagent."""
        if not self.subagent_prompt:
            return None
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        tool = next((name for name in ("Agent", "Task") if name in tools), None)
        messages = body.get("messages") or []
        text = json.dumps(messages)
        if tool is None or '"tool_result"' in text or self.subagent_prompt in text:
            return None  # not the main agent, already delegated, or the subagent itself
        return tool, self.subagent_prompt

    def _next_command(self, body: dict[str, Any]) -> str | None:
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        if "Bash" not in tools:
            return None
        done = sum(
            1
            for msg in body.get("messages") or []
            if isinstance(msg, dict) and isinstance(msg.get("content"), list)
            for block in msg["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        )
        return self.bash_commands[done] if done < len(self.bash_commands) else None


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def main(argv: list[str]) -> int:
    server = FakeAnthropic(argv[1:] or None)
    return serve_from_command_line(server, "Anthropic API", int(argv[0]) if argv else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
