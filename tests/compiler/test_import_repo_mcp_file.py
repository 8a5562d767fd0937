"""A plugin's .mcp.json as the Claude reader takes it: `{mcpServers: {...}}`, or the servers at
its top level (`mcp.flat`), or neither (listed as unreproduced, with why)."""

from __future__ import annotations

from typing import Any

import pytest
from memhub.compiler.hosts import claude_repo
from memhub.compiler.importing.repo_parts import ReadPlugin


def _read(doc: Any) -> ReadPlugin:
    read = ReadPlugin("plugins/p")
    claude_repo.read_servers(doc, read, "plugins/p/.mcp.json")
    return read


def test_servers_at_the_top_level_are_read_as_flat() -> None:
    read = _read({"a": {"command": "npx"}, "b": {"type": "http", "url": "https://x.example"}})
    assert read.mcp_flat and list(read.servers) == ["a", "b"]
    assert read.overrides["claude"]["mcp_servers"]["a"] == {"type": None}  # none was given


def test_the_wrapped_shape_is_not_flat() -> None:
    read = _read({"mcpServers": {"a": {"type": "stdio", "command": "npx"}}})
    assert not read.mcp_flat and list(read.servers) == ["a"]


@pytest.mark.parametrize(
    "doc",
    [{}, [], "x", {"a": 1}, {"a": {"env": {}}}, {"a": {"command": "x"}, "b": 2}],
    ids=["empty", "list", "string", "scalar", "no-command", "one-not-object"],
)
def test_neither_shape_is_unreproduced(doc: Any) -> None:
    read = _read(doc)
    assert not read.mcp_flat and not read.servers
    assert [u.reason for u in read.unreproduced] == [claude_repo.WRONG_SHAPE]
    assert "mcpServers" in claude_repo.WRONG_SHAPE
