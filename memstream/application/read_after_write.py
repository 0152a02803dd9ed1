"""Reads after writes: a read given a write token (``after_write``) answers once the
projections hold the write, or refuses after a bounded wait saying what is still pending.

The projections hold a write once the worker's checkpoint of every partition the token
names is at or past the write's offset (checkpoints are committed after the rows they
cover). A server reads through views that may be a moment old
(``api_read_consistency_seconds``), so once the checkpoints cover the token the views are
brought up to date before the read; the checkpoints read before that refresh are kept
(by :class:`~memstream.application.freshness_gauge.FreshnessGauge`, with those its
samples show the views hold), so a later read with a token they cover costs nothing. With
``wait="vectors"`` the read also waits until every memory of the user has its vector (a
deployment without an embedder has none to wait for).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from memstream.application.errors import Unavailable
from memstream.events.errors import InvalidQuery
from memstream.storage.log_records import Checkpoints
from memstream.storage.write_tokens import BadToken, WriteToken, behind, parse_token

__all__ = [
    "NotYetApplied",
    "WaitFor",
    "Waited",
    "read_token",
    "wait_for_write",
]

#: What a read waits for: the write applied, or its memories' vectors too.
WaitFor = Literal["applied", "vectors"]

_FIRST_POLL_SECONDS = 0.01
_LAST_POLL_SECONDS = 0.1


class NotYetApplied(Unavailable):
    """The write a read waits for is not applied yet (503 with ``Retry-After``)."""

    retry_after = 1


@dataclass(frozen=True)
class Waited:
    """How long a read waited for its write, and the checkpoints that covered it."""

    seconds: float
    checkpoints: Checkpoints


def read_token(text: str) -> WriteToken:
    """The token a caller passed back.

    Raises:
        InvalidQuery: it is not a token memstream gave.
    """
    try:
        return parse_token(text)
    except BadToken as exc:
        raise InvalidQuery(f"after_write: {exc}") from None


async def wait_for_write(
    token: WriteToken,
    checkpoints: Callable[[], Checkpoints],
    *,
    vectors_pending: Callable[[], int] | None = None,
    seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> Waited:
    """Wait until ``checkpoints()`` cover ``token`` (and, given ``vectors_pending``, until
    it answers 0); how long that took.

    Raises:
        NotYetApplied: not within ``seconds``, naming what is still pending.
    """
    started = clock()
    deadline = started + seconds
    pause = _FIRST_POLL_SECONDS
    while True:
        seen = await asyncio.to_thread(checkpoints)
        pending = behind(token, seen)
        vectors = 0
        if not pending and vectors_pending is not None:
            vectors = await asyncio.to_thread(vectors_pending)
        if not pending and not vectors:
            return Waited(clock() - started, seen)
        if clock() + pause > deadline:
            raise NotYetApplied(_still_pending(pending, vectors, seconds))
        await asyncio.sleep(pause)
        pause = min(pause * 2, _LAST_POLL_SECONDS)


def _still_pending(pending: dict[tuple[str, int], int], vectors: int, seconds: float) -> str:
    """What a read that waited ``seconds`` in vain still waits for."""
    if pending:
        parts = ", ".join(
            f"{topic} partition {partition}: {count:,} record{'s' if count != 1 else ''}"
            for (topic, partition), count in sorted(pending.items())
        )
        what = f"the write is not applied yet ({parts} to go)"
    else:
        what = f"the write is applied; {vectors:,} of the user's memories wait for their vector"
    return f"{what} after {seconds:g} s; ask again shortly"
