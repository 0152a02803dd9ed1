"""The MCP front door: memory tools for agents, over stdio (``memstream mcp``) and over
streamable HTTP on the API (``/mcp``)."""

__all__ = ["config", "http", "scope", "server", "tools"]
