"""The MCP server over the memory service (reserved; the memory issue fills it)."""
