"""The MCP front door: ``memstream mcp`` serves memory tools to agents over stdio."""

__all__ = ["server"]
