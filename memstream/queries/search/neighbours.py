"""Where a turn stands in its session, and a search score shared with the turns beside
it (pure).

A conversation answers across turns: a question is asked in one turn and answered in
the next, a story is told over three. A search that finds one of them has found the
place, so the turns near a found turn in its session get a share of its score
("spreading"): each turn gets, from each side, ``share`` of the best score found among
the ``reach`` turns on that side. A turn found on its own and as a neighbour adds
both; a neighbour that was not found at all enters the ranking with its share alone.

Only the best of each side counts, so a turn gets at most two shares however many of
its neighbours were found: summing the shares of all four within two turns let a turn
amid found ones outrank the best match itself in a small store, where most turns are
found. On LoCoMo (main recall@10, tuning / checking half, in process) a reach of two
turns, best per side, moved 0.768 / 0.757 to 0.773 / 0.765 (aged store 0.759 / 0.748
to 0.773 / 0.759; e5-small 0.779 / 0.766 to 0.782 / 0.769); with reach one it is the
old spreading to the turn just before and after.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["SessionOrder", "spread"]


@dataclass(frozen=True)
class SessionOrder:
    """The turns of some sessions in the order they were said.

    Attributes:
        position: each turn's memory id -> (session id, index in the session).
        at: (session id, index) -> that turn's memory id.
    """

    position: Mapping[str, tuple[str, int]]
    at: Mapping[tuple[str, int], str]

    @classmethod
    def of(cls, turns: Iterable[Mapping[str, Any]]) -> SessionOrder:
        """The order of ``turns`` (rows with ``memory_id``, ``session_id`` and
        ``occurred_at``) within each session: by time, then by memory id. Rows without
        a session are left out."""
        ordered = sorted(
            (r for r in turns if r.get("session_id")),
            key=lambda r: (r["session_id"], _seconds(r["occurred_at"]), r["memory_id"]),
        )
        return cls.of_sorted([r["memory_id"] for r in ordered], [r["session_id"] for r in ordered])

    @classmethod
    def of_sorted(cls, memory_ids: Sequence[str], sessions: Sequence[str | None]) -> SessionOrder:
        """The order of turns given already sorted by session, then as said."""
        position: dict[str, tuple[str, int]] = {}
        at: dict[tuple[str, int], str] = {}
        current, index = None, 0
        for memory_id, session in zip(memory_ids, sessions, strict=True):
            if session is None:
                continue
            if session != current:
                current, index = session, 0
            position[memory_id] = (session, index)
            at[(session, index)] = memory_id
            index += 1
        return cls(position, at)

    def neighbours(self, memory_id: str, reach: int = 1) -> list[str]:
        """The turns up to ``reach`` before and after ``memory_id`` in its session, in
        the order said (none when it is not a turn of these sessions)."""
        place = self.position.get(memory_id)
        if place is None:
            return []
        session, index = place
        around = [d for d in range(-reach, reach + 1) if d != 0]
        return [m for d in around if (m := self.at.get((session, index + d))) is not None]


def spread(
    scores: Mapping[str, float], order: SessionOrder, share: float, reach: int = 2
) -> dict[str, float]:
    """``scores`` after each turn got ``share`` of the best score among the ``reach``
    turns before it and ``share`` of the best among the ``reach`` after it (``share``
    or ``reach`` 0 changes nothing). Only the scores found are spread: a neighbour's
    new score does not spread again."""
    out = dict(scores)
    if share <= 0:
        return out
    best: dict[tuple[str, bool], float] = {}  # (turn, whether it came from before) -> best
    for memory_id, score in scores.items():
        for neighbour in order.neighbours(memory_id, reach):
            key = (neighbour, order.position[neighbour] > order.position[memory_id])
            best[key] = max(best.get(key, 0.0), score)
    for (neighbour, _), score in best.items():
        out[neighbour] = out.get(neighbour, 0.0) + share * score
    return out


def _seconds(at: datetime | None) -> float:
    return at.timestamp() if at is not None else float("-inf")
