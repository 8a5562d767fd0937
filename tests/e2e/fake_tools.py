"""Scripted fake models that call MCP tools instead of the shell, and read back what the tools
returned: the host's next request carries each tool's result, which is what the model sees.

A script is a list of :class:`Call` (an MCP tool name such as ``search_memory`` and its
arguments). Each host exposes an MCP tool under its own name (Claude Code
``mcp__<server>__<tool>``, Gemini CLI ``mcp_<server>_<tool>``, Codex the bare name inside a
``namespace`` tool): a call goes to the one offered tool whose name ends with the MCP name,
and only when the request offers it (helper requests of the host, such as titles, get the
final text). Claude Code defers MCP tools: the fake first calls ``ToolSearch`` with
``select:<name>``, as a model does, and the tool is offered from the next request on. Results
are read from the longest conversation the fake was sent:

* Claude Code: ``tool_result`` blocks (``is_error``), in ``messages``;
* Codex: ``function_call_output`` items, in ``input``;
* Gemini CLI: ``functionResponse`` parts, in ``contents``.

Each fake also records the tool names it was offered (``offered``), to name them in failures.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .fake_anthropic import FakeAnthropic
from .fake_gemini import FakeGemini, _chunk
from .fake_responses import FakeResponses
from .fakeserver import Reply

TOOL_SEARCH = "ToolSearch"  # Claude Code defers MCP tools; a model loads them through it
# How Claude Code 2.1 names, in the request, MCP servers that had not connected when it was built
STILL_CONNECTING = "MCP servers are still connecting"
STILL_CONNECTING_RESULT = "servers are still connecting"  # in ToolSearch's result, likewise
SEARCHES = 4  # how often the fake searches for a tool of a server that is still connecting


@dataclass(frozen=True)
class Call:
    """One scripted tool call: the MCP tool's own name and its arguments."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Result:
    """What the model received for one call: the tool output as text, and the error flag
    where the host sends one (Claude Code's ``is_error``; None where it has none)."""

    name: str | None
    text: str
    is_error: bool | None


def exposed(offered: set[str], tool: str) -> str | None:
    """The host's name of MCP tool `tool` among `offered` (itself, else the one ending in it),
    or None. Itself first: Copilot CLI offers `bash` beside `read_bash` and `stop_bash`."""
    if tool in offered:
        return tool
    names = sorted(n for n in offered if n == tool or n.endswith(("__" + tool, "_" + tool)))
    return names[0] if len(names) == 1 else None


def _text(content: Any) -> str:
    """Tool output as the host sent it (a string, text blocks, or JSON), flattened to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
    return json.dumps(content)


class ToolsAnthropic(FakeAnthropic):
    """Claude Code's fake model, calling MCP tools (``calls``) in order."""

    def __init__(self, calls: list[Call] | None = None, final_text: str = "Saved.") -> None:
        super().__init__(final_text=final_text)
        self.bash_commands = []
        self.calls = list(calls or [])
        self.offered: set[str] = set()

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        self.offered |= {t for t in tools if isinstance(t, str)}
        results = [r for r in _claude_results(body) if r.name != TOOL_SEARCH]
        if not body.get("stream") or len(results) >= len(self.calls):
            return super().answer(path, body)
        call = self.calls[len(results)]
        name = exposed({t for t in tools if isinstance(t, str)}, call.tool)
        args = call.args
        if name is None:  # deferred: load its schema through ToolSearch first, as a model does
            name, args = self._tool_search(body, tools, call.tool)
        if name is None:
            return super().answer(path, body)
        n = len(self.requests)
        start = {"type": "message_start", "message": {
            "id": f"msg_fake_{n}", "type": "message", "role": "assistant",
            "model": body.get("model", "fake-model"), "content": [], "stop_reason": None,
            "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}}  # fmt: skip
        block = {"type": "tool_use", "id": f"toolu_fake_{n}", "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
        return Reply.sse("mcp_call", [
            ("message_start", start),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                               "usage": {"output_tokens": 3}}),
            ("message_stop", {"type": "message_stop"}),
        ])  # fmt: skip

    def _tool_search(
        self, body: dict[str, Any], tools: set[Any], tool: str
    ) -> tuple[str | None, dict[str, Any]]:
        """(ToolSearch, its arguments) to load the deferred tool `tool`; (None, {}) when it
        is not deferred, or was asked for already (a second try would loop).

        An MCP server still connecting when the request was built (Claude Code 2.1 starts
        them without waiting) is named in the request as such, and the model is told to
        search for its tools by keyword: ToolSearch then waits for the server. The fake
        does as told, with the tool's own name as the keyword."""
        text = json.dumps(body.get("system")) + json.dumps(body.get("messages"))
        deferred = sorted(set(re.findall(r"mcp__[A-Za-z0-9_-]+__" + re.escape(tool), text)))
        if TOOL_SEARCH not in tools:
            return None, {}
        if len(deferred) == 1:
            query = f"select:{deferred[0]}"
        elif not deferred and STILL_CONNECTING in text:
            query = tool
        else:
            return None, {}
        asked = [u for u in _claude_uses(body) if u.get("input", {}).get("query") == query]
        # ToolSearch waits about 5 s for a connecting server, then says to search again
        again = len(asked) < SEARCHES and STILL_CONNECTING_RESULT in _last_search_result(body)
        return (TOOL_SEARCH, {"query": query}) if not asked or again else (None, {})

    def results(self) -> list[Result]:
        """The tool results of the longest conversation the fake was sent (without
        ToolSearch's)."""
        bodies = [r.body for r in self.requests if isinstance(r.body, dict)]
        found = max((_claude_results(b) for b in bodies), key=len, default=[])
        return [r for r in found if r.name != TOOL_SEARCH]


def _claude_blocks(body: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [
        block
        for msg in body.get("messages") or []
        if isinstance(msg, dict) and isinstance(msg.get("content"), list)
        for block in msg["content"]
        if isinstance(block, dict) and block.get("type") == kind
    ]


def _claude_uses(body: dict[str, Any]) -> list[dict[str, Any]]:
    return _claude_blocks(body, "tool_use")


def _last_search_result(body: dict[str, Any]) -> str:
    """The text of the conversation's last ToolSearch result ("" when there is none)."""
    found = [r.text for r in _claude_results(body) if r.name == TOOL_SEARCH]
    return found[-1] if found else ""


def _claude_results(body: dict[str, Any]) -> list[Result]:
    names = {u.get("id"): u.get("name") for u in _claude_uses(body)}
    return [
        Result(names.get(b.get("tool_use_id")), _text(b.get("content")), bool(b.get("is_error")))
        for b in _claude_blocks(body, "tool_result")
    ]


class ToolsResponses(FakeResponses):
    """Codex's fake model, calling MCP tools (``calls``) in order, each once."""

    def __init__(self, calls: list[Call] | None = None, final_text: str = "Found it.") -> None:
        super().__init__(final_text=final_text)
        self.shell_commands = []
        self.calls = list(calls or [])
        self.offered: set[str] = set()

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        tools = _responses_tools(body)
        self.offered |= set(tools)
        if self.issued >= len(self.calls) or not path.rstrip("/").endswith("/responses"):
            return super().answer(path, body)
        call = self.calls[self.issued]
        name = exposed(set(tools), call.tool)
        if name is None:
            return super().answer(path, body)
        self.issued += 1
        n = len(self.requests)
        rid = f"resp_fake_{n}"
        item = {"type": "function_call", "id": f"fc_fake_{n}", "call_id": f"call_fake_{n}",
                "name": name, "arguments": json.dumps(call.args), "status": "completed"}  # fmt: skip
        namespace = tools[name]
        if namespace:
            item["namespace"] = namespace
        return Reply.sse("mcp_call", [
            ("response.created", {"type": "response.created", "response": {
                "id": rid, "object": "response", "status": "in_progress", "output": []}}),
            ("response.output_item.added", {"type": "response.output_item.added",
             "output_index": 0, "item": {**item, "arguments": "", "status": "in_progress"}}),
            ("response.output_item.done", {"type": "response.output_item.done",
             "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": {
                "id": rid, "object": "response", "status": "completed", "output": [],
                "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": 15}}}),
        ])  # fmt: skip

    def results(self) -> list[Result]:
        bodies = [r.body for r in self.requests if isinstance(r.body, dict)]
        return max((_responses_results(b) for b in bodies), key=len, default=[])


def _responses_tools(body: dict[str, Any]) -> dict[str, str | None]:
    """Offered function names -> their namespace (Codex may group MCP tools in one)."""
    out: dict[str, str | None] = {}
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("name"), str) and tool.get("type") != "namespace":
            out[tool["name"]] = None
        for inner in tool.get("tools") or []:  # a namespace tool holds its functions
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                out[inner["name"]] = tool.get("name")
    return out


def _responses_results(body: dict[str, Any]) -> list[Result]:
    items = body.get("input") if isinstance(body.get("input"), list) else []
    return [
        Result(None, _text(item.get("output")), None)
        for item in items
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]


class ToolsGemini(FakeGemini):
    """Gemini CLI's fake model, calling MCP tools (``calls``) in order."""

    def __init__(self, calls: list[Call] | None = None, final_text: str = "Done.") -> None:
        super().__init__(final_text=final_text)
        self.shell_commands = []
        self.calls = list(calls or [])
        self.offered: set[str] = set()

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        tools = {
            decl.get("name")
            for tool in body.get("tools") or []
            if isinstance(tool, dict)
            for decl in tool.get("functionDeclarations") or []
            if isinstance(decl, dict) and isinstance(decl.get("name"), str)
        }
        self.offered |= tools
        done = len(_gemini_results(body))
        if not path.endswith(":streamGenerateContent") or done >= len(self.calls):
            return super().answer(path, body)
        call = self.calls[done]
        name = exposed(tools, call.tool)
        if name is None:
            return super().answer(path, body)
        model = path.rsplit("/", 1)[-1].split(":", 1)[0] or "fake-model"
        parts = [{"functionCall": {"name": name, "args": call.args}}]
        return Reply.sse("mcp_call", [(None, _chunk(model, parts))])

    def results(self) -> list[Result]:
        bodies = [r.body for r in self.requests if isinstance(r.body, dict)]
        return max((_gemini_results(b) for b in bodies), key=len, default=[])


def _gemini_results(body: dict[str, Any]) -> list[Result]:
    return [
        Result(
            part["functionResponse"].get("name"),
            _text(part["functionResponse"].get("response")),
            "error" in (part["functionResponse"].get("response") or {}),
        )
        for content in body.get("contents") or []
        if isinstance(content, dict)
        for part in content.get("parts") or []
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
    ]
