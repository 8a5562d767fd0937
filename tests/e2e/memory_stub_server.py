"""TEMPORARY stand-in for `memhub mcp serve --write`, to build the host harness before the
real server lands. Deleted once the real one works. Stdio, the project of the working folder.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from memhub.runtime.memory import layout, projects, records

HOME = Path(os.environ.get("MEMHUB_HOME") or Path.home() / ".memhub")
ROOT = layout.memory_root(HOME)
server = MCPServer("memory")


def _project() -> str:
    registry = projects.load_registry(layout.projects_file(ROOT))
    found = projects.resolve(registry, os.getcwd())
    if found.project_id is None:
        raise ToolError(found.message)
    return found.project_id


@server.tool()
def save_memory(title: str, content: str, kind: str = "fact", tags: list[str] | None = None) -> str:
    pid = _project()
    rid, now = records.new_record_id(), records.now_timestamp()
    record = records.Record(
        id=rid, title=title, kind=kind, scope="project", project=pid, created=now,
        updated=now, tags=tuple(tags or ()), source=records.Source(kind="agent"), body=content,
    )  # fmt: skip
    path = layout.record_path(ROOT, "project", pid, rid)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = records.render_record(record)
    path.write_bytes(data)
    return json.dumps({"id": rid, "revision": records.revision(data)})


@server.tool()
def search_memory(query: str, top_k: int = 10) -> str:
    folder = layout.project_records(ROOT, _project())
    items = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        text = path.read_text()
        if query.lower() in text.lower():
            rec = records.parse_record(path.read_bytes(), str(path))
            items.append({"id": rec.id, "title": rec.title, "content": rec.body})
    return json.dumps({"items": items[:top_k]})


@server.tool()
def update_memory(id: str, revision: str, content: str) -> str:
    path = layout.record_path(ROOT, "project", _project(), id)
    if not path.is_file():
        raise ToolError(f"no record {id} in this memory")
    data = path.read_bytes()
    current = records.revision(data)
    if current != revision:
        raise ToolError(f"record {id} changed: expected revision {revision}, found {current}")
    rec = records.parse_record(data, str(path))
    new = records.render_record(records.Record(**{**rec.__dict__, "body": content}))
    path.write_bytes(new)
    return json.dumps({"id": id, "revision": records.revision(new)})


if __name__ == "__main__":
    print("memory stub server on stdio", file=sys.stderr)
    server.run("stdio")
