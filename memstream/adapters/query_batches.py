"""The queries of searches made at the same moment, embedded in one call of the model.

A model embeds several short texts in one call for less than it takes to embed them one
by one (MiniLM on one thread, per query: 5.9 ms alone, 4.3 in fours, 3.8 in eights).
:class:`QueryBatcher` gives that to concurrent searches without making a lone search
wait: a caller that finds the model idle runs it at once on its own query; callers that
arrive while it runs leave their query and wait; when the call ends, the first of them
runs the model on every query left meanwhile (up to ``max_batch``), and so on. No
caller waits for a timer, and a caller runs the model for others at most once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["QueryBatcher"]


class _Waiting:
    """One caller's query, and what it is told: its vector, an error, or to lead."""

    __slots__ = ("error", "lead", "text", "vector", "woken")

    def __init__(self, text: str) -> None:
        self.text = text
        self.vector: np.ndarray | None = None
        self.error: BaseException | None = None
        self.lead = False
        self.woken = threading.Event()


class QueryBatcher:
    """Embeds each caller's query with ``embed_many``, batching concurrent callers (see
    the module docstring).

    Args:
        embed_many: embeds a list of queries (one vector per query, in order).
        max_batch: most queries in one call.
    """

    def __init__(
        self, embed_many: Callable[[Sequence[str]], np.ndarray], max_batch: int = 16
    ) -> None:
        self._embed_many = embed_many
        self._max_batch = max_batch
        self._lock = threading.Lock()
        self._waiting: list[_Waiting] = []
        self._running = False
        #: calls of the model so far, and texts embedded by them
        self.calls = 0
        self.texts = 0

    def __call__(self, text: str) -> np.ndarray:
        mine = _Waiting(text)
        with self._lock:
            self._waiting.append(mine)
            mine.lead = not self._running
            self._running = True
        while True:
            if mine.lead:
                mine.lead = False
                self._run_once()
            if mine.vector is not None:
                return mine.vector
            if mine.error is not None:
                raise mine.error
            mine.woken.wait()
            mine.woken.clear()

    def _run_once(self) -> None:
        """Embed the queries waiting (the leader's among them, first), answer their
        callers, then hand the model to the first caller still waiting, if any."""
        with self._lock:
            batch = self._waiting[: self._max_batch]
            del self._waiting[: self._max_batch]
        try:
            vectors: Any = self._embed_many([w.text for w in batch])
            self.calls += 1
            self.texts += len(batch)
            for waiting, vector in zip(batch, vectors, strict=True):
                waiting.vector = vector
        except BaseException as error:  # every caller of the batch hears of it
            for waiting in batch:
                waiting.error = error
        for waiting in batch:
            waiting.woken.set()
        with self._lock:
            if self._waiting:
                following = self._waiting[0]
                following.lead = True
                following.woken.set()
            else:
                self._running = False
