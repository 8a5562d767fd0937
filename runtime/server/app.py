"""memhub's MCP server on the official `mcp` SDK: the tools of tools.py, writetools.py,
artifacts.py and brains.py, served over stdio or (http.py) streamable HTTP.

The workspace is fixed before the server starts and the service is made once. Read-only tools
run on a few reader threads and every other tool on one writer thread (workers.py): a slow
call never holds up another unless both write, and the event loop keeps answering meanwhile.
Each thread reads the index through its own SQLite connection. A tool's result is its
structured content plus the same JSON as a text block; any failure is an `isError` result,
never a crashed server.
"""

from __future__ import annotations

import inspect
import json
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from ..memory.errors import MemoryServiceError
from ..memory.frontmatter import RecordError
from ..memory.service import MemoryService
from ..memory.workspace import Workspace
from . import provenance, shapes
from .artifacts import ArtifactTools
from .brains import BrainTools
from .tools import ReadTools
from .workers import Worker
from .writetools import WriteTools

NAME = "memhub"
INSTRUCTIONS = (
    "memhub's local memory for this project. Before answering from scratch, search_memory for"
    " facts, decisions and lessons about what you are working on. When you learn something"
    " worth keeping across sessions (a decision and why, a fix for a recurring error, a user"
    " preference), propose saving it with save_memory if it is enabled; lessons and"
    " procedures you save wait for a person to accept them. Never save secrets."
)

_READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
_CAPTURE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
_ADD = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
# revision-checked: repeating the same call is refused as stale, so it changes nothing more
_CHANGE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)

READ_TOOLS: dict[str, ToolAnnotations] = {
    "search_memory": _READ,
    "get_memory": _READ,
    "list_memory": _READ,
    "recall_directives": _READ,
    "get_brain_overview": _READ,
    "list_agent_brains": _READ,
    "list_orgs": _READ,
}
WRITE_TOOLS: dict[str, ToolAnnotations] = {
    "save_memory": _ADD,
    "save_artifact": _ADD,
    "update_memory": _CHANGE,
    "delete_memory": _CHANGE,
    "import_conversation": _CAPTURE,  # a write: it files into the capture store
}
# The MemHub skills' other tools (artifacts.py, brains.py); the write ones only with --write.
# create_agent_brain resolves before it registers and a refresh rewrites derived files: a
# repeated call changes nothing more.
_ENSURE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
ARTIFACT_TOOLS = dict.fromkeys(
    ("get_artifact", "get_artifact_lineage", "diff_artifact_versions", "list_tags"), _READ
)
BRAIN_TOOLS = dict.fromkeys(("search_brains", "list_teammates", "share_agent_brain"), _READ)
BRAIN_WRITE_TOOLS = dict.fromkeys(("create_agent_brain", "refresh_brain_overview"), _ENSURE)
# The service's recheck: a records folder whose own stat is unchanged is trusted, and a niced
# child process re-checks every file this often. A file created, removed or renamed (how
# most editors save) shows at once, one rewritten in place in searches within this many
# seconds (get_memory and the write tools compare each record's revision themselves). At
# 100k records a walk costs ~0.5-1 s of CPU: every 5 s keeps an idle server cheap.
RECHECK_S = 5.0
EXPECTED = (shapes.ToolFailure, MemoryServiceError, RecordError, ValueError)


def result_of(fn: Callable[..., dict[str, Any]], kwargs: dict[str, Any]) -> CallToolResult:
    """Call one tool method: its dict as a result, or what it raised as a tool error."""
    try:
        data = fn(**kwargs)
    except EXPECTED as exc:
        return _error(shapes.error_json(exc))
    except Exception as exc:  # a bug: say so to the client, keep serving, log the traceback
        traceback.print_exc(file=sys.stderr)
        message = f"internal error ({type(exc).__name__}) in {getattr(fn, '__name__', 'tool')}"
        return _error({"error": {"kind": "internal", "message": message, "fix": "see the log"}})
    # the model reads the text: an unreviewed item's words fenced there, as written in data
    text = _dumps(provenance.fenced(data))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _error(payload: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=shapes.error_text(payload))],
        structured_content=payload,
        is_error=True,
    )


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _register(
    server: MCPServer, worker: Worker, method: Callable[..., Any], annotations: ToolAnnotations
) -> None:
    """Serve `method` as a tool: its signature is the input schema, its docstring the
    description; the call itself runs on a reader thread when the tool is read-only, on the
    writer thread otherwise."""
    signature = inspect.signature(method, eval_str=True)
    read_only = bool(annotations.read_only_hint)

    async def tool(**kwargs: Any) -> CallToolResult:
        result: CallToolResult = await worker.run(
            lambda: result_of(method, kwargs), read_only=read_only
        )
        return result

    shown = signature.replace(return_annotation=CallToolResult)
    tool.__signature__ = shown  # type: ignore[attr-defined]
    tool.__name__ = method.__name__
    server.add_tool(
        tool,
        name=method.__name__,
        description=inspect.cleandoc(method.__doc__ or ""),
        annotations=annotations,
    )


@dataclass
class Served:
    """A server ready to run, and what to close when it stops."""

    server: MCPServer
    worker: Worker
    reads: ReadTools

    def close(self) -> None:
        self.worker.call(self.reads.close)
        self.worker.close()


def build(workspace: Workspace, *, folder: Path | None = None) -> Served:
    """The MCP server of `workspace`: read tools always, write tools when it is writable."""
    from ..backends.local import LocalStore

    worker = Worker()
    store_path = Path(workspace.home) / "store.sqlite"

    def setup() -> tuple[MemoryService, ReadTools]:
        service = MemoryService(workspace, recheck=RECHECK_S)
        return service, ReadTools(service, store=lambda: LocalStore(store_path), folder=folder)

    service, reads = worker.call(setup)
    worker.releasing(service.release)  # each thread closes its own index connection
    # open the index and check every file now, while the client is still connecting
    worker.soon(service.refresh_index)
    server: MCPServer = MCPServer(NAME, instructions=INSTRUCTIONS, log_level="WARNING")
    for name, hints in READ_TOOLS.items():
        _register(server, worker, getattr(reads, name), hints)
    artifacts, brains = ArtifactTools(service, reads), BrainTools(service, reads)
    for owner, table in ((artifacts, ARTIFACT_TOOLS), (brains, BRAIN_TOOLS)):
        for name, hints in table.items():
            _register(server, worker, getattr(owner, name), hints)
    if workspace.writable:
        writes = WriteTools(service, reads)
        for name, hints in WRITE_TOOLS.items():
            _register(server, worker, getattr(writes, name), hints)
        for name, hints in BRAIN_WRITE_TOOLS.items():
            _register(server, worker, getattr(brains, name), hints)
    return Served(server, worker, reads)


def serve_stdio(served: Served) -> None:
    """Serve over stdin/stdout until the client closes them."""
    try:
        served.server.run("stdio")
    finally:
        served.close()
