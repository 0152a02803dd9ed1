"""The API process's own health: ``/readyz``'s checks (the broker answers, the
projections can be read, the workers are within ``ready_max_lag`` records of the log),
answered again at most every two seconds."""

from __future__ import annotations

import asyncio
import time

from memstream.application import Operations
from memstream.queries.stats import lag

__all__ = ["ApiReadiness"]


class ApiReadiness:
    """``/readyz`` of the API: its checks, answered again at most every two seconds."""

    def __init__(self, operations: Operations, cache_seconds: float = 2.0) -> None:
        self._ops = operations
        self._cache_seconds = cache_seconds
        self._last: tuple[float, dict[str, str]] | None = None
        self._lock = asyncio.Lock()

    async def problems(self) -> dict[str, str]:
        async with self._lock:
            now = time.monotonic()
            if self._last is None or now - self._last[0] >= self._cache_seconds:
                self._last = (now, await self._check())
            return self._last[1]

    async def _check(self) -> dict[str, str]:
        found: dict[str, str] = {}
        store = self._ops.store
        try:
            checkpoints = await asyncio.to_thread(store.load_checkpoints)
        except Exception as exc:
            found["store"] = f"the projections cannot be read: {type(exc).__name__}: {exc}"
            checkpoints = None
        offsets, epoch = await self._ops.reads.log_position(timeout=2.0)
        if offsets is None:
            found["broker"] = f"the broker at {self._ops.settings.bootstrap} does not answer"
        elif checkpoints is not None:
            waiting = lag(checkpoints, offsets, epoch)
            most = self._ops.settings.ready_max_lag
            if waiting > most:
                found["consumer"] = (
                    f"{waiting} records wait to be applied (ready at {most} or fewer: "
                    "MEMSTREAM_READY_MAX_LAG)"
                )
        return found


#: What a read can answer besides its own codes; a write adds the log's refusals.
