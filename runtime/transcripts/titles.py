"""A session's title and a record's text: the hosts' wrappers stripped, blocks classified."""

from __future__ import annotations

import re
from typing import Any

from .records import Record, type_of

# Blocks the hosts wrap around what the user typed: the named ones, and any tag whose name
# has a `_` or `-` (ide_selection, ide_opened_file, user_query, ...: host-made, unlike HTML)
_WRAPPER = re.compile(
    r"<(system-reminder|command-name|command-message|command-args|local-command-stdout|"
    r"local-command-stderr|local-command-caveat|environment_context|user_instructions|"
    r"recommended_plugins|session_context|[a-z]+(?:[_-][a-z0-9]+)+)(?:\s[^>]*)?>.*?</\1>",
    re.S,
)
TITLE_MAX = 80


def fold_title(titles: dict[str, str], record: Record) -> None:
    """Fold one record into `titles` (title source -> text): the one title rule that
    `memhub sessions` (the readers) and capture share, fed record by record so that a
    whole-file read and capture's deltas agree. The latest of each source wins: "user" (a
    rename: Claude `custom-title`), "host" (generated: Claude `ai-title`, Codex
    `thread_name_updated`, Gemini `$set.summary`), "summary" (Claude's older summary lines).
    """
    if record.kind == "title" and record.text:
        titles["user" if record.subtype == "custom-title" else "host"] = record.text
    elif record.kind == "summary" and record.subtype is None and record.text:
        titles["summary"] = record.text
    elif record.kind == "set" and isinstance(record.raw, dict):
        change = record.raw.get("$set")
        summary = change.get("summary") if isinstance(change, dict) else None
        if isinstance(summary, str) and summary.strip():
            titles["host"] = summary.strip()


def choose_title(titles: dict[str, str], first_prompt: str | None) -> tuple[str | None, str | None]:
    """(title, title source): a rename, else the host's title, else a summary line, else
    the first prompt (`prompt_title`), else none."""
    if titles.get("user"):
        return titles["user"], "user"
    for key in ("host", "summary"):
        if titles.get(key):
            return titles[key], "host"
    if first_prompt:
        return first_prompt, "prompt"
    return None, None


def prompt_title(text: str | None) -> str | None:
    """A first prompt as a title: wrappers removed, one line, at most 80 characters."""
    if not text:
        return None
    cleaned = _WRAPPER.sub(" ", text)
    for line in cleaned.splitlines():
        line = " ".join(line.split())
        if line and not line.startswith("<"):
            break
    else:
        return None
    if len(line) <= TITLE_MAX:
        return line
    cut = line[: TITLE_MAX - 1]
    space = cut.rfind(" ")
    if space >= TITLE_MAX // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def block_text(content: Any, types: tuple[str, ...] = ("text", "input_text", "output_text")) -> str:
    """The joined text of a string or of a list of content blocks of the given types."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type", "text") in types:
                value = block.get("text")
                if isinstance(value, str):
                    parts.append(value)
    return "\n".join(parts)


_CALL_BLOCKS = frozenset({"tool_use", "tool_call", "tool-call", "server_tool_use"})
_RESULT_BLOCKS = frozenset({"tool_result", "tool-result", "web_search_tool_result"})
_THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking", "reasoning"})


def classify_blocks(content: Any) -> tuple[str, str | None]:
    """(kind, text) of Anthropic- or Vercel-style message content (a string or blocks)."""
    if isinstance(content, str):
        return "message", content
    if not isinstance(content, list):
        return "message", None
    types = {type_of(block) for block in content if isinstance(block, dict)}
    texts: list[str] = []
    if types & _RESULT_BLOCKS:
        for block in content:
            if isinstance(block, dict) and type_of(block) in _RESULT_BLOCKS:
                inner = block.get("content", block.get("result"))
                text = block_text(inner) if not isinstance(inner, dict) else None
                if text:
                    texts.append(text)
        return "tool_result", "\n".join(texts) or None
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif isinstance(block, str):
            texts.append(block)
    text = "\n".join(texts) or None
    if types & _CALL_BLOCKS:
        return "tool_call", text
    if types and types <= _THINKING_BLOCKS:
        thoughts = [
            block.get("thinking") or block.get("text") or ""
            for block in content
            if isinstance(block, dict)
        ]
        return "reasoning", "\n".join(t for t in thoughts if isinstance(t, str) and t) or None
    return "message", text
