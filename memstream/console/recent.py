"""Values worth keeping a few seconds: the console's counts, read again at most once
per interval however many pages ask (a million memories are not counted for every poll
of an open page)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["Recent"]


class Recent:
    """Each named value, kept ``seconds`` after it was read; one read at a time."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self._kept: dict[str, tuple[float, Any]] = {}
        self._lock = asyncio.Lock()

    async def get(self, name: str, read: Callable[[], Awaitable[Any]]) -> Any:
        """The value ``name`` names: the one kept if it is recent enough, else ``read()``."""
        async with self._lock:
            kept = self._kept.get(name)
            if kept is not None and self.clock() - kept[0] < self.seconds:
                return kept[1]
            value = await read()
            self._kept[name] = (self.clock(), value)
            return value
