"""MCP servers as connectors: each configured server's tools, namespaced, behind the gate."""
