"""The MCP server: memory tools and resources for agents, each a thin call into
:class:`~memstream.application.Operations`.

The user (and project) a server acts for is bound outside the model's reach: when it
starts (``memstream mcp --user ana`` over stdio), or by the URL an agent is configured
with (``/mcp?user_id=ana`` on the API, see :mod:`memstream.mcp.http`). No tool takes a
user argument, so a model can never read or write another user's memory. The resources
are the entity profiles (``memstream://entities/{name}``) and, on a server bound at start,
the user's statistics (``memstream://stats``; over HTTP the ``memory_stats`` tool answers
the same, as the SDK gives a static resource no request to read a URL from). What an operation
refuses (a bad argument, an unknown memory, the log unavailable) comes back as an MCP
tool error naming the problem, never a traceback; so does an argument a tool does not
take, or a value out of its range (``limit`` is 1 to 50).
"""

from __future__ import annotations

import logging
from importlib.metadata import version
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from memstream.application import Operations
from memstream.events.problems import problems_of
from memstream.mcp.scope import Scope, ScopeOf
from memstream.mcp.tools import TOOLS, MemoryTools, answered, jsonable

__all__ = ["memory_server"]

log = logging.getLogger(__name__)


_INSTRUCTIONS = (
    "Long-term memory of the user you are talking with. Call get_context with the user's "
    "message before you answer; search_memory to look something up; remember_fact when the "
    "user states something worth keeping; correct_fact, confirm_fact or forget_memory when "
    "they say a memory is wrong, right or to be forgotten (by its memory_id)."
)


class _StrictServer(MCPServer):
    """An MCP server whose tools refuse arguments they do not take (a model that sends
    ``k`` for ``limit`` learns so, instead of getting the default silently) and report
    bad values in one line per argument, not a validation dump."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            taken = list(tool.parameters.get("properties", {}))
            unknown = sorted(set(arguments) - set(taken))
            if unknown:
                raise ToolError(
                    f"{name} takes no argument {', '.join(unknown)}; its arguments are "
                    f"{', '.join(taken) or 'none'}"
                )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                problems = "; ".join(problems_of(exc.__cause__))
                raise ToolError(f"{name}: {problems}") from exc.__cause__
            raise


def memory_server(operations: Operations, scope: Scope | ScopeOf) -> MCPServer:
    """An MCP server over ``operations`` acting for ``scope``: one user (and project)
    bound at start, or a function that finds each call's scope
    (:func:`~memstream.mcp.scope.scope_of_request`)."""
    server = _StrictServer(
        name="memstream",
        title="memstream",
        instructions=_INSTRUCTIONS,
        version=version("memstream"),
    )
    ops = operations
    scope_of: ScopeOf = (lambda _: scope) if isinstance(scope, Scope) else scope
    tools = MemoryTools(operations, scope_of, reads_files=isinstance(scope, Scope))
    for name in TOOLS:
        server.tool()(getattr(tools, name))
    here = tools.here

    if isinstance(scope, Scope):  # the SDK reads a static resource with no request

        @server.resource("memstream://stats", mime_type="application/json")
        async def stats_resource() -> dict[str, Any]:
            """The user's memory statistics."""
            return jsonable(await answered(ops.reads.stats(scope.user_id)))

    @server.resource("memstream://entities/{name}", mime_type="application/json")
    async def entity_resource(name: str, ctx: Context) -> dict[str, Any]:
        """An entity's profile."""
        return jsonable(
            await answered(ops.reads.entity(here(ctx).user_id, name, here(ctx).project_id))
        )

    return server
