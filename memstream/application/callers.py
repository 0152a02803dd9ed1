"""Who asked for a change or a read of memory: the front door it came through, and the API key
(id and tenant) that door checked, if any.

Every change the operations layer publishes (publish, remember, correct, confirm,
forget, restore, erase, a consolidation asked for) is written to the audit log
(:mod:`memstream.tenancy.audit`) by the operations layer itself, with its caller, so
changes through the HTTP API, MCP (over HTTP or stdio) and the command line are audited
alike: the front doors only say who is asking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["LOCAL", "Caller", "Door"]

Door = Literal["api", "mcp", "cli", "console"]


@dataclass(frozen=True)
class Caller:
    """A change's or a read's caller: the ``door`` it came through, and the key that
    door checked (``key_id`` and ``tenant`` are None on a server without keys, and on
    this machine's command line and stdio MCP server, which act with the data folder's
    own rights); the agent and its session, when the caller names them (what it was
    shown is recorded under them: :mod:`memstream.application.served_log`)."""

    door: Door
    key_id: str | None = None
    tenant: str | None = None
    agent: str | None = None
    session_id: str | None = None


#: The command line of this machine: no key.
LOCAL = Caller("cli")
