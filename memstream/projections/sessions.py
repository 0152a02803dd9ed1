"""Sessions in event time: their rows, how they merge, and when they close (pure).

A session row spans the event time of its turns (``first_at``..``last_at``) and records
how far the lifecycle jobs got: ``closed_through`` (turns up to there are final) and
``consolidated_through`` (facts extracted up to there). Every column merges by min or
max, so folding the same touches in any order, or twice, gives the same row: replaying
the log rebuilds the sessions whatever the interleaving of its topics.

``sessions_to_close`` is the closing rule, given the open sessions, the event-time
watermark of each partition and the processing time ``now``. A session closes when:

- a channel ended it (``session_ended``),
- its user started a newer session (first turn after this one's last),
- the partition's watermark moved ``gap`` past its last turn (event time), or
- no turn of it reached the log for ``idle`` of processing time (a quiet partition's
  watermark does not move, and a conversation must still close).

A job run as of a given time (``memstream jobs consolidate --now T``) passes T as
``event_now`` too: every partition's watermark is then taken to be at least T, so T is
the clock for every rule (a last session whose last turn is ``gap`` before T closes).

A turn that arrives for a closed session reopens it; the next closure covers the new
turns only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memstream.events.vocabulary import FactsConsolidated, SessionClosed, SessionCloseReason
from memstream.projections.lattice import greatest, least

__all__ = [
    "SessionTouch",
    "accept_consolidations",
    "coalesce_touches",
    "is_open",
    "merge_session_rows",
    "merge_sessions",
    "needs_consolidation",
    "session_key",
    "sessions_to_close",
]

Row = dict[str, Any]


def session_key(user_id: str, session_id: str) -> str:
    return f"{user_id}|{session_id}"


@dataclass(frozen=True, slots=True)
class SessionTouch:
    """What one event says about a session: a partial row to merge."""

    user_id: str
    session_id: str
    project_id: str | None = None
    first_at: datetime | None = None
    last_at: datetime | None = None
    ended_at: datetime | None = None
    closed_through: datetime | None = None
    closed_reason: str | None = None
    consolidated_through: datetime | None = None
    extractor: str | None = None
    log_received_at: datetime | None = None
    log_partition: int | None = None

    def row(self) -> Row:
        return {
            "session_key": session_key(self.user_id, self.session_id),
            "user_id": self.user_id,
            "session_id": self.session_id,
            "project_id": self.project_id,
            "first_at": self.first_at,
            "last_at": self.last_at,
            "ended_at": self.ended_at,
            "closed_through": self.closed_through,
            "closed_reason": self.closed_reason,
            "consolidated_through": self.consolidated_through,
            "extractor": self.extractor,
            "log_received_at": self.log_received_at,
            "log_partition": self.log_partition,
        }


def _greatest_pair(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    """The pair with the greater first value (ties: the smaller second, for determinism)."""
    if a[0] is None:
        return b
    if b[0] is None:
        return a
    if a[0] != b[0]:
        return a if a[0] > b[0] else b
    return a if (a[1] or "") <= (b[1] or "") else b


def merge_session_rows(a: Row, b: Row) -> Row:
    """The join of two rows of the same session (commutative, associative, idempotent)."""
    closed = _greatest_pair(
        (a["closed_through"], a["closed_reason"]), (b["closed_through"], b["closed_reason"])
    )
    consolidated = _greatest_pair(
        (a["consolidated_through"], a["extractor"]), (b["consolidated_through"], b["extractor"])
    )
    return {
        "session_key": a["session_key"],
        "user_id": a["user_id"],
        "session_id": a["session_id"],
        "project_id": least(a["project_id"], b["project_id"]),
        "first_at": least(a["first_at"], b["first_at"]),
        "last_at": greatest(a["last_at"], b["last_at"]),
        "ended_at": greatest(a["ended_at"], b["ended_at"]),
        "closed_through": closed[0],
        "closed_reason": closed[1],
        "consolidated_through": consolidated[0],
        "extractor": consolidated[1],
        "log_received_at": greatest(a["log_received_at"], b["log_received_at"]),
        "log_partition": greatest(a["log_partition"], b["log_partition"]),
    }


def merge_sessions(existing: Mapping[str, Row], touches: Iterable[SessionTouch]) -> dict[str, Row]:
    """The session rows ``touches`` change, merged into the ``existing`` rows by key."""
    changed: dict[str, Row] = {}
    for touch in touches:
        row = touch.row()
        key = row["session_key"]
        base = changed.get(key) or existing.get(key)
        changed[key] = row if base is None else merge_session_rows(base, row)
    return changed


def coalesce_touches(touches: Iterable[SessionTouch]) -> list[SessionTouch]:
    """One touch per session saying what all of ``touches`` say about it (pure).

    Merging rows is a join, so merging the coalesced touches gives the same rows as
    merging every touch: a batch of thousands of turns carries one touch per session.
    """
    return [
        SessionTouch(**{k: v for k, v in row.items() if k != "session_key"})
        for row in merge_sessions({}, touches).values()
    ]


def is_open(row: Mapping[str, Any]) -> bool:
    """True when the session has turns no closure covers yet."""
    if row["last_at"] is None:
        return False
    return row["closed_through"] is None or row["last_at"] > row["closed_through"]


def needs_consolidation(row: Mapping[str, Any]) -> bool:
    """True when closed turns of the session wait for consolidation."""
    closed = row["closed_through"]
    if closed is None:
        return False
    done = row["consolidated_through"]
    return done is None or closed > done


def sessions_to_close(
    rows: Iterable[Mapping[str, Any]],
    watermarks: Mapping[int, datetime],
    now: datetime,
    gap: timedelta,
    idle: timedelta,
    event_now: datetime | None = None,
) -> list[SessionClosed]:
    """The ``SessionClosed`` events the closing rule gives (see the module docstring)."""
    rows = list(rows)
    if event_now is not None:
        partitions = {r["log_partition"] for r in rows} | set(watermarks)
        watermarks = {p: max(watermarks.get(p, event_now), event_now) for p in partitions}
    open_rows = [r for r in rows if is_open(r)]
    newest_start: dict[str, list[datetime]] = {}
    for r in open_rows:
        if r["first_at"] is not None:
            newest_start.setdefault(r["user_id"], []).append(r["first_at"])
    closed: list[SessionClosed] = []
    for r in sorted(open_rows, key=lambda r: r["session_key"]):
        decision = _closing(r, newest_start.get(r["user_id"], []), watermarks, now, gap, idle)
        if decision is None:
            continue
        reason, closed_at = decision
        through: datetime = r["last_at"]
        closed.append(
            SessionClosed(
                event_id=f"closed|{r['user_id']}|{r['session_id']}|{through.isoformat()}",
                user_id=r["user_id"],
                project_id=r["project_id"],
                session_id=r["session_id"],
                reason=reason,
                first_at=r["first_at"] or through,
                through=through,
                closed_at=closed_at,
            )
        )
    return closed


def _closing(
    row: Mapping[str, Any],
    user_starts: list[datetime],
    watermarks: Mapping[int, datetime],
    now: datetime,
    gap: timedelta,
    idle: timedelta,
) -> tuple[SessionCloseReason, datetime] | None:
    last: datetime = row["last_at"]
    if row["ended_at"] is not None and row["ended_at"] >= last:
        return "ended", row["ended_at"]
    later = [start for start in user_starts if start > last]
    if later:
        return "new_session", min(later)
    watermark = watermarks.get(row["log_partition"]) if row["log_partition"] is not None else None
    if watermark is not None and watermark - last >= gap:
        return "gap", watermark
    received = row["log_received_at"]
    if received is not None and now - received >= idle:
        return "idle", now
    return None


def accept_consolidations(
    existing: Mapping[str, Mapping[str, Any]], events: Iterable[FactsConsolidated]
) -> tuple[list[FactsConsolidated], list[SessionTouch]]:
    """The consolidations to apply, in log order: one per closure of a session (a second
    one for turns already consolidated, from a job run twice, is dropped), and the
    session touches that record them."""
    done: dict[str, Any] = {k: r["consolidated_through"] for k, r in existing.items()}
    accepted: list[FactsConsolidated] = []
    touches: list[SessionTouch] = []
    for event in events:
        key = session_key(event.user_id, event.session_id)
        previous = done.get(key)
        if previous is not None and previous >= event.through:
            continue
        done[key] = event.through
        accepted.append(event)
        touches.append(
            SessionTouch(
                event.user_id,
                event.session_id,
                consolidated_through=event.through,
                extractor=event.extractor,
            )
        )
    return accepted, touches
