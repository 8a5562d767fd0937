"""A stdio MCP server standing in for GitHub's: one tool, `create_pull_request`, answering
the PR GitHub's server returns (`number`, `html_url`) as JSON text. Newline-delimited
JSON-RPC on stdin/stdout, as MCP's stdio transport is.

    python fake_github_mcp.py URL
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOL = {
    "name": "create_pull_request",
    "description": "Create a pull request in a GitHub repository.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "owner": {"type": "string"},
            "repo": {"type": "string"},
            "title": {"type": "string"},
            "head": {"type": "string"},
            "base": {"type": "string"},
        },
        "required": ["owner", "repo", "title", "head", "base"],
    },
}


def answer(message: dict[str, Any], url: str) -> dict[str, Any] | None:
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return None  # a notification
    if method == "initialize":
        version = (message.get("params") or {}).get("protocolVersion", "2025-06-18")
        result: Any = {"protocolVersion": version, "capabilities": {"tools": {}},
                       "serverInfo": {"name": "github", "version": "0.0.1"}}  # fmt: skip
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        number = int(url.rsplit("/", 1)[-1])
        text = json.dumps({"number": number, "html_url": url, "state": "open"})
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"no method {method}"}
        return {"jsonrpc": "2.0", "id": ident, "error": error}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def main(argv: list[str]) -> int:
    url = argv[0]
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line), url)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
