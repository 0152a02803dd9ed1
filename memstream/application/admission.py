"""How many searches a process answers at once, and how many it lets wait.

A search is CPU work: on a small machine a few at a time keep every core busy, and more
only wait. :class:`ReadAdmission` lets ``running`` searches run and ``waiting`` more
wait for a turn; one more is refused at once with :class:`Overloaded` (503 and
``Retry-After``), so a burst beyond capacity costs the callers it cannot serve a quick
answer instead of costing everyone a long queue.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from memstream.application.errors import Overloaded

__all__ = ["ReadAdmission"]


class ReadAdmission:
    """At most ``running`` reads at once and ``waiting`` more in line (see the module)."""

    def __init__(self, running: int, waiting: int) -> None:
        self._slots = asyncio.Semaphore(running)
        self._limit = waiting
        self._waiting = 0

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Run the block when a slot is free; Overloaded when the line is full."""
        if self._slots.locked() and self._waiting >= self._limit:
            raise Overloaded(
                f"memstream is answering all the searches it can ({self._limit} are "
                "waiting); try again in a second"
            )
        self._waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self._waiting -= 1
        try:
            yield
        finally:
            self._slots.release()
