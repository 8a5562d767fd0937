"""Cursor's host-only MCP server keys (compiler/hosts/server_extras.py).

Cursor's `mcpServers` entries are written by cursor.py; this module lists what a hub server
may add for Cursor alone under `extra: {cursor: ...}`: `envFile`, a file of variables Cursor
loads for a stdio server.
"""

from __future__ import annotations

EXTRA_KEYS = {"envFile": "string"}
