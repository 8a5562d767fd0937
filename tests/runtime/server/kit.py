"""What the MCP server tests share: git projects, seeded records, real server processes and
SDK clients (stdio and HTTP)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: F401 (for tests)
from mcp.client.streamable_http import streamable_http_client
from memhub.runtime.memory import layout, projects
from memhub.runtime.memory.gitcheckout import checkout_of, git_env
from memhub.runtime.memory.records import Record, Source, Triggers, render_record, revision
from memhub.runtime.server.provenance import fenced

MEMHUB = str(Path(sys.executable).parent / "memhub")
READ_TOOLS = {
    "search_memory",
    "get_memory",
    "list_memory",
    "recall_directives",
    "get_brain_overview",
    "list_agent_brains",
    "list_orgs",
    # the MemHub skills' artifact and brain tools (artifacts.py, brains.py)
    "get_artifact",
    "get_artifact_lineage",
    "diff_artifact_versions",
    "list_tags",
    "search_brains",
    "list_teammates",
    "share_agent_brain",
}
WRITE_TOOLS = {
    "save_memory",
    "save_artifact",
    "update_memory",
    "delete_memory",
    "import_conversation",
    "create_agent_brain",
    "refresh_brain_overview",
}
STAMP = "2026-03-01T10:00:00Z"


def home() -> Path:
    return Path(os.environ["MEMHUB_HOME"])


def repo(path: Path) -> Path:
    """A fresh git repository at `path`."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q"], cwd=path, env=git_env(), check=True)
    return path


def connect(folder: Path, name: str, *, shared: bool = True) -> str:
    """Register the checkout of `folder` as a project (what `memhub project connect` does)."""
    registry_file = layout.projects_file(layout.memory_root(home()))
    registry = projects.load_registry(registry_file)
    checkout = checkout_of(folder)
    assert checkout is not None, folder
    made = projects.connect(registry, checkout, name)
    registry = made.registry
    if not shared:
        project = registry.projects[made.project_id]
        registry = projects.Registry(
            {
                **registry.projects,
                project.id: project._replace(shared=False),
            }
        )
    registry_file.parent.mkdir(parents=True, exist_ok=True)
    projects.save_registry(registry_file, registry)
    return made.project_id


def seed(
    record_id: str,
    title: str,
    body: str,
    *,
    project: str | None,
    kind: str = "fact",
    tags: tuple[str, ...] = (),
    triggers: Triggers | None = None,
    status: str = "active",
) -> str:
    """Write a record file as a person's editor would; returns its revision."""
    scope = "project" if project else "shared"
    record = Record(
        id=record_id,
        title=title,
        kind=kind,
        scope=scope,
        project=project,
        created=STAMP,
        updated=STAMP,
        tags=tags,
        source=Source(kind="user"),
        status=status,
        triggers=triggers or Triggers(),
        body=body,
    )
    path = layout.record_path(layout.memory_root(home()), scope, project, record_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = render_record(record)
    path.write_bytes(data)
    return revision(data)


def env() -> dict[str, str]:
    """The environment a server process gets: the test's throwaway homes."""
    keep = ("HOME", "MEMHUB_HOME", "PATH", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME")
    return {name: os.environ[name] for name in keep if name in os.environ}


def stdio(folder: Path, *args: str) -> Client:
    """An SDK client of `memhub mcp serve --project folder ARGS` over stdio (a subprocess)."""
    params = StdioServerParameters(
        command=MEMHUB, args=["mcp", "serve", "--project", str(folder), *args], env=env()
    )
    return Client(params, read_timeout_seconds=60)


@dataclass
class HttpServer:
    """A `memhub mcp serve --http` process on a free loopback port."""

    process: subprocess.Popen[bytes]
    url: str
    key: str

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)


def start_http(folder: Path, *args: str, timeout: float = 60.0) -> HttpServer:
    """Start the HTTP server and wait for the line saying where it listens."""
    process = subprocess.Popen(
        [MEMHUB, "mcp", "serve", "--project", str(folder), "--http", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env(),
    )
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = process.stderr.readline().decode("utf-8", "replace")
        if not line and process.poll() is not None:
            break
        seen.append(line)
        found = re.search(r"serving (http://\S+)", line)
        if found:
            key = (home() / "mcp" / "http.key").read_text().strip()
            return HttpServer(process, found.group(1), key)
    process.kill()
    raise AssertionError(f"the HTTP server did not start: {''.join(seen)}")


@contextlib.contextmanager
def http_server(folder: Path, *args: str) -> Iterator[HttpServer]:
    server = start_http(folder, *args)
    try:
        yield server
    finally:
        server.stop()


@contextlib.asynccontextmanager
async def http_client(url: str, key: str | None) -> AsyncIterator[Client]:
    """An SDK client over streamable HTTP sending `Authorization: Bearer key`."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, read_timeout_seconds=60) as client:
            yield client


def data(result: Any) -> dict[str, Any]:
    """A successful tool result's structured content (which its text block repeats, with
    unreviewed text fenced: provenance.py)."""
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == fenced(result.structured_content)
    return result.structured_content


def error(result: Any) -> dict[str, Any]:
    """A tool error's {kind, message, fix}."""
    assert result.is_error, result
    return result.structured_content["error"]


def wire(result: Any) -> str:
    """Everything a client received from one call, as text (to look for leaks in)."""
    return json.dumps(result.model_dump(mode="json", by_alias=True), ensure_ascii=False)
