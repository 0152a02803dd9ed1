"""Waiting for a write to be applied: memstream accepts an event at once and its worker
applies it shortly after, and a framework's memory interface promises that a read after
a write sees it. A write answers a token (where in the log it was put); a read given it
answers once the worker has applied it, so nothing here polls the data."""

from __future__ import annotations

import time

from memstream.client import MemoryClient, MemstreamAPIError

__all__ = ["until_applied"]


def until_applied(
    client: MemoryClient, user_id: str, token: str, seconds: float, what: str
) -> None:
    """Return once the worker has applied the write ``token`` names (of ``user_id``);
    raise TimeoutError naming ``what`` after ``seconds``.

    The server waits a bounded time for each ask (``read_after_write_seconds``) and
    answers 503 while the write is not applied; the ask is repeated until ``seconds``.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            client.freshness(user_id, after_write=token)
            return
        except MemstreamAPIError as exc:
            if exc.status != 503 or time.monotonic() > deadline:
                if exc.status == 503:
                    raise TimeoutError(
                        f"memstream accepted {what} but did not apply it within {seconds:g} s: "
                        "is its worker running?"
                    ) from None
                raise
