"""memhub's MCP server over the memory service (`memhub mcp serve`): tools.py and writetools.py
hold the tools, app.py the SDK wiring and stdio, http.py loopback HTTP, auth.py its key.
Not vendored into bundles (it needs the `mcp` SDK)."""
